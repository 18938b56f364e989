/*
 * report: stored runs as a comparison report, in the formats of
 * analyze/report_formats.h (the one list of them).
 *
 * A summarizing format gets a dataset (analyze/dataset.h) and walks it
 * with report_visit(): per workload, board and metric, one row per build
 * with every repetition, mean, median, stddev, 95 % CI, delta against the
 * reference (the first strategy, on the same board; never another), Welch's
 * p and the verdict with the rule behind an inconclusive one
 * (analyze/report_summary.h); runs that are not measurements are listed
 * with their class, reason and log, failures first. text, md and html open
 * with the summary (report_summary.h). A streaming format (csv, kcidb)
 * reads the store itself, runs of every class. junit has a test case per
 * strategy, workload and metric: a <failure> where the strategy is
 * significantly worse than the reference, skipped where there are too few
 * runs to say; and one per run that is not a measurement: a <failure> for
 * class fail (the DUT misbehaved), an <error> for error and miss.
 *
 * Contract: every string that came from a file or the store is escaped for
 * the format (HTML entities, JSON, CSV quoting, Markdown pipes). Returns 0,
 * HB_FAIL_INPUT for what the user must fix (a reference the selection
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

/* What an emitter reads: the selection and its store, and for a format
 * that summarizes, the dataset loaded from them (reference first); d is
 * NULL for a format that streams the store itself. */
struct report_input {
	struct store *st;
	const struct selection *sel;
	const struct dataset *d;
};
/* Writes the report to out; returns 0, or -1 with the message printed. */
typedef int report_emitter(const struct report_input *in, FILE *out);
enum report_input_kind { REPORT_STREAMS, REPORT_SUMMARIZES };

#define REPORT_FORMAT(id, name, emitter, input, help) REPORT_##id,
enum report_format {
#include "analyze/report_formats.h"
	REPORT_FORMATS	/* how many there are */
};
#undef REPORT_FORMAT
#define REPORT_FORMAT(id, name, emitter, input, help) report_emitter emitter;
#include "analyze/report_formats.h"
#undef REPORT_FORMAT

struct report_format_info {
	const char *name;
	report_emitter *emit;
	enum report_input_kind input;
	const char *help;
};
/* Indexed by enum report_format, in the order of analyze/report_formats.h. */
extern const struct report_format_info report_formats[REPORT_FORMATS];

int report_format_parse(const char *name, enum report_format *f);
/* The names joined by sep, the last by last_sep ("text|md|..." or "text,
 * md, ... or kcidb"); the caller frees it. */
char *report_format_names(const char *sep, const char *last_sep);
/* reference: the strategy every other is compared with; NULL = the default
 * (see dataset.h). Naming one that is not in the selection is an error. */
int report_write(struct store *st, const struct selection *sel, const char *reference,
		 enum report_format f, FILE *out);
/* The same into path, atomically: a reader never sees half a report. */
int report_write_file(struct store *st, const struct selection *sel, const char *reference,
		      enum report_format f, const char *path);

/* Walks a dataset for the summarizing emitters. */
struct report_visitor {
	/* a table per workload and board; board is NULL when the dataset has one */
	void (*workload)(void *ctx, const char *workload, const char *board);
	/* optional, like metric_end */
	void (*metric)(void *ctx, const struct metric_def *m, const char *unit);
	/* c compares s against the reference; is_ref for the reference row;
	 * x: the planner's decision on this row's metric (dataset.h), or NULL */
	void (*row)(void *ctx, const struct series *s, const struct comparison *c, int is_ref,
		    const struct decided *x);
	void (*metric_end)(void *ctx, const struct metric_def *m);
	void *ctx;
};
void report_visit(const struct dataset *d, const struct report_visitor *v);

/* Walks the runs that are not measurements in the order every report lists
 * them: failures first (the DUT misbehaved: a patch's doing), then what the
 * infrastructure lost (error, miss). A group with no runs is skipped. */
struct report_problem_visitor {
	/* fail: the group of class fail, else of error and miss; n its runs */
	void (*group)(void *ctx, bool fail, size_t n);
	/* each run of the group, as problem_line() words it */
	void (*problem)(void *ctx, const char *line);
	void (*group_end)(void *ctx, bool fail);	/* optional */
	void *ctx;
};
void report_visit_problems(const struct dataset *d, const struct report_problem_visitor *v);

#endif
