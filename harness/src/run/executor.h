/*
 * executor: runs a plan: for each board and strategy, build (cached), boot
 * once, then repetitions x workloads, every run stored as it finishes (with
 * `boots: per-repetition`, a boot per repetition and kind of workload: its
 * DUT-paced ones, then in a boot of their own its others (TCP, what the
 * host sends); a run of the other kind before it in a boot moved the
 * numbers: docs/measurements.md, "Independent repetitions in --fixed");
 * then
 * each sweep (docs/knobs.md): per strategy one boot for all its points,
 * repetitions x points x workloads, each point's runtime settings applied
 * before each of its runs.
 *
 * Contract: executor_run_plan() returns 0 when every run passed, -1
 * (HB_FAIL) when some could not be measured (each is stored with its class
 * and reason) or the store failed, HB_FAIL_INPUT for input errors found
 * before anything ran (the message printed). A run that finished is in the store even if a later one breaks, the
 * board hangs or the user presses Ctrl-C.
 *
 * Faults (docs/faults.md): a run or boot that fails for infrastructure
 * reasons (class error) is retried on a fresh boot, up to o->attempts tries,
 * each failed try stored with "retried" in its reason; deterministic
 * failures (build, panic, the DUT's own errors) are not; nor is a lab that
 * cannot take boots (HB_FAIL_LAB from dut_boot(): its client retried already),
 * which stops the plan after storing that run as error. A failed run ends
 * its boot; in a sweep the runs after it go on on a fresh boot, at most
 * EXECUTOR_SWEEP_REBOOTS times per cell, the rest then stored "not run". A
 * store that cannot take runs (locked, file system full) stops the plan
 * with the runs so far intact; a finished run it could not take keeps its
 * row in its directory (store/runfile.h). With o->resume such rows are
 * imported first, then the plan continues an earlier session: runs it
 * already has as pass are skipped, the rest run under the same session.
 *
 * Fan-out: a backend that boots once per run (a LAVA job each) keeps up to
 * o->max_jobs boots in flight, or as many as its deploy_ops.slots() says
 * the lab can start at once (the idle devices of a LAVA device type that
 * have a traffic peer each), never more than the slots' cap; each in a
 * process of its own (run/pool.h) that boots, runs, stores its run
 * through its own store connection the moment the job ends (retrying as
 * above) and tells the plan what it stored. SIGINT or SIGTERM reaches every such process
 * (forwarded once), which ends its job (a LAVA job is canceled); the runs
 * not started are stored as not run. A lab that cannot take boots in one
 * stops the plan: no new boot starts, those in flight end theirs.
 *
 * The host's turns (util/lock.h): on a backend whose DUTs run on this
 * host's CPUs (deploy_ops.hold: the emulator) a boot and a DUT-paced run
 * in virtual time share the host with other such work of any hilbench
 * process of the cache, and the others (TCP, UDP the host sends) and
 * real-time runs have it alone (measure/crosscheck.h);
 * a booted DUT waiting for its turn is held, its clock stopped. A run's
 * `started` is when it had its turn.
 *
 * The build and the run of one workload are steps in struct exec_stages,
 * so that unit tests drive this loop with no kernel to build and no
 * traffic to send (the boot is deploy/dut.h's, through a deploy backend).
 */
#ifndef HB_EXECUTOR_H
#define HB_EXECUTOR_H

#include "build/emulator.h"
#include "build/kernel.h"
#include "build/userland.h"
#include "config/plan.h"
#include "deploy/dut.h"
#include "measure/runner.h"
#include "run/progress.h"
#include "store/store.h"

/* Tries per run when it fails for infrastructure reasons (boot timeout, the
 * emulator or the console gone, the host's iperf side failing). */
#define EXECUTOR_ATTEMPTS 3
/* Fresh boots a sweep cell may take after failed runs to go on with its
 * later points (a sweep's boot holds all of them); the failed runs keep
 * their class and reason. */
#define EXECUTOR_SWEEP_REBOOTS 2
/* The most one-run boots in flight at once (--max-jobs, a lab's idle devices). */
#define EXECUTOR_MAX_JOBS 64

struct exec_stages;
struct git_revision;

struct exec_opts {
	struct strlist user_patches;	/* --patch, applied on every strategy */
	const char *series;		/* kernel series; NULL = the board's first,
					 * or with kernel_src the tree's own */
	const char *kernel_src;		/* --kernel-src: a user's tree or tarball */
	int from_scratch;		/* build_request.from_scratch */
	int attempts;			/* --attempts; 0 = EXECUTOR_ATTEMPTS */
	const char *resume;		/* --resume: a session id or "latest"; NULL = new */
	/* --kernel-git's revision (build/gitsource.h): stored runs'
	 * kernel_version is "<version>+g<commit>", and their patch layer of
	 * the revision names its repository's URL; NULL: none */
	const struct git_revision *revision;
	const struct exec_stages *stages;	/* NULL: exec_pipeline */
	/* A session to add the runs to (created by its first run), every run
	 * of the plan run, none skipped; NULL: a new one, or resume's. */
	const char *session;
	int first_repetition;		/* the first run's repetition number; 0 = 1 */
	/* per workload of the plan, in its order: the runs it gets, in the
	 * first of the repetitions' boots (the reference's, sized by its
	 * metrics, an unjudged one's 1: run/gate_loop.h); NULL: one in each */
	const int *runs_of;
	/* Counts the runs and builds and draws the bar; NULL: the plan's own,
	 * its totals the plan's. A driver that runs many plans as one passes
	 * one it keeps (and its totals). */
	struct progress *progress;
	int jobs;			/* --jobs: boards at once (run/planner.h); 0 = per free core */
	/* --max-jobs: one-run boots in flight at once (fan-out, above); 0 =
	 * the backend's slots(), at most EXECUTOR_MAX_JOBS */
	int max_jobs;
	/* --fresh-reference: compare's plan measures its reference anew, none
	 * of its stored runs reused (run/planner.h) */
	int fresh_reference;
	/* the DUT initramfs carries the board's perf_packages
	 * (build/userland.h): set where a workload of the plan profiles with
	 * perf, by the executor for its own plan and by a driver (the planner)
	 * for every part of its plan it runs, so that one plan boots one
	 * userland */
	int perf_userland;
};

/* How a cell's images are built and one workload is run on a booted DUT. */
struct exec_stages {
	/* run/images.h's images_prepare() and its contract */
	int (*prepare)(const struct board *b, const char *series, const char *strategy,
		       const struct exec_opts *o, struct build_result *k,
		       struct userland_result *u, struct emulator_result *e);
	/* measure/runner.h's runner_run() and its contract */
	enum run_class (*run)(struct dut *d, const struct workload *w, const char *run_id,
			      const char *rundir, struct run_result *res);
};

/* hilbench's own: the build stage through images_prepare(), runner_run(). */
extern const struct exec_stages exec_pipeline;

/* o->stages, or exec_pipeline. */
const struct exec_stages *exec_stages_of(const struct exec_opts *o);

int executor_run_plan(const struct plan *p, struct store *s, const struct exec_opts *o,
		      char session[40]);

#endif
