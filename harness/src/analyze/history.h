/*
 * history: stored measurements as series over time, one per (board,
 * strategy, workload, metric, timing mode), each point with its provenance
 * (run, session, date, kernel version, release and build key); and the
 * change points in them (analyze/changepoint.h).
 *
 * Points are pass runs ordered by start time (then run id). With
 * HIST_PER_SESSION a point is one session (a night): the median of its runs,
 * with the provenance of its first run; see docs/history.md for when each
 * is the right null hypothesis.
 *
 * At a change point, history_movers() names the functions whose
 * instructions per packet moved most (analyze/movers.h) from the runs
 * before it to the runs after it: each side the HIST_MOVERS_POINTS points
 * of its segment nearest the change (the series' board, strategy and
 * timing; a session point brings every run of its session).
 *
 * Contract: history_load() returns 0 or -1 (message printed); writers
 * escape every string for their format. A change's direction comes from the
 * metric's row in store/metrics.h, for the metrics reports compare; any
 * other metric has no bad direction, so its changes are SHIFTs, never regressions.
 */
#ifndef HB_HISTORY_H
#define HB_HISTORY_H

#include <stdio.h>

#include "analyze/changepoint.h"
#include "analyze/stats.h"
#include "store/store.h"

enum hist_points { HIST_PER_RUN, HIST_PER_SESSION };

struct hist_point {
	char *run, *session, *started, *kernel_version, *kernel_release, *build_key;
	double value;
	size_t runs;		/* runs behind this point */
};

struct hist_series {
	char *board, *strategy, *workload, *metric, *unit, *timing;
	int direction;		/* +1 higher is better, -1 lower is better, 0 unknown */
	struct hist_point *p;
	size_t n;
	struct cp_result cp;	/* filled by history_detect() */
	/* history_movers(): per change of cp, the movers; "" for none;
	 * NULL until it ran */
	char (*where)[256];
	/* history_modes(): the segments whose points fell in two modes */
	struct hist_modes *modes;
	size_t n_modes;
};

/* Points [from, to) of a series, one segment, in two modes. */
struct hist_modes {
	size_t from, to;
	struct two_modes m;
};

#define HIST_MOVERS_POINTS 32

struct history {
	struct hist_series *s;
	size_t n;
	enum hist_points points;
	int detected;		/* history_detect() ran */
	struct cp_params params;
};

/* metric NULL: the metrics reports show (dataset.h); else only that one. */
int history_load(struct store *st, const struct selection *sel, const char *metric,
		 enum hist_points points, struct history *h);
/* -1 when the parameters are invalid. */
int history_detect(struct history *h, const struct cp_params *p);
/* After history_detect(): every change's movers, read from st; 0, or -1
 * when the store cannot be read (said). */
int history_movers(struct history *h, struct store *st);
/* Per series, each segment (between its change points once
 * history_detect() ran, else the whole series) whose points fell in two
 * modes (analyze/stats.h's two_modes_past()) at least a quarter of the
 * threshold apart that the workload and metric are held to
 * (analyze/decisions.h: the store's decisions of the series' sessions,
 * else the gate's plan; a series neither judges is not looked at), and
 * alternate between them in time at least three times: a
 * level that changed once, or changed and went back, is not two modes.
 * Modes are how TCP DUT-TX of some strategies runs (docs/history.md,
 * "Runs in two modes"). 0, or -1 when the store cannot be read (said). */
int history_modes(struct history *h, struct store *st);
void history_free(struct history *h);

enum change_kind { CHANGE_REGRESSION, CHANGE_IMPROVEMENT, CHANGE_SHIFT };
enum change_kind history_change_kind(const struct hist_series *s, const struct cp_change *c);
const char *change_kind_name(enum change_kind k);
/* Does some series' newest segment start with a regression? The question a
 * nightly cron job asks (older changes were already reported). */
int history_newest_is_regression(const struct history *h);

void history_write_text(const struct history *h, FILE *out);
/* Only the series that have changes or runs in two modes (history_modes()),
 * and those: a nightly summary. */
void history_write_changes(const struct history *h, FILE *out);
int history_write_json(const struct history *h, FILE *out);
/* A self-contained page with one trend plot per series (trend_svg.h). */
void history_write_html(const struct history *h, FILE *out);

#endif
