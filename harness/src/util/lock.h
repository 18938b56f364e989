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

/* The cache's compile lock (<cache>/compile.lock): one full kernel or
 * emulator build at a time per cache, since each uses every core. */
int lock_compile(void);

#endif
