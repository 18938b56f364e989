/* gate_loop: the gate's sequential procedure driven over the doubles of
 * run_double.h (a test double of the board's deploy backend; builds and
 * runs that only pretend) with plans/gate.yaml and a real store: the
 * candidate gets runs until every metric is decided; a slower candidate is
 * a regression in few runs, an equal one passes, a noisy one is
 * inconclusive at the cap; a candidate whose DUT misbehaves is a
 * regression; stored reference runs are reused, not measured again; stored
 * runs that do not exist are an input error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/catalog.h"
#include "run/gate_loop.h"
#include "run_double.h"
#include "util/util.h"

static char dir[64];
static struct store *st;
static struct plan plan;
static const struct exec_opts opts = { .stages = &double_stages };

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hb-test-gate-loop-XXXXXX");
	st = double_setup(dir);
	if (!st || catalog_plan("gate", &plan) < 0)
		return -1;
	plan_gate_for_timing(&plan);	/* as cmd-gate.c does */
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	deploy_substitute(NULL);
	plan_free(&plan);
	store_close(st);
	return rm_rf(dir);
}

/* A tight spread (0.1 %) around each strategy's rate. */
static double steady(const char *strategy, size_t run, double candidate)
{
	double base = strcmp(strategy, "baseline") ? candidate : 100;
	return base * (1 + 0.001 * ((double)(run % 3) - 1));
}

static double same(const char *strategy, size_t run)
{
	return steady(strategy, run, 100);
}

static double slower(const char *strategy, size_t run)
{
	return steady(strategy, run, 90);
}

/* Both sides spread 20 % around the same rate: no verdict within the cap.
 * A boot runs each of the plan's workloads once, so run / workloads is the
 * boot: every workload's values alternate from boot to boot. */
static double noisy(const char *strategy, size_t run)
{
	(void)strategy;
	return 100 * (1 + 0.2 * (run / plan.workloads.n % 2 ? 1 : -1));
}

static int gate(const char *candidate, double (*mbps)(const char *, size_t),
		struct gate_loop *l)
{
	dbl.mbps = mbps;
	*l = (struct gate_loop){ .plan = &plan, .threshold_pct = NAN };
	l->ref = (struct gate_side){ .strategy = "baseline", .opts = &opts };
	l->cand = (struct gate_side){ .strategy = candidate, .opts = &opts };
	assert_int_equal(gate_loop_load(l), 0);
	int rc = gate_loop_judge(l, st);
	return rc ? rc : gate_loop_verdict(l);
}

/* A repetition's boots: plans/gate.yaml's UDP workload and its TCP one
 * each boot of their own (run/executor.h). */
#define KINDS 2

static size_t boots_of(const char *strategy)
{
	size_t n = 0;
	for (size_t i = 0; i < dbl.started && i < DOUBLE_MAX; i++)
		n += !strcmp(dbl.booted[i], strategy);
	return n;
}

static void a_slower_candidate_regresses_in_few_runs(void **state)
{
	(void)state;
	struct gate_loop l;
	assert_int_equal(gate("revert", slower, &l), HB_EXIT_FAIL);
	assert_true(l.n >= 2);	/* pps and mbps of udp64-dut-tx */
	for (size_t i = 0; i < l.n; i++)
		assert_int_equal(l.v[i].outcome, GATE_REGRESSED);
	assert_int_equal(boots_of("baseline"), 3 * KINDS);	/* the plan's repetitions */
	assert_true(boots_of("revert") <= 3 * KINDS);
	gate_loop_free(&l);
}

static void an_equal_candidate_passes(void **state)
{
	(void)state;
	struct gate_loop l;
	assert_int_equal(gate("revert", same, &l), HB_EXIT_OK);
	for (size_t i = 0; i < l.n; i++)
		assert_int_equal(l.v[i].outcome, GATE_PASS);
	assert_true(boots_of("revert") <= (size_t)plan.gate.max_repetitions * KINDS);
	gate_loop_free(&l);
}

static void a_noisy_candidate_is_inconclusive_at_the_cap(void **state)
{
	(void)state;
	struct gate_loop l;
	assert_int_equal(gate("revert", noisy, &l), HB_EXIT_INFRA);
	for (size_t i = 0; i < l.n; i++)
		assert_int_equal(l.v[i].outcome, GATE_INCONCLUSIVE);
	assert_int_equal(boots_of("revert"), plan.gate.max_repetitions * KINDS);
	assert_int_equal(boots_of("baseline"), plan.gate.max_repetitions * KINDS);
	gate_loop_free(&l);
}

/* Instructions per received packet spread 20 % on both sides (noisy()'s
 * values): that metric could not be decided within the cap. */
static double noisy_rx(const char *strategy, size_t run)
{
	return 40 * noisy(strategy, run);
}

/* A gate stops at the first regression: the send rates' regression is the
 * verdict, so the receive path's open metric gets no more runs. Compare
 * (stop_at_regression 0) runs it to the cap. */
static void a_regression_ends_the_gate(void **state)
{
	(void)state;
	struct gate_loop l;
	dbl.rx_insn = noisy_rx;
	dbl.mbps = slower;
	l = (struct gate_loop){ .plan = &plan, .threshold_pct = NAN, .stop_at_regression = 1 };
	l.ref = (struct gate_side){ .strategy = "baseline", .opts = &opts };
	l.cand = (struct gate_side){ .strategy = "revert", .opts = &opts };
	assert_int_equal(gate_loop_load(&l), 0);
	assert_int_equal(gate_loop_judge(&l, st), 0);
	assert_int_equal(gate_loop_verdict(&l), HB_EXIT_FAIL);
	int rx = 0;
	for (size_t i = 0; i < l.n; i++) {
		if (!strcmp(l.v[i].metric, "insn_rx_driver_per_pkt")) {
			rx = 1;
			assert_int_equal(l.v[i].outcome, GATE_INCONCLUSIVE);
		} else {
			assert_int_equal(l.v[i].outcome, GATE_REGRESSED);
		}
	}
	assert_true(rx);
	assert_int_equal(boots_of("revert"), plan.gate.first_repetitions * KINDS);
	gate_loop_free(&l);
	dbl.rx_insn = NULL;
}

static void a_candidate_whose_dut_fails_is_a_regression(void **state)
{
	(void)state;
	/* the reference's 3 repetitions pass (each workload of the plan once), then
	 * the candidate's first run fails */
	dbl.nruns = 3 * plan.workloads.n + 1;
	dbl.runs[dbl.nruns - 1] = RUN_FAIL;
	struct gate_loop l;
	assert_int_equal(gate("revert", same, &l), HB_EXIT_FAIL);
	assert_int_equal(boots_of("revert"), KINDS);	/* its first repetition */
	gate_loop_free(&l);
}

static void stored_reference_runs_are_reused(void **state)
{
	(void)state;
	struct gate_loop l;
	assert_int_equal(gate("revert", slower, &l), HB_EXIT_FAIL);
	gate_loop_free(&l);
	double_reset(dir);
	assert_int_equal(gate("is-queued", slower, &l), HB_EXIT_FAIL);
	assert_int_equal(boots_of("baseline"), 0);
	assert_true(boots_of("is-queued") >= 1);
	gate_loop_free(&l);
}

static void stored_runs_that_do_not_exist_are_an_input_error(void **state)
{
	(void)state;
	struct gate_loop l = { .plan = &plan, .threshold_pct = NAN };
	l.ref = (struct gate_side){ .strategy = "baseline", .opts = &opts };
	l.cand = (struct gate_side){ .stored = 1, .spec = "session=none",
				     .sel = { .session = "none" } };
	assert_int_equal(gate_loop_load(&l), 0);
	assert_int_equal(gate_loop_judge(&l, st), HB_FAIL_INPUT);
	assert_int_equal(dbl.started, 0);
	gate_loop_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_slower_candidate_regresses_in_few_runs, setup,
						teardown),
		cmocka_unit_test_setup_teardown(an_equal_candidate_passes, setup, teardown),
		cmocka_unit_test_setup_teardown(a_noisy_candidate_is_inconclusive_at_the_cap, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_regression_ends_the_gate, setup, teardown),
		cmocka_unit_test_setup_teardown(a_candidate_whose_dut_fails_is_a_regression, setup,
						teardown),
		cmocka_unit_test_setup_teardown(stored_reference_runs_are_reused, setup, teardown),
		cmocka_unit_test_setup_teardown(stored_runs_that_do_not_exist_are_an_input_error,
						setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
