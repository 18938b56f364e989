/*
 * dataset: stored measurements grouped for reports: one series of values
 * per (workload, board, build, metric), in run order, for the metrics
 * reports show (store/metrics.h; or the selection's metrics); plus the runs
 * that are not measurements, with their class, reason and log.
 *
 * A build is a strategy's kernel on a board: runs of one strategy name with
 * different build keys (a gate's candidate patches, a rebuilt series) or on
 * different boards are never pooled. A build's label is its strategy plus
 * the basenames of its user patches ("baseline+fix-timer"); when two builds
 * on one board would still share a label, each gets " #<first 8 of its
 * build key>". Boards are separate tables: strategies are compared with the
 * reference on the same board only.
 *
 * Contract: dataset_load() streams the selection from the store (memory
 * grows with the number of pass runs of shown metrics, not with the store).
 * The reference of every comparison is strategies.v[0] (reference_why says
 * why it is): the label named by dataset_set_reference(), else "baseline"
 * when present, else the first label seen (in run order: a plan's first
 * strategy). A table without the reference has no comparison: it never
 * falls back to another strategy. Timing modes are never mixed: rows of a
 * second timing mode are counted in `mixed_timing` and left out. The
 * planner's decisions come along for a selection of one session on one
 * board (a decision names no board), each strategy mapped to the label of
 * its one build there.
 */
#ifndef HB_DATASET_H
#define HB_DATASET_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "store/metrics.h"
#include "store/store.h"
#include "util/util.h"

/* Whether reports and history compare metric m: the table's say (store/metrics.h). */
static inline bool metric_in_reports(const struct metric_def *m)
{
	return m && m->shown >= SHOWN_REPORTS;
}

struct series {
	char *workload, *board;
	char *strategy;		/* the build's label (see above) */
	char *metric, *unit;
	char *first_run;	/* id of the run of v[0] */
	double *v;
	size_t n;
};

/* A run that is not a measurement. */
struct problem {
	char *id, *board, *strategy, *workload, *cls, *reason;
	char *log;		/* its console (or run directory), NULL if none is kept */
	int repetition;
};

/* The DUT misbehaved (class fail), rather than the infrastructure (error, miss). */
static inline bool problem_failed(const struct problem *p)
{
	return !strcmp(p->cls, "fail");
}

/* The planner's decision on one strategy, workload and metric of the
 * session (store/store.h's decision_record; run/planner.h): a session
 * whose runs were added until decided is judged by that sequential rule,
 * not by a test of its runs after the fact. strategy and reference are the
 * build labels of this dataset. */
struct decided {
	char *strategy, *reference, *workload, *metric, *outcome, *why;
	int reference_runs, candidate_runs;
	double delta_pct, lo_pct, hi_pct, threshold_pct;
};

struct dataset {
	struct series *s;
	size_t n;
	/* first-seen order; strategies are the labels of builds with pass runs,
	 * then of builds whose runs all failed */
	struct strlist workloads, boards, strategies;
	const char *reference_why;	/* "named by --reference", ... */
	struct problem *problems;
	size_t n_problems;
	struct strlist sessions;
	char timing[16];
	size_t mixed_timing;
	size_t runs;				/* pass runs included */
	/* a selection of one session on one board: the decisions stored
	 * for it (none for a fixed plan's) */
	struct decided *decided;
	size_t n_decided;
};

int dataset_load(struct store *st, const struct selection *sel, struct dataset *d);
/* Moves the build labelled `name` to the front and says why it is the
 * reference; -1 if the dataset has no such label. */
int dataset_set_reference(struct dataset *d, const char *name, const char *why);
/* The decision on this label, workload and metric against this reference
 * label; NULL when the planner made none. */
const struct decided *dataset_decided(const struct dataset *d, const char *strategy,
				      const char *reference, const char *workload,
				      const char *metric);
/* The first series of these; a NULL board or strategy matches any. */
const struct series *dataset_find(const struct dataset *d, const char *workload,
				  const char *board, const char *strategy, const char *metric);
/* "ID board/strategy/workload rep N: class: reason (log: PATH)"; the caller frees it. */
char *problem_line(const struct problem *p);
void dataset_free(struct dataset *d);

#endif
