#include "analyze/report.h"
#include "analyze/cycles.h"
#include "analyze/sweep.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
	for (size_t w = 0; w < d->workloads.n; w++) {
		v->workload(v->ctx, d->workloads.v[w]);
		for (size_t m = 0; m < n_metric_defs; m++) {
			const struct metric_def *mi = &metric_defs[m];
			const struct series *ref = NULL;
			if (!metric_in_reports(mi))
				continue;
			for (size_t si = 0; si < d->strategies.n; si++) {
				const struct series *s =
					dataset_find(d, d->workloads.v[w], d->strategies.v[si], mi->name);
				if (!s)
					continue;
				if (!ref) {
					ref = s;
					if (v->metric)
						v->metric(v->ctx, mi, s->unit);
				}
				struct comparison c;
				compare_samples(ref->v, ref->n, s->v, s->n, STATS_DEFAULT_ALPHA,
						mi->better == BETTER_HIGHER, &c);
				v->row(v->ctx, s, &c, s == ref);
			}
			if (ref && v->metric_end)
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
	const char *verdict;
};

static void row_text(const struct series *s, const struct comparison *c, int is_ref,
		     struct row_text *t)
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
	t->verdict = is_ref ? "" : verdict_name(c->verdict);
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

static void text_workload(void *ctx, const char *w)
{
	fprintf(((struct text_ctx *)ctx)->out, "\n== %s ==\n", w);
}

static void text_metric(void *ctx, const struct metric_def *m, const char *unit)
{
	const struct text_ctx *t = ctx;
	fprintf(t->out, "%s (%s, %s is better)\n  %-*s %-30s %9s %9s %9s %9s %9s %7s %s\n",
		m->name, unit, metric_better_name(m->better), t->strategy_width,
		"strategy", "repetitions", "mean", "median", "stddev", "ci95", "delta", "p",
		"verdict");
}

static void text_row(void *ctx, const struct series *s, const struct comparison *c, int is_ref)
{
	const struct text_ctx *x = ctx;
	struct row_text t;
	row_text(s, c, is_ref, &t);
	fprintf(x->out, "  %-*s %-30s %9s %9s %9s %9s %9s %7s %s\n", x->strategy_width,
		s->strategy, t.reps, t.mean, t.median, t.sd, t.ci, t.delta, t.p, t.verdict);
}

/* --- markdown ------------------------------------------------------------ */

static void md_escape(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '|' || *s == '<' || *s == '*' || *s == '_' || *s == '`')
			fputc('\\', out);
		fputc(*s == '\n' ? ' ' : *s, out);
	}
}

static void md_workload(void *ctx, const char *w)
{
	fputs("\n## ", ctx);
	md_escape(ctx, w);
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

static void md_row(void *ctx, const struct series *s, const struct comparison *c, int is_ref)
{
	struct row_text t;
	row_text(s, c, is_ref, &t);
	fputs("| ", ctx);
	md_escape(ctx, s->strategy);
	fprintf(ctx, " | %s | %s | %s | %s | %s | %s | %s | %s |\n", t.reps, t.mean, t.median, t.sd,
		t.ci, t.delta, t.p, strcmp(t.verdict, "~") ? t.verdict : "\\~");
}

/* --- commit: what a maintainer wants in the commit message ---------------- */

struct commit_ctx {
	FILE *out;
	const char *workload;
	const struct series *ref;
};

static void commit_workload(void *ctx, const char *w)
{
	((struct commit_ctx *)ctx)->workload = w;
}

static void commit_row(void *ctx, const struct series *s, const struct comparison *c, int is_ref)
{
	struct commit_ctx *k = ctx;
	if (is_ref) {
		k->ref = s;
		return;
	}
	char before[16], after[16];
	fmt(before, sizeof(before), c->ref.mean);
	fmt(after, sizeof(after), c->cand.mean);
	fprintf(k->out, "  %-14s %-24s %-14s %10s -> %-10s %-10s %+7.2f %%  (p %.2g, %s)\n",
		k->workload, s->metric, s->strategy, before, after, s->unit, c->delta_pct,
		c->welch.p, verdict_name(c->verdict));
}


struct json_ctx {
	cJSON *workloads, *workload, *metrics, *rows;
};

static void json_workload(void *ctx, const char *w)
{
	struct json_ctx *j = ctx;
	j->workload = cJSON_CreateObject();
	cJSON_AddStringToObject(j->workload, "workload", w);
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

static void json_row(void *ctx, const struct series *s, const struct comparison *c, int is_ref)
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
		cJSON_AddStringToObject(o, "verdict", verdict_name(c->verdict));
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
	struct json_ctx j = { .workloads = cJSON_AddArrayToObject(root, "workloads") };
	struct report_visitor v = { json_workload, json_metric, json_row, NULL, &j };
	report_visit(d, &v);
	struct sweep_set sweeps;
	sweep_collect(d, &sweeps);
	sweep_add_json(&sweeps, root);
	sweep_set_free(&sweeps);
	cJSON *problems = cJSON_AddArrayToObject(root, "not_measured");
	for (size_t i = 0; i < d->problems.n; i++)
		cJSON_AddItemToArray(problems, cJSON_CreateString(d->problems.v[i]));
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

/* JUnit wants the counts before the cases: the cases go to a buffer first. */
struct junit_ctx {
	FILE *cases;
	const char *workload, *metric;
	size_t tests, failures, skipped, errors;
};

static void junit_workload(void *ctx, const char *w)
{
	((struct junit_ctx *)ctx)->workload = w;
}

static void junit_metric(void *ctx, const struct metric_def *m, const char *unit)
{
	(void)unit;
	((struct junit_ctx *)ctx)->metric = m->name;
}

static void junit_row(void *ctx, const struct series *s, const struct comparison *c, int is_ref)
{
	struct junit_ctx *j = ctx;
	if (is_ref)
		return;
	char msg[256];
	snprintf(msg, sizeof(msg), "%s: %.6g -> %.6g %s (%+.2f %%, Welch p %.3g, runs %zu/%zu)",
		 verdict_name(c->verdict), c->ref.mean, c->cand.mean, s->unit, c->delta_pct,
		 c->welch.p, c->ref.n, c->cand.n);
	j->tests++;
	fputs("  <testcase classname=\"", j->cases);
	xml_escape(j->cases, j->workload);
	fputc('.', j->cases);
	xml_escape(j->cases, j->metric);
	fputs("\" name=\"", j->cases);
	xml_escape(j->cases, s->strategy);
	fputs("\">", j->cases);
	if (c->verdict == VERDICT_WORSE || c->verdict == VERDICT_INCONCLUSIVE) {
		int worse = c->verdict == VERDICT_WORSE;
		j->failures += worse;
		j->skipped += !worse;
		fputs(worse ? "<failure message=\"" : "<skipped message=\"", j->cases);
		xml_escape(j->cases, msg);
		fputs("\"/>", j->cases);
	} else {
		fputs("<system-out>", j->cases);
		xml_escape(j->cases, msg);
		fputs("</system-out>", j->cases);
	}
	fputs("</testcase>\n", j->cases);
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
	/* "ID board/strategy/workload rep N: class: reason" */
	for (size_t i = 0; i < d->problems.n; i++, j.tests++, j.errors++) {
		const char *p = d->problems.v[i];
		fputs("  <testcase classname=\"runs\" name=\"", j.cases);
		char *id = xasprintf("%.*s", (int)strcspn(p, " "), p);
		xml_escape(j.cases, id);
		free(id);
		fputs("\"><error message=\"", j.cases);
		xml_escape(j.cases, p);
		fputs("\"/></testcase>\n", j.cases);
	}
	fclose(j.cases);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"hilbench report\"", out);
	fprintf(out, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\">\n", j.tests,
		j.failures, j.errors, j.skipped);
	fwrite(buf, 1, len, out);
	fputs("</testsuite>\n", out);
	free(buf);
	return 0;
}

static void list_problems(const struct dataset *d, FILE *out, const char *bullet)
{
	if (d->mixed_timing)
		fprintf(out, "\n%zu measurements of another timing mode than %s were left out.\n",
			d->mixed_timing, d->timing);
	if (!d->problems.n)
		return;
	fprintf(out, "\nnot measured (%zu runs):\n", d->problems.n);
	for (size_t i = 0; i < d->problems.n; i++) {
		fputs(bullet, out);
		if (!strcmp(bullet, "- "))
			md_escape(out, d->problems.v[i]);
		else
			fputs(d->problems.v[i], out);
		fputc('\n', out);
	}
}

int report_emit_csv(const struct report_input *in, FILE *out)
{
	fputs("run,session,board,strategy,workload,repetition,class,timing,metric,value,"
	      "unit,source,reason\n", out);
	struct selection all = *in->sel;
	all.all_classes = 1;
	return store_foreach(in->st, &all, csv_row, out);
}

int report_emit_commit(const struct report_input *in, FILE *out)
{
	const struct dataset *d = in->d;
	struct commit_ctx k = { .out = out };
	struct report_visitor v = { commit_workload, NULL, commit_row, NULL, &k };
	fprintf(out, "hilbench: means of %zu runs in %s time, against %s (Welch p):\n",
		d->runs, d->timing, d->strategies.n ? d->strategies.v[0] : "-");
	report_visit(d, &v);
	return 0;
}

/* text and md: the strategy table, where the cycles go, the sweeps, the
 * runs not measured */
static int write_table(const struct report_input *in, FILE *out, int md)
{
	const struct dataset *d = in->d;
	struct text_ctx tc = { out, text_strategy_width(d) };
	struct report_visitor v = { md ? md_workload : text_workload, md ? md_metric : text_metric,
				    md ? md_row : text_row, NULL, md ? (void *)out : &tc };
	if (md)
		fprintf(out, "# hilbench report\n\n%zu runs, %s time\n", d->runs, d->timing);
	report_visit(d, &v);
	if (d->strategies.n &&
	    cycles_write(in->st, in->sel, d->strategies.v[0], md ? CYCLES_MD : CYCLES_TEXT, out) < 0)
		return -1;
	struct sweep_set sweeps;
	sweep_collect(d, &sweeps);
	sweep_write_text(&sweeps, out, md);
	sweep_set_free(&sweeps);
	list_problems(d, out, md ? "- " : "  ");
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

int report_write(struct store *st, const struct selection *sel, const char *reference,
		 enum report_format f, FILE *out)
{
	const struct report_format_info *format = &report_formats[f];
	struct report_input in = { st, sel, NULL };
	if (format->input == REPORT_STREAMS)
		return format->emit(&in, out);
	struct dataset d;
	if (dataset_load(st, sel, &d) < 0) {
		dataset_free(&d);
		return -1;
	}
	if (reference && dataset_set_reference(&d, reference) < 0) {
		char *have = argv_join(&d.strategies, ", ");
		hb_err("--reference %s: no runs of that strategy in the selection (it has: %s)",
		       reference, *have ? have : "none");
		free(have);
		dataset_free(&d);
		return REPORT_BAD_INPUT;
	}
	if (!d.runs && !d.problems.n)
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
		rc = bad_path ? REPORT_BAD_INPUT : -1;
	}
	free(buf);
	return rc;
}
