#include "analyze/history.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/dataset.h"
#include "analyze/decisions.h"
#include "analyze/movers.h"
#include "analyze/plot_svg.h"
#include "analyze/report.h"
#include "analyze/trend_svg.h"
#include "util/util.h"

/* Only the metrics reports compare have a direction here: for the others
 * a change is a shift (history.h). */
static int metric_direction(const char *metric)
{
	const struct metric_def *m = metric_find(metric);
	if (!metric_in_reports(m))
		return 0;
	return m->better == BETTER_HIGHER ? 1 : m->better == BETTER_LOWER ? -1 : 0;
}

static char *dup_or_dash(const char *s)
{
	return xstrdup(s ? s : "-");
}

struct loader {
	struct history *h;
	const char *metric;
};

static struct hist_series *find_series(struct history *h, const struct run_row *r)
{
	for (size_t i = 0; i < h->n; i++) {
		struct hist_series *s = &h->s[i];
		if (!strcmp(s->board, r->board) && !strcmp(s->strategy, r->strategy) &&
		    !strcmp(s->workload, r->workload) && !strcmp(s->metric, r->metric) &&
		    !strcmp(s->timing, r->timing))
			return s;
	}
	h->s = xrealloc(h->s, (h->n + 1) * sizeof(*h->s));
	struct hist_series *s = &h->s[h->n++];
	*s = (struct hist_series){
		.board = xstrdup(r->board), .strategy = xstrdup(r->strategy),
		.workload = xstrdup(r->workload), .metric = xstrdup(r->metric),
		.unit = xstrdup(r->unit), .timing = xstrdup(r->timing),
		.direction = metric_direction(r->metric),
	};
	return s;
}

static int take_row(const struct run_row *r, void *ctx)
{
	struct loader *l = ctx;
	if (l->metric ? strcmp(r->metric, l->metric) != 0 : metric_direction(r->metric) == 0)
		return 0;
	struct hist_series *s = find_series(l->h, r);
	s->p = xrealloc(s->p, (s->n + 1) * sizeof(*s->p));
	s->p[s->n++] = (struct hist_point){
		.run = xstrdup(r->id), .session = dup_or_dash(r->session),
		.started = dup_or_dash(r->started), .kernel_version = dup_or_dash(r->kernel_version),
		.kernel_release = dup_or_dash(r->kernel_release),
		.build_key = dup_or_dash(r->build_key), .value = r->value, .runs = 1,
	};
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct hist_point *x = a, *y = b;
	int c = strcmp(x->started, y->started);
	return c ? c : strcmp(x->run, y->run);
}

static void point_free(struct hist_point *p)
{
	free(p->run);
	free(p->session);
	free(p->started);
	free(p->kernel_version);
	free(p->kernel_release);
	free(p->build_key);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Runs of one session become one point: their median, the first run's
 * provenance. Points are in time order, so a session's runs are adjacent. */
static void per_session(struct hist_series *s)
{
	size_t out = 0;
	double *vals = xmalloc((s->n + 1) * sizeof(double));
	for (size_t i = 0; i < s->n;) {
		size_t j = i;
		while (j < s->n && !strcmp(s->p[j].session, s->p[i].session))
			vals[j - i] = s->p[j].value, j++;
		size_t k = j - i;
		qsort(vals, k, sizeof(double), by_value);
		struct hist_point first = s->p[i];
		first.value = k % 2 ? vals[k / 2] : (vals[k / 2 - 1] + vals[k / 2]) / 2;
		first.runs = k;
		for (size_t m = i + 1; m < j; m++)
			point_free(&s->p[m]);
		s->p[out++] = first;
		i = j;
	}
	s->n = out;
	free(vals);
}

int history_load(struct store *st, const struct selection *sel, const char *metric,
		 enum hist_points points, struct history *h)
{
	memset(h, 0, sizeof(*h));
	h->points = points;
	struct selection pass_only = *sel;
	pass_only.all_classes = 0;
	struct loader l = { h, metric };
	if (store_foreach(st, &pass_only, take_row, &l) != 0)
		return -1;
	for (size_t i = 0; i < h->n; i++) {
		qsort(h->s[i].p, h->s[i].n, sizeof(*h->s[i].p), by_time);
		if (points == HIST_PER_SESSION)
			per_session(&h->s[i]);
	}
	return 0;
}

int history_detect(struct history *h, const struct cp_params *p)
{
	h->params = *p;
	h->detected = 1;
	double *x = NULL;
	int rc = 0;
	for (size_t i = 0; i < h->n && rc == 0; i++) {
		struct hist_series *s = &h->s[i];
		x = xrealloc(x, (s->n + 1) * sizeof(double));
		for (size_t k = 0; k < s->n; k++)
			x[k] = s->p[k].value;
		cp_result_free(&s->cp);
		free(s->where);
		s->where = NULL;
		rc = changepoint_detect(x, s->n, p, &s->cp);
	}
	free(x);
	return rc;
}

/* The points [from, to) of s as selections of their runs, into sel (at
 * most two: a list of run ids, or one per session point); returns how
 * many. ids holds the run ids. */
static size_t points_selection(const struct history *h, const struct hist_series *s,
			       size_t from, size_t to, struct strlist *ids,
			       struct selection **sel)
{
	struct selection base = { .board = s->board, .strategy = s->strategy,
				  .workload = s->workload, .timing = s->timing };
	size_t n = 0;
	*sel = xcalloc(to - from + 1, sizeof(**sel));
	if (h->points == HIST_PER_RUN) {
		for (size_t k = from; k < to; k++)
			strlist_push(ids, s->p[k].run);
		base.runs = ids;
		(*sel)[n++] = base;
	} else {
		for (size_t k = from; k < to; k++) {
			(*sel)[n] = base;
			(*sel)[n++].session = s->p[k].session;
		}
	}
	return n;
}

int history_movers(struct history *h, struct store *st)
{
	int rc = 0;
	for (size_t i = 0; i < h->n && rc == 0; i++) {
		struct hist_series *s = &h->s[i];
		free(s->where);
		s->where = s->cp.n ? xcalloc(s->cp.n, sizeof(*s->where)) : NULL;
		for (size_t c = 0; c < s->cp.n && rc == 0; c++) {
			size_t at = s->cp.v[c].index;
			size_t start = c ? s->cp.v[c - 1].index : 0;
			size_t end = c + 1 < s->cp.n ? s->cp.v[c + 1].index : s->n;
			if (at - start > HIST_MOVERS_POINTS)
				start = at - HIST_MOVERS_POINTS;
			if (end - at > HIST_MOVERS_POINTS)
				end = at + HIST_MOVERS_POINTS;
			struct strlist before_ids = { 0 }, after_ids = { 0 };
			struct selection *before, *after;
			size_t nb = points_selection(h, s, start, at, &before_ids, &before);
			size_t na = points_selection(h, s, at, end, &after_ids, &after);
			rc = movers_between(st, before, nb, after, na, s->workload, s->where[c],
					    sizeof(s->where[c]));
			free(before);
			free(after);
			strlist_free(&before_ids);
			strlist_free(&after_ids);
		}
	}
	return rc;
}

int history_modes(struct history *h, struct store *st)
{
	struct strlist sessions = { 0 };
	for (size_t i = 0; i < h->n; i++)
		for (size_t k = 0; k < h->s[i].n; k++) {
			const char *session = h->s[i].p[k].session;
			if (strcmp(session, "-") && !strlist_has(&sessions, session))
				strlist_push(&sessions, session);
		}
	struct decision_thresholds t;
	int rc = decision_thresholds_load(st, &sessions, &t);
	strlist_free(&sessions);
	double *x = NULL;
	for (size_t i = 0; i < h->n && rc == 0; i++) {
		struct hist_series *s = &h->s[i];
		double pct = decision_threshold(&t, s->workload, s->metric, s->timing);
		free(s->modes);
		s->modes = NULL;
		s->n_modes = 0;
		x = xrealloc(x, (s->n + 1) * sizeof(double));
		for (size_t c = 0; !isnan(pct) && c <= s->cp.n; c++) {
			size_t from = c ? s->cp.v[c - 1].index : 0;
			size_t to = c < s->cp.n ? s->cp.v[c].index : s->n;
			for (size_t k = from; k < to; k++)
				x[k - from] = s->p[k].value;
			struct two_modes m;
			if (!two_modes_past(x, to - from, pct, &m) ||
			    !two_modes_alternate(x, to - from, &m))
				continue;
			s->modes = xrealloc(s->modes, (s->n_modes + 1) * sizeof(*s->modes));
			s->modes[s->n_modes++] = (struct hist_modes){ from, to, m };
		}
	}
	free(x);
	decision_thresholds_free(&t);
	return rc;
}

void history_free(struct history *h)
{
	for (size_t i = 0; i < h->n; i++) {
		struct hist_series *s = &h->s[i];
		for (size_t k = 0; k < s->n; k++)
			point_free(&s->p[k]);
		free(s->p);
		free(s->board);
		free(s->strategy);
		free(s->workload);
		free(s->metric);
		free(s->unit);
		free(s->timing);
		cp_result_free(&s->cp);
		free(s->where);
		free(s->modes);
	}
	free(h->s);
	memset(h, 0, sizeof(*h));
}

enum change_kind history_change_kind(const struct hist_series *s, const struct cp_change *c)
{
	if (!s->direction)
		return CHANGE_SHIFT;
	return (c->delta > 0) == (s->direction > 0) ? CHANGE_IMPROVEMENT : CHANGE_REGRESSION;
}

const char *change_kind_name(enum change_kind k)
{
	static const char *const names[] = { "REGRESSION", "improvement", "shift" };
	return names[k];
}

int history_newest_is_regression(const struct history *h)
{
	for (size_t i = 0; i < h->n; i++) {
		const struct hist_series *s = &h->s[i];
		if (s->cp.n && history_change_kind(s, &s->cp.v[s->cp.n - 1]) == CHANGE_REGRESSION)
			return 1;
	}
	return 0;
}

static const char *short_key(const char *key)
{
	static char buf[13];
	snprintf(buf, sizeof(buf), "%s", key);
	return buf;
}

static void series_title(const struct history *h, const struct hist_series *s, FILE *out)
{
	fprintf(out, "%s %s  %s / %s, %s time (%zu %s, %s is better)\n", s->workload, s->metric,
		s->board, s->strategy, s->timing, s->n,
		h->points == HIST_PER_SESSION ? "sessions" : "runs",
		s->direction > 0 ? "higher" : s->direction < 0 ? "lower" : "neither");
}

/* The movers of change c of s, "" when history_movers() found none or did not run. */
static const char *where_of(const struct hist_series *s, size_t c)
{
	return s->where ? s->where[c] : "";
}

static void text_change(const struct hist_series *s, size_t i, FILE *out)
{
	const struct cp_change *c = &s->cp.v[i];
	const struct hist_point *p = &s->p[c->index];
	fprintf(out, "  change at #%zu (%s): %.6g -> %.6g %s (%+.6g, %+.2f %%), p %.3g\n",
		c->index, change_kind_name(history_change_kind(s, c)), c->before, c->after,
		s->unit, c->delta, c->delta_pct, c->p);
	fprintf(out, "    first run after: %s (session %s, %s), kernel %s, release %s, build %s\n",
		p->run, p->session, p->started, p->kernel_version, p->kernel_release,
		short_key(p->build_key));
	if (where_of(s, i)[0])
		fprintf(out, "    where: %s\n", where_of(s, i));
}

/* "runs #0-#32 fell in two modes, 20 at 35.76-36.81 and 13 at
 * 37.67-37.95 Mbit/s (2.3 % apart): ..." */
static void modes_text(const struct history *h, const struct hist_series *s,
		       const struct hist_modes *md, char *out, size_t len)
{
	const struct two_modes *m = &md->m;
	snprintf(out, len,
		 "%s #%zu-#%zu fell in two modes, %zu at %.4g-%.4g and %zu at %.4g-%.4g %s "
		 "(%.1f %% apart): a verdict on a few of them is a draw of which.",
		 h->points == HIST_PER_SESSION ? "sessions" : "runs", md->from, md->to - 1,
		 m->n_low, m->low_min, m->low_max, m->n_high, m->high_min, m->high_max, s->unit,
		 delta_pct(m->low_max, m->high_min));
}

static void text_modes(const struct history *h, const struct hist_series *s,
		       const struct hist_modes *md, FILE *out)
{
	char line[512];
	modes_text(h, s, md, line, sizeof(line));
	fprintf(out, "  %s\n", line);
}

void history_write_text(const struct history *h, FILE *out)
{
	if (!h->n)
		fputs("no stored pass runs match the selection\n", out);
	for (size_t i = 0; i < h->n; i++) {
		const struct hist_series *s = &h->s[i];
		series_title(h, s, out);
		fprintf(out, "  %4s  %-20s  %-24s  %-12s  %-12s  %14s\n", "#", "started",
			h->points == HIST_PER_SESSION ? "session" : "run", "kernel", "build",
			s->unit);
		for (size_t k = 0; k < s->n; k++) {
			const struct hist_point *p = &s->p[k];
			fprintf(out, "  %4zu  %-20s  %-24s  %-12s  %-12s  %14.6g\n", k, p->started,
				h->points == HIST_PER_SESSION ? p->session : p->run,
				p->kernel_version, short_key(p->build_key), p->value);
		}
		for (size_t k = 0; k < s->n_modes; k++)
			text_modes(h, s, &s->modes[k], out);
		if (!h->detected)
			continue;
		for (size_t c = 0; c < s->cp.n; c++)
			text_change(s, c, out);
		if (!s->cp.n)
			fprintf(out, "  no change (%s)\n",
				isnan(s->cp.last_p) ? "too few points for two segments"
						    : "best split not significant");
	}
	if (h->detected)
		fprintf(out, "detector: e-divisive means, min segment %zu, alpha %g, "
			"%u permutations, seed 0x%016llx\n", h->params.min_segment, h->params.alpha,
			h->params.permutations, (unsigned long long)h->params.seed);
}

void history_write_changes(const struct history *h, FILE *out)
{
	size_t changed = 0, modal = 0;
	for (size_t i = 0; i < h->n; i++) {
		const struct hist_series *s = &h->s[i];
		if (!s->cp.n && !s->n_modes)
			continue;
		series_title(h, s, out);
		for (size_t c = 0; c < s->cp.n; c++)
			text_change(s, c, out);
		for (size_t k = 0; k < s->n_modes; k++)
			text_modes(h, s, &s->modes[k], out);
		changed += s->cp.n > 0;
		modal += s->n_modes > 0;
	}
	fprintf(out, "%zu of %zu series changed, %zu in two modes (e-divisive means, min segment "
		"%zu, alpha %g, %u permutations, seed 0x%016llx)\n", changed, h->n, modal,
		h->params.min_segment, h->params.alpha, h->params.permutations,
		(unsigned long long)h->params.seed);
}

static void json_number(cJSON *o, const char *k, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);	/* JSON has no NaN */
}

/* One of two modes: how many points, their least and most. */
static void json_mode(cJSON *o, const char *k, size_t points, double min, double max)
{
	cJSON *m = cJSON_AddObjectToObject(o, k);
	cJSON_AddNumberToObject(m, "points", (double)points);
	json_number(m, "min", min);
	json_number(m, "max", max);
}

static void json_provenance(cJSON *o, const struct hist_point *p)
{
	cJSON_AddStringToObject(o, "run", p->run);
	cJSON_AddStringToObject(o, "session", p->session);
	cJSON_AddStringToObject(o, "started", p->started);
	cJSON_AddStringToObject(o, "kernel_version", p->kernel_version);
	cJSON_AddStringToObject(o, "kernel_release", p->kernel_release);
	cJSON_AddStringToObject(o, "build_key", p->build_key);
}

int history_write_json(const struct history *h, FILE *out)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "schema", "hilbench-history/1");
	cJSON_AddStringToObject(root, "points", h->points == HIST_PER_SESSION ? "session" : "run");
	if (h->detected) {
		cJSON *d = cJSON_AddObjectToObject(root, "detector");
		cJSON_AddStringToObject(d, "method", "e-divisive-means");
		cJSON_AddNumberToObject(d, "min_segment", (double)h->params.min_segment);
		cJSON_AddNumberToObject(d, "alpha", h->params.alpha);
		cJSON_AddNumberToObject(d, "permutations", h->params.permutations);
		char seed[24];
		snprintf(seed, sizeof(seed), "0x%016llx", (unsigned long long)h->params.seed);
		cJSON_AddStringToObject(d, "seed", seed);
	}
	cJSON *arr = cJSON_AddArrayToObject(root, "series");
	for (size_t i = 0; i < h->n; i++) {
		const struct hist_series *s = &h->s[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "board", s->board);
		cJSON_AddStringToObject(o, "strategy", s->strategy);
		cJSON_AddStringToObject(o, "workload", s->workload);
		cJSON_AddStringToObject(o, "metric", s->metric);
		cJSON_AddStringToObject(o, "unit", s->unit);
		cJSON_AddStringToObject(o, "timing", s->timing);
		cJSON_AddStringToObject(o, "better", s->direction > 0 ? "higher" :
					s->direction < 0 ? "lower" : "unknown");
		cJSON *pts = cJSON_AddArrayToObject(o, "points");
		for (size_t k = 0; k < s->n; k++) {
			cJSON *p = cJSON_CreateObject();
			json_provenance(p, &s->p[k]);
			json_number(p, "value", s->p[k].value);
			cJSON_AddNumberToObject(p, "runs", (double)s->p[k].runs);
			cJSON_AddItemToArray(pts, p);
		}
		cJSON *modes = cJSON_AddArrayToObject(o, "modes");
		for (size_t k = 0; k < s->n_modes; k++) {
			const struct hist_modes *md = &s->modes[k];
			cJSON *j = cJSON_CreateObject();
			cJSON_AddNumberToObject(j, "from", (double)md->from);
			cJSON_AddNumberToObject(j, "to", (double)(md->to - 1));
			json_mode(j, "low", md->m.n_low, md->m.low_min, md->m.low_max);
			json_mode(j, "high", md->m.n_high, md->m.high_min, md->m.high_max);
			cJSON_AddItemToArray(modes, j);
		}
		if (h->detected) {
			cJSON *chs = cJSON_AddArrayToObject(o, "changes");
			for (size_t c = 0; c < s->cp.n; c++) {
				const struct cp_change *ch = &s->cp.v[c];
				cJSON *j = cJSON_CreateObject();
				cJSON_AddNumberToObject(j, "index", (double)ch->index);
				cJSON_AddStringToObject(j, "kind", change_kind_name(history_change_kind(s, ch)));
				json_number(j, "before", ch->before);
				json_number(j, "after", ch->after);
				json_number(j, "delta", ch->delta);
				json_number(j, "delta_pct", ch->delta_pct);
				json_number(j, "p", ch->p);
				json_number(j, "q", ch->q);
				cJSON *first = cJSON_AddObjectToObject(j, "first_after");
				json_provenance(first, &s->p[ch->index]);
				if (s->where)
					cJSON_AddStringToObject(j, "where", s->where[c]);
				cJSON_AddItemToArray(chs, j);
			}
		}
		cJSON_AddItemToArray(arr, o);
	}
	char *text = cJSON_Print(root);
	cJSON_Delete(root);
	int rc = fputs(text, out) < 0 || fputc('\n', out) < 0 ? -1 : 0;
	free(text);
	return rc;
}

void history_write_html(const struct history *h, FILE *out)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<title>hilbench history</title>\n<style>body{font-family:sans-serif;"
	      "max-width:60em;margin:auto}" PLOT_CSS
	      "table{border-collapse:collapse}td,th{padding:2px 8px;text-align:left}"
	      ".REGRESSION{color:#b00}.improvement{color:#070}</style></head><body>\n"
	      "<h1>hilbench history</h1>\n", out);
	if (!h->n)
		fputs("<p>No stored pass runs match the selection.</p>\n", out);
	for (size_t i = 0; i < h->n; i++) {
		const struct hist_series *s = &h->s[i];
		fputs("<section><h2>", out);
		html_escape(out, s->workload);
		fputs(" ", out);
		html_escape(out, s->metric);
		fputs(" <small>", out);
		html_escape(out, s->board);
		fputs(" / ", out);
		html_escape(out, s->strategy);
		fputs(", ", out);
		html_escape(out, s->timing);
		fputs(" time</small></h2>\n", out);
		trend_svg(out, s, NAN, NAN);
		for (size_t k = 0; k < s->n_modes; k++) {
			char line[512];
			modes_text(h, s, &s->modes[k], line, sizeof(line));
			fputs("<p>", out);
			html_escape(out, line);
			fputs("</p>\n", out);
		}
		if (!h->detected || !s->cp.n) {
			fputs(h->detected ? "<p>No change.</p>\n</section>\n" : "</section>\n", out);
			continue;
		}
		fputs("<table><tr><th>#</th><th>change</th><th>before</th><th>after</th>"
		      "<th>delta</th><th>p</th><th>first run after</th><th>kernel</th>"
		      "<th>where the instructions moved</th></tr>\n", out);
		for (size_t c = 0; c < s->cp.n; c++) {
			const struct cp_change *ch = &s->cp.v[c];
			const struct hist_point *p = &s->p[ch->index];
			const char *kind = change_kind_name(history_change_kind(s, ch));
			fprintf(out, "<tr class=\"%s\"><td>%zu</td><td>%s</td><td>%.6g</td>"
				"<td>%.6g</td><td>%+.2f %%</td><td>%.3g</td><td>", kind, ch->index, kind,
				ch->before, ch->after, ch->delta_pct, ch->p);
			html_escape(out, p->run);
			fputs("<br>", out);
			html_escape(out, p->started);
			fputs("</td><td>", out);
			html_escape(out, p->kernel_version);
			fputs(" ", out);
			html_escape(out, p->kernel_release);
			fputs("</td><td>", out);
			html_escape(out, where_of(s, c));
			fputs("</td></tr>\n", out);
		}
		fputs("</table>\n</section>\n", out);
	}
	if (h->detected)
		fprintf(out, "<p>Detector: e-divisive means, min segment %zu, alpha %g, %u "
			"permutations, seed 0x%016llx.</p>\n", h->params.min_segment,
			h->params.alpha, h->params.permutations, (unsigned long long)h->params.seed);
	fputs("</body></html>\n", out);
}
