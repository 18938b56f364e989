#include "analyze/decisions.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/gate.h"
#include "analyze/stats.h"
#include "util/util.h"

/* A side of a decision whose runs fell in two modes. */
struct modal {
	char *strategy, *workload, *metric;
	struct two_modes m;
	double gap_pct;
};

struct writer {
	struct store *st;
	const char *session;
	FILE *out;
	enum section_format f;
	size_t n;
	double alpha;
	const char *reference;	/* the first decision's; the same for all */
	struct strlist refs;	/* keeps it */
	struct modal *modal;
	size_t n_modal;
	struct strlist looked;	/* strategy/workload/metric already looked at */
	int read_failed;
};

static void heading(struct writer *w, const char *reference)
{
	FILE *out = w->out;
	static const char *const cols[] = { "strategy", "workload", "metric",
					    "runs (reference/candidate)", "outcome", "change",
					    "threshold", "why it stopped" };
	if (w->f == SECTION_HTML) {
		fputs("<h2>How many runs it took</h2>\n<p>Runs were added one at a time until "
		      "each difference from the reference (", out);
		section_text(out, reference, w->f);
		fputs(") was decided to its threshold, or the cap.</p>\n<table class=\"decisions\">"
		      "<tr>", out);
		for (size_t i = 0; i < HB_ARRAY_SIZE(cols); i++)
			fprintf(out, "<th>%s</th>", cols[i]);
		fputs("</tr>\n", out);
		return;
	}
	fputs(w->f == SECTION_MD ? "\n## How many runs it took\n\n" : "\n== how many runs it took ==\n",
	      out);
	fputs("runs added one at a time until each difference from the reference (", out);
	section_text(out, reference, w->f);
	fputs(") was decided to its threshold, or the cap\n\n|", out);
	for (size_t i = 0; i < HB_ARRAY_SIZE(cols); i++)
		fprintf(out, " %s |", cols[i]);
	fputs("\n|", out);
	for (size_t i = 0; i < HB_ARRAY_SIZE(cols); i++)
		fputs(" --- |", out);
	fputc('\n', out);
}

/* The page's verdict colours (report_html.c) by outcome. */
static const char *outcome_class(const char *outcome)
{
	enum gate_outcome o;
	if (gate_outcome_parse(outcome, &o) < 0)
		return "s-inconclusive";
	return o == GATE_IMPROVED ? "s-better" : o == GATE_REGRESSED ? "s-worse"
	       : o == GATE_PASS ? "s-same" : "s-inconclusive";
}

static void cell(struct writer *w, const char *s)
{
	fputs(w->f == SECTION_HTML ? "<td>" : " ", w->out);
	section_text(w->out, s, w->f);
	fputs(w->f == SECTION_HTML ? "</td>" : " |", w->out);
}

struct values {
	double *v;
	size_t n, cap;
};

static int collect_pass(const struct run_row *r, void *ctx)
{
	struct values *vs = ctx;
	if (strcmp(r->cls, "pass") || !isfinite(r->value))
		return 0;
	if (vs->n == vs->cap) {
		vs->cap = vs->cap ? 2 * vs->cap : 8;
		vs->v = xrealloc(vs->v, vs->cap * sizeof(*vs->v));
	}
	vs->v[vs->n++] = r->value;
	return 0;
}

/* The session's pass runs of strategy's metric in workload, once each:
 * noted when they fall in two modes at least a quarter of the threshold
 * apart (a gap that size moves a verdict). */
static void look_for_modes(struct writer *w, const char *strategy, const char *workload,
			   const char *metric, double threshold_pct)
{
	char *key = xasprintf("%s/%s/%s", strategy, workload, metric);
	int seen = strlist_has(&w->looked, key);
	if (!seen)
		strlist_push(&w->looked, key);
	free(key);
	if (seen || !w->st)
		return;
	struct strlist metrics = { 0 };
	strlist_push(&metrics, metric);
	struct selection sel = { .session = w->session, .strategy = strategy, .workload = workload,
				 .metrics = &metrics, .no_provenance = 1 };
	struct values vs = { 0 };
	if (store_foreach(w->st, &sel, collect_pass, &vs) < 0)
		w->read_failed = 1;
	struct summary all;
	summarize(vs.v, vs.n, &all);
	struct two_modes m;
	if (!w->read_failed && vs.n &&
	    two_modes_find(vs.v, vs.n, fabs(all.mean) * threshold_pct / 400, &m)) {
		w->modal = xrealloc(w->modal, (w->n_modal + 1) * sizeof(*w->modal));
		w->modal[w->n_modal++] = (struct modal){
			xstrdup(strategy), xstrdup(workload), xstrdup(metric), m,
			delta_pct(m.low_max, m.high_min) };
	}
	free(vs.v);
	strlist_free(&metrics);
}

static int row(const struct decision_record *d, void *ctx)
{
	struct writer *w = ctx;
	if (!w->n++) {
		strlist_push(&w->refs, d->reference);
		w->reference = w->refs.v[0];
		w->alpha = d->alpha;
		heading(w, w->reference);
	}
	char runs[32], change[64], threshold[32];
	snprintf(runs, sizeof(runs), "%d/%d", d->reference_runs, d->candidate_runs);
	if (isnan(d->delta_pct))
		snprintf(change, sizeof(change), "-");
	else if (isnan(d->lo_pct) || isnan(d->hi_pct))
		snprintf(change, sizeof(change), "%+.2f %%", d->delta_pct);
	else
		snprintf(change, sizeof(change), "%+.2f %% (%+.2f..%+.2f)", d->delta_pct, d->lo_pct,
			 d->hi_pct);
	snprintf(threshold, sizeof(threshold), "%.2g %%", d->threshold_pct);
	if (w->f == SECTION_HTML)
		fputs("<tr>", w->out);
	else
		fputc('|', w->out);
	cell(w, d->strategy);
	cell(w, d->workload);
	cell(w, d->metric);
	cell(w, runs);
	if (w->f == SECTION_HTML) {
		fprintf(w->out, "<td class=\"%s\">", outcome_class(d->outcome));
		section_text(w->out, d->outcome, w->f);
		fputs("</td>", w->out);
	} else
		cell(w, d->outcome);
	cell(w, change);
	cell(w, threshold);
	cell(w, d->why);
	fputs(w->f == SECTION_HTML ? "</tr>\n" : "\n", w->out);
	if (!isnan(d->threshold_pct) && d->threshold_pct > 0) {
		look_for_modes(w, d->reference, d->workload, d->metric, d->threshold_pct);
		look_for_modes(w, d->strategy, d->workload, d->metric, d->threshold_pct);
	}
	return 0;
}

/* After the table: the sides whose runs fell in two modes. */
static void write_modal(struct writer *w)
{
	for (size_t i = 0; i < w->n_modal; i++) {
		const struct modal *m = &w->modal[i];
		char line[512];	/* the longest the numbers make is under 300 */
		fputs(w->f == SECTION_HTML ? "<p>" : "", w->out);
		section_text(w->out, m->strategy, w->f);
		fputs(", ", w->out);
		section_text(w->out, m->workload, w->f);
		fputs(" ", w->out);
		section_text(w->out, m->metric, w->f);
		snprintf(line, sizeof(line),
			 ": its %zu runs fell in two modes, %zu at %.4g-%.4g and %zu at %.4g-%.4g "
			 "(%.1f %% apart). A few runs can all fall in one, so its verdict is a draw of "
			 "how many fell in each (docs/gate.md, \"Runs in two modes\").",
			 m->m.n_low + m->m.n_high, m->m.n_low, m->m.low_min, m->m.low_max,
			 m->m.n_high, m->m.high_min, m->m.high_max, m->gap_pct);
		section_text(w->out, line, w->f);
		fputs(w->f == SECTION_HTML ? "</p>\n" : "\n", w->out);
	}
}

/* One line per (strategy, workload, session) of the runs reused from
 * earlier sessions (run/planner.h): that they were, and where from. */
static int reused(const char *strategy, const char *workload, const char *from, int runs,
		  void *ctx)
{
	struct writer *w = ctx;
	char line[64];
	fputs(w->f == SECTION_HTML ? "<p>" : "", w->out);
	section_text(w->out, strategy, w->f);
	fputs(", ", w->out);
	section_text(w->out, workload, w->f);
	snprintf(line, sizeof(line), ": %d run%s reused from session ", runs, runs == 1 ? "" : "s");
	fputs(line, w->out);
	section_text(w->out, from, w->f);
	fputs(" (same kernel, initramfs, emulator, board and workload, each its boot's only run "
	      "of it)", w->out);
	fputs(w->f == SECTION_HTML ? "</p>\n" : "\n", w->out);
	return 0;
}

int decisions_write(struct store *st, const struct selection *sel, enum section_format f,
		    FILE *out)
{
	if (!sel || !sel->session)
		return 0;
	struct writer w = { .st = st, .session = sel->session, .out = out, .f = f };
	int rc = store_each_decision(st, sel->session, row, &w);
	if (w.n) {
		if (f == SECTION_HTML)
			fputs("</table>\n<p>", out);
		else
			fputc('\n', out);
		fprintf(out, "Each decision calls identical code better or worse with chance at most "
			"%.3g over all its looks (each look tests at that alpha divided by the most "
			"looks it can make); over these %zu decisions at most %.2g false alarms are "
			"expected.", w.alpha, w.n, w.alpha * (double)w.n);
		fputs(f == SECTION_HTML ? "</p>\n" : "\n", out);
		write_modal(&w);
	}
	if (rc >= 0 && w.n)
		rc = store_each_reused(st, sel->session, reused, &w);
	for (size_t i = 0; i < w.n_modal; i++) {
		free(w.modal[i].strategy);
		free(w.modal[i].workload);
		free(w.modal[i].metric);
	}
	free(w.modal);
	strlist_free(&w.looked);
	strlist_free(&w.refs);
	return rc < 0 || w.read_failed ? -1 : 0;
}
