/*
 * dut: a booted board, whatever the backend, and its console.
 *
 * Every backend (qemu, lava-local, lava) implements struct deploy_ops in a
 * file of its own, which registers it (DEPLOY_BACKEND, below: a board can
 * then name it as deploy.backend), and hands back the console as a pair of
 * fds; everything above that (waiting
 * for the agent, the line protocol, health scanning) is shared here, so the
 * agent and its protocol are the same on every board.
 *
 * Contract (docs/design.md, "Errors"): dut_boot() returns 0 once the agent
 * said HB READY, else HB_FAIL_DUT (the DUT misbehaved: panic, no driver, no
 * link; reason in d->health), -1 (infrastructure: emulator would not start,
 * timeout, interrupted) or HB_FAIL_LAB (infrastructure that a new boot
 * would meet again: the lab's server unreachable after its client's own
 * retries, or refusing the job or the device; reason in d->health).
 * dut_shutdown() always stops the backend and is idempotent. The whole
 * console is appended to the log given to dut_boot().
 */
#ifndef HB_DUT_H
#define HB_DUT_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "config/board.h"
#include "config/driver.h"
#include "config/plan.h"
#include "config/workload.h"

struct dut_image {
	const char *kernel;
	const char *dtb;
	const char *initrd;
	const char *cmdline;	/* complete, including hb.* parameters */
	/* The first run of this boot. A backend whose boot is a LAVA job
	 * (one_run_per_boot) renders it into the job; others ignore it. */
	const struct workload *workload;
	const char *run_id;
	const char *series, *strategy;	/* for the job's metadata */
	/* The driver the strategy's patches change (drivers/<name>.yaml),
	 * what the runs' metrics and profiler read; NULL: none (a boot that
	 * runs nothing). */
	const struct driver *driver;
	/* The emulator hilbench built for the board (build/emulator.h) and its
	 * provenance line; NULL: the board's deploy.qemu.binary. */
	const char *emulator, *emulator_provenance;
	/* The emulator's instruction-count plugin (build/insn_plugin.h) and
	 * the kernel's System.map it names functions by; NULL: not loaded. */
	const char *insn_plugin, *system_map;
	/* The driver's own functions, a name a line (build/symbols.h), which
	 * the plugin adds up apart; NULL: not apart. */
	const char *driver_functions;
	/* Save the booted DUT into save->fd once its agent is ready, before any
	 * run (deploy_ops.save), and fill in the rest of *save; NULL: do not. */
	struct dut_saved *save;
	/* Start from this saved DUT instead of booting; NULL: boot. */
	const struct dut_saved *resume;
};

/* A booted DUT saved before its first run, from which later boots of the
 * same images start (docs/measurements.md, "Repetitions from a saved
 * boot"): the file it is in, read from offset 0 by each start (an
 * anonymous one: it goes with the last process that holds it), the boot
 * it came from and what that boot's agent said. */
struct dut_saved {
	int fd;
	char boot_id[40];
	char kernel_release[128];
	char driver[64];
	int speed;
};

struct dut;

struct deploy_ops {
	const char *name;
	/* Power on; on success d->con_rd/con_wr carry the console. -1, or
	 * HB_FAIL_LAB when the lab cannot take a boot now (why in d->health). */
	int (*start)(struct dut *d, const struct dut_image *img);
	/* Power off and release everything; idempotent. */
	void (*stop)(struct dut *d);
	/* "qemu-system-arm 7.2.x" and the like, for provenance. */
	const char *(*version)(struct dut *d);
	/* Each boot serves one run (a LAVA job boots, runs, and ends), so the
	 * caller boots once per run and fills dut_image.workload/run_id. */
	int one_run_per_boot;
	/* How many boots of b the lab can start at once now, each on a link
	 * of its own, >= 1 (the lava backend: the idle devices of the board's
	 * device type that have a traffic peer each); *cap: the most that may
	 * ever be in flight (1 when they would share one peer). NULL: 1. The
	 * executor keeps that many one-run boots in flight, or --max-jobs up
	 * to *cap (run/executor.h, "Fan-out"). */
	int (*slots)(const struct board *b, int *cap);
	/* Freeze (on 1) or go on with (on 0) a DUT that runs on this host's
	 * CPUs, its clock with it: in virtual time the guest cannot tell. A
	 * backend that implements it is one whose DUTs take the host's turns
	 * (util/lock.h); NULL: its DUTs do not load this host. */
	void (*hold)(struct dut *d, int on);
	/* The agent said READY: what the backend starts only now (the qemu
	 * backend's instruction counter); 0, or -1 with why in d->health
	 * (the boot fails as the infrastructure's). NULL: nothing. */
	int (*ready)(struct dut *d);
	/* Save the running DUT into the file fd from its start and let it run
	 * on; 0, or -1 with the error said. A backend with it also starts from
	 * dut_image.resume; NULL: its DUTs boot every time. */
	int (*save)(struct dut *d, int fd);
	/* Its emulator records every frame of the DUT's link (dut.netdev_pcap):
	 * the metrics that need a link record (store/metrics.h) come from it. */
	int records_link;
};

struct dut {
	const struct board *board;
	const struct deploy_ops *ops;
	void *priv;			/* backend state */
	enum timing_mode timing;
	const char *workdir;		/* where the backend may write files */
	int con_rd, con_wr;
	FILE *log;
	char buf[16384];
	size_t blen;
	char health[512];		/* the most telling panic/oops/watchdog line, "" if none */
	int console_closed;		/* EOF on the console: the emulator exited, the
					 * board reset, or the console server went away */
	char kernel_release[128];
	/* A pcap file the backend's emulator appends every frame of the DUT's
	 * link to (QEMU filter-dump), "" if it keeps none. */
	char netdev_pcap[512];
	/* The emulator's instruction counts of the last window the agent
	 * marked (harness/plugin/hb-insn.c); "" when it does not count. */
	char insn_window[512];
	char driver[64];		/* the agent's READY: the bound driver, e.g. dwmac-sun8i */
	int speed;
	const struct driver *under_test;	/* dut_image.driver */
	int saved;			/* dut_image.save was written */
};

/* Set by a SIGINT/SIGTERM handler: waits return promptly, nothing is lost. */
extern volatile sig_atomic_t hb_interrupted;
void hb_install_interrupt_handlers(void);

/* What read_within() returns when no bytes came. */
enum read_within_end {
	READ_NONE_IN_TIME = 0,
	READ_CLOSED = -1,	/* end of file, or an error (errno) */
	READ_INTERRUPTED = -2,	/* hb_interrupted was set */
};
/* Up to len bytes of fd as soon as any come before deadline (monotonic_s()):
 * how many, or an enum read_within_end. Retries EINTR. Every wait of the
 * deploy stage on an emulator's or a DUT's descriptor goes through it. */
ssize_t read_within(int fd, void *buf, size_t len, double deadline);

/* The backend boards name as deploy.backend; NULL for none. */
const struct deploy_ops *deploy_backend(const char *name);
/* Makes ops a backend: each backend's file does it before main() runs,
 * through DEPLOY_BACKEND(its ops), so adding one touches no other file. */
void deploy_register(const struct deploy_ops *ops);
#define DEPLOY_BACKEND(ops)                                                     \
	__attribute__((constructor)) static void deploy_register_##ops(void)   \
	{                                                                       \
		deploy_register(&ops);                                          \
	}
/* Puts ops in place of the built-in backend of the same name for every
 * later boot; NULL puts the built-in ones back. How a unit test boots a
 * board file through a test double of its backend. */
void deploy_substitute(const struct deploy_ops *ops);

int dut_boot(struct dut *d, const struct board *b, const struct dut_image *img,
	     enum timing_mode t, const char *workdir, const char *console_log);
int dut_send(struct dut *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Next protocol line ("HB ..." with the prefix removed): 1, 0 on timeout,
 * -1 when the console closed (the DUT died) or the run was interrupted. */
int dut_read_line(struct dut *d, char *line, size_t len, double timeout_s);
void dut_shutdown(struct dut *d);
/* deploy_ops.hold, where the backend has it and the DUT is up. */
void dut_hold(struct dut *d, int on);

/* The sign of a misbehaving DUT in a console or kernel-log line (a panic,
 * an oops, NETDEV WATCHDOG, a WARNING...), or NULL: a run that saw one fails. */
const char *dut_health_sign(const char *line);
/* Keeps in health the most informative sign line seen so far (a kernel BUG
 * at over its cut-here marker; the first of equals): line replaces it when
 * it ranks higher. A health that holds no sign (set by other code) stays. */
void dut_health_note(char *health, size_t len, const char *line);

/* key=value lookup in a protocol line; copies into out, 0 if absent. */
int proto_get(const char *line, const char *key, char *out, size_t outlen);
/* A key's value as a whole decimal number no greater than max
 * (parse_uint); 0 if absent, too long to be one, or anything else. */
int proto_get_uint(const char *line, const char *key, unsigned long long max,
		   unsigned long long *v);

#endif
