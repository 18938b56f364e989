/*
 * metrics: the one table of the metrics a run can store: name, unit,
 * better direction, where it is shown, what it is and how it is measured.
 *
 * The runner takes each metric's unit from here, reports and history show
 * the metrics marked for them, in table order, and compare them in their
 * direction; `hilbench show` and the plan executor print the headline
 * ones; `hilbench list metrics` prints the table, and docs/metrics.md's
 * table is its Markdown (metrics_write_markdown(); test_metrics fails when
 * they differ).
 *
 * Why in store: measure writes these metrics and analyze, run and cmd read
 * them, so the table sits below all of them; the store already defines
 * what a stored metric is (struct metric), and it lists runs by their
 * headline metrics.
 *
 * Contract: a name with one <placeholder> is a family (ethtool.<stat>):
 * the placeholder stands for one or more characters. metric_find() returns
 * the entry of that exact name, else the family that matches with the most
 * literal characters (perf_stat.<event>_per_s before perf_stat.<event>),
 * else NULL. The table never changes at run time.
 */
#ifndef HB_METRICS_H
#define HB_METRICS_H

#include <stddef.h>
#include <stdio.h>

/* The metrics code names: the headline ones. */
#define METRIC_PPS "pps"
#define METRIC_MBPS "mbps"

enum metric_better { BETTER_NONE, BETTER_HIGHER, BETTER_LOWER };

enum metric_shown {
	SHOWN_STORED,	/* stored and in `hilbench show RUN` only */
	SHOWN_REPORTS,	/* also compared by reports and history */
	SHOWN_HEADLINE,	/* also printed after each run and in `hilbench show`'s list */
};

/* What a run must have had to record the metric (beyond the workload
 * it applies to): a stored run without it cannot stand for one with it
 * (run/gate_loop.h's reuse of a reference). */
enum metric_needs {
	NEEDS_RUN,		/* any run of a workload it applies to */
	NEEDS_INSN_COUNTS,	/* the emulator's instruction counts (insn_profile) */
	NEEDS_LINK_RECORD,	/* the emulator's record of the link (filter-dump) */
};

struct metric_def {
	const char *name;	/* or a family: one <placeholder> */
	const char *unit;
	enum metric_better better;
	enum metric_shown shown;
	const char *what;	/* Markdown */
	const char *how;	/* the method, Markdown */
	enum metric_needs needs;
};

extern const struct metric_def metric_defs[];
/* The hrtimer paths whose time is the hrtimer CPU share, whatever the
 * method (the ftrace profiler's graph time, the emulator's inclusive
 * instruction counts): none of them runs inside another (docs/metrics.md,
 * "hrtimer CPU share"). NULL-terminated. */
extern const char *const metric_hrtimer_paths[];
extern const size_t n_metric_defs;

const struct metric_def *metric_find(const char *name);
/* "higher", "lower" or "none". */
const char *metric_better_name(enum metric_better b);
/* "stored", "reports" or "headline". */
const char *metric_shown_name(enum metric_shown s);
/* "run", "insn counts" or "link record". */
const char *metric_needs_name(enum metric_needs n);
/* The table as docs/metrics.md has it: a Markdown table, a row a metric. */
void metrics_write_markdown(FILE *out);

#endif
