#include "analyze/decisions.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/dataset.h"
#include "analyze/gate.h"
#include "analyze/stats.h"
#include "config/catalog.h"
#include "util/util.h"

struct writer {
	FILE *out;
	enum section_format f;
	size_t n;
	double alpha;
	const char *reference;	/* the first decision's; the same for all */
	struct strlist refs;	/* keeps it */
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
	return 0;
}

/* One side of a decision whose runs fell in two modes, named. */
static void modal_line(FILE *out, enum section_format f, const struct series *s,
		       const struct two_modes *m)
{
	char line[512];	/* the longest the numbers make is under 300 */
	fputs(f == SECTION_HTML ? "<p>" : "", out);
	section_text(out, s->strategy, f);
	fputs(", ", out);
	section_text(out, s->workload, f);
	fputs(" ", out);
	section_text(out, s->metric, f);
	snprintf(line, sizeof(line),
		 ": its %zu runs fell in two modes, %zu at %.4g-%.4g and %zu at %.4g-%.4g "
		 "(%.1f %% apart). A few runs can all fall in one, so its verdict is a draw of "
		 "how many fell in each (docs/gate.md, \"Runs in two modes\").",
		 m->n_low + m->n_high, m->n_low, m->low_min, m->low_max, m->n_high, m->high_min,
		 m->high_max, delta_pct(m->low_max, m->high_min));
	section_text(out, line, f);
	fputs(f == SECTION_HTML ? "</p>\n" : "\n", out);
}

/* After the table: each side of a decision (the reference's once) whose
 * pass runs of the decided metric fell in two modes at least a quarter of
 * its threshold apart, a gap that moves a verdict. */
static void write_modal(const struct dataset *d, enum section_format f, FILE *out)
{
	struct strlist looked = { 0 };
	for (size_t i = 0; d && i < d->n_decided; i++) {
		const struct decided *dc = &d->decided[i];
		if (isnan(dc->threshold_pct) || dc->threshold_pct <= 0)
			continue;
		const char *const sides[] = { dc->reference, dc->strategy };
		for (size_t k = 0; k < HB_ARRAY_SIZE(sides); k++) {
			const struct series *s = dataset_find(d, dc->workload, NULL, sides[k], dc->metric);
			if (!s || strlist_has(&looked, s->first_run))
				continue;
			strlist_push(&looked, s->first_run);
			struct two_modes m;
			if (two_modes_past(s->v, s->n, dc->threshold_pct, &m))
				modal_line(out, f, s, &m);
		}
	}
	strlist_free(&looked);
}

static int take_threshold(const struct decision_record *d, void *ctx)
{
	struct decision_thresholds *t = ctx;
	if (!d->workload || !d->metric || !isfinite(d->threshold_pct) || d->threshold_pct <= 0)
		return 0;
	char *key = xasprintf("%s %s", d->workload, d->metric);
	if (!strlist_has(&t->keys, key)) {
		t->pct = xrealloc(t->pct, (t->keys.n + 1) * sizeof(*t->pct));
		t->pct[t->keys.n] = d->threshold_pct;
		strlist_push(&t->keys, key);
	}
	free(key);
	return 0;
}

int decision_thresholds_load(struct store *st, const struct strlist *sessions,
			     struct decision_thresholds *t)
{
	memset(t, 0, sizeof(*t));
	if (catalog_plan(PLAN_GATE, &t->gate) < 0)
		hb_err("runs in two modes are named only where a stored decision gives the threshold");
	for (size_t i = 0; i < sessions->n; i++)
		if (store_each_decision(st, sessions->v[i], take_threshold, t) < 0)
			return -1;
	return 0;
}

/* The gate plan's threshold for workload's metric in timing mode timing. */
static double gate_plan_threshold(const struct plan *gate, const char *workload,
				  const char *metric, const char *timing)
{
	enum timing_mode mode;
	if (!gate->gate.metrics.n || timing_mode_parse(timing, &mode) < 0)
		return NAN;
	char *path = catalog_path("workload", workload), err[1024];
	struct workload w;
	int rc = workload_load(path, &w, err, sizeof(err));
	free(path);
	if (rc < 0)
		return NAN;	/* a workload stored by a name no file has now */
	const struct gate_metric *m = gate_metric_for(&gate->gate, &w, metric, mode);
	double pct = m && m->threshold_pct[mode] > 0 ? m->threshold_pct[mode] : NAN;
	workload_free(&w);
	return pct;
}

double decision_threshold(const struct decision_thresholds *t, const char *workload,
			  const char *metric, const char *timing)
{
	char *key = xasprintf("%s %s", workload, metric);
	double pct = NAN;
	for (size_t i = 0; i < t->keys.n && isnan(pct); i++)
		if (!strcmp(t->keys.v[i], key))
			pct = t->pct[i];
	free(key);
	return isnan(pct) ? gate_plan_threshold(&t->gate, workload, metric, timing) : pct;
}

void decision_thresholds_free(struct decision_thresholds *t)
{
	free(t->pct);
	strlist_free(&t->keys);
	plan_free(&t->gate);
	memset(t, 0, sizeof(*t));
}

/* A selection of several sessions: each series whose runs fell in two
 * modes that alternate in time, by the threshold decision_threshold()
 * gives its workload and metric (none: not looked at). */
static int write_modal_pooled(struct store *st, const struct dataset *d, enum section_format f,
			      FILE *out)
{
	struct decision_thresholds t;
	int rc = decision_thresholds_load(st, &d->sessions, &t);
	size_t named = 0;
	for (size_t i = 0; rc == 0 && i < d->n; i++) {
		const struct series *s = &d->s[i];
		double pct = decision_threshold(&t, s->workload, s->metric, d->timing);
		struct two_modes m;
		if (isnan(pct) || !two_modes_past(s->v, s->n, pct, &m) ||
		    !two_modes_alternate(s->v, s->n, &m))
			continue;
		if (!named++ && f != SECTION_HTML)
			fputc('\n', out);
		modal_line(out, f, s, &m);
	}
	decision_thresholds_free(&t);
	return rc;
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

int decisions_write(struct store *st, const struct selection *sel, const struct dataset *d,
		    enum section_format f, FILE *out)
{
	if (sel && !sel->session && d && d->sessions.n > 1)
		return write_modal_pooled(st, d, f, out);
	if (!sel || !sel->session)
		return 0;
	struct writer w = { .out = out, .f = f };
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
		write_modal(d, f, out);
	}
	if (rc >= 0 && w.n)
		rc = store_each_reused(st, sel->session, reused, &w);
	strlist_free(&w.refs);
	return rc < 0 ? -1 : 0;
}
