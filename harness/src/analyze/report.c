#include "analyze/report.h"
#include "analyze/cycles.h"
#include "analyze/decisions.h"
#include "analyze/movers.h"
#include "analyze/report_summary.h"
#include "analyze/sweep.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/catalog.h"
#include "util/quote.h"
#include "util/util.h"

#define REPORT_FORMAT(id, name, emitter, input, help) [REPORT_##id] = { name, emitter, input, help },
const struct report_format_info report_formats[REPORT_FORMATS] = {
#include "analyze/report_formats.h"
};
#undef REPORT_FORMAT

int report_format_parse(const char *name, enum report_format *f)
{
	for (size_t i = 0; i < REPORT_FORMATS; i++)
		if (!strcmp(name, report_formats[i].name)) {
			*f = (enum report_format)i;
			return 0;
		}
	return -1;
}

char *report_format_names(const char *sep, const char *last_sep)
{
	char *names = xstrdup(report_formats[0].name);
	for (size_t i = 1; i < REPORT_FORMATS; i++) {
		char *more = xasprintf("%s%s%s", names, i + 1 == REPORT_FORMATS ? last_sep : sep,
				       report_formats[i].name);
		free(names);
		names = more;
	}
	return names;
}

void report_visit(const struct dataset *d, const struct report_visitor *v)
{
	const char *reference = d->strategies.n ? d->strategies.v[0] : "";
	for (size_t w = 0; w < d->workloads.n; w++)
		for (size_t b = 0; b < d->boards.n; b++) {
			const char *workload = d->workloads.v[w], *board = d->boards.v[b];
			int shown = 0;
			for (size_t m = 0; m < n_metric_defs; m++) {
				const struct metric_def *mi = &metric_defs[m];
				if (!metric_in_reports(mi))
					continue;
				/* the reference or nothing: never another strategy */
				const struct series *ref =
					dataset_find(d, workload, board, reference, mi->name);
				int any = 0;
				for (size_t si = 0; si < d->strategies.n; si++) {
					const struct series *s = dataset_find(d, workload, board,
									      d->strategies.v[si], mi->name);
					if (!s)
						continue;
					if (!shown++)
						v->workload(v->ctx, workload, d->boards.n > 1 ? board : NULL);
					if (!any++ && v->metric)
						v->metric(v->ctx, mi, s->unit);
					struct comparison c;
					compare_samples(ref ? ref->v : NULL, ref ? ref->n : 0, s->v, s->n,
							STATS_DEFAULT_ALPHA, mi->better == BETTER_HIGHER,
							&c);
					const struct decided *x =
						s == ref ? NULL
							 : dataset_decided(d, s->strategy, reference,
									   workload, mi->name);
					v->row(v->ctx, s, &c, s == ref, x);
				}
				if (any && v->metric_end)
					v->metric_end(v->ctx, mi);
			}
		}
}

/* Four significant digits: enough to see a 0.1 % change in pps. */
static void fmt(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 1000)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.4g", v);
}

struct row_text {
	char reps[64], mean[16], median[16], sd[16], ci[16], delta[16], p[16];
	char verdict[160];
};

static void row_text(const struct series *s, const struct comparison *c, int is_ref,
		     const struct decided *x, struct row_text *t)
{
	char one[16];
	t->reps[0] = '\0';
	for (size_t i = 0; i < s->n; i++) {
		fmt(one, sizeof(one), s->v[i]);
		if (strlen(t->reps) + strlen(one) + 5 >= sizeof(t->reps)) {
			strcat(t->reps, " ...");
			break;
		}
		strcat(strcat(t->reps, i ? " " : ""), one);
	}
	fmt(t->mean, sizeof(t->mean), c->cand.mean);
	fmt(t->median, sizeof(t->median), c->cand.median);
	fmt(t->sd, sizeof(t->sd), c->cand.stddev);
	fmt(t->ci, sizeof(t->ci), c->cand.ci95);
	if (is_ref)
		snprintf(t->delta, sizeof(t->delta), "ref");
	else if (isnan(c->delta_pct))
		snprintf(t->delta, sizeof(t->delta), "-");	/* the reference mean is 0 */
	else
		snprintf(t->delta, sizeof(t->delta), "%+.2f%%", c->delta_pct);
	if (is_ref || isnan(c->welch.p))
		snprintf(t->p, sizeof(t->p), "-");
	else
		snprintf(t->p, sizeof(t->p), "%.3g", c->welch.p);
	if (is_ref)
		t->verdict[0] = '\0';
	else
		decided_verdict_text(x, c, t->verdict, sizeof(t->verdict));
}

/* --- text ---------------------------------------------------------------- */

/* The strategy column is as wide as the longest label in the dataset (sweep
 * points are "<strategy>@<setting>=<value>"), so every row's numbers stay
 * under their headings; never narrower than the shipped strategy names. */
#define TEXT_STRATEGY_MIN 16

struct text_ctx {
	FILE *out;
	int strategy_width;
};

static int text_strategy_width(const struct dataset *d)
{
	size_t w = TEXT_STRATEGY_MIN;
	for (size_t i = 0; i < d->strategies.n; i++)
		if (strlen(d->strategies.v[i]) > w)
			w = strlen(d->strategies.v[i]);
	return (int)w;
}

static void text_workload(void *ctx, const char *w, const char *board)
{
	fprintf(((struct text_ctx *)ctx)->out, "\n== %s%s%s ==\n", w, board ? " on " : "",
		board ? board : "");
}

static void text_metric(void *ctx, const struct metric_def *m, const char *unit)
{
	const struct text_ctx *t = ctx;
	fprintf(t->out, "%s (%s, %s is better)\n  %-*s %-30s %9s %9s %9s %9s %9s %7s %s\n",
		m->name, unit, metric_better_name(m->better), t->strategy_width,
		"strategy", "repetitions", "mean", "median", "stddev", "ci95", "delta", "p",
		"verdict");
}

static void text_row(void *ctx, const struct series *s, const struct comparison *c, int is_ref,
		     const struct decided *decided)
{
	const struct text_ctx *x = ctx;
	struct row_text t;
	row_text(s, c, is_ref, decided, &t);
	fprintf(x->out, "  %-*s %-30s %9s %9s %9s %9s %9s %7s %s\n", x->strategy_width,
		s->strategy, t.reps, t.mean, t.median, t.sd, t.ci, t.delta, t.p, t.verdict);
}

/* --- markdown ------------------------------------------------------------ */

static void md_workload(void *ctx, const char *w, const char *board)
{
	fputs("\n## ", ctx);
	md_escape(ctx, w);
	if (board) {
		fputs(" on ", ctx);
		md_escape(ctx, board);
	}
	fputs("\n", ctx);
}

static void md_metric(void *ctx, const struct metric_def *m, const char *unit)
{
	fputs("\n**", ctx);
	md_escape(ctx, m->name);
	fputs("** (", ctx);
	md_escape(ctx, unit);
	fprintf(ctx, ", %s is better)\n\n| strategy | repetitions | mean | median | stddev | ci95 | delta | p | verdict |\n"
		"| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n",
		metric_better_name(m->better));
}

static void md_row(void *ctx, const struct series *s, const struct comparison *c, int is_ref,
		   const struct decided *x)
{
	struct row_text t;
	row_text(s, c, is_ref, x, &t);
	fputs("| ", ctx);
	md_escape(ctx, s->strategy);
	fprintf(ctx, " | %s | %s | %s | %s | %s | %s | %s | %s |\n", t.reps, t.mean, t.median, t.sd,
		t.ci, t.delta, t.p, strcmp(t.verdict, "~") ? t.verdict : "\\~");
}

struct json_ctx {
	cJSON *workloads, *workload, *metrics, *rows;
};

static void json_workload(void *ctx, const char *w, const char *board)
{
	struct json_ctx *j = ctx;
	j->workload = cJSON_CreateObject();
	cJSON_AddStringToObject(j->workload, "workload", w);
	if (board)
		cJSON_AddStringToObject(j->workload, "board", board);
	j->metrics = cJSON_AddArrayToObject(j->workload, "metrics");
	cJSON_AddItemToArray(j->workloads, j->workload);
}

static void json_metric(void *ctx, const struct metric_def *m, const char *unit)
{
	struct json_ctx *j = ctx;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "metric", m->name);
	cJSON_AddStringToObject(o, "unit", unit);
	cJSON_AddBoolToObject(o, "higher_is_better", m->better == BETTER_HIGHER);
	j->rows = cJSON_AddArrayToObject(o, "strategies");
	cJSON_AddItemToArray(j->metrics, o);
}

static void json_number(cJSON *o, const char *k, double v)
{
	if (isnan(v) || isinf(v))
		cJSON_AddNullToObject(o, k);	/* JSON has no NaN */
	else
		cJSON_AddNumberToObject(o, k, v);
}

static void json_row(void *ctx, const struct series *s, const struct comparison *c, int is_ref,
		     const struct decided *x)
{
	struct json_ctx *j = ctx;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "strategy", s->strategy);
	cJSON_AddBoolToObject(o, "reference", is_ref);
	cJSON *vals = cJSON_AddArrayToObject(o, "values");
	for (size_t i = 0; i < s->n; i++)
		cJSON_AddItemToArray(vals, cJSON_CreateNumber(s->v[i]));
	json_number(o, "mean", c->cand.mean);
	json_number(o, "median", c->cand.median);
	json_number(o, "stddev", c->cand.stddev);
	json_number(o, "ci95", c->cand.ci95);
	if (!is_ref) {
		json_number(o, "delta_pct", c->delta_pct);
		json_number(o, "welch_p", c->welch.p);
		json_number(o, "mann_whitney_p", c->mw.p);
		cJSON_AddStringToObject(o, "verdict", verdict_name(decided_verdict(x, c)));
		char why[160];
		cJSON_AddStringToObject(o, "verdict_text", decided_verdict_text(x, c, why, sizeof(why)));
		if (x) {
			cJSON *dj = cJSON_AddObjectToObject(o, "decision");
			cJSON_AddStringToObject(dj, "outcome", x->outcome);
			cJSON_AddStringToObject(dj, "why", x->why);
			cJSON_AddNumberToObject(dj, "reference_runs", x->reference_runs);
			cJSON_AddNumberToObject(dj, "candidate_runs", x->candidate_runs);
			json_number(dj, "delta_pct", x->delta_pct);
			json_number(dj, "lo_pct", x->lo_pct);
			json_number(dj, "hi_pct", x->hi_pct);
			json_number(dj, "threshold_pct", x->threshold_pct);
		}
	}
	cJSON_AddItemToArray(j->rows, o);
}

int report_emit_json(const struct report_input *in, FILE *out)
{
	const struct dataset *d = in->d;
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "schema", "hilbench-report/1");
	cJSON_AddStringToObject(root, "timing", d->timing);
	cJSON_AddNumberToObject(root, "runs", (double)d->runs);
	if (d->strategies.n) {
		cJSON_AddStringToObject(root, "reference", d->strategies.v[0]);
		cJSON_AddStringToObject(root, "reference_why", d->reference_why);
	}
	struct json_ctx j = { .workloads = cJSON_AddArrayToObject(root, "workloads") };
	struct report_visitor v = { json_workload, json_metric, json_row, NULL, &j };
	report_visit(d, &v);
	struct sweep_set sweeps;
	sweep_collect(d, &sweeps);
	sweep_add_json(&sweeps, root);
	sweep_set_free(&sweeps);
	cJSON *problems = cJSON_AddArrayToObject(root, "not_measured");
	for (size_t i = 0; i < d->n_problems; i++) {
		char *line = problem_line(&d->problems[i]);
		cJSON_AddItemToArray(problems, cJSON_CreateString(line));
		free(line);
	}
	char *text = cJSON_Print(root);
	fprintf(out, "%s\n", text);
	free(text);
	cJSON_Delete(root);
	return 0;
}

/* --- csv: streamed straight from the store -------------------------------- */

static void csv_field(FILE *out, const char *s, int last)
{
	fputc('"', out);
	for (; s && *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputs(last ? "\"\n" : "\",", out);
}

static int csv_row(const struct run_row *r, void *ctx)
{
	FILE *out = ctx;
	char value[32], rep[16];
	snprintf(value, sizeof(value), "%.17g", r->value);
	snprintf(rep, sizeof(rep), "%d", r->repetition);
	const char *f[] = { r->id, r->session, r->board, r->strategy, r->workload, rep, r->cls,
			    r->timing, r->metric, r->metric ? value : "", r->unit, r->source,
			    r->reason };
	for (size_t i = 0; i < HB_ARRAY_SIZE(f); i++)
		csv_field(out, f[i], i + 1 == HB_ARRAY_SIZE(f));
	return 0;
}

/* --- junit -------------------------------------------------------------- */

/* JUnit wants the counts before the cases: the cases go to a buffer first. */
struct junit_ctx {
	FILE *cases;
	const char *workload, *board, *metric;
	size_t tests, failures, skipped, errors;
};

static void junit_workload(void *ctx, const char *w, const char *board)
{
	((struct junit_ctx *)ctx)->workload = w;
	((struct junit_ctx *)ctx)->board = board;
}

static void junit_metric(void *ctx, const struct metric_def *m, const char *unit)
{
	(void)unit;
	((struct junit_ctx *)ctx)->metric = m->name;
}

static void junit_row(void *ctx, const struct series *s, const struct comparison *c, int is_ref,
		      const struct decided *x)
{
	struct junit_ctx *j = ctx;
	if (is_ref)
		return;
	char msg[400], why[160], change[48] = "", p[32] = "";
	if (!isnan(c->delta_pct))
		snprintf(change, sizeof(change), " (%+.2f %%)", c->delta_pct);
	if (!isnan(c->welch.p))
		snprintf(p, sizeof(p), ", Welch p %.3g", c->welch.p);
	char before[24] = "no reference runs";
	if (c->ref.n)
		snprintf(before, sizeof(before), "%.6g", c->ref.mean);
	snprintf(msg, sizeof(msg), "%s: %s -> %.6g %s%s%s, runs %zu/%zu",
		 decided_verdict_text(x, c, why, sizeof(why)), before, c->cand.mean, s->unit, change,
		 p, c->ref.n, c->cand.n);
	j->tests++;
	fputs("  <testcase classname=\"", j->cases);
	xml_escape(j->cases, j->workload);
	if (j->board) {
		fputc('@', j->cases);
		xml_escape(j->cases, j->board);
	}
	fputc('.', j->cases);
	xml_escape(j->cases, j->metric);
	fputs("\" name=\"", j->cases);
	xml_escape(j->cases, s->strategy);
	fputs("\">", j->cases);
	enum verdict v = decided_verdict(x, c);
	if (v == VERDICT_WORSE || v == VERDICT_INCONCLUSIVE) {
		int worse = v == VERDICT_WORSE;
		j->failures += worse;
		j->skipped += !worse;
		fputs(worse ? "<failure type=\"regression\" message=\"" : "<skipped message=\"",
		      j->cases);
		xml_escape(j->cases, msg);
		fputs("\"/>", j->cases);
	} else {
		fputs("<system-out>", j->cases);
		xml_escape(j->cases, msg);
		fputs("</system-out>", j->cases);
	}
	fputs("</testcase>\n", j->cases);
}

/* A run that is not a measurement: a <failure> when the DUT misbehaved
 * (class fail: KCIDB's FAIL), an <error> when the infrastructure did (error,
 * miss). The message is the class and the quoted reason, the body where
 * its log is. */
static void junit_problem(struct junit_ctx *j, const struct problem *p)
{
	int fail = problem_failed(p);
	j->tests++;
	j->failures += fail;
	j->errors += !fail;
	fputs("  <testcase classname=\"runs.", j->cases);
	xml_escape(j->cases, p->workload);
	fputs("\" name=\"", j->cases);
	xml_escape(j->cases, p->strategy);
	fputc(' ', j->cases);
	xml_escape(j->cases, p->id);
	fputs(fail ? "\"><failure type=\"" : "\"><error type=\"", j->cases);
	xml_escape(j->cases, p->cls);
	fputs("\" message=\"", j->cases);
	char *msg = xasprintf("%s on %s: %s", p->cls, p->board, p->reason);
	xml_escape(j->cases, msg);
	free(msg);
	fputs("\">", j->cases);
	char *line = problem_line(p);
	xml_escape(j->cases, line);
	free(line);
	fputs(fail ? "</failure></testcase>\n" : "</error></testcase>\n", j->cases);
}

int report_emit_junit(const struct report_input *in, FILE *out)
{
	const struct dataset *d = in->d;
	char *buf = NULL;
	size_t len = 0;
	struct junit_ctx j = { .cases = open_memstream(&buf, &len) };
	if (!j.cases)
		return -1;
	struct report_visitor v = { junit_workload, junit_metric, junit_row, NULL, &j };
	report_visit(d, &v);
	for (size_t i = 0; i < d->n_problems; i++)
		junit_problem(&j, &d->problems[i]);
	fclose(j.cases);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"hilbench report\"", out);
	fprintf(out, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\">\n", j.tests,
		j.failures, j.errors, j.skipped);
	fputs("  <properties><property name=\"reference\" value=\"", out);
	xml_escape(out, d->strategies.n ? d->strategies.v[0] : "");
	fputs("\"/><property name=\"rules\" value=\"", out);
	char *rules = report_rules_text(d);
	if (rules)
		xml_escape(out, rules);
	free(rules);
	fputs("\"/></properties>\n", out);
	fwrite(buf, 1, len, out);
	fputs("</testsuite>\n", out);
	free(buf);
	return 0;
}

/* --- the runs that are not measurements ---------------------------------- */

void report_visit_problems(const struct dataset *d, const struct report_problem_visitor *v)
{
	for (int fail = 1; fail >= 0; fail--) {
		size_t n = 0;
		for (size_t i = 0; i < d->n_problems; i++)
			n += problem_failed(&d->problems[i]) == fail;
		if (!n)
			continue;
		v->group(v->ctx, fail, n);
		for (size_t i = 0; i < d->n_problems; i++) {
			if (problem_failed(&d->problems[i]) != fail)
				continue;
			char *line = problem_line(&d->problems[i]);
			v->problem(v->ctx, line);
			free(line);
		}
		if (v->group_end)
			v->group_end(v->ctx, fail);
	}
}

struct problems_text_ctx {
	FILE *out;
	int md;
};

static void text_problem_group(void *ctx, bool fail, size_t n)
{
	struct problems_text_ctx *c = ctx;
	fprintf(c->out, fail ? "\nFAILED: %zu runs where the DUT misbehaved (class fail):\n"
			     : "\nnot measured: %zu runs the infrastructure lost (error, miss):\n", n);
}

static void text_problem(void *ctx, const char *line)
{
	struct problems_text_ctx *c = ctx;
	fputs(c->md ? "- " : "  ", c->out);
	if (c->md)
		md_escape(c->out, line);
	else
		fputs(line, c->out);
	fputc('\n', c->out);
}

static void list_problems(const struct dataset *d, FILE *out, int md)
{
	struct problems_text_ctx c = { out, md };
	struct report_problem_visitor v = { text_problem_group, text_problem, NULL, &c };

	if (d->mixed_timing)
		fprintf(out, "\n%zu measurements of another timing mode than %s were left out.\n",
			d->mixed_timing, d->timing);
	report_visit_problems(d, &v);
}

int report_emit_csv(const struct report_input *in, FILE *out)
{
	fputs("run,session,board,strategy,workload,repetition,class,timing,metric,value,"
	      "unit,source,reason\n", out);
	struct selection all = *in->sel;
	all.all_classes = 1;
	return store_foreach(in->st, &all, csv_row, out);
}

/* --- commit: the block under a patch's "---" line ------------------------ */

/* What maintainers asked for in review (docs/report.md): the setup, then
 * per workload and metric before and after with the runs, the spread and
 * the method, under 72 columns. The headline metric always; the others
 * only where they changed significantly. */
static void commit_metric(FILE *out, const struct dataset *d, const char *workload,
			  const char *board, const struct metric_def *m, int headline)
{
	const struct series *ref = dataset_find(d, workload, board, d->strategies.v[0], m->name);
	int printed = 0;
	for (size_t i = 0; i < d->strategies.n; i++) {
		const struct series *s = dataset_find(d, workload, board, d->strategies.v[i], m->name);
		if (!s || (!ref && !headline))
			continue;
		struct comparison c;
		compare_samples(ref ? ref->v : NULL, ref ? ref->n : 0, s->v, s->n,
				STATS_DEFAULT_ALPHA, m->better == BETTER_HIGHER, &c);
		const struct decided *x = s == ref ? NULL
			: dataset_decided(d, s->strategy, d->strategies.v[0], workload, m->name);
		enum verdict v = decided_verdict(x, &c);
		int changed = (x || (c.ref.n >= STATS_MIN_VERDICT_N && c.cand.n >= STATS_MIN_VERDICT_N)) &&
			      (v == VERDICT_BETTER || v == VERDICT_WORSE);
		if (!headline && !changed)
			continue;
		if (!headline && i == 0)
			continue;
		if (!printed++) {
			fprintf(out, "  %s (%s, %s is better)%s:\n", m->name, s->unit,
				metric_better_name(m->better), headline ? "" : ", changed");
			if (!headline && ref) {
				char mean[16], ci[16];
				fmt(mean, sizeof(mean), c.ref.mean);
				fmt(ci, sizeof(ci), c.ref.ci95);
				fprintf(out, "    %-20s n=%-2zu %10s +- %s\n", d->strategies.v[0],
					c.ref.n, mean, ci);
			}
		}
		char mean[16], ci[16], why[160];
		fmt(mean, sizeof(mean), c.cand.mean);
		fmt(ci, sizeof(ci), c.cand.ci95);
		fprintf(out, "    %-20s n=%-2zu %10s +- %s", s->strategy, c.cand.n, mean, ci);
		if (s == ref) {
			fputc('\n', out);
			continue;
		}
		if (x && !isnan(x->delta_pct)) {
			fprintf(out, "\n      %+.1f %% (interval %+.1f..%+.1f %%), %s\n", x->delta_pct,
				x->lo_pct, x->hi_pct, decided_verdict_text(x, &c, why, sizeof(why)));
			continue;
		}
		double scale = c.ref.n && c.ref.mean ? 100 / fabs(c.ref.mean) : NAN;
		if (isnan(scale) || isnan(c.delta_pct))
			fprintf(out, "\n      %s\n", verdict_text(&c, why, sizeof(why)));
		else if (isnan(c.shift.lo))
			fprintf(out, "\n      %+.1f %%, %s\n", c.delta_pct,
				verdict_text(&c, why, sizeof(why)));
		else
			fprintf(out, "\n      %+.1f %% (CI %+.1f..%+.1f %%), p %.2g, %s\n", c.delta_pct,
				c.shift.lo * scale, c.shift.hi * scale, c.welch.p,
				verdict_text(&c, why, sizeof(why)));
	}
}

/* Per strategy of a (workload, board) row, the functions whose instructions
 * per packet moved most against the reference (analyze/movers.h), one a
 * line; nothing for runs without the emulator's counts. */
static int commit_movers(FILE *out, const struct report_input *in, const char *workload,
			 const char *board)
{
	const struct dataset *d = in->d;
	struct selection sel = *in->sel;
	sel.workload = workload;
	sel.board = board;
	struct dataset counts;
	int rc = movers_load(in->st, &sel, &counts);
	for (size_t i = 1; rc == 0 && i < d->strategies.n; i++) {
		struct mover m[MOVERS_SHOWN];
		size_t n = movers_find(&counts, d->strategies.v[0], &counts, d->strategies.v[i],
				       workload, m, MOVERS_SHOWN);
		if (n)
			fprintf(out, "  %s: where the instructions moved (emulator-insn):\n",
				d->strategies.v[i]);
		for (size_t k = 0; k < n; k++) {
			char line[128];
			movers_format(&m[k], 1, line, sizeof(line));
			fprintf(out, "    %s\n", line);
		}
	}
	dataset_free(&counts);
	return rc;
}

int report_emit_commit(const struct report_input *in, FILE *out)
{
	const struct dataset *d = in->d;
	struct summary_table t;
	summary_build(d, &t);
	fprintf(out, "Measured with hilbench (report --format commit), %s time, %zu runs;\n"
		"reference %s (%s).\n"
		"Method: mean of n runs +- half its 95 %% CI; change of the mean with\n"
		"its 95 %% CI and Welch's t-test (alpha %.2g); fewer than %d runs a\n"
		"side is inconclusive. Boards and kernel builds are never pooled.\n",
		d->timing[0] ? d->timing : "no", d->runs,
		d->strategies.n ? d->strategies.v[0] : "none",
		d->reference_why ? d->reference_why : "no runs", STATS_DEFAULT_ALPHA,
		STATS_MIN_VERDICT_N);
	if (d->n_decided)
		fputs("Where runs were added until decided, the verdict is that decision:\n"
		      "better or worse by at least the metric's threshold, its interval\n"
		      "holding over every look (hilbench docs/gate.md).\n", out);
	for (size_t r = 0; r < t.n; r++) {
		const struct summary_row *row = &t.rows[r];
		fprintf(out, "\n%s", row->workload);
		if (t.boards)
			fprintf(out, " on %s", row->board);
		char *path = catalog_path("workload", row->workload);
		struct workload w;
		char err[1024];
		if (access(path, R_OK) == 0 && workload_load(path, &w, err, sizeof(err)) == 0) {
			fprintf(out, " (%s)", w.description);
			workload_free(&w);
		}
		free(path);
		fputs(":\n", out);
		if (row->metric) {
			commit_metric(out, d, row->workload, row->board, row->metric, 1);
			for (size_t m = 0; m < n_metric_defs; m++)
				if (metric_in_reports(&metric_defs[m]) && &metric_defs[m] != row->metric)
					commit_metric(out, d, row->workload, row->board,
						      &metric_defs[m], 0);
			if (commit_movers(out, in, row->workload, row->board) < 0) {
				summary_free(&t);
				return -1;
			}
		}
		for (size_t i = 0; i < row->n; i++) {
			const struct summary_cell *c = &row->cells[i];
			if (!c->why)
				continue;
			fprintf(out, "  %s: %s in %zu of %zu runs: %s\n", c->strategy,
				c->failed ? "FAILED" : "error", c->failed ? c->failed : c->errors,
				c->failed + c->errors + (c->s ? c->s->n : 0), c->why->reason);
			if (c->why->log)
				fprintf(out, "    log: %s\n", c->why->log);
		}
	}
	summary_free(&t);
	return 0;
}

/* text and md: the summary, then the strategy tables, where the cycles
 * go, the sweeps, the runs not measured */
static int write_table(const struct report_input *in, FILE *out, int md)
{
	const struct dataset *d = in->d;
	struct text_ctx tc = { out, text_strategy_width(d) };
	struct report_visitor v = { md ? md_workload : text_workload, md ? md_metric : text_metric,
				    md ? md_row : text_row, NULL, md ? (void *)out : &tc };
	if (md)
		fprintf(out, "# hilbench report\n\n%zu runs, %s time\n", d->runs, d->timing);
	else
		fprintf(out, "hilbench report: %zu runs, %s time\n", d->runs,
			d->timing[0] ? d->timing : "no");
	struct summary_table t;
	summary_build(d, &t);
	summary_write_text(&t, out, md);
	summary_free(&t);
	if (decisions_write(in->st, in->sel, d, md ? SECTION_MD : SECTION_TEXT, out) < 0)
		return -1;
	if (md)
		fputs("\n## Details\n", out);
	else
		fputs("\n== details ==\n", out);
	report_visit(d, &v);
	if (d->strategies.n &&
	    cycles_write(in->st, in->sel, d->strategies.v[0], md ? SECTION_MD : SECTION_TEXT, out) < 0)
		return -1;
	struct sweep_set sweeps;
	sweep_collect(d, &sweeps);
	sweep_write_text(&sweeps, out, md);
	sweep_set_free(&sweeps);
	list_problems(d, out, md);
	return 0;
}

int report_emit_text(const struct report_input *in, FILE *out)
{
	return write_table(in, out, 0);
}

int report_emit_md(const struct report_input *in, FILE *out)
{
	return write_table(in, out, 1);
}

/* The metrics a summarizing report loads: those reports compare, and every
 * workload file's headline (a headline may be one only `show` has). */
static void report_metrics(struct strlist *metrics)
{
	for (size_t k = 0; k < n_metric_defs; k++)
		if (metric_in_reports(&metric_defs[k]))
			strlist_push(metrics, metric_defs[k].name);
	struct strlist names = { 0 };
	catalog_names("workload", &names);
	for (size_t i = 0; i < names.n; i++) {
		char *path = catalog_path("workload", names.v[i]);
		struct workload w;
		char err[1024];
		if (workload_load(path, &w, err, sizeof(err)) == 0) {
			const struct metric_def *m = w.headline ? metric_find(w.headline) : NULL;
			int have = 0;
			for (size_t k = 0; k < metrics->n && m; k++)
				have |= !strcmp(metrics->v[k], w.headline);
			if (m && !have)
				strlist_push(metrics, w.headline);
			workload_free(&w);
		}
		free(path);
	}
	strlist_free(&names);
}

int report_write(struct store *st, const struct selection *sel, const char *reference,
		 enum report_format f, FILE *out)
{
	const struct report_format_info *format = &report_formats[f];
	struct report_input in = { st, sel, NULL };
	if (format->input == REPORT_STREAMS)
		return format->emit(&in, out);
	struct dataset d;
	struct selection with = *sel;
	struct strlist metrics = { 0 };
	if (!with.metrics) {
		report_metrics(&metrics);
		with.metrics = &metrics;
	}
	int loaded = dataset_load(st, &with, &d);
	strlist_free(&metrics);
	if (loaded < 0) {
		dataset_free(&d);
		return -1;
	}
	if (reference && dataset_set_reference(&d, reference, "named by --reference") < 0) {
		char *have = argv_join(&d.strategies, ", ");
		hb_err("--reference %s: no runs of that strategy in the selection (it has: %s)",
		       reference, *have ? have : "none");
		free(have);
		dataset_free(&d);
		return HB_FAIL_INPUT;
	}
	if (!d.runs && !d.n_problems)
		hb_info("no runs match the selection");
	in.d = &d;
	int rc = format->emit(&in, out);
	dataset_free(&d);
	return rc;
}

int report_write_file(struct store *st, const struct selection *sel, const char *reference,
		      enum report_format f, const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int rc = mem ? report_write(st, sel, reference, f, mem) : -1;
	if (mem && fclose(mem) != 0)
		rc = -1;
	if (rc == 0 && write_file_atomic(path, buf, len) < 0) {
		/* a directory that is not there or not ours: the path is the
		 * user's to fix; anything else (a full disk) is not */
		int bad_path = errno == ENOENT || errno == EACCES || errno == ENOTDIR ||
			       errno == EROFS || errno == EISDIR;
		hb_err("cannot write %s: %s%s", path, strerror(errno),
		       bad_path ? "; give --out a path in a writable directory" : "");
		rc = bad_path ? HB_FAIL_INPUT : -1;
	}
	free(buf);
	return rc;
}
