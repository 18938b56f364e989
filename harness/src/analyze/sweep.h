/*
 * sweep: the sweep points of a dataset as curves (docs/knobs.md).
 *
 * A plan's sweep stores each point as a cell labelled
 * "<strategy>@<setting>=<value>" (run/executor.c), so the strategy table
 * shows the points as rows like any strategy. Here those rows become, per
 * (workload, shown metric, setting), one curve per strategy: points sorted
 * by the setting's value, each with its summary (mean, 95 % CI), and the
 * best point for the metric's direction.
 *
 * Contract: sweep_collect() never fails (no sweep cells: no plots); the
 * plots point into the dataset, which must outlive them. The writers escape
 * every string for their format.
 */
#ifndef HB_SWEEP_H
#define HB_SWEEP_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "analyze/dataset.h"
#include "analyze/stats.h"

/* 0 if label is "<strategy>@<setting>=<decimal number>"; strategy and
 * setting are copied, the value parsed. CPU masks are not decimal numbers
 * and have no order worth a curve: their cells stay rows of the table. */
int sweep_label_parse(const char *label, char *strategy, size_t slen, char *setting,
		      size_t setlen, double *value);

struct sweep_point {
	double x;
	const char *label;	/* the cell, e.g. baseline@tx-usecs=1000 */
	struct summary sum;
};
struct sweep_curve {
	char *strategy;
	struct sweep_point *p;	/* by x */
	size_t n, best;		/* best: index of the best mean */
};
struct sweep_plot {
	const char *workload, *metric, *unit;
	bool higher_is_better;
	char *setting;
	struct sweep_curve *c;
	size_t n;
};
struct sweep_set {
	struct sweep_plot *plots;
	size_t n;
};

void sweep_collect(const struct dataset *d, struct sweep_set *ss);
void sweep_set_free(struct sweep_set *ss);

/* "Sweeps: best setting per metric" for text (md = 0) or Markdown. */
void sweep_write_text(const struct sweep_set *ss, FILE *out, int md);
/* "sweeps": [...] added to a JSON report's root. */
void sweep_add_json(const struct sweep_set *ss, cJSON *root);
/* One inline SVG per plot: a line per strategy, CI bars (sweep_svg.c), the
 * value axis at the page's scale of the metric in d (plot_svg.h). */
void sweep_write_svg(const struct sweep_set *ss, const struct dataset *d, FILE *out,
		     int *plot_id);

#endif
