#include "analyze/cycles.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/dataset.h"
#include "analyze/movers.h"
#include "util/quote.h"
#include "util/util.h"

static double mean_of(const struct dataset *d, const char *workload, const char *strategy,
		      const char *metric)
{
	const struct series *s = dataset_find(d, workload, NULL, strategy, metric);
	if (!s || !s->n)
		return NAN;
	double sum = 0;
	for (size_t i = 0; i < s->n; i++)
		sum += s->v[i];
	return sum / (double)s->n;
}

struct row {
	const char *function;	/* into the dataset's metric names */
	double rank;
};

static int by_rank(const void *x, const void *y)
{
	const struct row *a = x, *b = y;
	return a->rank < b->rank ? 1 : a->rank > b->rank ? -1 : strcmp(a->function, b->function);
}

/* The functions of one workload, most instructions first. */
static size_t rows_of(const struct dataset *d, const char *workload, struct row **rows)
{
	size_t n = 0, plen = strlen(MOVERS_SELF);
	*rows = NULL;
	for (size_t st = 0; st < d->strategies.n; st++)
		for (size_t i = 0; i < d->n; i++) {
			const struct series *s = &d->s[i];
			if (strcmp(s->workload, workload) || strcmp(s->strategy, d->strategies.v[st]) ||
			    strncmp(s->metric, MOVERS_SELF, plen))
				continue;
			size_t k = 0;
			while (k < n && strcmp((*rows)[k].function, s->metric + plen))
				k++;
			if (k < n)
				continue;	/* ranked by an earlier strategy */
			*rows = xrealloc(*rows, (n + 1) * sizeof(**rows));
			(*rows)[n++] = (struct row){ s->metric + plen,
						     mean_of(d, workload, s->strategy, s->metric) };
		}
	if (n)
		qsort(*rows, n, sizeof(**rows), by_rank);
	return n < CYCLES_TOP ? n : CYCLES_TOP;
}

static void cell(FILE *out, enum section_format f, double v, double total, double ref, int is_ref)
{
	char buf[96];
	if (isnan(v))
		snprintf(buf, sizeof(buf), "-");
	else if (is_ref || isnan(ref))
		snprintf(buf, sizeof(buf), "%.0f (%.1f %%)", v, 100 * v / total);
	else
		snprintf(buf, sizeof(buf), "%.0f (%.1f %%) %+.0f", v, 100 * v / total, v - ref);
	if (f == SECTION_HTML)
		fprintf(out, "<td>%s</td>", buf);
	else if (f == SECTION_MD)
		fprintf(out, " %s |", buf);
	else
		fprintf(out, " %22s", buf);
}

static void workload_table(const struct dataset *d, const char *w, enum section_format f, FILE *out)
{
	struct row *rows;
	size_t n = rows_of(d, w, &rows);
	if (!n) {
		free(rows);
		return;
	}
	const struct strlist *sv = &d->strategies;
	if (f == SECTION_HTML) {
		fputs("<h3>", out);
		section_text(out, w, f);
		fputs("</h3>\n<table><tr><th>function</th>", out);
		for (size_t s = 0; s < sv->n; s++) {
			fputs("<th>", out);
			section_text(out, sv->v[s], f);
			fputs("</th>", out);
		}
		fputs("</tr>\n", out);
	} else if (f == SECTION_MD) {
		fputs("\n### ", out);
		section_text(out, w, f);
		fputs("\n\n| function |", out);
		for (size_t s = 0; s < sv->n; s++) {
			fputc(' ', out);
			section_text(out, sv->v[s], f);
			fputs(" |", out);
		}
		fputs("\n| --- |", out);
		for (size_t s = 0; s < sv->n; s++)
			fputs(" --- |", out);
		fputc('\n', out);
	} else {
		fprintf(out, "  %s\n  %-28s", w, "function");
		for (size_t s = 0; s < sv->n; s++)
			fprintf(out, " %22.22s", sv->v[s]);
		fputc('\n', out);
	}
	for (size_t r = 0; r < n; r++) {
		char metric[128];
		snprintf(metric, sizeof(metric), "%s%s", MOVERS_SELF, rows[r].function);
		double ref = mean_of(d, w, sv->v[0], metric);
		if (f == SECTION_HTML) {
			fputs("<tr><td>", out);
			section_text(out, rows[r].function, f);
			fputs("</td>", out);
		} else if (f == SECTION_MD) {
			fputs("| ", out);
			section_text(out, rows[r].function, f);
			fputs(" |", out);
		} else {
			fprintf(out, "  %-28.28s", rows[r].function);
		}
		for (size_t s = 0; s < sv->n; s++)
			cell(out, f, mean_of(d, w, sv->v[s], metric),
			     mean_of(d, w, sv->v[s], "insn_per_pkt"), ref, s == 0);
		fputs(f == SECTION_HTML ? "</tr>\n" : "\n", out);
	}
	if (f == SECTION_HTML)
		fputs("</table>\n", out);
	free(rows);
}

int cycles_write(struct store *st, const struct selection *sel, const char *reference,
		 enum section_format f, FILE *out)
{
	struct strlist metrics = { 0 }, prefixes = { 0 };
	strlist_push(&metrics, "insn_per_pkt");
	strlist_push(&prefixes, MOVERS_SELF);
	struct selection s = *sel;
	s.metrics = &metrics;
	s.metric_prefixes = &prefixes;
	struct dataset d;
	int rc = dataset_load(st, &s, &d);
	strlist_free(&metrics);
	strlist_free(&prefixes);
	if (rc < 0) {
		dataset_free(&d);
		return -1;
	}
	if (reference)
		dataset_set_reference(&d, reference, "the report's reference");
	int any = 0;
	for (size_t i = 0; i < d.n && !any; i++)
		any = !strncmp(d.s[i].metric, MOVERS_SELF, strlen(MOVERS_SELF));
	if (any) {
		static const char what[] = "Where the cycles go: each function's own instructions "
					   "per packet (method emulator-insn), its share of the "
					   "strategy's insn_per_pkt, and its change against ";
		if (f == SECTION_HTML)
			fprintf(out, "<h2>Where the cycles go</h2>\n<p>%s", what + 21);
		else
			fprintf(out, f == SECTION_MD ? "\n## %s" : "\n%s", what);
		section_text(out, d.strategies.v[0], f);
		fputs(f == SECTION_HTML ? ".</p>\n" : "\n", out);
		for (size_t w = 0; w < d.workloads.n; w++)
			workload_table(&d, d.workloads.v[w], f, out);
	}
	dataset_free(&d);
	return 0;
}
