#include "analyze/report_summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/gate.h"
#include "config/catalog.h"
#include "util/util.h"

/* The workload file's headline metric, if it names a metric the dataset
 * can hold; NULL when the file has none (or cannot be read). */
static const struct metric_def *file_headline(const char *workload)
{
	char *path = catalog_path("workload", workload);
	struct workload w;
	char err[1024];
	const struct metric_def *m = NULL;
	if (access(path, R_OK) == 0 && workload_load(path, &w, err, sizeof(err)) == 0) {
		if (w.headline) {
			m = metric_find(w.headline);
			if (!m)
				hb_err("%s: headline '%s' is not a metric (`hilbench list metrics` "
				       "has them); the summary uses the table's first headline metric",
				       path, w.headline);
		}
		workload_free(&w);
	}
	free(path);
	return m;
}

static int has_metric(const struct dataset *d, const char *workload, const char *board,
		      const char *metric)
{
	for (size_t i = 0; i < d->strategies.n; i++)
		if (dataset_find(d, workload, board, d->strategies.v[i], metric))
			return 1;
	return 0;
}

/* Did the planner decide the workload (on metric; NULL: any) against the
 * summary's reference? Against another, Welch's test answers every cell. */
static int was_decided(const struct dataset *d, const char *workload, const char *metric)
{
	for (size_t i = 0; d->strategies.n && i < d->n_decided; i++)
		if (!strcmp(d->decided[i].reference, d->strategies.v[0]) &&
		    !strcmp(d->decided[i].workload, workload) &&
		    (!metric || !strcmp(d->decided[i].metric, metric)))
			return 1;
	return 0;
}

/* A workload the planner decided is answered on a metric it decided: the
 * file's headline may be one the gate leaves unjudged in the session's
 * timing mode (tcp-dut-tx's delivered rate, in real time, where iperf3's
 * count is judged), whose cells could then only read "fewer than 3 runs". */
static const struct metric_def *headline_of(const struct dataset *d, const char *workload,
					    const char *board)
{
	const struct metric_def *m = file_headline(workload);
	if (was_decided(d, workload, NULL) && !(m && was_decided(d, workload, m->name))) {
		for (size_t k = 0; k < n_metric_defs; k++)
			if (was_decided(d, workload, metric_defs[k].name) &&
			    has_metric(d, workload, board, metric_defs[k].name))
				return &metric_defs[k];
	}
	if (m && has_metric(d, workload, board, m->name))
		return m;
	for (enum metric_shown want = SHOWN_HEADLINE; want >= SHOWN_REPORTS; want--)
		for (size_t k = 0; k < n_metric_defs; k++)
			if (metric_defs[k].shown == want &&
			    has_metric(d, workload, board, metric_defs[k].name))
				return &metric_defs[k];
	return NULL;
}

static int has_runs(const struct dataset *d, const char *workload, const char *board)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->s[i].workload, workload) && !strcmp(d->s[i].board, board))
			return 1;
	for (size_t i = 0; i < d->n_problems; i++)
		if (!strcmp(d->problems[i].workload, workload) &&
		    !strcmp(d->problems[i].board, board))
			return 1;
	return 0;
}

/* Workloads that only failed are rows too: a failure is an answer. */
static void add_row(struct summary_table *t, const char *workload, const char *board)
{
	const struct dataset *d = t->d;
	t->rows = xrealloc(t->rows, (t->n + 1) * sizeof(*t->rows));
	struct summary_row *r = &t->rows[t->n++];
	*r = (struct summary_row){ workload, board, headline_of(d, workload, board), "",
				   xcalloc(d->strategies.n + 1, sizeof(*r->cells)),
				   d->strategies.n };
	const struct series *ref = r->metric && d->strategies.n
		? dataset_find(d, workload, board, d->strategies.v[0], r->metric->name) : NULL;
	for (size_t i = 0; i < r->n; i++) {
		struct summary_cell *c = &r->cells[i];
		c->strategy = d->strategies.v[i];
		c->s = r->metric ? dataset_find(d, workload, board, c->strategy, r->metric->name)
				 : NULL;
		if (c->s) {
			r->unit = c->s->unit;
			compare_samples(ref ? ref->v : NULL, ref ? ref->n : 0, c->s->v, c->s->n,
					STATS_DEFAULT_ALPHA, r->metric->better == BETTER_HIGHER, &c->c);
			if (i && ref)
				c->decided = dataset_decided(d, c->strategy, d->strategies.v[0],
							     workload, r->metric->name);
		}
		for (size_t k = 0; k < d->n_problems; k++) {
			const struct problem *p = &d->problems[k];
			if (strcmp(p->workload, workload) || strcmp(p->board, board) ||
			    strcmp(p->strategy, c->strategy))
				continue;
			int fail = problem_failed(p);
			c->failed += fail;
			c->errors += !fail;
			if (!c->why || (fail && !problem_failed(c->why)))
				c->why = p;
		}
	}
}

void summary_build(const struct dataset *d, struct summary_table *t)
{
	*t = (struct summary_table){ .d = d, .boards = d->boards.n > 1 };
	struct strlist workloads = { 0 }, boards = { 0 };
	for (size_t i = 0; i < d->workloads.n; i++)
		strlist_push(&workloads, d->workloads.v[i]);
	for (size_t i = 0; i < d->boards.n; i++)
		strlist_push(&boards, d->boards.v[i]);
	/* a workload or board whose runs all failed is in no series */
	for (size_t i = 0; i < d->n_problems; i++) {
		int seen_w = 0, seen_b = 0;
		for (size_t k = 0; k < workloads.n; k++)
			seen_w |= !strcmp(workloads.v[k], d->problems[i].workload);
		for (size_t k = 0; k < boards.n; k++)
			seen_b |= !strcmp(boards.v[k], d->problems[i].board);
		if (!seen_w)
			strlist_push(&workloads, d->problems[i].workload);
		if (!seen_b)
			strlist_push(&boards, d->problems[i].board);
	}
	t->boards = boards.n > 1;
	for (size_t w = 0; w < workloads.n; w++)
		for (size_t b = 0; b < boards.n; b++)
			if (has_runs(d, workloads.v[w], boards.v[b])) {
				/* the row points into the dataset's own strings */
				const char *wl = NULL, *bd = NULL;
				for (size_t i = 0; i < d->n && (!wl || !bd); i++) {
					if (!strcmp(d->s[i].workload, workloads.v[w]))
						wl = d->s[i].workload;
					if (!strcmp(d->s[i].board, boards.v[b]))
						bd = d->s[i].board;
				}
				for (size_t i = 0; i < d->n_problems && (!wl || !bd); i++) {
					if (!strcmp(d->problems[i].workload, workloads.v[w]))
						wl = d->problems[i].workload;
					if (!strcmp(d->problems[i].board, boards.v[b]))
						bd = d->problems[i].board;
				}
				add_row(t, wl, bd);
			}
	strlist_free(&workloads);
	strlist_free(&boards);
}

void summary_free(struct summary_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->rows[i].cells);
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

static int is_conclusive(const struct summary_cell *c)
{
	return c->s && c->c.ref.n >= STATS_MIN_VERDICT_N && c->c.cand.n >= STATS_MIN_VERDICT_N;
}

enum verdict decided_verdict(const struct decided *x, const struct comparison *c)
{
	enum gate_outcome o;
	if (!x)
		return c->verdict;
	if (gate_outcome_parse(x->outcome, &o) < 0)
		return VERDICT_INCONCLUSIVE;
	return o == GATE_IMPROVED ? VERDICT_BETTER : o == GATE_REGRESSED ? VERDICT_WORSE
	       : o == GATE_PASS ? VERDICT_NO_CHANGE : VERDICT_INCONCLUSIVE;
}

enum verdict summary_verdict(const struct summary_cell *c)
{
	if (c->decided)
		return decided_verdict(c->decided, &c->c);
	return is_conclusive(c) ? c->c.verdict : VERDICT_INCONCLUSIVE;
}

/* How sure a decision is: "decided at look 1 of 6, threshold 1 %, n 6/1". */
static void decided_basis(const struct decided *x, char *buf, size_t len)
{
	snprintf(buf, len, "%s, threshold %.2g %%, n %d/%d", x->why, x->threshold_pct,
		 x->reference_runs, x->candidate_runs);
}

const char *decided_verdict_text(const struct decided *x, const struct comparison *c, char *buf,
				 size_t len)
{
	if (!x)
		return verdict_text(c, buf, len);
	char basis[128];
	decided_basis(x, basis, sizeof(basis));
	snprintf(buf, len, "%s: %s", verdict_name(decided_verdict(x, c)), basis);
	return buf;
}

const char *verdict_text(const struct comparison *c, char *buf, size_t len)
{
	if (c->ref.n == 0)
		snprintf(buf, len, "inconclusive: no reference runs");
	else if ((c->ref.n < STATS_MIN_VERDICT_N || c->cand.n < STATS_MIN_VERDICT_N) &&
		 c->welch.p < STATS_DEFAULT_ALPHA)
		/* significant, but the rule says too few runs to trust it */
		snprintf(buf, len, "inconclusive: n %zu/%zu, fewer than %d (Welch p %.2g)",
			 c->ref.n, c->cand.n, STATS_MIN_VERDICT_N, c->welch.p);
	else if (c->ref.n < STATS_MIN_VERDICT_N || c->cand.n < STATS_MIN_VERDICT_N) {
		snprintf(buf, len, "inconclusive: n %zu/%zu, fewer than %d", c->ref.n, c->cand.n,
			 STATS_MIN_VERDICT_N);
	} else
		snprintf(buf, len, "%s", verdict_name(c->verdict));
	return buf;
}

char *report_rules_text(const struct dataset *d)
{
	char *rules = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&rules, &len);
	if (!mem)
		return NULL;
	report_rules(d, mem);
	fclose(mem);
	return rules;
}

void report_rules(const struct dataset *d, FILE *out)
{
	fprintf(out, "Reference: %s (%s); every other strategy is compared with it on the "
		"same board and workload, and a table where it has no pass runs has no "
		"comparison (no other strategy stands in). Runs are grouped by board and "
		"kernel build: a strategy built with user patches or from another tree is a "
		"row of its own (strategy+patch, #build key), never pooled. Verdict: Welch's "
		"t-test at alpha %.2g, better or worse by the metric's direction, ~ for no "
		"significant change; inconclusive when either side has fewer than %d pass "
		"runs (whatever p says; p is shown) or the reference has none. CI: the 95 %% "
		"confidence interval of the change of the mean (Welch).",
		d->strategies.n ? d->strategies.v[0] : "none",
		d->reference_why ? d->reference_why : "no runs", STATS_DEFAULT_ALPHA,
		STATS_MIN_VERDICT_N);
	if (d->n_decided)
		fputs(" Where the planner decided a cell (this session added runs until each "
		      "difference was decided; \"How many runs it took\" lists them), the "
		      "summary's verdict is that decision, made by the rule fixed before the "
		      "runs: better or worse by at least the metric's threshold, ~ when its "
		      "interval rules out a change as large as the threshold, inconclusive at "
		      "the cap; the change and its interval are the decision's, whose error "
		      "rate holds over all its looks.", out);
}

/* A cell's change and its interval in % of the reference mean (the
 * decision's, else Welch's CI); 0 when undefined. */
static int change_pct(const struct summary_cell *cell, double *delta, double *lo, double *hi)
{
	const struct decided *x = cell->decided;
	if (x && !isnan(x->delta_pct)) {
		*delta = x->delta_pct;
		*lo = x->lo_pct;
		*hi = x->hi_pct;
		return 1;
	}
	const struct comparison *c = &cell->c;
	if (c->ref.n == 0 || c->cand.n == 0 || c->ref.mean == 0 || isnan(c->delta_pct))
		return 0;
	double scale = 100 / fabs(c->ref.mean);
	*delta = c->delta_pct;
	*lo = c->shift.lo * scale;
	*hi = c->shift.hi * scale;
	return 1;
}

const char *summary_change(const struct summary_cell *c, int is_ref, char *buf, size_t len)
{
	double delta, lo, hi;
	if (!c->s)
		snprintf(buf, len, "%s", c->failed ? "FAIL" : c->errors ? "error" : "-");
	else if (is_ref)
		snprintf(buf, len, "ref");
	else if (!change_pct(c, &delta, &lo, &hi))
		snprintf(buf, len, "-");
	else if (isnan(lo))
		snprintf(buf, len, "%+.1f %%", delta);
	else
		snprintf(buf, len, "%+.1f %% (%s %+.1f..%+.1f %%)", delta,
			 c->decided ? "interval" : "CI", lo, hi);
	return buf;
}

static void list_names(FILE *out, const char *what, const struct summary_row *r,
		       int (*pick)(const struct summary_cell *), const struct summary_cell *but,
		       int *first)
{
	int n = 0;
	for (size_t i = 1; i < r->n; i++) {
		const struct summary_cell *c = &r->cells[i];
		if (!pick(c) || c == but)
			continue;
		fprintf(out, "%s%s", n ? ", " : *first ? "" : "; ", n ? "" : what);
		fputs(c->strategy, out);
		double delta, lo, hi;
		enum verdict v = summary_verdict(c);
		if (v == VERDICT_INCONCLUSIVE && c->decided)
			fprintf(out, " (%s)", c->decided->why);
		else if (v == VERDICT_INCONCLUSIVE && c->c.ref.n)
			fprintf(out, " (n %zu/%zu, fewer than %d)", c->c.ref.n, c->c.cand.n,
				STATS_MIN_VERDICT_N);
		else if (change_pct(c, &delta, &lo, &hi) && v != VERDICT_NO_CHANGE)
			fprintf(out, " (%+.1f%%)", delta);
		n++;
		*first = 0;
	}
}

static int pick_better(const struct summary_cell *c)
{
	return c->s && summary_verdict(c) == VERDICT_BETTER;
}
static int pick_worse(const struct summary_cell *c)
{
	return c->s && summary_verdict(c) == VERDICT_WORSE;
}
static int pick_same(const struct summary_cell *c)
{
	return c->s && summary_verdict(c) == VERDICT_NO_CHANGE;
}
static int pick_unsure(const struct summary_cell *c)
{
	return c->s && summary_verdict(c) == VERDICT_INCONCLUSIVE;
}

/* "p 0.002, n 6/6" or, for a decided cell, "decided at look 1 of 6,
 * threshold 1 %, n 6/1". */
static void how_sure(FILE *out, const struct summary_cell *c)
{
	char basis[128];
	if (c->decided) {
		decided_basis(c->decided, basis, sizeof(basis));
		fputs(basis, out);
	} else {
		fprintf(out, "p %.2g, n %zu/%zu", c->c.welch.p, c->c.ref.n, c->c.cand.n);
	}
}

static double abs_change(const struct summary_cell *c)
{
	double delta, lo, hi;
	return change_pct(c, &delta, &lo, &hi) ? fabs(delta) : 0;
}

void summary_sentence(const struct summary_table *t, const struct summary_row *r, FILE *out)
{
	const struct dataset *d = t->d;
	const char *ref = d->strategies.n ? d->strategies.v[0] : "the reference";
	fputs(r->workload, out);
	if (t->boards)
		fprintf(out, " on %s", r->board);
	if (!r->metric) {
		fputs(": no pass runs", out);
	} else if (!r->n || !r->cells[0].s) {
		/* its failure, if it failed, follows with the others' */
		fprintf(out, ", %s: %s has no pass runs here, so nothing is compared", r->metric->name,
			ref);
	} else {
		const struct summary_cell *best = NULL;
		for (size_t i = 1; i < r->n; i++)
			if (pick_better(&r->cells[i]) &&
			    (!best || abs_change(&r->cells[i]) > abs_change(best)))
				best = &r->cells[i];
		fprintf(out, ", %s (%s is better): ", r->metric->name,
			metric_better_name(r->metric->better));
		char change[64];
		if (best) {
			fprintf(out, "%s is best, %s, ", best->strategy,
				summary_change(best, 0, change, sizeof(change)));
			how_sure(out, best);
			fprintf(out, ", against %s", ref);
		} else
			fprintf(out, "no strategy is significantly better than %s", ref);
		int first = 0;
		list_names(out, "also better: ", r, pick_better, best, &first);
		list_names(out, "worse: ", r, pick_worse, NULL, &first);
		list_names(out, "no significant change: ", r, pick_same, NULL, &first);
		list_names(out, "inconclusive: ", r, pick_unsure, NULL, &first);
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct summary_cell *c = &r->cells[i];
		if (!c->failed && !(c->errors && !c->s))
			continue;
		fprintf(out, "; %s %s in %zu run%s: %s", c->strategy,
			c->failed ? "FAILED" : "had errors", c->failed ? c->failed : c->errors,
			(c->failed ? c->failed : c->errors) == 1 ? "" : "s", c->why->reason);
		if (c->why->log)
			fprintf(out, " (log: %s)", c->why->log);
	}
	fputs(".\n", out);
}

/* What fn writes, as a paragraph: Markdown-escaped, or for text wrapped
 * at 78 columns under indent (the rules and sentences are long). */
static void paragraph(FILE *out, int md, const char *indent,
		      void (*fn)(const void *a, const void *b, FILE *out), const void *a,
		      const void *b)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	if (!mem)
		return;
	fn(a, b, mem);
	if (fclose(mem) != 0) {
		free(text);
		return;
	}
	while (len && text[len - 1] == '\n')
		text[--len] = '\0';
	if (md) {
		/* the text holds names and reasons from the store */
		fputs(indent, out);
		for (const char *c = text; *c; c++) {
			if (strchr("|<*_`\\", *c))
				fputc('\\', out);
			fputc(*c == '\n' ? ' ' : *c, out);
		}
		fputc('\n', out);
		free(text);
		return;
	}
	const int width = 78;
	int col = 0;
	for (const char *w = text; *w;) {
		size_t n = strcspn(w, " \n");
		if (col && col + 1 + (int)n > width) {
			fputc('\n', out);
			col = 0;
		}
		if (!col) {
			col = fprintf(out, "%s", w == text ? indent : "    ");
		} else {
			fputc(' ', out);
			col++;
		}
		fwrite(w, 1, n, out);
		col += (int)n;
		w += n;
		while (*w == ' ' || *w == '\n')
			w++;
	}
	fputc('\n', out);
	free(text);
}

static void rules_fn(const void *d, const void *unused, FILE *out)
{
	(void)unused;
	report_rules(d, out);
}

static void legend_fn(const void *legend, const void *unused, FILE *out)
{
	(void)unused;
	fputs(legend, out);
}

static void sentence_fn(const void *t, const void *r, FILE *out)
{
	summary_sentence(t, r, out);
}

/* Columns of a text table hold UTF-8: pad by characters, not bytes. */
static void pad(FILE *out, const char *s, int width, int right)
{
	int chars = 0;
	for (const char *p = s; *p; p++)
		chars += ((unsigned char)*p & 0xc0) != 0x80;
	if (right)
		fprintf(out, "%*s%s", width > chars ? width - chars : 0, "", s);
	else
		fprintf(out, "%s%*s", s, width > chars ? width - chars : 0, "");
}

static void md_cell(FILE *out, const char *s)
{
	fputs(" ", out);
	for (; *s; s++) {
		if (strchr("|<*_`~\\", *s))
			fputc('\\', out);
		fputc(*s, out);
	}
	fputs(" |", out);
}

/* A text cell: "+15.7±0.8% B" (B better, W worse, ~, ? inconclusive). */
static const char *short_cell(const struct summary_cell *c, int is_ref, char *buf, size_t len)
{
	double delta, lo, hi;
	if (!c->s || is_ref || !change_pct(c, &delta, &lo, &hi))
		return summary_change(c, is_ref, buf, len);
	enum verdict v = summary_verdict(c);
	const char *mark = v == VERDICT_BETTER ? "B" : v == VERDICT_WORSE ? "W"
			 : v == VERDICT_NO_CHANGE ? "~" : "?";
	if (isnan(lo))
		snprintf(buf, len, "%+.1f%% %s%s", delta, mark, c->failed ? "!" : "");
	else
		snprintf(buf, len, "%+.1f±%.1f%% %s%s", delta, (hi - lo) / 2, mark,
			 c->failed ? "!" : "");
	return buf;
}

void summary_write_text(const struct summary_table *t, FILE *out, int md)
{
	const struct dataset *d = t->d;
	if (!t->n)
		return;
	fputs(md ? "\n## Summary\n\n" : "\n== summary ==\n", out);
	paragraph(out, md, md ? "" : "  ", rules_fn, d, NULL);
	fputc('\n', out);
	const char *legend = "Each cell: the change of the workload's headline metric (where the "
			     "planner decided, a metric it decided) against the "
			     "reference, +- half its 95 % CI (or of the planner's interval); B "
			     "better, W worse, ~ no significant change (decided: none as large as "
			     "the threshold), ? inconclusive, ! some runs failed, FAIL no run "
			     "passed.\n";
	char buf[96];
	if (md) {
		fputs("| workload | metric |", out);
		for (size_t i = 0; i < d->strategies.n; i++)
			md_cell(out, d->strategies.v[i]);
		fputs("\n| --- | --- |", out);
		for (size_t i = 0; i < d->strategies.n; i++)
			fputs(" ---: |", out);
		fputc('\n', out);
		for (size_t r = 0; r < t->n; r++) {
			const struct summary_row *row = &t->rows[r];
			char *wl = t->boards ? xasprintf("%s on %s", row->workload, row->board)
					     : xstrdup(row->workload);
			fputs("|", out);
			md_cell(out, wl);
			md_cell(out, row->metric ? row->metric->name : "-");
			free(wl);
			for (size_t i = 0; i < row->n; i++)
				md_cell(out, short_cell(&row->cells[i], i == 0, buf, sizeof(buf)));
			fputc('\n', out);
		}
		fprintf(out, "\n%s\n", legend);
	} else {
		int wl_w = 8, m_w = 6;
		for (size_t r = 0; r < t->n; r++) {
			int w = (int)strlen(t->rows[r].workload) +
				(t->boards ? (int)strlen(t->rows[r].board) + 4 : 0);
			wl_w = w > wl_w ? w : wl_w;
			if (t->rows[r].metric && (int)strlen(t->rows[r].metric->name) > m_w)
				m_w = (int)strlen(t->rows[r].metric->name);
		}
		int *col = xcalloc(d->strategies.n + 1, sizeof(int));
		for (size_t i = 0; i < d->strategies.n; i++) {
			col[i] = (int)strlen(d->strategies.v[i]);
			for (size_t r = 0; r < t->n; r++) {
				short_cell(&t->rows[r].cells[i], i == 0, buf, sizeof(buf));
				int chars = 0;
				for (const char *p = buf; *p; p++)
					chars += ((unsigned char)*p & 0xc0) != 0x80;
				col[i] = chars > col[i] ? chars : col[i];
			}
		}
		fputs("  ", out);
		pad(out, "workload", wl_w, 0);
		fputs(" ", out);
		pad(out, "metric", m_w, 0);
		for (size_t i = 0; i < d->strategies.n; i++) {
			fputs("  ", out);
			pad(out, d->strategies.v[i], col[i], 1);
		}
		fputc('\n', out);
		for (size_t r = 0; r < t->n; r++) {
			const struct summary_row *row = &t->rows[r];
			char *wl = t->boards ? xasprintf("%s on %s", row->workload, row->board)
					     : xstrdup(row->workload);
			fputs("  ", out);
			pad(out, wl, wl_w, 0);
			free(wl);
			fputs(" ", out);
			pad(out, row->metric ? row->metric->name : "-", m_w, 0);
			for (size_t i = 0; i < row->n; i++) {
				fputs("  ", out);
				pad(out, short_cell(&row->cells[i], i == 0, buf, sizeof(buf)), col[i], 1);
			}
			fputc('\n', out);
		}
		free(col);
		paragraph(out, 0, "  ", legend_fn, legend, NULL);
		fputc('\n', out);
	}
	for (size_t r = 0; r < t->n; r++)
		paragraph(out, md, md ? "- " : "  ", sentence_fn, t, &t->rows[r]);
}
