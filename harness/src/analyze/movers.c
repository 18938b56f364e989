#include "analyze/movers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void movers_prefixes(struct strlist *out)
{
	strlist_push(out, MOVERS_SELF);
	strlist_push(out, MOVERS_CALLS);
}

static double mean(const struct series *s)
{
	double sum = 0;
	for (size_t i = 0; i < s->n; i++)
		sum += s->v[i];
	return s->n ? sum / (double)s->n : NAN;
}

/* The smallest mean of one side's kept functions of this kind: what a
 * function not kept there had at most. */
static double floor_of(const struct dataset *d, const char *strategy, const char *workload,
		       const char *prefix)
{
	double lo = NAN;
	for (size_t i = 0; i < d->n; i++) {
		const struct series *s = &d->s[i];
		if (strcmp(s->strategy, strategy) || strcmp(s->workload, workload) ||
		    strncmp(s->metric, prefix, strlen(prefix)))
			continue;
		double m = mean(s);
		if (isnan(lo) || m < lo)
			lo = m;
	}
	return isnan(lo) ? 0 : lo;
}

static int by_change(const void *x, const void *y)
{
	const struct mover *a = x, *b = y;
	if (a->calls != b->calls)
		return a->calls - b->calls;
	double da = fabs(a->delta), db = fabs(b->delta);
	return da < db ? 1 : da > db ? -1 : strcmp(a->function, b->function);
}

/* Every function of one kind on either side, its change appended to *v. */
static void collect(const struct dataset *ref, const char *rs, const struct dataset *cand,
		    const char *cs, const char *workload, const char *prefix, int calls,
		    struct mover **v, size_t *n)
{
	double ref_floor = calls ? 0 : floor_of(ref, rs, workload, prefix);
	double cand_floor = calls ? 0 : floor_of(cand, cs, workload, prefix);
	const struct dataset *sides[2] = { ref, cand };
	const char *strategies[2] = { rs, cs };
	for (int side = 0; side < 2; side++) {
		const struct dataset *d = sides[side];
		for (size_t i = 0; i < d->n; i++) {
			const struct series *s = &d->s[i];
			if (strcmp(s->strategy, strategies[side]) || strcmp(s->workload, workload) ||
			    strncmp(s->metric, prefix, strlen(prefix)))
				continue;
			/* a function on both sides is taken from the reference's pass */
			const struct series *other = dataset_find(sides[!side], workload, NULL,
								  strategies[!side], s->metric);
			if (side == 1 && other)
				continue;
			double here = mean(s);
			double there = other ? mean(other) : side ? ref_floor : cand_floor;
			struct mover m = { .calls = calls };
			snprintf(m.function, sizeof(m.function), "%s", s->metric + strlen(prefix));
			m.ref = side ? there : here;
			m.cand = side ? here : there;
			m.delta = m.cand - m.ref;
			/* kept on one side only: the other side's value is at most
			 * its floor, so only a rise of a new function (a fall of a
			 * gone one) is certain, and then at least this much */
			if (!other && (side ? m.delta <= 0 : m.delta >= 0))
				continue;
			if (fabs(m.delta) < (calls ? MOVERS_MIN_CALLS : MOVERS_MIN_INSN))
				continue;
			*v = xrealloc(*v, (*n + 1) * sizeof(**v));
			(*v)[(*n)++] = m;
		}
	}
}

size_t movers_find(const struct dataset *ref, const char *ref_strategy,
		   const struct dataset *cand, const char *cand_strategy, const char *workload,
		   struct mover *out, size_t max)
{
	struct mover *v = NULL;
	size_t n = 0;
	collect(ref, ref_strategy, cand, cand_strategy, workload, MOVERS_SELF, 0, &v, &n);
	collect(ref, ref_strategy, cand, cand_strategy, workload, MOVERS_CALLS, 1, &v, &n);
	if (n)
		qsort(v, n, sizeof(*v), by_change);
	size_t kept = n < max ? n : max;
	if (kept)
		memcpy(out, v, kept * sizeof(*v));
	free(v);
	return kept;
}

void movers_format(const struct mover *m, size_t n, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		int w = m[i].calls
			? snprintf(buf + used, len - used, "%s%+.2f %s/packet", i ? "; " : "",
				   m[i].delta, m[i].function)
			: snprintf(buf + used, len - used, "%s%+.0f instructions/packet in %s",
				   i ? "; " : "", m[i].delta, m[i].function);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

int movers_load(struct store *st, const struct selection *sel, struct dataset *d)
{
	struct strlist none = { 0 }, prefixes = { 0 };
	movers_prefixes(&prefixes);
	struct selection only = *sel;
	only.metrics = &none;
	only.metric_prefixes = &prefixes;
	only.all_classes = 0;
	int rc = dataset_load(st, &only, d);
	strlist_free(&prefixes);
	return rc;
}

/* The values of d's series of workload appended to side's series of the
 * same metric, all under one label. */
static void pool(struct dataset *side, const char *label, const struct dataset *d,
		 const char *workload)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct series *s = &d->s[i];
		if (strcmp(s->workload, workload))
			continue;
		struct series *p = NULL;
		for (size_t k = 0; k < side->n && !p; k++)
			if (!strcmp(side->s[k].metric, s->metric))
				p = &side->s[k];
		if (!p) {
			side->s = xrealloc(side->s, (side->n + 1) * sizeof(*side->s));
			p = &side->s[side->n++];
			*p = (struct series){
				.workload = xstrdup(workload), .board = xstrdup(s->board),
				.strategy = xstrdup(label), .metric = xstrdup(s->metric),
				.unit = xstrdup(s->unit), .first_run = xstrdup(s->first_run),
			};
		}
		p->v = xrealloc(p->v, (p->n + s->n + 1) * sizeof(double));
		memcpy(p->v + p->n, s->v, s->n * sizeof(double));
		p->n += s->n;
	}
}

static int load_side(struct store *st, const struct selection *sel, size_t n,
		     const char *workload, const char *label, struct dataset *side)
{
	memset(side, 0, sizeof(*side));
	for (size_t i = 0; i < n; i++) {
		struct selection one = sel[i];
		if (one.runs && !one.runs->n)
			continue;	/* no runs, not every run */
		one.workload = workload;
		struct dataset d;
		int rc = movers_load(st, &one, &d);
		if (rc == 0)
			pool(side, label, &d, workload);
		dataset_free(&d);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int movers_between(struct store *st, const struct selection *ref, size_t nref,
		   const struct selection *cand, size_t ncand, const char *workload, char *buf,
		   size_t len)
{
	struct dataset r, c;
	buf[0] = '\0';
	int rc = load_side(st, ref, nref, workload, "reference", &r);
	if (rc == 0)
		rc = load_side(st, cand, ncand, workload, "candidate", &c);
	else
		memset(&c, 0, sizeof(c));
	/* a side without the counts has nothing to compare with: not a
	 * function "new" on the other */
	if (rc == 0 && r.n && c.n) {
		struct mover m[MOVERS_SHOWN];
		size_t n = movers_find(&r, "reference", &c, "candidate", workload, m,
				       MOVERS_SHOWN);
		movers_format(m, n, buf, len);
	}
	dataset_free(&r);
	dataset_free(&c);
	return rc;
}
