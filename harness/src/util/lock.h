/*
 * lock: advisory whole-file locks that serialise hilbench processes sharing
 * one cache (kernel builds, the DUT userland, the emulator build).
 *
 * Contract: lock_wait() opens (creating) path and takes an exclusive flock,
 * waiting for another holder and saying so once with hb_info("waiting for
 * <what> (<path>)"); it returns the descriptor to close() to release, or -1
 * with a message (the file cannot be opened, or a signal interrupted the
 * wait: Ctrl-C). The lock goes with the process: a killed holder releases it.
 */
#ifndef HB_LOCK_H
#define HB_LOCK_H

int lock_wait(const char *path, const char *what);

/* The host's turn: who may load this host's CPUs while a measurement
 * runs on them. Work whose numbers are the DUT's own clock's (a boot, a run
 * paced by the DUT in virtual time) shares the host; a run the host's pace
 * is in (TCP, real time) has it alone, since another emulator beside it
 * changes when the host answers in the DUT's time (docs/measurements.md,
 * "The main job with the host acking every segment"). Two flock()ed files
 * in the cache, <cache>/host.lock and <cache>/host.gate, so every hilbench
 * sharing the cache takes turns. A run that asks to be alone waits for the
 * shared users of the moment to end, and from its asking on no new one
 * starts (they wait at the gate): it is not starved.
 *
 * Contract: lock_host_turn() takes the turn, alone or shared; with wait 0
 * it returns 1 at once where it would have to wait (holding nothing), so
 * the caller can freeze its emulator first; with wait 1 it waits. 0 once
 * taken; -1 with a message (a lock file cannot be opened, a signal ended
 * the wait). lock_host_turn_end() gives it back; idempotent. A process
 * holds one turn at a time (two would deadlock against an alone waiter). */
struct host_turn {
	int host, gate;	/* -1: not held */
};
#define HOST_TURN_NONE { -1, -1 }
int lock_host_turn(struct host_turn *t, int alone, int wait);
void lock_host_turn_end(struct host_turn *t);

/* The cache's compile lock (<cache>/compile.lock): one full kernel or
 * emulator build at a time per cache, since each uses every core. */
int lock_compile(void);

#endif
