/*
 * plan: one plans/<name>.yaml file: boards x strategies x workloads x
 * repetitions in one timing mode.
 *
 * Contract: as board_load(). Names are checked for shape here; whether a
 * named board/strategy/workload exists is checked by the caller, which knows
 * where they live.
 */
#ifndef HB_PLAN_H
#define HB_PLAN_H

#include <stddef.h>

#include "config/yamldoc.h"
#include "util/util.h"

enum timing_mode { TIMING_REALTIME, TIMING_VIRTUAL };
/* One boot for all repetitions of a (board, strategy) cell, or a fresh boot
 * for each: in virtual time the first run after a boot and the runs after
 * it are not alike (docs/measurements.md), so a gate wants one per boot. */
enum boot_policy { BOOTS_PER_CELL, BOOTS_PER_REPETITION };
/* How many runs a cell gets: `repetitions` each, or (`repeat:
 * until-decided`, which needs a gate section) the reference its
 * `repetitions` and every other strategy runs added one at a time until
 * each metric of the gate section is decided or its cap is reached
 * (run/planner.h). */
enum repeat_rule { REPEAT_FIXED, REPEAT_UNTIL_DECIDED };

/*
 * How `hilbench gate` judges the metrics of a run (docs/gate.md): the
 * smallest change that matters in each timing mode, set above that
 * metric's measured noise. Which direction is better is the metric's own
 * (store/metrics.h's table, the one place that says it); the gate looks it
 * up and checks every metric named here is in the table
 * (analyze/gate.h, gate_check_metrics()).
 */
enum gate_protocol { GATE_ANY_PROTOCOL, GATE_UDP, GATE_TCP };
/* the traffic's direction seen from the DUT, as enum wl_dir, plus "any" */
enum gate_traffic { GATE_ANY_TRAFFIC, GATE_DUT_TX, GATE_DUT_RX, GATE_BIDIR };
/* the profiler running in the workload's runs, as enum wl_profile, plus
 * "any": a profiler's own work per packet is in a profiled run's rates */
enum gate_profile { GATE_ANY_PROFILE, GATE_NO_PROFILE, GATE_FTRACE, GATE_PERF };
struct gate_metric {
	char *metric;
	enum gate_protocol protocol;	/* workloads it applies to */
	enum gate_traffic traffic;	/* and their direction (key "direction") */
	enum gate_profile profile;	/* and their profiler */
	double threshold_pct[2];	/* indexed by enum timing_mode; -1: not judged in it */
	/* the least per-run spread (sd, % of the reference mean) the test
	 * assumes of a side, per timing mode, 0 unless said: runs that fall
	 * in modes can all land in one (docs/gate.md, "Runs in two modes") */
	double spread_floor_pct[2];
	/* runs each side needs before a change (regressed, improved) is
	 * called, 1 unless said: one run has no spread of its own, and the
	 * test lends it the other side's, which a strategy whose boots fall
	 * in two modes does not have (docs/gate.md, "Runs in two modes") */
	int change_repetitions;
	/* the reference's runs this metric needs at most, per timing mode, 0
	 * unless said (then the gate section's reference_repetitions): where
	 * its noise is small against the threshold, fewer runs decide as many
	 * candidates in one run (analyze/gate.h gate_reference_runs();
	 * docs/gate.md, "A reference sized by its noise") */
	int reference_repetitions[2];
	char *where;	/* "FILE:LINE:COL: " of its `metric:`, for errors found later */
};
/* What a pass rules out: a bad change as large as the threshold (the
 * gate's question: is it worse?), or a change that large either way
 * (compare's: did it change, and by how much?). */
enum gate_pass_rule { PASS_NO_REGRESSION, PASS_NO_CHANGE };

struct gate_policy {
	int present;		/* the plan has a gate section */
	enum gate_pass_rule pass;
	double alpha;		/* overall false-alarm level per metric */
	int first_repetitions;	/* candidate runs before the first look */
	/* the reference's runs before the first look; 0 = the plan's
	 * repetitions. Compare's candidates share them, so more of them
	 * makes each candidate's verdict cheaper. */
	int reference_repetitions;
	int max_repetitions;	/* per side, before "inconclusive" */
	/* stop an open decision as inconclusive before the cap once the
	 * chance that the cap decides it is below this (analyze/gate.h,
	 * gate_decide_chance()); 0: never */
	double futility;
	/* The plan's own `metrics`, or (`metrics_from: PLAN`) that plan's,
	 * those `metrics_only` names if given: one list of thresholds that
	 * several plans share. Entries keep their file's `where`. */
	struct ytable metrics;	/* of struct gate_metric */
	char *metrics_from;
	struct strlist metrics_only;
};
/*
 * A sweep (docs/knobs.md): one runtime setting over a list of values, or a
 * range from..to by a step or a factor, crossed with strategies (the
 * plan's, or its own list). Each point is a labelled cell,
 * "<strategy>@<setting>=<value>"; the points of one strategy share a boot.
 */
#define SWEEP_MAX_POINTS 64
struct sweep {
	char *setting;
	struct strlist values;		/* as written, or expanded from range */
	struct strlist strategies;	/* empty: the plan's */
	double from, to, step, factor;	/* range, when given */
};

struct plan {
	char *path;
	char *name;
	char *description;
	struct strlist boards;
	struct strlist strategies;
	struct strlist workloads;
	int repetitions;	/* 1..100 */
	enum timing_mode timing;
	enum boot_policy boots;	/* optional key, default per-cell */
	enum repeat_rule repeat;	/* optional key, default fixed */
	struct gate_policy gate;	/* optional section */
	struct ytable sweeps;		/* of struct sweep; optional */
};

/* The plan `hilbench gate` and `bisect` judge runs by unless told
 * (plans/gate.yaml): each metric's threshold where nothing else gives one. */
#define PLAN_GATE "gate"

int plan_load(const char *path, struct plan *p, char *err, size_t errlen);
/* "FILE:LINE:COL: " of item `index` of the plan's list `key` (e.g. the
 * second of `strategies`), for errors found after loading; "FILE: " when
 * the file no longer has it. Returns out. */
char *plan_where(const struct plan *p, const char *key, size_t index, char *out, size_t len);
/* Every strategy the plan names, its own and its sweeps', exists for the
 * kernel series; else -1 with "FILE:LINE:COL: " of the first that does not,
 * strategy_load()'s reason and, if board is given, "(for board B)". */
int plan_check_strategies(const struct plan *p, const char *series, const char *board,
			  char *err, size_t errlen);
/* Drops the gate metrics without a threshold for the plan's timing mode
 * (a `threshold_pct` that leaves the mode out): call it once the mode is
 * final (a command's --timing applied). Returns the metrics kept. */
size_t plan_gate_for_timing(struct plan *p);
void plan_free(struct plan *p);
const char *timing_mode_name(enum timing_mode m);	/* realtime | virtual */
int timing_mode_parse(const char *s, enum timing_mode *m);

#endif
