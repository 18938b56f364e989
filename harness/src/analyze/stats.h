/*
 * stats: descriptive statistics for repeated measurements.
 *
 * Contract: pure functions; n may be 0 (results are NaN) or 1 (stddev and
 * CI are NaN: one sample says nothing about spread).
 */
#ifndef HB_STATS_H
#define HB_STATS_H

#include <stddef.h>

struct summary {
	size_t n;
	double mean, stddev, min, max;
	double ci95;		/* half-width of the 95 % CI of the mean (Student t) */
};

void summarize(const double *x, size_t n, struct summary *s);
/* Two-sided 97.5 % quantile of Student's t with df degrees of freedom. */
double t_quantile_975(size_t df);

#endif
