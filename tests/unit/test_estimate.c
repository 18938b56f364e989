/* estimate: what the planner's ETA prices the runs left at. From a real
 * SQLite store in a temp dir: a run costs from the end of the run before
 * it in its boot (its start for a boot's first) to its end, also where two
 * boards' boots interleave their runs, but not from before another run's
 * end it waited for; a boot, from its id's stamp to its first run; runs that did not pass and other strategies' do not count;
 * a candidate's runs taken are the sum of its workloads' most over their
 * metrics; the plan's last decided session is the newest other one; a
 * candidate alike the reference takes the runs its spread needs, and one
 * half a threshold off more where that spread is wide against it; one
 * being judged takes what its own runs so far say. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/estimate.h"
#include "store/store.h"
#include "util/util.h"

static char dir[64];

/* A run of session from second `from` to second `to` of the day that
 * measured metric at value. */
static void add_measured(struct store *s, const char *session, const char *strategy,
			 const char *workload, const char *boot, int from, int to,
			 enum run_class cls, const char *metric, double value)
{
	static int seq;
	struct metric m = { metric, value, "x/s", "test" };
	char started[32], ended[32];
	snprintf(started, sizeof(started), "2026-12-02T10:%02d:%02dZ", from / 60, from % 60);
	snprintf(ended, sizeof(ended), "2026-12-02T10:%02d:%02dZ", to / 60, to % 60);
	struct run_record r = {
		.session = session, .plan = "default", .board = "b", .strategy = strategy,
		.workload = workload, .repetition = 1, .boot_id = boot, .cls = cls,
		.reason = cls == RUN_PASS ? NULL : "boot failed", .timing = "virtual",
		.started = started, .ended = ended, .metrics = &m, .n_metrics = cls == RUN_PASS,
		.attempt = 1,
	};
	snprintf(r.id, sizeof(r.id), "20261202T100000Z-%06d", ++seq);
	assert_int_equal(store_add_run(s, &r), 0);
}

static void add(struct store *s, const char *session, const char *strategy,
		const char *workload, const char *boot, int from, int to, enum run_class cls)
{
	add_measured(s, session, strategy, workload, boot, from, to, cls, "pps", 1000);
}

/* A boot's id as the executor makes it, stamped at second `at`. */
static const char *boot_at(int at, char out[40])
{
	snprintf(out, 40, "20261202T10%02d%02dZ-b0%04d", at / 60, at % 60, at);
	return out;
}

static void a_boot_and_each_run_are_priced_from_the_reference(void **state)
{
	(void)state;
	struct store *s = store_open(dir);
	assert_non_null(s);
	char b1[40], b2[40], b3[40], b4[40], b5[40];
	/* two boards at once: boot 1 from second 0 (udp 2-12, tcp 13-25),
	 * boot 2 from second 1 (udp 4-14, tcp 15-27), their runs interleaved */
	add(s, "S1", "baseline", "udp", boot_at(0, b1), 2, 12, RUN_PASS);
	add(s, "S1", "baseline", "udp", boot_at(1, b2), 4, 14, RUN_PASS);
	add(s, "S1", "baseline", "tcp", b1, 13, 25, RUN_PASS);
	add(s, "S1", "baseline", "tcp", b2, 15, 27, RUN_PASS);
	/* then each boot's rx, one at a time: boot 1's waited for boot 2's
	 * tcp (to 27), boot 2's for boot 1's rx (to 30) */
	add(s, "S1", "baseline", "rx", b1, 28, 30, RUN_PASS);
	add(s, "S1", "baseline", "rx", b2, 31, 32, RUN_PASS);
	/* neither counts: another strategy's, a run that did not pass */
	add(s, "S1", "revert", "udp", boot_at(50, b3), 60, 100, RUN_PASS);
	add(s, "S1", "baseline", "udp", boot_at(150, b4), 200, 300, RUN_ERROR);
	struct strlist all = { 0 }, tcp = { 0 };
	strlist_split(&all, "udp,tcp,ftrace,rx", ",");
	strlist_push(&tcp, "tcp");
	struct run_costs c;
	estimate_costs(s, "S1", "baseline", &all, &c);
	assert_true(fabs(c.run_s[0] - 10) < 1e-9);
	assert_true(fabs(c.run_s[1] - 13) < 1e-9);	/* from its boot's udp's end */
	assert_true(c.run_s[2] < 0);			/* none stored */
	assert_true(fabs(c.run_s[3] - 2.5) < 1e-9);	/* 3 s and 2 s */
	assert_true(fabs(c.boot_s - 2.5) < 1e-9);	/* 2 s and 3 s */
	assert_true(fabs(estimate_boot_s(&c, &all, &tcp) - 15.5) < 1e-9);
	assert_true(estimate_boot_s(&c, &all, &all) < 0);	/* ftrace unknown */
	/* a run past a first boot is a boot of one run: udp's 12.5, rx's 5 */
	struct strlist udp_rx = { 0 };
	strlist_split(&udp_rx, "udp,rx", ",");
	assert_true(fabs(estimate_one_run_boot_s(&c, &all, &udp_rx) - 8.75) < 1e-9);
	assert_true(estimate_one_run_boot_s(&c, &all, &all) < 0);
	strlist_free(&udp_rx);
	estimate_costs_free(&c);
	/* a boot whose id is not the store's has no boot time; no runs, nothing */
	add(s, "S2", "baseline", "udp", "c1", 400, 410, RUN_PASS);
	estimate_costs(s, "S2", "baseline", &all, &c);
	assert_true(c.boot_s < 0 && fabs(c.run_s[0] - 10) < 1e-9);
	estimate_costs_free(&c);
	add(s, "S3", "baseline", "udp", boot_at(500, b5), 503, 513, RUN_PASS);
	estimate_costs(s, "S3", "baseline", &all, &c);
	assert_true(fabs(c.boot_s - 3) < 1e-9);
	estimate_costs_free(&c);
	estimate_costs(s, "none", "baseline", &all, &c);
	assert_true(c.boot_s < 0 && c.run_s[0] < 0 && c.run_s[1] < 0);
	estimate_costs_free(&c);
	strlist_free(&all);
	strlist_free(&tcp);
	store_close(s);
}

static void decide(struct store *s, const char *session, const char *strategy,
		   const char *workload, const char *metric, int runs)
{
	struct decision_record d = {
		.session = session, .reference = "baseline", .strategy = strategy,
		.workload = workload, .metric = metric, .reference_runs = 6,
		.candidate_runs = runs, .outcome = "pass", .delta_pct = 0.1, .lo_pct = -0.2,
		.hi_pct = 0.4, .threshold_pct = 1, .alpha = 0.05, .why = "decided at look 1 of 6",
	};
	assert_int_equal(store_put_decision(s, &d), 0);
}

static void the_runs_a_candidate_took_the_plans_last_time(void **state)
{
	(void)state;
	struct store *s = store_open(dir);
	assert_non_null(s);
	add(s, "P1", "baseline", "tcp", "d1", 600, 610, RUN_PASS);
	decide(s, "P1", "revert", "tcp", "mbps", 3);
	decide(s, "P1", "revert", "tcp", "pps", 2);	/* the same runs: the most counts */
	decide(s, "P1", "revert", "tcpr", "mbps", 1);
	decide(s, "P1", "gating", "tcp", "mbps", 6);
	add(s, "P2", "baseline", "tcp", "d2", 700, 710, RUN_PASS);	/* the current one */
	decide(s, "P2", "revert", "tcp", "mbps", 1);
	char last[3][40];
	assert_int_equal(store_last_decided_sessions(s, "default", "P2", last, 3), 1);
	assert_string_equal(last[0], "P1");
	assert_int_equal(store_last_decided_sessions(s, "other", "P2", last, 3), 0);
	/* newest first, as many as asked */
	add(s, "P3", "baseline", "tcp", "d6", 800, 810, RUN_PASS);
	decide(s, "P3", "revert", "tcp", "mbps", 2);
	assert_int_equal(store_last_decided_sessions(s, "default", "P2", last, 3), 2);
	assert_string_equal(last[0], "P3");
	assert_string_equal(last[1], "P1");
	assert_int_equal(store_last_decided_sessions(s, "default", "P2", last, 1), 1);
	assert_string_equal(last[0], "P3");
	assert_int_equal(store_last_decided_sessions(s, "default", "P3", last, 3), 2);
	assert_string_equal(last[0], "P2");
	/* a profiler's workload no metric judges: its stored runs, any class */
	add(s, "P1", "revert", "prof", "d3", 620, 623, RUN_PASS);
	add(s, "P1", "revert", "prof", "d4", 630, 633, RUN_ERROR);
	add(s, "P1", "is-queued", "prof", "d5", 640, 643, RUN_PASS);
	struct strlist wl = { 0 };
	strlist_split(&wl, "tcp,tcpr", ",");
	assert_int_equal(estimate_runs_taken(s, "P1", "revert", &wl), 4);
	assert_int_equal(estimate_runs_taken(s, "P1", "gating", &wl), 6);
	assert_int_equal(estimate_runs_taken(s, "P1", "is-queued", &wl), 0);
	assert_int_equal(estimate_runs_taken(s, "nope", "revert", &wl), 0);
	strlist_push(&wl, "prof");
	assert_int_equal(estimate_runs_taken(s, "P1", "revert", &wl), 6);
	assert_int_equal(estimate_runs_taken(s, "P1", "gating", &wl), 6);
	/* nothing decided of it: not known, whatever it ran */
	assert_int_equal(estimate_runs_taken(s, "P1", "is-queued", &wl), 0);
	strlist_free(&wl);
	store_close(s);
}

/* The shipped workloads (HILBENCH_HOME): six reference runs of each, the
 * UDP rate 0.04 % apart, TCP's 4 % and 30 %. */
static void the_runs_a_candidate_alike_the_reference_would_take(void **state)
{
	(void)state;
	struct store *s = store_open(dir);
	assert_non_null(s);
	static const double udp[] = { 1000, 1000.5, 999.5, 1000.2, 999.8, 1000 },
			    tcp[] = { 100, 96, 104, 102, 98, 100 },
			    wide[] = { 100, 70, 130, 115, 85, 100 };
	for (int i = 0; i < 6; i++) {
		char boot[8];
		snprintf(boot, sizeof(boot), "e%d", i);
		add_measured(s, "A", "baseline", "udp64-dut-tx", boot, 0, 1, RUN_PASS, "pps", udp[i]);
		add_measured(s, "A", "baseline", "udp64-dut-tx-ftrace", boot, 0, 1, RUN_PASS, "pps",
			     udp[i]);
		add_measured(s, "A", "baseline", "tcp-dut-tx", boot, 0, 1, RUN_PASS, "mbps", tcp[i]);
		add_measured(s, "B", "baseline", "tcp-dut-tx", boot, 0, 1, RUN_PASS, "mbps", wide[i]);
	}
	struct gate_metric m[] = {
		{ .metric = "pps", .protocol = GATE_UDP, .traffic = GATE_DUT_TX,
		  .profile = GATE_NO_PROFILE, .threshold_pct = { 15, 1 } },
		{ .metric = "mbps", .protocol = GATE_TCP, .threshold_pct = { 15, 10 } },
	};
	struct plan p = { .name = "default", .repetitions = 6, .timing = TIMING_VIRTUAL,
			  .gate = { .present = 1, .pass = PASS_NO_CHANGE, .alpha = 0.05,
				    .first_repetitions = 1, .reference_repetitions = 6,
				    .max_repetitions = 6, .metrics = { .v = m, .n = 2 } } };
	struct strlist one = { 0 };
	strlist_push(&one, "udp64-dut-tx");
	assert_int_equal(estimate_runs_alike(s, "A", "baseline", &p, &one, 0), 1);
	assert_int_equal(estimate_runs_alike(s, "A", "baseline", &p, &one, 0.5), 1);
	strlist_free(&one);
	/* the profiled workload is judged by no metric: its first run only */
	strlist_push(&one, "udp64-dut-tx-ftrace");
	assert_int_equal(estimate_runs_alike(s, "A", "baseline", &p, &one, 0), 1);
	strlist_free(&one);
	strlist_push(&one, "tcp-dut-tx");
	int tcp_runs = estimate_runs_alike(s, "A", "baseline", &p, &one, 0);
	assert_in_range(tcp_runs, 2, 5);
	/* a candidate half a threshold off takes more where the spread is
	 * wide against it, as many where it is narrow */
	assert_true(estimate_runs_alike(s, "A", "baseline", &p, &one, 0.5) > tcp_runs);
	/* too wide to decide before the cap; no reference runs: the first */
	assert_int_equal(estimate_runs_alike(s, "B", "baseline", &p, &one, 0), 6);
	/* unless the futility rule ends it, as the gate's looks would */
	p.gate.futility = 0.1;
	assert_in_range(estimate_runs_alike(s, "B", "baseline", &p, &one, 0), 1, 5);
	assert_int_equal(estimate_runs_alike(s, "A", "baseline", &p, &one, 0), tcp_runs);
	p.gate.futility = 0;
	assert_int_equal(estimate_runs_alike(s, "none", "baseline", &p, &one, 0), 1);
	strlist_free(&one);
	/* a phase's workloads add up; the no-regression rule needs fewer */
	struct strlist all = { 0 };
	strlist_split(&all, "udp64-dut-tx,tcp-dut-tx,udp64-dut-tx-ftrace", ",");
	assert_int_equal(estimate_runs_alike(s, "A", "baseline", &p, &all, 0), tcp_runs + 2);
	p.gate.pass = PASS_NO_REGRESSION;
	assert_true(estimate_runs_alike(s, "A", "baseline", &p, &all, 0) <= tcp_runs + 2);
	strlist_free(&all);
	store_close(s);
}

/* A candidate being judged, priced from its own runs: none yet says so;
 * one run like the reference's mean, what one alike would take; runs that
 * decide now, their count; runs whose interval still holds the threshold
 * (8 % up of 10 %), more than they are. */
static void the_runs_a_candidate_being_judged_will_take(void **state)
{
	(void)state;
	struct store *s = store_open(dir);
	assert_non_null(s);
	static const double tcp[] = { 100, 96, 104, 102, 98, 100 };
	static const struct { const char *strategy; double v[3]; size_t n; } cand[] = {
		{ "like", { 100 }, 1 },
		{ "far", { 130, 131 }, 2 },
		{ "near", { 108, 107, 109 }, 3 },
	};
	for (int i = 0; i < 6; i++) {
		char boot[8];
		snprintf(boot, sizeof(boot), "c%d", i);
		add_measured(s, "C", "baseline", "tcp-dut-tx", boot, 0, 1, RUN_PASS, "mbps", tcp[i]);
	}
	for (size_t c = 0; c < sizeof(cand) / sizeof(cand[0]); c++)
		for (size_t k = 0; k < cand[c].n; k++)
			add_measured(s, "C", cand[c].strategy, "tcp-dut-tx", "cb", 0, 1, RUN_PASS,
				     "mbps", cand[c].v[k]);
	struct gate_metric m[] = { { .metric = "mbps", .protocol = GATE_TCP,
				     .threshold_pct = { 15, 10 } } };
	struct plan p = { .name = "default", .repetitions = 6, .timing = TIMING_VIRTUAL,
			  .gate = { .present = 1, .pass = PASS_NO_CHANGE, .alpha = 0.05,
				    .first_repetitions = 1, .reference_repetitions = 6,
				    .max_repetitions = 6, .metrics = { .v = m, .n = 1 } } };
	struct strlist one = { 0 };
	strlist_push(&one, "tcp-dut-tx");
	int alike = estimate_runs_alike(s, "C", "baseline", &p, &one, 0);
	assert_in_range(alike, 2, 5);
	assert_int_equal(estimate_runs_open(s, "C", "baseline", "none", &p, &one), -1);
	assert_int_equal(estimate_runs_open(s, "C", "baseline", "like", &p, &one), alike);
	assert_int_equal(estimate_runs_open(s, "C", "baseline", "far", &p, &one), 2);
	assert_true(estimate_runs_open(s, "C", "baseline", "near", &p, &one) > 3);
	/* a workload it has no run of yet counts as one alike would */
	strlist_push(&one, "udp64-dut-tx-ftrace");
	assert_int_equal(estimate_runs_open(s, "C", "baseline", "far", &p, &one), 2 + 1);
	strlist_free(&one);
	store_close(s);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hb-estimate.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rm_rf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_boot_and_each_run_are_priced_from_the_reference),
		cmocka_unit_test(the_runs_a_candidate_took_the_plans_last_time),
		cmocka_unit_test(the_runs_a_candidate_alike_the_reference_would_take),
		cmocka_unit_test(the_runs_a_candidate_being_judged_will_take),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
