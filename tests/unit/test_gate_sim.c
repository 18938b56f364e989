/* gate_sim: the gate's error rates by simulation, many gates of generated
 * runs at the plan's defaults: identical code rarely raises a false alarm
 * (below alpha by a margin), and futility ends only decisions the cap
 * would not have made. Thousands of gates: 12 s under ASan, some 400 s
 * under valgrind, so `make valgrind` leaves this binary to ASan (the
 * Makefile's UNIT_NO_VG); test_gate runs the same steps under both.
 * Needs HILBENCH_HOME (make check-unit sets it). */
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
#include "config/catalog.h"
#include "gate_sim.h"
#include "util/util.h"

/*
 * Per-metric noise between boots (the gate boots once per run), from the
 * measurements; a case names a workload, whose protocol picks the plan's
 * metrics, and a timing mode, which picks their thresholds.
 */
static const struct noise_case {
	const char *workload;
	enum timing_mode timing;
	double sd_pct;
	double min_pass;	/* share of gates of identical code that must pass */
} noise_cases[] = {
	/* the faithful board (docs/measurements.md, "Boot-to-boot spread on
	 * the faithful board"): six boots 4465.5-4477.8 pps, sd 0.10 %, and a
	 * second cluster 0.45 % below seen under load: 0.2 % covers both.
	 * Identical code must pass. */
	{ "udp64-dut-tx", TIMING_VIRTUAL, 0.2, 1.0 },
	/* the stock model: five boots 3646.4-3647.3 pps, sd 0.010 % */
	{ "udp64-dut-tx", TIMING_VIRTUAL, 0.010, 1.0 },
	/* TCP DUT-TX's rate as delivered (mbps_acked): baseline's runs of six
	 * benches spread 1.4 %, the strategies in two modes 2.9 % and 3.9 %
	 * (docs/measurements.md, "What TCP DUT-TX's rate measured") */
	{ "tcp-dut-tx", TIMING_VIRTUAL, 1.4, 0.99 },
	{ "tcp-dut-tx", TIMING_VIRTUAL, 3.9, 0 },
	/* the same: 81.5 81.6 81.6 Mbit/s, sd 0.09 (0.1 %), and all six
	 * strategies' table: baseline 80.9 +- 0.66 (0.8 %) */
	{ "tcp-dut-rx", TIMING_VIRTUAL, 0.8, 0.99 },
	/* docs/gate.md: real time varies 8-20 % between boots; docs/metrics.md:
	 * up to 30 % */
	{ "udp64-dut-tx", TIMING_REALTIME, 20, 0 },
	{ "tcp-dut-tx", TIMING_REALTIME, 30, 0 },
	/* not measured: noise 100x the 1 % threshold, where the threshold
	 * filters nothing and every look is a test, the worst case for the bound */
	{ "udp64-dut-tx", TIMING_VIRTUAL, 100, 0 },
};

/*
 * Identical code on both sides, gated many times at the plan's defaults
 * (plans/gate.yaml, read as the product reads it): a false alarm is a
 * metric called regressed or improved. Bonferroni bounds its rate by alpha;
 * the simulation must show it below alpha by 3 binomial standard
 * deviations (sqrt(N alpha (1 - alpha)) = 9.7 gates of 2,000), so that a
 * procedure whose true rate were alpha would pass here with chance 0.13 %.
 * Before the fix (0.05 / 6 a look, a bound of 7.5 % over 9 looks) the true
 * rate was below alpha too, as the looks share most of their runs: at most
 * 3.2 % in 20,000 gates at noise 100x the threshold. Here that row read
 * 3.90 % with the old alpha and failed the margin, the measured-noise rows
 * passed; every_look_is_paid_for is the test the old bound fails for sure.
 */
#define SIM_GATES 2000
static void identical_code_false_alarms_stay_below_alpha(void **state)
{
	(void)state;
	struct plan p = { 0 };
	assert_int_equal(catalog_plan("gate", &p), 0);
	double margin = 3 * sqrt(SIM_GATES * p.gate.alpha * (1 - p.gate.alpha));
	for (size_t k = 0; k < HB_ARRAY_SIZE(noise_cases); k++) {
		const struct noise_case *nc = &noise_cases[k];
		struct workload w = { 0 };
		assert_int_equal(catalog_workload(nc->workload, &w), 0);
		struct source src = { .value = noisy, .ref_mean = 1000, .cand_mean = 1000,
				      .sd_pct = nc->sd_pct, .seed = 20261201 + k };
		int alarms = 0, regressions = 0, passes = 0, runs = 0, looks;
		for (int i = 0; i < SIM_GATES; i++) {
			double r[64], c[64];
			struct gate_decision d[8];
			size_t n = simulated_gate(&p, &w, nc->timing, &src, r, 0, c, 0, d, &looks);
			int alarm = 0, regressed = 0, passed = 1;
			for (size_t m = 0; m < n; m++) {
				alarm |= d[m].outcome == GATE_REGRESSED || d[m].outcome == GATE_IMPROVED;
				regressed |= d[m].outcome == GATE_REGRESSED;
				passed &= d[m].outcome == GATE_PASS;
			}
			alarms += alarm;
			regressions += regressed;
			passes += passed;
			runs += (int)(d[0].ref.n + d[0].cand.n);
		}
		printf("gate simulation: %s %s, noise %.3g %%: %d gates, false alarms %.2f %% "
		       "(regressions %.2f %%), pass %.1f %%, %.1f runs a gate\n", nc->workload,
		       timing_mode_name(nc->timing), nc->sd_pct, SIM_GATES, 100.0 * alarms / SIM_GATES,
		       100.0 * regressions / SIM_GATES, 100.0 * passes / SIM_GATES,
		       (double)runs / SIM_GATES);
		assert_true(alarms + margin <= SIM_GATES * p.gate.alpha);
		assert_true(passes >= nc->min_pass * SIM_GATES);
		workload_free(&w);
	}
	plan_free(&p);
}

/*
 * Futility (plans/default.yaml's `futility`) on compare's plan at TCP
 * DUT-TX's noise between boots: the same generated runs gated with and
 * without it. It ends a decision early or not at all, so every verdict
 * with it is the one without it or inconclusive; it never makes a pass or
 * a change. Where the change sits near the threshold against that noise
 * (the loosely paced host of docs/measurements.md: sd 10 %, changes of
 * +6..+17 %) it saves most of the cap's runs; where a run or two decide
 * (sd 3 %, a change of 18 %) it costs nothing. What it costs: decisions
 * the cap would have made and it ended ("lost"), at most 2.5 % a case.
 */
static void futility_ends_what_the_cap_cannot_decide(void **state)
{
	(void)state;
	struct plan on = { 0 }, off = { 0 };
	struct workload w = { 0 };
	assert_int_equal(catalog_plan("default", &on), 0);
	assert_int_equal(catalog_plan("default", &off), 0);
	assert_int_equal(catalog_workload("tcp-dut-tx", &w), 0);
	assert_true(on.gate.futility > 0);
	on.repetitions = off.repetitions = on.gate.reference_repetitions;	/* as planner.c */
	off.gate.futility = 0;
	static const struct {
		double sd_pct, change_pct;
	} cases[] = { { 10, 0 }, { 10, 6 }, { 10, 12 }, { 10, 17 }, { 10, 25 },
		      { 3.3, 0 }, { 3.3, 5 }, { 3.3, 8 }, { 3.3, 12 }, { 3.3, 18 } };
	for (size_t k = 0; k < HB_ARRAY_SIZE(cases); k++) {
		int runs_on = 0, runs_off = 0, lost = 0, decided_off = 0, futile = 0;
		for (int i = 0; i < 2000; i++) {
			struct gate_decision a[8], b[8];
			double r[64], c[64];
			int looks;
			struct source src = { .value = noisy, .ref_mean = 50,
					      .cand_mean = 50 * (1 + cases[k].change_pct / 100),
					      .sd_pct = cases[k].sd_pct, .seed = 1000 * k + (uint64_t)i + 1 };
			size_t n = simulated_gate(&on, &w, on.timing, &src, r, 0, c, 0, a, &looks);
			src.seed = 1000 * k + (uint64_t)i + 1;
			assert_int_equal(simulated_gate(&off, &w, off.timing, &src, r, 0, c, 0, b, &looks), n);
			for (size_t m = 0; m < n; m++) {
				assert_true(a[m].outcome == b[m].outcome || a[m].outcome == GATE_INCONCLUSIVE);
				assert_true(a[m].outcome == b[m].outcome || a[m].futile);
				decided_off += b[m].outcome != GATE_INCONCLUSIVE;
				lost += a[m].outcome != b[m].outcome;
				futile += a[m].futile;
			}
			runs_on += (int)a[0].cand.n;
			runs_off += (int)b[0].cand.n;
		}
		printf("futility %g: sd %.1f %%, change %+.0f %%: candidate runs %.2f against %.2f, "
		       "stopped early %.1f %%, decided %.1f %% without it, lost %.1f %%\n",
		       on.gate.futility, cases[k].sd_pct, cases[k].change_pct, runs_on / 2000.0,
		       runs_off / 2000.0, futile / 20.0, decided_off / 20.0, lost / 20.0);
		/* 0.1 (plans/default.yaml) loses at most 1.9 % of the decisions
		 * here; the rows at sd 10 % and changes up to 12 % take fewer
		 * than half the cap's candidate runs */
		assert_true(lost <= 50);
		if (cases[k].sd_pct == 10 && cases[k].change_pct <= 12)
			assert_true(2 * runs_on < runs_off);
	}
	workload_free(&w);
	plan_free(&on);
	plan_free(&off);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(identical_code_false_alarms_stay_below_alpha),
		cmocka_unit_test(futility_ends_what_the_cap_cannot_decide),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
