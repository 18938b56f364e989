/*
 * gate_loop: the gate's sequential procedure (docs/gate.md) as a driver:
 * build both sides' kernels, reuse their stored runs, add runs one boot
 * each through the plan executor where analyze/gate.h says the next look
 * needs them, and look again, until every (workload, metric) is decided,
 * the cap is reached or a side keeps failing. The workloads that need a
 * run of the same side at one look share its boots: one boot per
 * repetition, each workload once in it, in the plan's order. Either side
 * may be stored runs instead (a selection): those are judged as they are.
 *
 * Contract (docs/design.md, "Errors"): gate_loop_load() returns 0 or
 * HB_FAIL_INPUT (a gate metric, the board or a workload of the plan does
 * not load; said). gate_loop_judge() returns 0 with every decision made
 * (none left GATE_OPEN), HB_FAIL_INPUT when stored runs named do not
 * exist, are of several strategies or of another timing mode (said), a
 * build's HB_FAIL_* when a side cannot be built, or -1 when the store
 * fails. gate_loop_verdict() is the gate's exit code, a verdict (rule 4):
 * 0 pass, 1 regression (a metric regressed, or the candidate's kernel
 * misbehaved: each such run printed), 125 inconclusive or interrupted.
 * gate_loop_free() frees what the others filled, also after a failure.
 */
#ifndef HB_GATE_LOOP_H
#define HB_GATE_LOOP_H

#include "analyze/dataset.h"
#include "analyze/gate.h"
#include "config/board.h"
#include "config/plan.h"
#include "config/workload.h"
#include "run/executor.h"
#include "run/pool.h"
#include "store/store.h"

/* One side of the comparison: a kernel + userland and the runs of it, or
 * stored runs named by a selection. */
struct gate_side {
	const char *strategy;
	int stored;
	struct selection sel;	/* stored: the runs; strategy set once loaded */
	const char *spec;	/* stored: the option as given */
	char *sel_text;		/* stored: sel's strings point into it (freed here) */
	const struct exec_opts *opts;	/* a built side's patches and stages */
	struct build_result k;
	struct userland_result u;
	struct emulator_result e;	/* provenance NULL: the board's installed emulator */
	struct dataset ds;
	int attempts;		/* repetitions started (a run of each workload batched), passed or not */
};

struct gate_loop {
	const struct plan *plan;	/* board, workloads, timing, repetitions, gate */
	double threshold_pct;		/* NaN: the plan's, per metric */
	/* NULL: runs of any session are reused, each batch of new runs is a
	 * session of its own (a gate). Else only this session's runs count and
	 * new ones are stored in it (compare's plan, run/planner.h). */
	const char *session;
	/* a gate's verdict: once a metric regressed the exit is 1 whatever the
	 * others say, so no run is added for them (they end inconclusive).
	 * Compare (0) decides every metric of every strategy. */
	int stop_at_regression;
	/* gate_loop_reference(): stored runs of the reference from other
	 * sessions join g->session (compare in virtual time, run/planner.h) */
	int reuse_reference;
	/* boards the caller lends while nothing else waits for one (the
	 * planner's last candidates, run/pool.h): a look's runs of a side go
	 * on that many more boards at once, up to the cap, instead of one at a
	 * time on one. The looks stay within gate_max_looks() (fewer of them,
	 * more runs each). NULL: one board. */
	struct pool_spare *spare;
	struct gate_side ref, cand;
	/* gate_loop_load() */
	struct board board;
	struct workload *wls;	/* as a boot per repetition runs them */
	size_t nwls;
	struct strlist digests;	/* theirs (config/workload.h): which stored runs count */
	/* gate_loop_judge(): the decisions, per (workload, metric of the plan) */
	struct gate_decision *v;
	size_t n;
	struct gate_seq *seq;	/* each metric's looks so far */
	int missing;		/* a side stopped short of the runs it needed */
};

int gate_loop_load(struct gate_loop *g);
int gate_loop_judge(struct gate_loop *g, struct store *s);
/* The reference's runs before the first look, over every workload: the
 * plan's repetitions of each a gate metric judges, one of each other (a
 * profiler's: reported, never judged; analyze/gate.h gate_judges()). */
int gate_loop_reference_runs(const struct gate_loop *g);
/* Only the reference's side: builds it (cached) and gives every workload
 * its runs before the first look (above), counting the runs it has, and with
 * reuse_reference first the stored runs of other sessions that fit (the
 * side's selection, each the only run of its workload in its boot),
 * which g->session then counts as its own; 0, a build's
 * HB_FAIL_*, or -1 when the store fails (a run that fails is stored, and
 * left to the judging). */
int gate_loop_reference(struct gate_loop *g, struct store *s);
int gate_loop_verdict(const struct gate_loop *g);
void gate_loop_free(struct gate_loop *g);

#endif
