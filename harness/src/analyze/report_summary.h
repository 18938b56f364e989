/*
 * report_summary: the answer a report opens with. Per workload (and board),
 * its headline metric for every strategy: the change against the
 * reference with the confidence interval of that change, the verdict, the
 * runs that failed, and one sentence that says which strategy is best, by
 * how much and how sure.
 *
 * The headline metric is the workload file's `headline:` key
 * (workloads/<name>.yaml); a workload without one (or whose file is gone)
 * takes the first headline metric of the metrics table (store/metrics.h)
 * that its runs have. A session the planner ran (`repeat: until-decided`)
 * is answered by its decisions, the rule fixed before its runs; other cells
 * by Welch's test. The rules that decide a verdict, and those that make
 * one inconclusive, are report_rules()'s text: every format that shows a
 * verdict states them.
 *
 * Contract: summary_build() reads the dataset and the workload files, never
 * the store; a headline that names no metric is reported on stderr as
 * "FILE: headline 'x' is not a metric" and the fallback is used.
 */
#ifndef HB_REPORT_SUMMARY_H
#define HB_REPORT_SUMMARY_H

#include <stdio.h>

#include "analyze/dataset.h"
#include "analyze/stats.h"

struct summary_cell {
	const char *strategy;		/* a label of d->strategies */
	const struct series *s;		/* NULL: no pass runs */
	struct comparison c;		/* against the reference; c.ref.n 0 without one */
	size_t failed, errors;		/* runs of class fail, and error or miss */
	const struct problem *why;	/* the first failed (else erroneous) run */
	/* the planner's decision on this cell (dataset.h), which its verdict,
	 * change and interval are then; NULL: Welch's test of the runs */
	const struct decided *decided;
};

/* One workload on one board. */
struct summary_row {
	const char *workload, *board;
	const struct metric_def *metric;	/* NULL: no metric of it was measured */
	const char *unit;
	struct summary_cell *cells;		/* one per d->strategies, in order */
	size_t n;
};

struct summary_table {
	const struct dataset *d;
	struct summary_row *rows;
	size_t n;
	int boards;			/* more than one board: rows name theirs */
};

void summary_build(const struct dataset *d, struct summary_table *t);
void summary_free(struct summary_table *t);

/* A planner's decision as a verdict: improved is better, REGRESSED worse,
 * pass ~ (no change as large as the threshold), anything else
 * inconclusive; without one (x NULL), c's own verdict. */
enum verdict decided_verdict(const struct decided *x, const struct comparison *c);
/* A cell's verdict: the planner's decision where it made one, else
 * Welch's (inconclusive below STATS_MIN_VERDICT_N runs a side). */
enum verdict summary_verdict(const struct summary_cell *c);
/* The verdict in words with the rule behind it: for a decision "better:
 * decided at look 1 of 6, threshold 1 %, n 6/1", else verdict_text()'s of
 * c. Into buf, which it returns. */
const char *decided_verdict_text(const struct decided *x, const struct comparison *c, char *buf,
				 size_t len);
/* The verdict as a report prints it, with the rule behind an inconclusive
 * one: "better", "~", "inconclusive: n 2/3, fewer than 3 (Welch p 4.7e-07)",
 * "no reference runs", "failed". Into buf, which it returns. */
const char *verdict_text(const struct comparison *c, char *buf, size_t len);
/* How the reference was chosen and the verdict rules, as one paragraph of
 * plain text (the caller escapes it for its format). */
void report_rules(const struct dataset *d, FILE *out);
/* The same text as a string, for a format that escapes it as a whole;
 * NULL when memory ran out. The caller frees it. */
char *report_rules_text(const struct dataset *d);
/* The sentence that answers a row: which strategy, by how much, how sure. */
void summary_sentence(const struct summary_table *t, const struct summary_row *r, FILE *out);
/* The change of a cell as "+15.7 % (CI +14.9..+16.5 %)" (a decision's:
 * "(interval ...)", the planner's over all its looks), "ref", "FAIL" or "-". */
const char *summary_change(const struct summary_cell *c, int is_ref, char *buf, size_t len);

/* The summary as text (md: a Markdown table) and its sentences. */
void summary_write_text(const struct summary_table *t, FILE *out, int md);

#endif
