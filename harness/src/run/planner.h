/*
 * planner: compare's plan when its repetitions are decided as it goes
 * (`repeat: until-decided`, config/plan.h). The reference strategy
 * (baseline if the plan has it, else its first, as reports choose) gets
 * the gate section's reference_repetitions of each workload a gate metric
 * judges, and one of each other (a profiler's, reported beside the
 * decisions: run/gate_loop.h); every other strategy is a
 * candidate judged against it by the gate's sequential procedure
 * (run/gate_loop.h), all in one session: per workload and metric of the
 * gate section, runs are added one at a time until the difference is
 * decided to that metric's threshold (pass, improved, regressed) or the
 * cap is reached (inconclusive). The candidates share the reference's
 * runs, so more of them makes every candidate's verdict cheaper.
 *
 * Error rate: each look of a decision tests at alpha / the most looks it
 * can make (analyze/gate.h), so each decision calls identical code better
 * or worse with chance at most alpha over all its looks; over the job's D
 * decisions at most D x alpha false alarms are expected. Every decision is
 * stored in the session (store_put_decision()), and the reports of the
 * session state both (analyze/decisions.h).
 *
 * Order: every strategy's build first, one at a time; then the
 * reference's runs, those of its DUT-paced workloads (UDP the DUT sends at
 * an unlimited rate, measure/crosscheck.h) `jobs` boots at once
 * (run/executor.h), then its others (TCP, the host sending); then the
 * candidates, `jobs` processes at once, one per candidate and kind of
 * workload (its own boots, network namespaces and store connection;
 * run/pool.h, which passes an interrupt on to them), the dearest first
 * (the runs the plan's last five sessions took on average, at the
 * reference's price a run; on a store without them, the runs a candidate
 * half a threshold off would take, so that the kind whose count is least
 * sure goes first), so that the last to end is a short one; once
 * none is left to start, the boards of those that ended are lent to those
 * still judging (run/pool.h), whose next runs go on them at once, up to
 * the cap (run/gate_loop.h). Each
 * kind has boots of its own and is first in them: a UDP run after TCP in
 * the same boot spread 5x wider between boots (docs/measurements.md, "The
 * host's turns"). A TCP run or one of UDP the host sends reads the host's pace
 * (measure/crosscheck.h), so it has the host alone: where the board's
 * backend can hold an emulator (deploy_ops.hold), the others wait, held,
 * while it runs (run/executor.h's host turns), and its boots go beside the
 * others' runs; elsewhere the candidates' workloads of that kind come
 * after all the DUT-paced ones, one candidate at a time. Real-time runs
 * are never run beside another: the emulator next to them would change
 * their numbers.
 *
 * Contract (docs/design.md, "Errors"): planner_run() returns 0 when every
 * candidate was judged (decided or not; see each decision), HB_FAIL_INPUT
 * for input errors (said; nothing ran), -1 when runs could not be measured
 * or the user interrupted (what ran is stored; pl->session names it once
 * set). planner_free() after any return.
 */
#ifndef HB_PLANNER_H
#define HB_PLANNER_H

#include <stdio.h>

#include "run/gate_loop.h"
#include "run/progress.h"

/* A candidate's verdicts, over every phase it ran in. */
struct planner_cell {
	const char *strategy;
	struct gate_decision *v;
	size_t n;
	int missing;		/* a side stopped short of the runs it needed */
	int rc;			/* gate_loop_judge()'s first failure (HB_FAIL_*), or 0 */
};

struct planner {
	const struct plan *plan;	/* &judged */
	struct plan judged;	/* the caller's, repetitions the reference's (lists not ours) */
	const char *reference;
	struct planner_cell *cells;	/* one per candidate, in the plan's order */
	size_t ncells;
	int jobs;		/* candidates at once (on every workload where the backend holds) */
	struct progress prog;
	struct exec_opts opts;	/* the caller's, with the session and the bar */
	char session[40];
};

/* Boards at once for plan p: 1 in real time; else `want` if > 0 (--jobs),
 * else one per free core (online cores less the threads runnable besides
 * the caller, sampled over half a second), at least 1. planner_run()
 * asks again once its builds are done: their load is not the runs'. */
int planner_jobs(const struct plan *p, int want);
int planner_run(struct planner *pl, const struct plan *p, struct store *s,
		const struct exec_opts *o);
/* The candidates that were not judged, and why; then the runs, builds,
 * seconds and boards at once. (The decisions are the report's.) */
void planner_print(const struct planner *pl, FILE *out);
/* Why a decision stopped: "decided at look 3 of 6", "cap: 6 runs a side", ... */
void planner_why(const struct planner *pl, const struct planner_cell *c,
		 const struct gate_decision *d, char *out, size_t len);
void planner_free(struct planner *pl);

#endif
