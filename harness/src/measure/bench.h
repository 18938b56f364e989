/*
 * bench: runs a plan: for each board and strategy, build (cached), boot
 * once, then repetitions x workloads, every run stored as it finishes; then
 * each sweep (docs/knobs.md): per strategy one boot for all its points,
 * repetitions x points x workloads, each point's runtime settings applied
 * before each of its runs.
 *
 * Contract: bench_run_plan() returns HB_EXIT_OK when every run passed,
 * HB_EXIT_INFRA when some could not be measured (each is stored with its
 * class and reason), HB_EXIT_USAGE for input errors found before anything
 * ran. A run that finished is in the store even if a later one breaks, the
 * board hangs or the user presses Ctrl-C.
 *
 * Faults (docs/faults.md): a run or boot that fails for infrastructure
 * reasons (class error) is retried on a fresh boot, up to o->attempts tries,
 * each failed try stored with "retried" in its reason; deterministic
 * failures (build, panic, the DUT's own errors) are not; nor is a lab that
 * cannot take boots (DUT_BOOT_LAB_UNAVAILABLE: its client retried already),
 * which stops the plan after storing that run as error. A failed run ends
 * its boot; in a sweep the runs after it go on on a fresh boot, at most
 * BENCH_SWEEP_REBOOTS times per cell, the rest then stored "not run". A
 * store that cannot take runs (locked, file system full) stops the plan
 * with the runs so far intact; a finished run it could not take keeps its
 * row in its directory (store/runfile.h). With o->resume such rows are
 * imported first, then the plan continues an earlier session: runs it
 * already has as pass are skipped, the rest run under the same session.
 */
#ifndef HB_BENCH_H
#define HB_BENCH_H

#include "build/emulator.h"
#include "build/kernel.h"
#include "build/userland.h"
#include "config/plan.h"
#include "store/store.h"

/* Tries per run when it fails for infrastructure reasons (boot timeout, the
 * emulator or the console gone, the host's iperf side failing). */
#define BENCH_ATTEMPTS 3
/* Fresh boots a sweep cell may take after failed runs to go on with its
 * later points (a sweep's boot holds all of them); the failed runs keep
 * their class and reason. */
#define BENCH_SWEEP_REBOOTS 2

struct bench_opts {
	struct strlist user_patches;	/* --patch, applied on every strategy */
	const char *series;		/* kernel series; NULL = the board's first,
					 * or with kernel_src the tree's own */
	const char *kernel_src;		/* --kernel-src: a user's tree or tarball */
	int from_scratch;		/* build_request.from_scratch */
	int attempts;			/* --attempts; 0 = BENCH_ATTEMPTS */
	const char *resume;		/* --resume: a session id or "latest"; NULL = new */
	const char *revision;		/* e.g. g<commit> of --kernel-git: stored runs'
					 * kernel_version is "<version>+<revision>" */
};

/* 0 if the board lists this kernel series, else -1 with the message. */
int bench_check_series(const struct board *b, const char *series);
/* Kernel + initramfs for one board/strategy, and with e the emulator the
 * board names (all cached); HB_EXIT_USAGE for a series the board does not
 * list, a patch that does not apply or a bad emulator file. */
int bench_prepare(const struct board *b, const char *series, const char *strategy,
		  const struct bench_opts *o, struct build_result *k, struct userland_result *u,
		  struct emulator_result *e);
/* The emulator of the board's deploy.qemu.emulator, built once per cache;
 * e->binary NULL (and 0) for a board that runs an installed QEMU. */
int bench_emulator(const struct board *b, struct emulator_result *e);
/* The kernel command line: the board's, plus what the agent needs. */
char *bench_cmdline(const struct board *b);

int bench_run_plan(const struct plan *p, struct store *s, const struct bench_opts *o,
		   char session[40]);

#endif
