/*
 * dataset: stored measurements grouped for reports: one series of values
 * per (workload, metric, strategy), in run order, for the metrics reports
 * show (store/metrics.h; or the selection's metrics); plus the runs that are not
 * measurements, with their reasons.
 *
 * Contract: dataset_load() streams the selection from the store (memory
 * grows with the number of pass runs of shown metrics, not with the store).
 * The reference of every comparison is strategies.v[0]: the one named by
 * dataset_set_reference(), else "baseline" when present, else the first
 * strategy seen (in run order: a plan's first strategy). Timing modes are never mixed: rows of a second timing
 * mode are counted in `mixed_timing` and left out.
 */
#ifndef HB_DATASET_H
#define HB_DATASET_H

#include <stdbool.h>
#include <stddef.h>

#include "store/metrics.h"
#include "store/store.h"
#include "util/util.h"

/* Whether reports and history compare metric m: the table's say (store/metrics.h). */
static inline bool metric_in_reports(const struct metric_def *m)
{
	return m && m->shown >= SHOWN_REPORTS;
}

struct series {
	char *workload, *strategy, *metric, *unit;
	char *first_run;	/* id of the run of v[0] */
	double *v;
	size_t n;
};

struct dataset {
	struct series *s;
	size_t n;
	struct strlist workloads, strategies;	/* first-seen order */
	struct strlist problems;		/* "id board/strategy/workload rep N: class: reason" */
	struct strlist sessions;
	char timing[16];
	size_t mixed_timing;
	size_t runs;				/* pass runs included */
};

int dataset_load(struct store *st, const struct selection *sel, struct dataset *d);
/* Moves strategy `name` to the front; -1 if the dataset has no such strategy. */
int dataset_set_reference(struct dataset *d, const char *name);
const struct series *dataset_find(const struct dataset *d, const char *workload,
				  const char *strategy, const char *metric);
void dataset_free(struct dataset *d);

#endif
