/*
 * gate: does a candidate (a strategy, plus a user's patches) make things
 * worse than a reference? Per workload and metric the plan's gate section
 * (config/plan.h) gives the smallest change that matters, set above that
 * metric's measured noise in each timing mode, and the metric table
 * (store/metrics.h) the better direction.
 *
 * A look at the runs so far says, per metric:
 *   - REGRESSED (IMPROVED): a significant shift (p < the look's alpha) in the
 *     bad (good) direction of at least the threshold;
 *   - PASS: the confidence interval of the shift rules out a bad change as
 *     large as the threshold (so identical driver code passes as soon as the
 *     runs are tight enough, and never fails); with the policy's pass rule
 *     PASS_NO_CHANGE (compare's plans), a change that large either way;
 *   - OPEN: neither yet; the caller adds a run and looks again, and at its
 *     cap reports INCONCLUSIVE.
 * Repeated looks would inflate false alarms, so each tests at alpha divided
 * by the most looks a gate can make (Bonferroni): the chance of any false
 * alarm for a metric over the whole sequence is at most alpha.
 *
 * Futility (the policy's `futility`, 0 = off): an open decision whose
 * chance of being decided at the cap (gate_decide_chance()) is below it
 * ends INCONCLUSIVE at once, instead of taking runs to the cap that would
 * most likely leave it open: a change that sits on the threshold against
 * noise the cap cannot average away. The stop only ends looks; it never
 * makes a pass or a change, so the false-alarm bound holds, and a gate
 * never passes by it (gate_overall() reads inconclusive). What it costs is
 * power: a decision it ends could have been decided at the cap with about
 * that chance.
 *
 * Contract: gate_decide(), gate_look(), gate_next_run() and gate_overall()
 * are pure (the run stage's gate driver makes the verdict an exit code);
 * gate_write_junit() escapes every string. A
 * policy's cap is at least the reference's repetitions and
 * first_repetitions (config/plan.c and the gate's options check it).
 */
#ifndef HB_GATE_H
#define HB_GATE_H

#include <stdbool.h>
#include <stdio.h>

#include "analyze/stats.h"
#include "config/plan.h"
#include "config/workload.h"
#include "store/metrics.h"

enum gate_outcome { GATE_PASS, GATE_IMPROVED, GATE_REGRESSED, GATE_OPEN, GATE_INCONCLUSIVE };

struct gate_decision {
	char workload[64], metric[64], unit[32];
	double threshold_pct;
	double look_alpha;
	struct summary ref, cand;
	struct shift shift;		/* candidate - reference, at 1 - look_alpha */
	double delta_pct, lo_pct, hi_pct;	/* the same in % of the reference */
	enum gate_outcome outcome;
	int looks;			/* gate_look(): the tests made so far, this one included */
	int max_looks;			/* gate_look(): the most it makes (gate_max_looks()) */
	/* gate_look(): for a decision open before its last look, the chance
	 * that the cap decides it (gate_decide_chance()); NaN otherwise */
	double decide_chance;
	bool futile;			/* ended INCONCLUSIVE by the futility rule */
	/* where the instructions moved (analyze/movers.h), filled by the gate
	 * loop when both sides have the emulator's counts; "" otherwise */
	char where[256];
};

/* Every metric the policy gates is in the metric table and has a better
 * direction; else -1 with "FILE:LINE:COL: " of the first that is not (the
 * plan's `where`) and what to do in err. */
int gate_check_metrics(const struct gate_policy *g, char *err, size_t errlen);
/* The metric table's direction of a gated metric; BETTER_NONE for one
 * gate_check_metrics() refuses. */
enum metric_better gate_metric_better(const struct gate_metric *m);
/* Does a gate metric entry apply to this workload (its protocol and direction)? */
bool gate_metric_applies(const struct gate_metric *m, const struct workload *w);
/* The first of g's metrics named `metric` that applies to w and has a
 * threshold in timing mode t; NULL when none judges it there. */
const struct gate_metric *gate_metric_for(const struct gate_policy *g, const struct workload *w,
					  const char *metric, enum timing_mode t);
/* Does any of g's metrics apply to this workload? One none applies to (a
 * profiler's, whose rate the profiler slows) is run and reported, never
 * judged: one run of a side says all it is asked. */
bool gate_judges(const struct gate_policy *g, const struct workload *w);
/*
 * The reference's runs before the first look at workload w in timing mode
 * t, of a plan whose reference gets plan_runs: 1 where no metric judges w
 * (gate_judges()); else the most any metric that applies to w needs, each
 * at most its own `reference_repetitions` for t where it gives one. A
 * metric whose noise is small against its threshold decides a candidate
 * in one run against fewer reference runs; the looks and their alpha
 * follow the count (gate_max_looks()). Pure.
 */
int gate_reference_runs(const struct gate_policy *g, int plan_runs, const struct workload *w,
			enum timing_mode t);
/*
 * The most looks (significance tests) the gate makes at one metric: the
 * first once the reference has ref_repetitions runs and the candidate
 * first_repetitions, then one after each run added, one at a time, until
 * both sides are at the cap: (cap - ref_repetitions) + (cap -
 * first_repetitions) + 1, 9 with plans/gate.yaml (3 + 5 + 1).
 */
int gate_max_looks(const struct gate_policy *g, int ref_repetitions);
/* alpha / gate_max_looks(): the significance level of each look. */
double gate_look_alpha(const struct gate_policy *g, int ref_repetitions);

/*
 * What one metric's decisions are held to in one timing mode: the smallest
 * change that matters, the least per-run spread the test assumes of a side
 * (mean_shift()'s min_sd, in % of the reference mean; 0: the runs' own),
 * and the runs each side needs before a change is called.
 */
struct gate_rule {
	double threshold_pct, spread_floor_pct;
	int change_runs;
};
struct gate_rule gate_metric_rule(const struct gate_metric *m, enum timing_mode t);

void gate_decide(const double *ref, size_t nref, const double *cand, size_t ncand,
		 enum metric_better better, enum gate_pass_rule pass, double look_alpha,
		 const struct gate_rule *rule, struct gate_decision *d);
/*
 * The chance that the look at the cap (cap runs a side, at look_alpha)
 * decides, were the true change what the runs so far measure: the
 * predictive distribution of the change at the cap (a flat prior on each
 * side's mean, the sides' pooled variance, at least the rule's floor, for
 * the runs still to come), and the interval at the cap from that variance.
 * In [0, 1]; NaN where it says nothing: a side without runs, no variance
 * known (one run a side), or a reference mean of 0. Pure.
 */
double gate_decide_chance(const double *ref, size_t nref, const double *cand, size_t ncand,
			  enum metric_better better, enum gate_pass_rule pass, double look_alpha,
			  const struct gate_rule *rule, size_t cap);
/* One metric's looks so far; zeroed before the first. */
struct gate_seq {
	size_t nref, ncand;	/* the runs of the last look that tested */
	int looks;		/* tests made */
};
/*
 * One look of the sequential procedure at one metric: gate_decide() at
 * gate_look_alpha(). A test of runs not tested before counts against
 * gate_max_looks(); the same runs again decide the same and count nothing.
 * An open metric is INCONCLUSIVE once its last look is made, and so are new
 * runs past it (the store can grow under a gate): a metric is never tested
 * more than gate_max_looks() times, whatever the runs did (failed, reused,
 * stored by another process). An open metric below the policy's futility
 * (above) before its last look is INCONCLUSIVE, d->futile set. A change
 * with a side of fewer than the rule's change_runs runs stays open.
 */
void gate_look(const struct gate_policy *g, int ref_repetitions, struct gate_seq *s,
	       const double *ref, size_t nref, const double *cand, size_t ncand,
	       enum metric_better better, const struct gate_rule *rule, struct gate_decision *d);
/*
 * The futility rule on decision d, which gate_decide() made of these runs:
 * sets d->decide_chance (gate_decide_chance() at d's look alpha and the
 * policy's cap) and says whether it is below the policy's futility. The one
 * test of the rule, for gate_look() and for whoever predicts its looks.
 */
bool gate_futile(const struct gate_policy *g, const double *ref, size_t nref, const double *cand,
		 size_t ncand, enum metric_better better, const struct gate_rule *rule,
		 struct gate_decision *d);
/*
 * Where the next runs of a workload go, given its pass runs so far: the
 * reference up to its repetitions, the candidate up to first_repetitions,
 * then, while a metric is open, one run on the side with fewer (the
 * candidate on a tie) until both reach the cap. *reps is how many.
 */
enum gate_next { GATE_NEXT_NONE, GATE_NEXT_REFERENCE, GATE_NEXT_CANDIDATE };
enum gate_next gate_next_run(const struct gate_policy *g, int ref_repetitions, size_t nref,
			     size_t ncand, bool open, int *reps);
const char *gate_outcome_name(enum gate_outcome o);
/* gate_outcome_name() back (a stored decision's outcome); -1 for another name. */
int gate_outcome_parse(const char *name, enum gate_outcome *o);
/* "3634 -> 3701 Mbit/s +1.844 % (CI +0.5..+3.1 %)", and where a side has
 * no pass runs (its kernel panicked) that instead of NaN: "3634 -> no pass
 * runs of the candidate". Into buf, which it returns. */
const char *gate_change_text(const struct gate_decision *d, char *buf, size_t len);
/* The verdict of all the decisions: GATE_REGRESSED if one is, else
 * GATE_INCONCLUSIVE if one is open or inconclusive, runs are missing or
 * there is none, else GATE_PASS (improved ones pass). */
enum gate_outcome gate_overall(const struct gate_decision *d, size_t n, int runs_missing);
void gate_write_junit(FILE *out, const char *name, const struct gate_decision *d, size_t n);

#endif
