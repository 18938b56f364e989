#include "analyze/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* Largest side for the exact Mann-Whitney U: its C(40, 20) ~ 1.4e11 counts stay exact in a double. */
#define MW_EXACT_MAX_N 20

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;
	return (a > b) - (a < b);
}

static void mean_var(const double *x, size_t n, double *mean, double *var)
{
	double sum = 0, ss = 0;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	*mean = sum / (double)n;
	/* Two passes: the one-pass formula cancels badly on 1e6 pps with 0.01 % noise. */
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - *mean) * (x[i] - *mean);
	*var = n > 1 ? ss / (double)(n - 1) : NAN;
}

/* Lentz's method divides by these; a zero would be a 0/0 the fraction does not really have. */
static double nonzero(double v)
{
	return fabs(v) < 1e-300 ? 1e-300 : v;
}

/*
 * Continued fraction of I_x(a, b) (modified Lentz); converges quickly for
 * x < (a + 1) / (a + b + 2), in O(sqrt(max(a, b))) terms: the bound only stops a runaway.
 */
static double beta_fraction(double a, double b, double x)
{
	double c = 1, d = 1 / nonzero(1 - (a + b) * x / (a + 1)), f = d;
	for (int m = 1; m <= 10000; m++) {
		double even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1 / nonzero(1 + even * d);
		c = nonzero(1 + even / c);
		f *= d * c;
		double odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 / nonzero(1 + odd * d);
		c = nonzero(1 + odd / c);
		f *= d * c;
		if (fabs(d * c - 1) < 1e-15)
			break;
	}
	return f;
}

/*
 * Regularized incomplete beta function I_x(a, b). y = 1 - x comes from the
 * caller, which can compute it without the cancellation of 1 - x near 1.
 */
static double incomplete_beta(double a, double b, double x, double y)
{
	if (x <= 0)
		return 0;
	if (y <= 0)
		return 1;
	double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(y));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_fraction(a, b, x) / a;
	return 1 - front * beta_fraction(b, a, y) / b;
}

/* P(|T| >= |t|), computed directly so that small p-values keep their digits. */
static double t_two_sided_p(double t, double df)
{
	return incomplete_beta(df / 2, 0.5, df / (df + t * t), t * t / (df + t * t));
}

double t_cdf(double t, double df)
{
	if (!(df > 0) || isnan(t))
		return NAN;
	double tail = t_two_sided_p(t, df) / 2;
	return t > 0 ? 1 - tail : tail;
}

double t_quantile(double p, double df)
{
	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	if (p < 0.5)
		return -t_quantile(1 - p, df);
	double lo = 0, hi = 1;
	while (t_cdf(hi, df) < p) {
		lo = hi;
		hi *= 2;
	}
	/* The cdf is monotonic, so bisection cannot fail; ~45 halvings reach 1e-14. */
	while (hi - lo > 1e-14 * hi) {
		double mid = (lo + hi) / 2;
		if (t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

void summarize(const double *x, size_t n, struct summary *s)
{
	*s = (struct summary){ .n = n, .mean = NAN, .median = NAN, .stddev = NAN, .min = NAN,
			       .max = NAN, .cv = NAN, .ci95 = NAN };
	if (n == 0)
		return;
	double *sorted = xmalloc(n * sizeof(*sorted));
	memcpy(sorted, x, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	s->min = sorted[0];
	s->max = sorted[n - 1];
	s->median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	free(sorted);
	double var;
	mean_var(x, n, &s->mean, &var);
	if (n < 2)
		return;
	s->stddev = sqrt(var);
	if (s->mean != 0)
		s->cv = s->stddev / fabs(s->mean);
	s->ci95 = t_quantile(0.975, (double)(n - 1)) * s->stddev / sqrt((double)n);
}

void welch_test(const double *a, size_t na, const double *b, size_t nb, struct welch *w)
{
	*w = (struct welch){ NAN, NAN, NAN };
	if (na < 2 || nb < 2)
		return;
	double mean_a, var_a, mean_b, var_b;
	mean_var(a, na, &mean_a, &var_a);
	mean_var(b, nb, &mean_b, &var_b);
	double se2_a = var_a / (double)na, se2_b = var_b / (double)nb, se2 = se2_a + se2_b;
	if (se2 == 0) {
		w->t = mean_a == mean_b ? 0 : copysign(INFINITY, mean_a - mean_b);
		w->p = mean_a == mean_b ? 1 : 0;
		return;
	}
	w->t = (mean_a - mean_b) / sqrt(se2);
	w->df = se2 * se2 / (se2_a * se2_a / (double)(na - 1) + se2_b * se2_b / (double)(nb - 1));
	w->p = t_two_sided_p(w->t, w->df);
}

/*
 * P(U >= u) when every arrangement of m + n distinct values is equally likely.
 * count(i, j, v), the arrangements of i a's and j b's with U = v, follows from
 * where the largest value is: an a beats all j b's, a b beats nobody:
 * count(i, j, v) = count(i - 1, j, v - j) + count(i, j - 1, v).
 */
static double exact_u_sf(double u, size_t m, size_t n)
{
	size_t width = m * n + 1;
	double *count = xcalloc((n + 1) * width, sizeof(*count));	/* [j][v] for the current i */
	for (size_t j = 0; j <= n; j++)
		count[j * width] = 1;
	for (size_t i = 1; i <= m; i++)
		for (size_t j = 0; j <= n; j++)
			/* Downwards in v, so count(i - 1, j, v - j) is read before it is overwritten. */
			for (size_t v = width; v-- > 0;)
				count[j * width + v] = (v >= j ? count[j * width + v - j] : 0) +
						       (j ? count[(j - 1) * width + v] : 0);
	double total = 0, tail = 0;
	for (size_t v = 0; v < width; v++) {
		total += count[n * width + v];
		if ((double)v >= u)
			tail += count[n * width + v];
	}
	free(count);
	return tail / total;
}

struct pooled {
	double v;
	bool in_a;
};

static int cmp_pooled(const void *pa, const void *pb)
{
	return cmp_double(&((const struct pooled *)pa)->v, &((const struct pooled *)pb)->v);
}

void mann_whitney(const double *a, size_t na, const double *b, size_t nb, struct mann_whitney *m)
{
	*m = (struct mann_whitney){ NAN, NAN, MW_NONE };
	if (na == 0 || nb == 0)
		return;
	size_t n = na + nb;
	struct pooled *all = xmalloc(n * sizeof(*all));
	for (size_t i = 0; i < n; i++)
		all[i] = (struct pooled){ i < na ? a[i] : b[i - na], i < na };
	qsort(all, n, sizeof(*all), cmp_pooled);
	double rank_sum_a = 0, tie_term = 0;
	for (size_t i = 0, end; i < n; i = end) {
		for (end = i + 1; end < n && all[end].v == all[i].v; end++)
			;
		double tied = (double)(end - i), mid_rank = (double)(i + 1 + end) / 2;
		tie_term += tied * tied * tied - tied;
		for (size_t k = i; k < end; k++)
			rank_sum_a += all[k].in_a ? mid_rank : 0;
	}
	free(all);
	double pairs = (double)na * (double)nb;
	m->u = rank_sum_a - (double)na * (double)(na + 1) / 2;
	/* Two-sided: twice the upper tail of the larger of U and its mirror. */
	double u_big = fmax(m->u, pairs - m->u);
	if (na <= MW_EXACT_MAX_N && nb <= MW_EXACT_MAX_N && tie_term == 0) {
		m->method = MW_EXACT;
		m->p = fmin(1, 2 * exact_u_sf(u_big, na, nb));
		return;
	}
	m->method = MW_ASYMPTOTIC;
	double big_n = (double)n;
	double sd = sqrt(pairs / 12 * ((big_n + 1) - tie_term / (big_n * (big_n - 1))));
	/* All values tied: U is exactly its mean, nothing separates the samples. */
	m->p = sd > 0 ? fmin(1, erfc((u_big - pairs / 2 - 0.5) / sd / sqrt(2))) : 1;
}

double delta_pct(double ref_mean, double cand_mean)
{
	return ref_mean == 0 ? NAN : 100 * (cand_mean - ref_mean) / fabs(ref_mean);
}

int two_modes_find(const double *x, size_t n, double min_gap, struct two_modes *m)
{
	if (n < 4)
		return 0;
	double *v = xmalloc(n * sizeof(*v));
	memcpy(v, x, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_double);
	size_t cut = 1;
	for (size_t i = 2; i < n; i++)
		if (v[i] - v[i - 1] > v[cut] - v[cut - 1])
			cut = i;
	double gap = v[cut] - v[cut - 1];
	struct summary lo, hi;
	summarize(v, cut, &lo);
	summarize(v + cut, n - cut, &hi);
	int found = cut >= 2 && n - cut >= 2 && gap > 0 && gap >= min_gap &&
		    gap >= 3 * fmax(lo.stddev, hi.stddev);
	if (found)
		*m = (struct two_modes){ cut, n - cut, lo.min, lo.max, hi.min, hi.max };
	free(v);
	return found;
}

int two_modes_past(const double *x, size_t n, double threshold_pct, struct two_modes *m)
{
	struct summary all;
	summarize(x, n, &all);
	return two_modes_find(x, n, fabs(all.mean) * threshold_pct / 400, m);
}

int two_modes_alternate(const double *x, size_t n, const struct two_modes *m)
{
	size_t switches = 0;
	for (size_t k = 1; k < n; k++)
		switches += (x[k] >= m->high_min) != (x[k - 1] >= m->high_min);
	return switches >= 3;
}

void mean_shift(const double *ref, size_t nref, const double *cand, size_t ncand, double conf,
		double min_sd, struct shift *s)
{
	*s = (struct shift){ NAN, NAN, NAN, NAN, NAN, SHIFT_NONE };
	if (nref == 0 || ncand == 0 || (nref < 2 && ncand < 2))
		return;
	double mr, vr, mc, vc, se2;
	mean_var(ref, nref, &mr, &vr);
	mean_var(cand, ncand, &mc, &vc);
	s->delta = mc - mr;
	if (nref > 1)
		vr = fmax(vr, min_sd * min_sd);
	if (ncand > 1)
		vc = fmax(vc, min_sd * min_sd);
	if (nref >= 2 && ncand >= 2) {
		double a = vc / (double)ncand, b = vr / (double)nref;
		se2 = a + b;
		s->df = se2 == 0 ? NAN
				 : se2 * se2 / (a * a / (double)(ncand - 1) + b * b / (double)(nref - 1));
		s->method = SHIFT_WELCH;
	} else {
		double v = nref >= 2 ? vr : vc;
		se2 = v * (1 / (double)nref + 1 / (double)ncand);
		s->df = (double)(nref >= 2 ? nref : ncand) - 1;
		s->method = SHIFT_PREDICTION;
	}
	if (se2 == 0) {
		s->lo = s->hi = s->delta;
		s->p = s->delta == 0 ? 1 : 0;
		return;
	}
	double se = sqrt(se2), q = t_quantile(1 - (1 - conf) / 2, s->df);
	s->lo = s->delta - q * se;
	s->hi = s->delta + q * se;
	s->p = t_two_sided_p(s->delta / se, s->df);
}

const char *shift_method_name(enum shift_method m)
{
	static const char *const names[] = {
		[SHIFT_NONE] = "none", [SHIFT_WELCH] = "welch", [SHIFT_PREDICTION] = "prediction",
	};
	return names[m];
}

void compare_samples(const double *ref, size_t nref, const double *cand, size_t ncand,
		     double alpha, bool higher_is_better, struct comparison *c)
{
	summarize(ref, nref, &c->ref);
	summarize(cand, ncand, &c->cand);
	welch_test(cand, ncand, ref, nref, &c->welch);
	mann_whitney(cand, ncand, ref, nref, &c->mw);
	mean_shift(ref, nref, cand, ncand, 1 - alpha, 0, &c->shift);
	c->delta_pct = delta_pct(c->ref.mean, c->cand.mean);
	if (nref < STATS_MIN_VERDICT_N || ncand < STATS_MIN_VERDICT_N)
		c->verdict = VERDICT_INCONCLUSIVE;
	else if (!(c->welch.p < alpha))
		c->verdict = VERDICT_NO_CHANGE;
	else
		c->verdict = (c->cand.mean > c->ref.mean) == higher_is_better ? VERDICT_BETTER
									       : VERDICT_WORSE;
}

const char *verdict_name(enum verdict v)
{
	static const char *const names[] = {
		[VERDICT_INCONCLUSIVE] = "inconclusive",
		[VERDICT_NO_CHANGE] = "~",
		[VERDICT_BETTER] = "better",
		[VERDICT_WORSE] = "worse",
	};
	return names[v];
}
