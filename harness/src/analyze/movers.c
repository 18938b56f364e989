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
