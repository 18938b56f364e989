#include "analyze/table.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/stats.h"
#include "util/util.h"

/* The metrics the table shows, in order, and which way is better; the
 * others stay in the store. */
static const struct {
	const char *name;
	bool higher_is_better;
} shown[] = {
	{ "pps", true },
	{ "mbps", true },
	{ "hrtimer_starts_per_pkt", false },
	{ "timer_list_starts_per_pkt", false },
	{ "cpu_busy_pct", false },
};

struct series {
	char *workload, *strategy, *metric, *unit;
	double *v;
	size_t n;
};

struct collected {
	struct series *s;
	size_t n;
	struct strlist problems;	/* runs that are not measurements */
	struct strlist workloads, strategies;	/* first-seen order */
};

static void add_unique(struct strlist *l, const char *v)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], v))
			return;
	strlist_push(l, v);
}

static int collect_row(const struct run_row *r, void *ctx)
{
	struct collected *c = ctx;
	if (strcmp(r->cls, "pass")) {
		strlist_pushf(&c->problems, "%s %s/%s/%s rep %d: %s: %s", r->id, r->board,
			      r->strategy, r->workload, r->repetition, r->cls,
			      r->reason ? r->reason : "");
		return 0;
	}
	size_t k;
	for (k = 0; k < HB_ARRAY_SIZE(shown) && strcmp(shown[k].name, r->metric); k++)
		;
	if (k == HB_ARRAY_SIZE(shown))
		return 0;
	add_unique(&c->workloads, r->workload);
	add_unique(&c->strategies, r->strategy);
	struct series *s = NULL;
	for (size_t i = 0; i < c->n && !s; i++)
		if (!strcmp(c->s[i].workload, r->workload) && !strcmp(c->s[i].strategy, r->strategy) &&
		    !strcmp(c->s[i].metric, r->metric))
			s = &c->s[i];
	if (!s) {
		c->s = xrealloc(c->s, (c->n + 1) * sizeof(*c->s));
		s = &c->s[c->n++];
		*s = (struct series){ xstrdup(r->workload), xstrdup(r->strategy),
				      xstrdup(r->metric), xstrdup(r->unit), NULL, 0 };
	}
	s->v = xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
	s->v[s->n++] = r->value;
	return 0;
}

static const struct series *find(const struct collected *c, const char *w, const char *st,
				 const char *m)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->s[i].workload, w) && !strcmp(c->s[i].strategy, st) &&
		    !strcmp(c->s[i].metric, m))
			return &c->s[i];
	return NULL;
}

static void fmt(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 100)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

int table_print(struct store *st, const char *session, FILE *out)
{
	struct collected c = { 0 };
	int rc = store_foreach(st, session, 1, collect_row, &c);
	for (size_t w = 0; w < c.workloads.n; w++) {
		fprintf(out, "\n== %s ==\n", c.workloads.v[w]);
		for (size_t m = 0; m < HB_ARRAY_SIZE(shown); m++) {
			const struct series *ref = NULL;
			int printed_header = 0;
			for (size_t si = 0; si < c.strategies.n; si++) {
				const struct series *s = find(&c, c.workloads.v[w], c.strategies.v[si],
							      shown[m].name);
				if (!s)
					continue;
				if (!ref)
					ref = s;
				if (!printed_header) {
					fprintf(out, "%s (%s, %s is better)\n  %-16s %-30s %9s %9s %9s %8s %7s %s\n",
						shown[m].name, s->unit,
						shown[m].higher_is_better ? "higher" : "lower", "strategy",
						"repetitions", "mean", "stddev", "ci95", "delta", "p", "verdict");
					printed_header = 1;
				}
				struct comparison cmp;
				compare_samples(ref->v, ref->n, s->v, s->n, STATS_DEFAULT_ALPHA,
						shown[m].higher_is_better, &cmp);
				char reps[31] = "", one[16];
				for (size_t i = 0; i < s->n; i++) {
					fmt(one, sizeof(one), s->v[i]);
					if (strlen(reps) + strlen(one) + 2 < sizeof(reps))
						strcat(strcat(reps, i ? " " : ""), one);
				}
				char mean[16], sd[16], ci[16], delta[16] = "ref", pv[16] = "", verdict[16] = "";
				fmt(mean, sizeof(mean), cmp.cand.mean);
				fmt(sd, sizeof(sd), cmp.cand.stddev);
				fmt(ci, sizeof(ci), cmp.cand.ci95);
				if (s != ref) {
					snprintf(delta, sizeof(delta), "%+.1f%%", cmp.delta_pct);
					snprintf(pv, sizeof(pv), isnan(cmp.welch.p) ? "-" : "%.3f", cmp.welch.p);
					snprintf(verdict, sizeof(verdict), "%s", verdict_name(cmp.verdict));
				}
				fprintf(out, "  %-16s %-30s %9s %9s %9s %8s %7s %s\n", s->strategy, reps,
					mean, sd, ci, delta, pv, verdict);
			}
		}
	}
	if (c.problems.n) {
		fprintf(out, "\nnot measured (%zu runs):\n", c.problems.n);
		for (size_t i = 0; i < c.problems.n; i++)
			fprintf(out, "  %s\n", c.problems.v[i]);
	}
	for (size_t i = 0; i < c.n; i++) {
		free(c.s[i].workload);
		free(c.s[i].strategy);
		free(c.s[i].metric);
		free(c.s[i].unit);
		free(c.s[i].v);
	}
	free(c.s);
	strlist_free(&c.problems);
	strlist_free(&c.workloads);
	strlist_free(&c.strategies);
	return rc;
}
