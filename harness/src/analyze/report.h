/*
 * report: stored runs as a comparison report, in several formats.
 *
 * kcidb is KCIDB v5 JSON for KernelCI (report_kcidb.c).
 * text, md, json, html, junit (a test case per strategy, workload and
 * metric: a failure where the strategy is significantly worse than the
 * reference, skipped where there are too few runs to say; an error per run
 * that is not a measurement) and commit (a before/after block to paste
 * into a patch's commit message) summarize a dataset (analyze/dataset.h): per
 * workload and metric, one row per strategy with every repetition, mean,
 * median, stddev, 95 % CI, delta against the reference (the first
 * strategy), Welch's p and the verdict (analyze/stats.h). csv streams the
 * raw measurements, one line per run and metric. Runs that are not
 * measurements are listed with their class and reason in every summary.
 *
 * Contract: every string that came from a file or the store is escaped for
 * the format (HTML entities, JSON, CSV quoting, Markdown pipes). Returns 0,
 * REPORT_BAD_INPUT for what the user must fix (a reference the selection
 * does not have, an output path that cannot be created), or -1 for the
 * rest; the message is printed.
 */
#ifndef HB_REPORT_H
#define HB_REPORT_H

#include <stdio.h>

#include "analyze/dataset.h"
#include "analyze/stats.h"
#include "store/store.h"
#include "util/quote.h"	/* html_escape(), for the HTML writers */

enum report_format {
	REPORT_TEXT, REPORT_MD, REPORT_CSV, REPORT_JSON, REPORT_HTML, REPORT_COMMIT, REPORT_JUNIT,
	REPORT_KCIDB
};

#define REPORT_BAD_INPUT (-2)

int report_format_parse(const char *name, enum report_format *f);
/* reference: the strategy every other is compared with; NULL = the default
 * (see dataset.h). Naming one that is not in the selection is an error. */
int report_write(struct store *st, const struct selection *sel, const char *reference,
		 enum report_format f, FILE *out);
/* The same into path, atomically: a reader never sees half a report. */
int report_write_file(struct store *st, const struct selection *sel, const char *reference,
		      enum report_format f, const char *path);

/* Walks a dataset for the summarizing emitters. */
struct report_visitor {
	void (*workload)(void *ctx, const char *workload);
	/* optional, like metric_end */
	void (*metric)(void *ctx, const struct metric_info *m, const char *unit);
	/* c compares s against the reference; is_ref for the reference row */
	void (*row)(void *ctx, const struct series *s, const struct comparison *c, int is_ref);
	void (*metric_end)(void *ctx, const struct metric_info *m);
	void *ctx;
};
void report_visit(const struct dataset *d, const struct report_visitor *v);

/* KCIDB v5 JSON (report_kcidb.c): checkouts, builds, and one test per run
 * and metric (status DONE, number {value, unit}); runs that are not
 * measurements are tests with status FAIL, ERROR or MISS. */
int report_write_kcidb(struct store *st, const struct selection *sel, FILE *out);

/* st: for each run's artifacts (per-interval plots) and, when the selection
 * spans several sessions, the trend of every series over them (history.h) */
int report_write_html(const struct dataset *d, struct store *st, const struct selection *sel,
		      FILE *out);

#endif
