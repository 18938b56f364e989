/*
 * changepoint: where did a series of measurements over time move?
 *
 * E-divisive means (Matteson & James 2014, the method of MongoDB's and
 * Apache Otava's performance CI): hierarchical bisection on the energy
 * statistic Q (exponent 1), each new change accepted only if a permutation
 * test says the best split is unlikely under "no change":
 *   1. In every current segment, find the split tau (both sides at least
 *      min_segment points) maximising Q; the candidate is the largest.
 *   2. Permute every segment independently (a seeded PRNG), take the
 *      largest best-Q over all segments again; p = (1 + #perm >= observed)
 *      / (1 + permutations). Accept when p < alpha, else stop.
 *   3. Repeat with the accepted change as a new segment boundary.
 * Why E-divisive and not PELT: it needs no noise model or penalty to tune
 * per metric (PELT's penalty is a per-series choice that silently decides
 * the false-alarm rate), it is distribution-free (pps outliers, bimodal
 * boots), and the permutation p-value is a confidence that means the same
 * thing on every metric. Its cost, O(permutations x n^2) per change, is
 * irrelevant at nightly series lengths (hundreds of points).
 * Under "no change" (exchangeable points) the first test is exact, so the
 * chance of reporting any change on pure noise is at most alpha (plus the
 * 1/(permutations+1) granularity of p).
 *
 * Contract: changepoint_detect() is pure and deterministic for a given seed
 * (the seed is part of the result so a report can be reproduced). Values
 * must be finite. Changes come back sorted by index; index i means the new
 * level starts at x[i].
 */
#ifndef HB_CHANGEPOINT_H
#define HB_CHANGEPOINT_H

#include <stddef.h>
#include <stdint.h>

#define CP_DEFAULT_ALPHA 0.05
#define CP_DEFAULT_MIN_SEGMENT 3
#define CP_DEFAULT_PERMUTATIONS 199
#define CP_DEFAULT_SEED UINT64_C(0x68696c62656e6368) /* "hilbench" */

struct cp_params {
	size_t min_segment;	/* points on each side of a change, >= 2 */
	double alpha;		/* significance level, 0 < alpha < 1 */
	unsigned permutations;	/* >= 1 */
	uint64_t seed;
};

struct cp_change {
	size_t index;		/* first point of the new level */
	double before, after;	/* means of the adjacent segments */
	double delta;		/* after - before */
	double delta_pct;	/* in % of |before|; NaN when before is 0 */
	double q;		/* the energy statistic of the split */
	double p;		/* permutation p-value */
};

struct cp_result {
	struct cp_change *v;
	size_t n;
	uint64_t seed;
	unsigned permutations;
	double last_p;		/* p of the candidate that was rejected (NaN if none was tested) */
};

/* Fills params with the defaults above. */
void cp_params_default(struct cp_params *p);
/* 0, or -1 when the parameters are invalid (nothing printed: the caller
 * names the option). A series too short for two segments gives no change. */
int changepoint_detect(const double *x, size_t n, const struct cp_params *p,
		       struct cp_result *r);
void cp_result_free(struct cp_result *r);

/* Q of splitting x[0..n) at tau (x[0..tau) against x[tau..n)), exponent 1:
 * Q = m k / (m + k) * (2/(m k) sum|xi-yj| - mean|xi-xi'| - mean|yj-yj'|)
 * with the within-sample means over the C(m,2) and C(k,2) pairs. Exposed so
 * tests can check it against an independent computation. NaN if m or k < 2. */
double energy_q(const double *x, size_t n, size_t tau);

#endif
