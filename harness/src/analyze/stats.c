#include "analyze/stats.h"

#include <math.h>

double t_quantile_975(size_t df)
{
	/* Student t, 0.975 quantile, df 1..30 (standard table values) */
	static const double t[] = {
		NAN,    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
		2.228, 2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093,
		2.086, 2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045,
		2.042,
	};
	if (df == 0)
		return NAN;
	if (df < sizeof(t) / sizeof(t[0]))
		return t[df];
	/* Cornish-Fisher expansion around the normal quantile: < 0.001 off for df > 30 */
	double z = 1.959964, d = (double)df;
	return z + (z * z * z + z) / (4 * d) + (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * d * d);
}

void summarize(const double *x, size_t n, struct summary *s)
{
	s->n = n;
	s->mean = s->stddev = s->min = s->max = s->ci95 = NAN;
	if (n == 0)
		return;
	double sum = 0;
	s->min = s->max = x[0];
	for (size_t i = 0; i < n; i++) {
		sum += x[i];
		s->min = fmin(s->min, x[i]);
		s->max = fmax(s->max, x[i]);
	}
	s->mean = sum / (double)n;
	if (n < 2)
		return;
	double ss = 0;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - s->mean) * (x[i] - s->mean);
	s->stddev = sqrt(ss / (double)(n - 1));
	s->ci95 = t_quantile_975(n - 1) * s->stddev / sqrt((double)n);
}
