/*
 * stats: statistics for repeated measurements and for "is the candidate
 * different from the reference?".
 *
 * Contract: pure functions (they may allocate scratch memory, which aborts on
 * OOM like every x*alloc); samples are arrays of finite values (no NaN); an
 * undefined result is NaN, never an error code. A sample of n = 0 has every
 * statistic NaN; n = 1 has mean = median = min = max = the value, but stddev,
 * cv and ci95 NaN: one value says nothing about spread.
 *
 * Verdict rule (compare_samples):
 *   - fewer than 3 values on either side: INCONCLUSIVE, whatever the values.
 *   - otherwise Welch's t-test decides: p < alpha gives BETTER or WORSE by the
 *     sign of the change and the metric's direction, else NO_CHANGE ("~": no
 *     significant difference, not "equal").
 *   - Mann-Whitney U is computed and reported beside it, but does not decide.
 * Why Welch and not Mann-Whitney (benchstat's choice): with 3 values per side
 * the smallest exact two-sided Mann-Whitney p is 2/C(6,3) = 0.1, so alpha =
 * 0.05 can never be met and every 3-repetition comparison would read "~";
 * it needs n >= 4 (and n >= 5 for alpha = 0.01). Welch can reach any alpha
 * from n = 3, so a gate can stop early when the effect is large against the
 * noise (virtual-time pps repeats to ~0.01 %). Deterministic runs give
 * samples of exactly equal values, where a rank test only sees ties; Welch's
 * zero-variance rule (below) says what such runs mean. Outliers (the seeds'
 * 556 among 740s) inflate Welch's variance: they cost power, not false
 * alarms. The verdict is statistical significance only; a minimum effect
 * size that matters (a threshold on delta %) is the caller's to apply.
 */
#ifndef HB_STATS_H
#define HB_STATS_H

#include <stdbool.h>
#include <stddef.h>

#define STATS_DEFAULT_ALPHA 0.05
#define STATS_MIN_VERDICT_N 3

struct summary {
	size_t n;
	double mean, median, stddev, min, max;
	double cv;		/* stddev / |mean| as a ratio; NaN when mean is 0 */
	double ci95;		/* half-width of the 95 % CI of the mean (Student t) */
};

void summarize(const double *x, size_t n, struct summary *s);

/*
 * Student's t with df > 0 (not necessarily integer) degrees of freedom.
 * Relative error ~1e-12 up to df = 1e4; beyond, the difference of two large
 * lgamma values costs digits (1e-10 at df = 1e6), far below any alpha.
 */
double t_cdf(double t, double df);
/* The p quantile, 0 < p < 1; NaN outside that or when df <= 0. */
double t_quantile(double p, double df);

/*
 * Welch's two-sample t-test of a against b: t = (mean a - mean b) / se,
 * Welch-Satterthwaite df, two-sided p. NaN when either side has n < 2.
 * Both variances 0 (deterministic runs): the samples are exactly known, so
 * p = 0 when the means differ (t = +-inf) and p = 1 when they are equal
 * (t = 0); df is NaN there, as the formula is 0/0.
 */
struct welch {
	double t, df, p;
};
void welch_test(const double *a, size_t na, const double *b, size_t nb, struct welch *w);

/*
 * Mann-Whitney U, two-sided. u is U of a: the count of pairs with a > b, ties
 * counting 1/2 (scipy's statistic for mannwhitneyu(a, b)). MW_EXACT when both
 * sides have <= 20 values and no value repeats across the pooled sample: p
 * from the exact distribution of U. MW_ASYMPTOTIC otherwise: normal
 * approximation with tie and continuity correction. MW_NONE (u, p NaN) when
 * a side is empty.
 */
enum mw_method { MW_NONE, MW_EXACT, MW_ASYMPTOTIC };
struct mann_whitney {
	double u, p;
	enum mw_method method;
};
void mann_whitney(const double *a, size_t na, const double *b, size_t nb,
		  struct mann_whitney *m);

/*
 * The shift of the candidate mean against the reference, with a two-sided
 * confidence interval at level conf (e.g. 0.95) and the p-value of "no
 * shift". Both sides n >= 2: Welch (SHIFT_WELCH). One side a single value:
 * that value against the other side's distribution, whose variance is taken
 * for both (a prediction interval, df = n - 1; SHIFT_PREDICTION), so a
 * setting that repeats closely can decide after one candidate run. Zero
 * variance: lo = hi = delta, p 0 or 1 as in welch_test(). SHIFT_NONE (all
 * NaN) when neither side has 2 values.
 * min_sd (0: none) is the least per-run spread assumed of either side, in
 * the metric's unit: a side's variance is raised to min_sd^2 where its runs
 * show less, for a metric whose runs fall in modes a few runs can miss.
 */
enum shift_method { SHIFT_NONE, SHIFT_WELCH, SHIFT_PREDICTION };
struct shift {
	double delta, lo, hi;	/* candidate mean - reference mean, and its CI */
	double df, p;
	enum shift_method method;
};
void mean_shift(const double *ref, size_t nref, const double *cand, size_t ncand, double conf,
		double min_sd, struct shift *s);
const char *shift_method_name(enum shift_method m);	/* "welch" | "prediction" | "none" */

/* Change of the candidate mean against the reference, in % of |reference|. NaN when ref is 0. */
double delta_pct(double ref_mean, double cand_mean);

/*
 * Runs in two modes: sorted, the widest gap between neighbours leaves at
 * least two values on each side, and is at least min_gap (in the values'
 * unit) and three times the larger of the two sides' standard deviations.
 * 1 with the two groups in *m, else 0 (fewer than four values, or no such
 * gap). A few runs drawn from such a metric can all fall in one mode, and a
 * verdict on them is a draw of which (docs/gate.md, "Runs in two modes"):
 * the report says so. For normal runs of spread sd the rule fires with
 * min_gap = 2.5 sd in 0.1-0.3 % of samples of 4-6.
 */
struct two_modes {
	size_t n_low, n_high;
	double low_min, low_max, high_min, high_max;
};
int two_modes_find(const double *x, size_t n, double min_gap, struct two_modes *m);
/* two_modes_find() with the least gap a quarter of threshold_pct (a
 * metric's threshold, in % of x's mean): a gap that size moves a verdict.
 * The reports' and history's rule. */
int two_modes_past(const double *x, size_t n, double threshold_pct, struct two_modes *m);
/* Do x's values, in the order given (their runs' time), go from one of
 * m's modes to the other at least three times? Modes drawn at random
 * alternate; a level that changed once, or changed and went back, does
 * not (analyze/history.h). 1 or 0. */
int two_modes_alternate(const double *x, size_t n, const struct two_modes *m);

enum verdict { VERDICT_INCONCLUSIVE, VERDICT_NO_CHANGE, VERDICT_BETTER, VERDICT_WORSE };
struct comparison {
	struct summary ref, cand;
	struct welch welch;		/* decides the verdict */
	struct mann_whitney mw;		/* candidate against reference, for the report */
	struct shift shift;		/* candidate - reference, CI at 1 - alpha */
	double delta_pct;
	enum verdict verdict;
};
void compare_samples(const double *ref, size_t nref, const double *cand, size_t ncand,
		     double alpha, bool higher_is_better, struct comparison *c);
/* "better", "worse", "~" or "inconclusive". */
const char *verdict_name(enum verdict v);

#endif
