/* gate: significance and a noise-sized minimum effect must both hold for a
 * regression; identical results always pass; JUnit output is escaped. */
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

static void identical_results_pass(void **state)
{
	(void)state;
	struct gate_decision d;
	gate_decide(base, 3, base, 3, true, 0.05, 0.25, &d);
	assert_int_equal(d.outcome, GATE_PASS);
	/* deterministic runs: both variances 0, equal means */
	static const double same[] = { 4000, 4000, 4000 };
	gate_decide(same, 3, same, 3, true, 0.05, 0.25, &d);
	assert_int_equal(d.outcome, GATE_PASS);
	assert_int_equal(gate_exit_code(&d, 1, 0), HB_EXIT_OK);
}

static void half_a_percent_less_pps_is_a_regression(void **state)
{
	(void)state;
	double worse[3];
	for (int i = 0; i < 3; i++)
		worse[i] = base[i] * 0.995;
	struct gate_decision d;
	gate_decide(base, 3, worse, 3, true, 0.05, gate_threshold_pct(WL_UDP, true), &d);
	assert_int_equal(d.outcome, GATE_REGRESSED);
	assert_int_equal(gate_exit_code(&d, 1, 0), HB_EXIT_FAIL);
}

static void significant_but_below_threshold_passes(void **state)
{
	(void)state;
	double tiny[3];
	for (int i = 0; i < 3; i++)
		tiny[i] = base[i] * 0.9995;	/* -0.05 %: significant, below 0.25 % */
	struct gate_decision d;
	gate_decide(base, 3, tiny, 3, true, 0.05, 0.25, &d);
	assert_int_equal(d.cmp.verdict, VERDICT_WORSE);
	assert_int_equal(d.outcome, GATE_PASS);
}

static void lower_is_better_metrics_flip(void **state)
{
	(void)state;
	static const double ref[] = { 1.0, 1.0, 1.0 }, cand[] = { 1.2, 1.2, 1.2 };
	struct gate_decision d;
	gate_decide(ref, 3, cand, 3, false, 0.05, 0.25, &d);
	assert_int_equal(d.outcome, GATE_REGRESSED);
	gate_decide(cand, 3, ref, 3, false, 0.05, 0.25, &d);
	assert_int_equal(d.outcome, GATE_IMPROVED);
}

static void too_few_runs_or_missing_runs_are_inconclusive(void **state)
{
	(void)state;
	struct gate_decision d;
	gate_decide(base, 2, base, 2, true, 0.05, 0.25, &d);
	assert_int_equal(d.outcome, GATE_INCONCLUSIVE);
	assert_int_equal(gate_exit_code(&d, 1, 0), HB_EXIT_INFRA);
	gate_decide(base, 3, base, 3, true, 0.05, 0.25, &d);
	assert_int_equal(gate_exit_code(&d, 1, 1), HB_EXIT_INFRA);
	assert_int_equal(gate_exit_code(NULL, 0, 0), HB_EXIT_INFRA);
}

static void junit_is_escaped(void **state)
{
	(void)state;
	struct gate_decision d;
	gate_decide(base, 3, base, 3, true, 0.05, 0.25, &d);
	snprintf(d.workload, sizeof(d.workload), "<w&\"x'>");
	snprintf(d.metric, sizeof(d.metric), "pps");
	snprintf(d.unit, sizeof(d.unit), "packets/s");
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	gate_write_junit(out, "gate <1>", &d, 1);
	fclose(out);
	assert_non_null(strstr(buf, "classname=\"&lt;w&amp;&quot;x&apos;&gt;\""));
	assert_non_null(strstr(buf, "testsuite name=\"gate &lt;1&gt;\" tests=\"1\" failures=\"0\""));
	assert_null(strstr(buf, "<w&"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(identical_results_pass),
		cmocka_unit_test(half_a_percent_less_pps_is_a_regression),
		cmocka_unit_test(significant_but_below_threshold_passes),
		cmocka_unit_test(lower_is_better_metrics_flip),
		cmocka_unit_test(too_few_runs_or_missing_runs_are_inconclusive),
		cmocka_unit_test(junit_is_escaped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
