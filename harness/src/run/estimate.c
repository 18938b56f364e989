#include "run/estimate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/dataset.h"
#include "analyze/gate.h"
#include "analyze/stats.h"
#include "config/catalog.h"

static int index_of(const struct strlist *l, const char *name)
{
	for (size_t i = 0; name && i < l->n; i++)
		if (!strcmp(l->v[i], name))
			return (int)i;
	return -1;
}

/* The rows come per run and metric, a run's together, in the order stored;
 * with boards at once, boots' runs interleave, so each boot's last end is
 * kept apart, and a run's time starts no earlier than the last run that
 * ended before it started: a run may wait for the host's turn (one of
 * UDP the host sends has it alone, the others wait: run/executor.h), time
 * another run's price already holds. */
struct timing {
	const struct strlist *workloads;
	double *sum;
	int *count;
	double boot_sum;
	int boots;
	char last_id[40];
	struct strlist seen;	/* boots */
	double *seen_end;	/* [i]: the end of seen.v[i]'s last run */
	double *ends;		/* every run's so far */
	size_t n_ends;
};

static int time_run(const struct run_row *r, void *ctx)
{
	struct timing *t = ctx;
	if (!strcmp(t->last_id, r->id))
		return 0;
	snprintf(t->last_id, sizeof(t->last_id), "%s", r->id);
	double start = utc_seconds(r->started), end = utc_seconds(r->ended);
	if (isnan(start) || isnan(end) || end < start || !r->boot_id)
		return 0;
	int b = index_of(&t->seen, r->boot_id);
	if (b < 0) {
		/* a boot: from its id's stamp (the executor makes it as it
		 * starts the emulator) to its first run's start */
		double booted = store_id_seconds(r->boot_id);
		if (!isnan(booted) && start >= booted) {
			t->boot_sum += start - booted;
			t->boots++;
		}
		strlist_push(&t->seen, r->boot_id);
		t->seen_end = xrealloc(t->seen_end, t->seen.n * sizeof(double));
		b = (int)t->seen.n - 1;
		t->seen_end[b] = start;
	}
	double from = t->seen_end[b] <= end ? t->seen_end[b] : start;
	for (size_t i = 0; i < t->n_ends; i++)
		if (t->ends[i] <= start && t->ends[i] > from)
			from = t->ends[i];
	int w = index_of(t->workloads, r->workload);
	if (w >= 0) {
		t->sum[w] += end - from;
		t->count[w]++;
	}
	t->seen_end[b] = end;
	t->ends = xrealloc(t->ends, (t->n_ends + 1) * sizeof(double));
	t->ends[t->n_ends++] = end;
	return 0;
}

void estimate_costs(struct store *s, const char *session, const char *strategy,
		    const struct strlist *workloads, struct run_costs *out)
{
	size_t n = workloads->n;
	struct timing t = { .workloads = workloads, .sum = xcalloc(n + 1, sizeof(double)),
			    .count = xcalloc(n + 1, sizeof(int)) };
	struct selection sel = { .session = session, .strategy = strategy };
	*out = (struct run_costs){ .boot_s = -1, .run_s = xcalloc(n + 1, sizeof(double)), .n = n };
	if (store_foreach(s, &sel, time_run, &t) < 0) {
		/* a read that failed half way prices nothing */
		t.boots = 0;
		memset(t.count, 0, (n + 1) * sizeof(int));
	}
	for (size_t i = 0; i < n; i++)
		out->run_s[i] = t.count[i] ? t.sum[i] / t.count[i] : -1;
	if (t.boots)
		out->boot_s = t.boot_sum / t.boots;
	free(t.sum);
	free(t.count);
	free(t.seen_end);
	free(t.ends);
	strlist_free(&t.seen);
}

double estimate_boot_s(const struct run_costs *c, const struct strlist *all,
		       const struct strlist *these)
{
	double s = c->boot_s;
	for (size_t i = 0; s >= 0 && i < these->n; i++) {
		int w = index_of(all, these->v[i]);
		s = w < 0 || (size_t)w >= c->n || c->run_s[w] < 0 ? -1 : s + c->run_s[w];
	}
	return s;
}

double estimate_one_run_boot_s(const struct run_costs *c, const struct strlist *all,
			       const struct strlist *these)
{
	double sum = 0;
	for (size_t i = 0; i < these->n; i++) {
		struct strlist one = { .v = &these->v[i], .n = 1 };
		double s = estimate_boot_s(c, all, &one);
		if (s < 0)
			return -1;
		sum += s;
	}
	return these->n ? sum / (double)these->n : -1;
}

void estimate_costs_free(struct run_costs *c)
{
	free(c->run_s);
	c->run_s = NULL;
	c->n = 0;
}

struct taken {
	const char *strategy;
	const struct strlist *workloads;
	int *most;
};

static int count_taken(const struct decision_record *d, void *ctx)
{
	struct taken *t = ctx;
	int w = index_of(t->workloads, d->workload);
	if (w >= 0 && d->strategy && !strcmp(d->strategy, t->strategy) &&
	    d->candidate_runs > t->most[w])
		t->most[w] = d->candidate_runs;
	return 0;
}

int estimate_runs_taken(struct store *s, const char *session, const char *strategy,
			const struct strlist *workloads)
{
	struct taken t = { strategy, workloads, xcalloc(workloads->n + 1, sizeof(int)) };
	int sum = 0, decided = 0;
	if (store_each_decision(s, session, count_taken, &t) == 0)
		for (size_t i = 0; i < workloads->n; i++) {
			sum += t.most[i];
			decided |= t.most[i] > 0;
		}
	/* a workload no metric judges (the profiler's) has runs all the same */
	for (size_t i = 0; decided && i < workloads->n; i++) {
		struct selection sel = { .session = session, .strategy = strategy,
					 .workload = workloads->v[i], .all_classes = 1,
					 .no_provenance = 1 };
		int n = t.most[i] ? 0 : store_count_runs(s, &sel);
		sum += n > 0 ? n : 0;
	}
	free(t.most);
	return decided ? sum : 0;
}

/* n values of mean m whose sample standard deviation is sd: pairs at
 * m -/+ a*sd, and m itself once when n is odd. */
static void alike_values(double m, double sd, size_t n, double *v)
{
	double a = n % 2 ? 1 : sqrt((double)(n - 1) / (double)n);
	for (size_t i = 0; i < n; i++)
		v[i] = m;
	for (size_t i = 0; i + 1 < n; i += 2) {
		v[i] = m - a * sd;
		v[i + 1] = m + a * sd;
	}
}

/* The fewest runs from n on of a candidate whose runs have mean `mean`
 * and spread sd that decide metric m against the reference's runs r, or
 * end it as futile: the cap when none does. */
static int runs_from(const struct gate_policy *g, const struct gate_metric *m,
		     enum timing_mode timing, const struct series *r, double mean, double sd, int n)
{
	int cap = g->max_repetitions;
	double *v = xcalloc((size_t)cap + 1, sizeof(double));
	struct gate_rule rule = gate_metric_rule(m, timing);
	for (; n < cap; n++) {
		struct gate_decision d;
		alike_values(mean, sd, (size_t)n, v);
		gate_decide(r->v, r->n, v, (size_t)n, gate_metric_better(m), g->pass,
			    gate_look_alpha(g, (int)r->n), &rule, &d);
		if (d.outcome != GATE_OPEN ||
		    gate_futile(g, r->v, r->n, v, (size_t)n, gate_metric_better(m), &rule, &d))
			break;	/* decided, or ended by the futility rule (analyze/gate.h) */
	}
	free(v);
	return n;
}

/* A candidate like the reference r, its mean moved by `off` of metric m's
 * threshold. */
static int runs_to_decide(const struct gate_policy *g, const struct gate_metric *m,
			  enum timing_mode timing, const struct series *r, double off)
{
	struct summary sr;
	summarize(r->v, r->n, &sr);
	struct gate_rule rule = gate_metric_rule(m, timing);
	return runs_from(g, m, timing, r, sr.mean * (1 + off * rule.threshold_pct / 100),
			 sr.stddev, g->first_repetitions);
}

/* A candidate with runs c so far: as many when they decide m now (or end
 * it as futile, or reach the cap); else from one more on, were its next
 * runs like these: their mean, their spread (the reference's while c is
 * one run). */
static int runs_to_decide_from(const struct gate_policy *g, const struct gate_metric *m,
			       enum timing_mode timing, const struct series *r,
			       const struct series *c)
{
	struct gate_rule rule = gate_metric_rule(m, timing);
	struct gate_decision d;
	gate_decide(r->v, r->n, c->v, c->n, gate_metric_better(m), g->pass,
		    gate_look_alpha(g, (int)r->n), &rule, &d);
	if ((int)c->n >= g->max_repetitions || d.outcome != GATE_OPEN ||
	    gate_futile(g, r->v, r->n, c->v, c->n, gate_metric_better(m), &rule, &d))
		return (int)c->n;
	struct summary sr, sc;
	summarize(r->v, r->n, &sr);
	summarize(c->v, c->n, &sc);
	return runs_from(g, m, timing, r, sc.mean, c->n >= 2 ? sc.stddev : sr.stddev,
			 (int)c->n + 1);
}

/* estimate_runs_alike() (candidate NULL) and estimate_runs_open(): per
 * workload the most its metrics take, summed; with a candidate, -1 when
 * it has no run of the workloads. */
static int runs_of(struct store *s, const char *session, const char *reference,
		   const char *candidate, const struct plan *p, const struct strlist *workloads,
		   double off)
{
	const struct gate_policy *g = &p->gate;
	const struct gate_metric *gm = g->metrics.v;
	struct strlist names = { 0 };
	for (size_t i = 0; i < g->metrics.n; i++)
		strlist_push(&names, gm[i].metric);
	struct selection rsel = { .session = session, .strategy = reference, .metrics = &names };
	struct selection csel = { .session = session, .strategy = candidate, .metrics = &names };
	struct dataset ref = { 0 }, cand = { 0 };
	int sum = 0, made = 0;
	if (dataset_load(s, &rsel, &ref) == 0 && (!candidate || dataset_load(s, &csel, &cand) == 0))
		for (size_t w = 0; w < workloads->n; w++) {
			struct workload wl;
			if (catalog_workload(workloads->v[w], &wl) < 0)
				continue;
			int most = g->first_repetitions;
			for (size_t i = 0; i < g->metrics.n; i++) {
				if (!gate_metric_applies(&gm[i], &wl))
					continue;
				const struct series *r =
					dataset_find(&ref, wl.name, NULL, NULL, gm[i].metric);
				const struct series *c =
					candidate ? dataset_find(&cand, wl.name, NULL, NULL,
								 gm[i].metric)
						  : NULL;
				made |= c && c->n;
				int n = !r || r->n < 2 ? 0
					: c && c->n ? runs_to_decide_from(g, &gm[i], p->timing, r, c)
						    : runs_to_decide(g, &gm[i], p->timing, r, off);
				most = n > most ? n : most;
			}
			sum += most;
			workload_free(&wl);
		}
	dataset_free(&ref);
	dataset_free(&cand);
	strlist_free(&names);
	return candidate && !made ? -1 : sum;
}

int estimate_runs_alike(struct store *s, const char *session, const char *reference,
			const struct plan *p, const struct strlist *workloads, double off)
{
	return runs_of(s, session, reference, NULL, p, workloads, off);
}

int estimate_runs_open(struct store *s, const char *session, const char *reference,
		       const char *candidate, const struct plan *p, const struct strlist *workloads)
{
	return runs_of(s, session, reference, candidate, p, workloads, 0);
}
