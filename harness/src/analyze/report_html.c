/*
 * The HTML report: one self-contained page (inline CSS and SVG, no scripts,
 * nothing fetched), so it can be attached to a CI run or a mail as is.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/cycles.h"
#include "analyze/decisions.h"
#include "analyze/history.h"
#include "analyze/plot_svg.h"
#include "analyze/report.h"
#include "analyze/report_summary.h"
#include "analyze/sweep.h"
#include "analyze/trend_svg.h"
#include "store/intervals.h"
#include "util/util.h"

#define PLOT_ROWS 32
#define INTERVAL_LINES 8	/* as many as plot_colour() has colours */

struct html_ctx {
	FILE *out;
	int plot_id;
	const struct dataset *d;	/* for the page's scale of a metric (plot_svg.h) */
	const char *workload, *unit;
	const struct series *rows[PLOT_ROWS];
	struct comparison cmp[PLOT_ROWS];
	size_t n;
};

static void h_workload(void *ctx, const char *w, const char *board)
{
	struct html_ctx *h = ctx;
	h->workload = w;
	fputs("<h2>", h->out);
	html_escape(h->out, w);
	if (board) {
		fputs(" on ", h->out);
		html_escape(h->out, board);
	}
	fputs("</h2>\n", h->out);
}

static void h_metric(void *ctx, const struct metric_def *m, const char *unit)
{
	struct html_ctx *h = ctx;
	h->n = 0;
	h->unit = unit;
	fputs("<section class=\"metric\"><h3>", h->out);
	html_escape(h->out, m->name);
	fputs(" <small>(", h->out);
	html_escape(h->out, unit);
	fprintf(h->out, ", %s is better)</small></h3>\n<table><tr><th>strategy</th><th>n</th>"
		"<th>mean</th><th>median</th><th>stddev</th><th>95 %% CI</th><th>delta</th>"
		"<th>Welch p</th><th>verdict</th></tr>\n", metric_better_name(m->better));
}

/* A table cell: "-" for a value that does not exist (NaN). */
static void cell(FILE *out, double v, int sig, const char *prefix, const char *suffix)
{
	if (isnan(v))
		fputs("<td>-</td>", out);
	else
		fprintf(out, "<td>%s%.*g%s</td>", prefix, sig, v, suffix);
}

static void h_row(void *ctx, const struct series *s, const struct comparison *c, int is_ref,
		  const struct decided *x)
{
	struct html_ctx *h = ctx;
	if (h->n < PLOT_ROWS) {
		h->rows[h->n] = s;
		h->cmp[h->n++] = *c;
	}
	const char *v = is_ref ? "ref" : verdict_name(decided_verdict(x, c));
	char why[160];
	fputs("<tr><td>", h->out);
	html_escape(h->out, s->strategy);
	fprintf(h->out, "</td><td>%zu</td>", s->n);
	cell(h->out, c->cand.mean, 6, "", "");
	cell(h->out, c->cand.median, 6, "", "");
	cell(h->out, c->cand.stddev, 3, "", "");
	cell(h->out, c->cand.ci95, 3, "&plusmn;", "");
	if (is_ref || isnan(c->delta_pct))
		fputs("<td>-</td>", h->out);
	else
		fprintf(h->out, "<td>%+.2f %%</td>", c->delta_pct);
	cell(h->out, is_ref ? NAN : c->welch.p, 3, "", "");
	fprintf(h->out, "<td class=\"v-%s\">", strcmp(v, "~") ? v : "same");
	html_escape(h->out, is_ref ? v : decided_verdict_text(x, c, why, sizeof(why)));
	fputs("</td></tr>\n", h->out);
}

/* A dot plot of the rows above (plot_svg.h), at the page's scale. */
static void h_metric_end(void *ctx, const struct metric_def *m)
{
	struct html_ctx *h = ctx;
	fputs("</table>\n", h->out);
	struct dot_row rows[PLOT_ROWS];
	size_t values = 0;
	for (size_t r = 0; r < h->n; r++) {
		rows[r] = (struct dot_row){ h->rows[r]->strategy, h->rows[r]->v, h->rows[r]->n,
					    h->cmp[r].cand.mean, h->cmp[r].cand.ci95 };
		values += h->rows[r]->n;
	}
	if (values) {
		double lo, hi;
		plot_page_range(h->d, h->workload, m->name, &lo, &hi);
		char *title = xasprintf("%s by strategy", m->name);
		dotplot_svg(h->out, ++h->plot_id, title, h->unit, rows, h->n, lo, hi);
		free(title);
	}
	fputs("</section>\n", h->out);
}

/* Per workload, each strategy's first run: Mbit/s per interval, as the
 * DUT's iperf3 measured it (store/intervals.h). A flat line is a steady
 * run; a dip or a climb says the mean hides something. */
static void throughput_over_time(const struct dataset *d, const char *store_dir, FILE *out,
				 int *plot_id)
{
	for (size_t w = 0; w < d->workloads.n; w++) {
		struct line_series ls[INTERVAL_LINES];
		size_t lines = 0, points = 0;
		for (size_t si = 0; si < d->strategies.n && lines < INTERVAL_LINES; si++) {
			const struct series *s =
				dataset_find(d, d->workloads.v[w], NULL, d->strategies.v[si], METRIC_MBPS);
			if (!s)
				continue;
			char *path = xasprintf("%s/runs/%s/dut-iperf.json", store_dir, s->first_run);
			char *json = read_file(path, NULL);
			free(path);
			double *t, *v;
			size_t n = iperf_intervals(json, &t, &v);
			free(json);
			ls[lines++] = (struct line_series){ d->strategies.v[si], t, v, n };
			points += n;
		}
		if (points) {
			fputs("<section class=\"metric\"><h3>", out);
			html_escape(out, d->workloads.v[w]);
			fputs(": Mbit/s per interval <small>(the first run of each strategy, as the "
			      "DUT's iperf3 saw it)</small></h3>\n", out);
			lineplot_svg(out, ++*plot_id, "Mbit/s over time", "Mbit/s", ls, lines);
			fputs("</section>\n", out);
		}
		for (size_t l = 0; l < lines; l++) {
			free((double *)ls[l].t);
			free((double *)ls[l].v);
		}
	}
}

static const char style[] =
	"body{font-family:sans-serif;margin:2em;max-width:70em;color:#222}"
	"table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;"
	"padding:.2em .6em;text-align:right}td:first-child,th:first-child{text-align:left}"
	".v-better{color:#060;font-weight:bold}.v-worse{color:#a00;font-weight:bold}"
	PLOT_CSS "small{color:#666;font-weight:normal}"
	"table.summary td{text-align:center}td.s-better{background:#d8f0d8}"
	"td.s-worse{background:#f6d4d4}td.s-same{background:#f2f2f2}"
	"td.s-inconclusive{background:#fff3cd}td.s-fail{background:#a00;color:#fff;"
	"font-weight:bold}td.s-ref{background:#e4ecf7}.failed li{color:#a00}";

/* Sessions are nights (or days) of the same plan: with enough of them, a
 * series over time says more than one table, and its change points say when
 * something moved (docs/history.md). */
#define TREND_MIN_SESSIONS 4

static void trends(struct store *st, const struct selection *sel, const struct dataset *d,
		   FILE *out)
{
	struct history h;
	struct cp_params cp;
	cp_params_default(&cp);
	if (history_load(st, sel, NULL, HIST_PER_SESSION, &h) == 0 &&
	    history_detect(&h, &cp) == 0) {
		fputs("<h2>Over time</h2>\n<p>One point per session (the median of its runs); "
		      "dashed lines mark change points (E-divisive means, docs/history.md).</p>\n",
		      out);
		for (size_t i = 0; i < h.n; i++) {
			fputs("<section class=\"metric\"><h3>", out);
			html_escape(out, h.s[i].workload);
			fputs(" / ", out);
			html_escape(out, h.s[i].strategy);
			fputs(" / ", out);
			html_escape(out, h.s[i].metric);
			fputs("</h3>\n", out);
			double lo, hi;	/* the scale of the plots above */
			plot_page_range(d, h.s[i].workload, h.s[i].metric, &lo, &hi);
			trend_svg(out, &h.s[i], lo, hi);
			fputs("</section>\n", out);
		}
	}
	history_free(&h);
}

/* The cell class: the verdict's colour, a failure's red. */
static const char *summary_class(const struct summary_cell *c, int is_ref)
{
	if (!c->s)
		return c->failed ? "fail" : "none";
	if (is_ref)
		return "ref";
	enum verdict v = summary_verdict(c);
	return v == VERDICT_BETTER ? "better" : v == VERDICT_WORSE ? "worse"
	       : v == VERDICT_NO_CHANGE ? "same" : "inconclusive";
}

/* The one-screen answer: strategies x workloads, the headline metric's
 * change with its CI, coloured by verdict, then a sentence per workload. */
static void summary_html(const struct dataset *d, FILE *out)
{
	struct summary_table t;
	summary_build(d, &t);
	if (!t.n) {
		summary_free(&t);
		return;
	}
	fputs("<h2 id=\"summary\">Summary</h2>\n<p>", out);
	char *rules = report_rules_text(d);
	if (rules)
		html_escape(out, rules);
	free(rules);
	fputs("</p>\n<table class=\"summary\"><tr><th>strategy</th>", out);
	for (size_t r = 0; r < t.n; r++) {
		fputs("<th>", out);
		html_escape(out, t.rows[r].workload);
		if (t.boards) {
			fputs("<br><small>", out);
			html_escape(out, t.rows[r].board);
			fputs("</small>", out);
		}
		fputs("<br><small>", out);
		html_escape(out, t.rows[r].metric ? t.rows[r].metric->name : "-");
		if (t.rows[r].metric) {
			fputs(", ", out);
			html_escape(out, metric_better_name(t.rows[r].metric->better));
		}
		fputs("</small></th>", out);
	}
	fputs("</tr>\n", out);
	for (size_t i = 0; i < d->strategies.n; i++) {
		fputs("<tr><td>", out);
		html_escape(out, d->strategies.v[i]);
		fputs("</td>", out);
		for (size_t r = 0; r < t.n; r++) {
			const struct summary_cell *c = &t.rows[r].cells[i];
			char change[64], why[160];
			fprintf(out, "<td class=\"s-%s\" title=\"", summary_class(c, i == 0));
			if (c->s) {
				char *title = xasprintf("n %zu/%zu, mean %.6g %s, %s", c->c.ref.n,
							c->c.cand.n, c->c.cand.mean, t.rows[r].unit,
							i ? decided_verdict_text(c->decided, &c->c,
										 why, sizeof(why))
							  : "the reference");
				html_escape(out, title);
				free(title);
			} else if (c->why)
				html_escape(out, c->why->reason);
			fputs("\">", out);
			html_escape(out, summary_change(c, i == 0, change, sizeof(change)));
			if (c->s && c->failed)
				fprintf(out, "<br><small>%zu failed</small>", c->failed);
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table>\n<ul class=\"answers\">\n", out);
	for (size_t r = 0; r < t.n; r++) {
		char *text = NULL;
		size_t n = 0;
		FILE *sm = open_memstream(&text, &n);
		if (!sm)
			continue;
		summary_sentence(&t, &t.rows[r], sm);
		fclose(sm);
		fputs("<li>", out);
		html_escape(out, text);
		fputs("</li>\n", out);
		free(text);
	}
	fputs("</ul>\n<h2>Details</h2>\n", out);
	summary_free(&t);
}

static void html_problem_group(void *ctx, bool fail, size_t n)
{
	fprintf(ctx, fail ? "<h2>Failed: %zu runs where the DUT misbehaved</h2>\n"
			    "<ul class=\"failed\">\n"
			  : "<h2>Not measured: %zu runs the infrastructure lost</h2>\n<ul>\n", n);
}

static void html_problem(void *ctx, const char *line)
{
	fputs("<li>", ctx);
	html_escape(ctx, line);
	fputs("</li>\n", ctx);
}

static void html_problem_group_end(void *ctx, bool fail)
{
	(void)fail;
	fputs("</ul>\n", ctx);
}

/* The store for each run's artifacts (per-interval plots) and, when the
 * selection spans several sessions, the trend of every series over them
 * (history.h). */
int report_emit_html(const struct report_input *in, FILE *out)
{
	const struct dataset *d = in->d;
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<title>hilbench report</title><style>%s</style></head><body>\n"
		"<h1>hilbench report</h1>\n<p>%zu measured runs, ", style, d->runs);
	html_escape(out, d->timing[0] ? d->timing : "no");
	fputs(" time; sessions: ", out);
	for (size_t i = 0; i < d->sessions.n; i++) {
		if (i)
			fputs(", ", out);
		html_escape(out, d->sessions.v[i]);
	}
	fputs(". Every plot carries its legend (docs/plots.md).</p>\n", out);
	summary_html(d, out);
	if (decisions_write(in->st, in->sel, d, SECTION_HTML, out) < 0)
		return -1;
	struct html_ctx h = { .out = out, .d = d };
	struct report_visitor v = { h_workload, h_metric, h_row, h_metric_end, &h };
	report_visit(d, &v);
	if (d->strategies.n && cycles_write(in->st, in->sel, d->strategies.v[0], SECTION_HTML, out) < 0)
		return -1;
	throughput_over_time(d, store_dir(in->st), out, &h.plot_id);
	struct sweep_set sweeps;
	sweep_collect(d, &sweeps);
	sweep_write_svg(&sweeps, d, out, &h.plot_id);
	sweep_set_free(&sweeps);
	if (d->sessions.n >= TREND_MIN_SESSIONS)
		trends(in->st, in->sel, d, out);
	if (d->mixed_timing)
		fprintf(out, "<p>%zu measurements of another timing mode were left out.</p>\n",
			d->mixed_timing);
	struct report_problem_visitor pv = { html_problem_group, html_problem,
					     html_problem_group_end, out };
	report_visit_problems(d, &pv);
	fputs("</body></html>\n", out);
	return ferror(out) ? -1 : 0;
}
