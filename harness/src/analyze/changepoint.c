#include "analyze/changepoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

void cp_params_default(struct cp_params *p)
{
	*p = (struct cp_params){ .min_segment = CP_DEFAULT_MIN_SEGMENT, .alpha = CP_DEFAULT_ALPHA,
				 .permutations = CP_DEFAULT_PERMUTATIONS, .seed = CP_DEFAULT_SEED };
}

/* splitmix64: tiny, seedable, and the same sequence on every machine. */
static uint64_t next_u64(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Uniform in [0, bound): rejection removes the modulo bias. */
static size_t next_below(uint64_t *state, size_t bound)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
	uint64_t r;
	do
		r = next_u64(state);
	while (r >= limit);
	return (size_t)(r % bound);
}

static void shuffle(double *y, size_t n, uint64_t *state)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = next_below(state, i);
		double t = y[i - 1];
		y[i - 1] = y[j];
		y[j] = t;
	}
}

/*
 * The best split of y[0..n), O(n^2) time and O(n) scratch: with
 * left[t] = sum_{i<t} |y_i - y_t| and right[t] = sum_{j>t} |y_t - y_j|, the
 * pair sums inside X = y[0..tau) and Y = y[tau..n) are running sums of
 * those, and the between-sum is the total minus both.
 */
static double best_split(const double *y, size_t n, size_t min_segment, double *left,
			 double *right, size_t *tau_out)
{
	if (n < 2 * min_segment)
		return -INFINITY;
	for (size_t t = 0; t < n; t++) {
		double l = 0, r = 0;
		for (size_t i = 0; i < t; i++)
			l += fabs(y[i] - y[t]);
		for (size_t j = t + 1; j < n; j++)
			r += fabs(y[t] - y[j]);
		left[t] = l;
		right[t] = r;
	}
	double total = 0;
	for (size_t t = 0; t < n; t++)
		total += left[t];
	/* the pair sums inside y[0..min_segment) and y[min_segment..n) */
	double wx = 0, wy = 0;
	for (size_t t = 0; t < min_segment; t++)
		wx += left[t];
	for (size_t t = min_segment; t < n; t++)
		wy += right[t];
	double best = -INFINITY;
	for (size_t tau = min_segment; tau + min_segment <= n; tau++) {
		double m = (double)tau, k = (double)(n - tau);
		double between = total - wx - wy;
		double q = m * k / (m + k) *
			   (2 * between / (m * k) - 2 * wx / (m * (m - 1)) - 2 * wy / (k * (k - 1)));
		if (q > best) {
			best = q;
			*tau_out = tau;
		}
		wx += left[tau];
		wy -= right[tau];
	}
	return best;
}

double energy_q(const double *x, size_t n, size_t tau)
{
	if (tau < 2 || n < tau + 2)
		return NAN;
	/* straight from the definition, independent of best_split's sums */
	double wx = 0, wy = 0, between = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			double d = fabs(x[i] - x[j]);
			if (j < tau)
				wx += d;
			else if (i >= tau)
				wy += d;
			else
				between += d;
		}
	double m = (double)tau, k = (double)(n - tau);
	return m * k / (m + k) *
	       (2 * between / (m * k) - 2 * wx / (m * (m - 1)) - 2 * wy / (k * (k - 1)));
}

struct segmentation {
	size_t *b;	/* boundaries, sorted: b[0] = 0, b[nb - 1] = n */
	size_t nb;
};

/* The largest best-split Q over all segments of y; its position in *tau. */
static double best_over_segments(const double *y, const struct segmentation *s,
				 size_t min_segment, double *left, double *right, size_t *tau)
{
	double best = -INFINITY;
	for (size_t i = 0; i + 1 < s->nb; i++) {
		size_t t = 0, lo = s->b[i];
		double q = best_split(y + lo, s->b[i + 1] - lo, min_segment, left, right, &t);
		if (q > best) {
			best = q;
			*tau = lo + t;
		}
	}
	return best;
}

static double mean_of(const double *x, size_t lo, size_t hi)
{
	double sum = 0;
	for (size_t i = lo; i < hi; i++)
		sum += x[i];
	return sum / (double)(hi - lo);
}

int changepoint_detect(const double *x, size_t n, const struct cp_params *p,
		       struct cp_result *r)
{
	memset(r, 0, sizeof(*r));
	r->seed = p->seed;
	r->permutations = p->permutations;
	r->last_p = NAN;
	if (p->min_segment < 2 || !(p->alpha > 0 && p->alpha < 1) || p->permutations < 1)
		return -1;
	struct segmentation s = { xmalloc(2 * sizeof(size_t)), 2 };
	s.b[0] = 0;
	s.b[1] = n;
	double *left = xmalloc((n + 1) * sizeof(double)), *right = xmalloc((n + 1) * sizeof(double));
	double *perm = xmalloc((n + 1) * sizeof(double));
	double *qs = NULL, *ps = NULL;
	uint64_t state = p->seed;
	for (;;) {
		size_t tau = 0;
		double q = best_over_segments(x, &s, p->min_segment, left, right, &tau);
		if (q == -INFINITY)
			break;	/* no segment is long enough to split */
		unsigned as_large = 0;
		for (unsigned k = 0; k < p->permutations; k++) {
			memcpy(perm, x, n * sizeof(double));
			for (size_t i = 0; i + 1 < s.nb; i++)
				shuffle(perm + s.b[i], s.b[i + 1] - s.b[i], &state);
			size_t ignored;
			/* ties count against the change: the test stays conservative
			 * when rounding makes a permutation's Q equal the observed */
			if (best_over_segments(perm, &s, p->min_segment, left, right, &ignored) >=
			    q - 1e-12 * fabs(q))
				as_large++;
		}
		double pv = (1.0 + as_large) / (1.0 + p->permutations);
		if (!(pv < p->alpha)) {
			r->last_p = pv;
			break;
		}
		size_t at = 1;
		while (s.b[at] < tau)
			at++;
		s.b = xrealloc(s.b, (s.nb + 1) * sizeof(size_t));
		qs = xrealloc(qs, (s.nb + 1) * sizeof(double));
		ps = xrealloc(ps, (s.nb + 1) * sizeof(double));
		memmove(&s.b[at + 1], &s.b[at], (s.nb - at) * sizeof(size_t));
		/* qs/ps are indexed like the inner boundaries b[1..nb-2] */
		memmove(&qs[at + 1], &qs[at], (s.nb - at) * sizeof(double));
		memmove(&ps[at + 1], &ps[at], (s.nb - at) * sizeof(double));
		s.b[at] = tau;
		qs[at] = q;
		ps[at] = pv;
		s.nb++;
	}
	r->n = s.nb - 2;
	r->v = r->n ? xcalloc(r->n, sizeof(*r->v)) : NULL;
	for (size_t i = 1; i + 1 < s.nb; i++) {
		struct cp_change *c = &r->v[i - 1];
		c->index = s.b[i];
		c->before = mean_of(x, s.b[i - 1], s.b[i]);
		c->after = mean_of(x, s.b[i], s.b[i + 1]);
		c->delta = c->after - c->before;
		c->delta_pct = c->before != 0 ? 100.0 * c->delta / fabs(c->before) : NAN;
		c->q = qs[i];
		c->p = ps[i];
	}
	free(s.b);
	free(qs);
	free(ps);
	free(left);
	free(right);
	free(perm);
	return 0;
}

void cp_result_free(struct cp_result *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}
