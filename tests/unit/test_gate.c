/* gate: significance and a noise-sized minimum effect must both hold for a
 * regression; a pass needs the CI to rule out a threshold-sized loss; open
 * verdicts get more runs up to a cap; JUnit output is escaped.
 *
 * The sequential tests draw generated values (a seeded PRNG, not
 * measurements) with the spread measured on the emulated board, to check
 * the whole look / add-a-run procedure many times over. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/gate.h"
#include "util/util.h"

static const double base[] = { 3648.8, 3648.7, 3648.4 };	/* measured, virtual time */
static const struct gate_policy policy = { .present = 1, .alpha = 0.05,
					   .first_repetitions = 1, .max_repetitions = 6 };
#define LOOK_ALPHA (0.05 / 6)

static void decide(const double *r, size_t nr, const double *c, size_t nc, double thr,
		   struct gate_decision *d)
{
	gate_decide(r, nr, c, nc, HIGHER_IS_BETTER, LOOK_ALPHA, thr, d);
}

static void identical_results_pass(void **state)
{
	(void)state;
	struct gate_decision d;
	decide(base, 3, base, 3, 0.25, &d);
	assert_int_equal(d.outcome, GATE_PASS);
	/* deterministic runs: both variances 0, equal means */
	static const double same[] = { 4000, 4000, 4000 };
	decide(same, 3, same, 3, 0.25, &d);
	assert_int_equal(d.outcome, GATE_PASS);
	assert_int_equal(gate_exit_code(&d, 1, 0), HB_EXIT_OK);
}

static void one_candidate_run_can_decide(void **state)
{
	(void)state;
	struct gate_decision d;
	static const double same_code[] = { 3648.6 };
	decide(base, 3, same_code, 1, 0.25, &d);
	assert_int_equal(d.shift.method, SHIFT_PREDICTION);
	assert_int_equal(d.outcome, GATE_PASS);
	assert_true(d.lo_pct > -0.25);
	const double worse[] = { base[0] * 0.995 };
	decide(base, 3, worse, 1, 0.25, &d);
	assert_int_equal(d.outcome, GATE_REGRESSED);
	assert_int_equal(gate_exit_code(&d, 1, 0), HB_EXIT_FAIL);
}

static void half_a_percent_less_pps_is_a_regression(void **state)
{
	(void)state;
	double worse[3];
	for (int i = 0; i < 3; i++)
		worse[i] = base[i] * 0.995;
	struct gate_decision d;
	decide(base, 3, worse, 3, 0.25, &d);
	assert_int_equal(d.shift.method, SHIFT_WELCH);
	assert_int_equal(d.outcome, GATE_REGRESSED);
	assert_true(fabs(d.delta_pct + 0.5) < 0.001);
}

static void significant_but_below_threshold_passes(void **state)
{
	(void)state;
	double tiny[3];
	for (int i = 0; i < 3; i++)
		tiny[i] = base[i] * 0.9995;	/* -0.05 %: significant, below 0.25 % */
	struct gate_decision d;
	decide(base, 3, tiny, 3, 0.25, &d);
	assert_true(d.shift.p < LOOK_ALPHA);
	assert_int_equal(d.outcome, GATE_PASS);
}

static void lower_is_better_metrics_flip(void **state)
{
	(void)state;
	static const double ref[] = { 1.0, 1.0, 1.0 }, cand[] = { 1.2, 1.2, 1.2 };
	struct gate_decision d;
	gate_decide(ref, 3, cand, 3, LOWER_IS_BETTER, LOOK_ALPHA, 0.25, &d);
	assert_int_equal(d.outcome, GATE_REGRESSED);
	gate_decide(cand, 3, ref, 3, LOWER_IS_BETTER, LOOK_ALPHA, 0.25, &d);
	assert_int_equal(d.outcome, GATE_IMPROVED);
}

static void noise_leaves_the_verdict_open(void **state)
{
	(void)state;
	/* real-time spread (~10 %): one candidate run cannot rule out 15 % */
	static const double ref[] = { 3300, 3650, 2950 }, cand[] = { 3400 };
	struct gate_decision d;
	decide(ref, 3, cand, 1, 15, &d);
	assert_int_equal(d.outcome, GATE_OPEN);
	assert_int_equal(gate_exit_code(&d, 1, 0), HB_EXIT_INFRA);
	/* nothing to compare */
	decide(base, 1, base, 1, 0.25, &d);
	assert_int_equal(d.shift.method, SHIFT_NONE);
	assert_int_equal(d.outcome, GATE_OPEN);
	decide(base, 3, base, 0, 0.25, &d);
	assert_int_equal(d.outcome, GATE_OPEN);
	assert_int_equal(gate_exit_code(NULL, 0, 0), HB_EXIT_INFRA);
	decide(base, 3, base, 3, 0.25, &d);
	assert_int_equal(gate_exit_code(&d, 1, 1), HB_EXIT_INFRA);
}

static void a_reference_of_zero_needs_no_change_at_all(void **state)
{
	(void)state;
	/* hrtimer starts per packet of a strategy that never arms the hrtimer */
	static const double zero[] = { 0, 0, 0 }, zero1[] = { 0 }, some[] = { 0.2 };
	struct gate_decision d;
	gate_decide(zero, 3, zero1, 1, LOWER_IS_BETTER, LOOK_ALPHA, 10, &d);
	assert_int_equal(d.outcome, GATE_PASS);
	gate_decide(zero, 3, some, 1, LOWER_IS_BETTER, LOOK_ALPHA, 10, &d);
	assert_int_equal(d.outcome, GATE_OPEN);
}

static void runs_go_where_the_verdict_needs_them(void **state)
{
	(void)state;
	int reps;
	assert_int_equal(gate_next_run(&policy, 3, 0, 0, true, &reps), GATE_NEXT_REFERENCE);
	assert_int_equal(reps, 3);
	assert_int_equal(gate_next_run(&policy, 3, 3, 0, true, &reps), GATE_NEXT_CANDIDATE);
	assert_int_equal(reps, 1);
	assert_int_equal(gate_next_run(&policy, 3, 3, 1, false, &reps), GATE_NEXT_NONE);
	assert_int_equal(gate_next_run(&policy, 3, 3, 3, true, &reps), GATE_NEXT_CANDIDATE);
	assert_int_equal(gate_next_run(&policy, 3, 3, 4, true, &reps), GATE_NEXT_REFERENCE);
	assert_int_equal(gate_next_run(&policy, 3, 4, 6, true, &reps), GATE_NEXT_REFERENCE);
	assert_int_equal(gate_next_run(&policy, 3, 6, 6, true, &reps), GATE_NEXT_NONE);
	assert_true(fabs(gate_look_alpha(&policy) - LOOK_ALPHA) < 1e-15);
}

static void metrics_apply_to_their_protocol(void **state)
{
	(void)state;
	struct gate_metric any = { .protocol = GATE_ANY_PROTOCOL },
			   udp = { .protocol = GATE_UDP }, tcp = { .protocol = GATE_TCP };
	assert_true(gate_metric_applies(&any, WL_TCP));
	assert_true(gate_metric_applies(&udp, WL_UDP));
	assert_false(gate_metric_applies(&udp, WL_TCP));
	assert_true(gate_metric_applies(&tcp, WL_TCP));
	assert_false(gate_metric_applies(&tcp, WL_UDP));
}

/* xorshift64* and Box-Muller: generated noise, reproducible from the seed */
static double gauss(uint64_t *s)
{
	double u[2];
	for (int i = 0; i < 2; i++) {
		*s ^= *s >> 12;
		*s ^= *s << 25;
		*s ^= *s >> 27;
		u[i] = ((double)((*s * 2685821657736338717ULL) >> 11) + 0.5) / 9007199254740992.0;
	}
	return sqrt(-2 * log(u[0])) * cos(2 * M_PI * u[1]);
}

/* The whole procedure (reference runs, first look, a run at a time up to
 * the cap) on generated values: mean * (1 + N(0, sd_pct %)). */
static enum gate_outcome sequential_gate(double ref_mean, double cand_mean, double sd_pct,
					 double thr, uint64_t *seed)
{
	double r[16], c[16];
	size_t nr = 0, nc = 0;
	struct gate_decision d = { .outcome = GATE_OPEN };
	for (;;) {
		int reps;
		enum gate_next next = gate_next_run(&policy, 3, nr, nc, d.outcome == GATE_OPEN, &reps);
		if (next == GATE_NEXT_NONE)
			return d.outcome == GATE_OPEN ? GATE_INCONCLUSIVE : d.outcome;
		for (int i = 0; i < reps; i++) {
			if (next == GATE_NEXT_REFERENCE)
				r[nr++] = ref_mean * (1 + sd_pct / 100 * gauss(seed));
			else
				c[nc++] = cand_mean * (1 + sd_pct / 100 * gauss(seed));
		}
		if (nr >= 3 && nc >= 1)
			decide(r, nr, c, nc, thr, &d);
	}
}

static void identical_code_is_never_called_worse(void **state)
{
	(void)state;
	uint64_t seed = 20261130;
	int regressed = 0, passed = 0;
	/* virtual-time UDP pps: 0.01 % spread, 0.25 % threshold */
	for (int i = 0; i < 2000; i++) {
		enum gate_outcome o = sequential_gate(3648, 3648, 0.01, 0.25, &seed);
		regressed += o == GATE_REGRESSED;
		passed += o == GATE_PASS;
	}
	assert_int_equal(regressed, 0);
	assert_int_equal(passed, 2000);
	/* a noisier metric (1.5 %, virtual TCP) against its 10 % threshold */
	regressed = passed = 0;
	for (int i = 0; i < 2000; i++) {
		enum gate_outcome o = sequential_gate(180, 180, 1.5, 10, &seed);
		regressed += o == GATE_REGRESSED;
		passed += o == GATE_PASS;
	}
	assert_int_equal(regressed, 0);
	assert_true(passed >= 1990);
}

static void half_a_percent_is_caught_every_time(void **state)
{
	(void)state;
	uint64_t seed = 7;
	for (int i = 0; i < 2000; i++)
		assert_int_equal(sequential_gate(3648, 3648 * 0.995, 0.01, 0.25, &seed),
				 GATE_REGRESSED);
}

static void junit_is_escaped(void **state)
{
	(void)state;
	struct gate_decision d[2];
	decide(base, 3, base, 3, 0.25, &d[0]);
	snprintf(d[0].workload, sizeof(d[0].workload), "<w&\"x'>");
	snprintf(d[0].metric, sizeof(d[0].metric), "pps");
	snprintf(d[0].unit, sizeof(d[0].unit), "packets/s");
	d[1] = d[0];
	d[1].outcome = GATE_INCONCLUSIVE;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	gate_write_junit(out, "gate <1>", d, 2);
	fclose(out);
	assert_non_null(strstr(buf, "classname=\"&lt;w&amp;&quot;x&apos;&gt;\""));
	assert_non_null(strstr(buf, "testsuite name=\"gate &lt;1&gt;\" tests=\"2\" failures=\"0\" "
				    "skipped=\"1\""));
	assert_non_null(strstr(buf, "<skipped message=\"inconclusive: "));
	assert_null(strstr(buf, "<w&"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(identical_results_pass),
		cmocka_unit_test(one_candidate_run_can_decide),
		cmocka_unit_test(half_a_percent_less_pps_is_a_regression),
		cmocka_unit_test(significant_but_below_threshold_passes),
		cmocka_unit_test(lower_is_better_metrics_flip),
		cmocka_unit_test(noise_leaves_the_verdict_open),
		cmocka_unit_test(a_reference_of_zero_needs_no_change_at_all),
		cmocka_unit_test(runs_go_where_the_verdict_needs_them),
		cmocka_unit_test(metrics_apply_to_their_protocol),
		cmocka_unit_test(identical_code_is_never_called_worse),
		cmocka_unit_test(half_a_percent_is_caught_every_time),
		cmocka_unit_test(junit_is_escaped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
