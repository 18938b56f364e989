/*
 * decisions: "How many runs it took" in reports of a session the planner
 * ran (`repeat: until-decided`, run/planner.h): per candidate, workload
 * and metric, the runs on each side, the outcome, the change against the
 * reference with its interval, the threshold and why it stopped; then the
 * error rate over all the looks, as the planner controlled it.
 *
 * Contract: decisions_write() reads the decisions the store holds for
 * sel->session and writes nothing for a selection that is not one session,
 * or a session of a fixed plan (none stored); after them, the runs the
 * session reused from earlier ones (store_reuse_runs()), per strategy,
 * workload and session they were measured in. For a selection of several
 * sessions, it names instead the series whose runs fell in two modes
 * that alternate in time (analyze/stats.h), by the thresholds the
 * sessions' decisions judged their workloads and metrics by, else the
 * gate's plan's (decision_threshold()). Text,
 * Markdown or HTML, every stored string escaped for it (section.h).
 * Returns 0, or -1 when the store cannot be read (said).
 */
#ifndef HB_DECISIONS_H
#define HB_DECISIONS_H

#include <stdio.h>

#include "analyze/dataset.h"
#include "analyze/section.h"
#include "config/plan.h"
#include "store/store.h"

/* d: the selection's dataset (dataset_load()), whose series and decisions
 * name under the table each side whose runs of a decided metric fell in
 * two modes (two_modes_past(), analyze/stats.h); NULL names none. */
int decisions_write(struct store *st, const struct selection *sel, const struct dataset *d,
		    enum section_format f, FILE *out);

/* The threshold (in % of the reference) each workload and metric of some
 * sessions is held to; a quarter of it is the gap that makes two modes
 * worth naming. The one the store's decisions of those sessions judged it
 * by, the first found; where none did (a fixed plan's sessions, a
 * nightly's), the one the gate's plan (PLAN_GATE, config/plan.h) holds
 * the workload's runs to in their timing mode: what `hilbench gate`
 * would judge them by. */
struct decision_thresholds {
	struct strlist keys;	/* "workload metric" */
	double *pct;
	struct plan gate;	/* no metrics where it did not load (said) */
};
/* 0, or -1 when the store cannot be read (said); free it either way. A
 * gate plan that does not load is said, and leaves the decisions alone. */
int decision_thresholds_load(struct store *st, const struct strlist *sessions,
			     struct decision_thresholds *t);
/* NAN when neither a decision nor the gate's plan judges workload's metric
 * in timing mode `timing` (a timing_mode_name()), or the workload has no
 * file any more. */
double decision_threshold(const struct decision_thresholds *t, const char *workload,
			  const char *metric, const char *timing);
void decision_thresholds_free(struct decision_thresholds *t);

#endif
