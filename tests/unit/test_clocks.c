/*
 * Did the host fall behind a virtual-time run (crosscheck_clocks(),
 * measure/crosscheck.h)? Fed by the two virtual-time runs recorded in
 * tests/data/lava, read as the host reads them (the agent's counters, and
 * the DUT's iperf3 JSON, which carries the host's end of the test), and by
 * the numbers issue 15 gave for the runs that went wrong on a busy host.
 * Needs HILBENCH_HOME (make check-unit sets it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_proto.h"
#include "deploy/dut.h"
#include "measure/crosscheck.h"
#include "util/util.h"

/* A recorded run, and how its DUT's JSON holds the host's clock. */
static const struct recorded {
	const char *name;
	int dut_is_client;	/* DUT-TX: the client's JSON has the server's end */
	enum run_pacing pacing;
} recorded[] = {
	{ "udp64-dut-tx", 1, PACED_BY_DUT },	/* revert, 4 s */
	{ "tcp-dut-rx", 0, PACED_BY_TCP },	/* gating, 4 s (recorded with the DUT as server) */
};

static double jnum(const cJSON *j, const char *a, const char *b)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, a), b);
	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

/*
 * The DUT's clock and idle seconds over the agent's window, as runner.c
 * takes them, and the host's seconds of the test: the server's measured
 * seconds (its clock is the host's) for DUT-TX, the client's duration plus
 * warm-up for DUT-RX. The host's real window also holds iperf3's start-up
 * and the results exchange, so these host seconds are a lower bound and the
 * idle per host second an upper one.
 */
static void load_recorded(const struct recorded *r, struct run_clocks *c)
{
	char *path = xasprintf("%s/tests/data/lava/%s.out", hb_home(), r->name);
	char *text = read_file(path, NULL);
	assert_non_null(text);
	long long cpu[2][CPU_FIELDS] = { { 0 } }, clock_ns[2] = { 0 };	/* before, after */
	unsigned char *json = xmalloc(strlen(text));
	size_t got = 0;
	int in_file = 0;
	char name[32], value[32], phase[16];
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(l, "HB FILE ", 8))
			in_file = proto_get(l, "name", name, sizeof(name)) && !strcmp(name, "iperf.json");
		else if (!strncmp(l, "HB EOF ", 7))
			in_file = 0;
		else if (in_file && !strncmp(l, "HB B64 ", 7)) {
			long n = base64_decode(l + 7, strlen(l + 7), json + got);
			assert_true(n >= 0);
			got += (size_t)n;
		} else if (!strncmp(l, "HB COUNTER ", 11) && proto_get(l, "name", name, sizeof(name)) &&
			   proto_get(l, "value", value, sizeof(value)) &&
			   proto_get(l, "phase", phase, sizeof(phase))) {
			int after = strcmp(phase, "before") != 0;
			for (int i = 0; i < CPU_FIELDS; i++)
				if (!strcmp(name, cpu_field_names[i]))
					cpu[after][i] = atoll(value);
			if (!strcmp(name, "clock_ns"))
				clock_ns[after] = atoll(value);
		}
	}
	json[got] = '\0';
	cJSON *j = cJSON_Parse((char *)json);
	assert_non_null(j);
	long long total = 0;
	for (int i = 0; i < CPU_FIELDS; i++)
		total += cpu[1][i] - cpu[0][i];
	c->pacing = r->pacing;
	c->dut_s = (double)(clock_ns[1] - clock_ns[0]) / 1e9;
	c->dut_idle_s = c->dut_s * (double)(cpu[1][CPU_IDLE] - cpu[0][CPU_IDLE]) / (double)total;
	c->host_s = r->dut_is_client ? jnum(cJSON_GetObjectItemCaseSensitive(j, "end"),
					    "sum_received", "seconds")
				     : jnum(cJSON_GetObjectItemCaseSensitive(j, "start"),
					    "test_start", "duration") +
				       jnum(cJSON_GetObjectItemCaseSensitive(j, "start"),
					    "test_start", "omit");
	cJSON_Delete(j);
	free(json);
	free(text);
	free(path);
}

/* The recorded runs are measurements on a quiet host. On a host whose
 * every CPU was contended all along they stay measurements, with a wide
 * margin below the bound: UDP the DUT sends, and TCP, whose busy DUT is
 * what limits it (measure/crosscheck.h). */
static void recorded_runs_are_measurements(void **state)
{
	(void)state;
	for (size_t i = 0; i < HB_ARRAY_SIZE(recorded); i++) {
		struct run_clocks c = { 0 };
		load_recorded(&recorded[i], &c);
		struct clock_check cc;
		c.host_wait_s = 0.02 * c.host_s;	/* the quiet machine's 2 % */
		assert_int_equal(crosscheck_clocks(&c, &cc), 0);
		assert_false(cc.host_behind);
		c.host_wait_s = c.host_s;
		assert_int_equal(crosscheck_clocks(&c, &cc), 0);
		printf("%s: DUT %.2f s, %.3f s idle; host >= %.2f s: %.3f idle DUT-s per host s\n",
		       recorded[i].name, c.dut_s, c.dut_idle_s, c.host_s, cc.idle_per_host_s);
		assert_true(cc.idle_per_host_s < CROSSCHECK_MAX_IDLE_PER_HOST_S / 20);
		assert_true(cc.host_wait_pct == 100);
		assert_false(cc.host_behind);
	}
}

/*
 * Issue 15: a 10 s tcp-dut-tx run took 2 s of wall time and was stored at
 * 0.4 Mbit/s (-99 %): the DUT did about 1 % of a run's work, so it idled
 * for nearly all of its 10 s plus warm-up. And a tcp-dut-rx run whose
 * iperf3 the agent killed after 41 DUT-seconds, while the host's client
 * needed 11 s plus start-up. Both on a host building a kernel on its two
 * cores (PSI near 100 %). The numbers beyond the issue's are estimates.
 */
static void the_busy_host_runs_of_issue_15_are_caught(void **state)
{
	(void)state;
	static const struct run_clocks bad[] = {
		{ .dut_s = 11.5, .dut_idle_s = 11.3, .host_s = 2.6, .host_wait_s = 2.4 },
		{ .dut_s = 41.8, .dut_idle_s = 35.0, .host_s = 14.0, .host_wait_s = 12.0 },
		/* the same, TCP */
		{ .pacing = PACED_BY_TCP, .dut_s = 11.5, .dut_idle_s = 11.3, .host_s = 2.6,
		  .host_wait_s = 2.4 },
		{ .pacing = PACED_BY_TCP, .dut_s = 41.8, .dut_idle_s = 35.0, .host_s = 14.0,
		  .host_wait_s = 12.0 },
	};
	for (size_t i = 0; i < HB_ARRAY_SIZE(bad); i++) {
		struct clock_check cc;
		assert_int_equal(crosscheck_clocks(&bad[i], &cc), 0);
		assert_true(cc.host_behind);
		/* the reason names the numbers that disagree */
		char dut[32], host[32];
		snprintf(dut, sizeof(dut), "%.1f s of it idle", bad[i].dut_idle_s);
		snprintf(host, sizeof(host), "%.1f s passed", bad[i].host_s);
		assert_non_null(strstr(cc.reason, dut));
		assert_non_null(strstr(cc.reason, host));
	}
}

static void both_signs_are_needed(void **state)
{
	(void)state;
	struct clock_check cc;
	/* a DUT waiting for its own timers on a quiet host: a measurement of
	 * the patch (say, TX completion stalled until the coalescing timer) */
	struct run_clocks own = { .dut_s = 11.5, .dut_idle_s = 9.0, .host_s = 3.0,
				  .host_wait_s = 0.06 };
	assert_int_equal(crosscheck_clocks(&own, &cc), 0);
	assert_false(cc.host_behind);
	assert_true(cc.idle_per_host_s > CROSSCHECK_MAX_IDLE_PER_HOST_S);
	/* a busy DUT on a contended host: its clock counts its instructions */
	struct run_clocks busy = { .dut_s = 11.5, .dut_idle_s = 0.1, .host_s = 30,
				   .host_wait_s = 30 };
	assert_int_equal(crosscheck_clocks(&busy, &cc), 0);
	assert_false(cc.host_behind);
	/* the bounds: above 1 idle DUT-second per host second, at least 25 % */
	struct run_clocks edge = { .dut_s = 10, .dut_idle_s = 5, .host_s = 5, .host_wait_s = 1.25 };
	assert_int_equal(crosscheck_clocks(&edge, &cc), 0);
	assert_false(cc.host_behind);
	edge.dut_idle_s = 5.01;
	assert_int_equal(crosscheck_clocks(&edge, &cc), 0);
	assert_true(cc.host_behind);
	edge.host_wait_s = 1.24;
	assert_int_equal(crosscheck_clocks(&edge, &cc), 0);
	assert_false(cc.host_behind);
	/* a limited rate idles by design: never judged */
	struct run_clocks limited = { .pacing = PACED_BY_RATE, .dut_s = 11.5, .dut_idle_s = 11,
				      .host_s = 2, .host_wait_s = 2 };
	assert_int_equal(crosscheck_clocks(&limited, &cc), 0);
	assert_false(cc.host_behind);
}

/*
 * UDP the host sends: its real-time rate, on the DUT's clock, is the run's,
 * so contention alone decides, at 25 %. A TCP run is judged by both signs:
 * busy on a contended host (DUT-TX beside another board's TCP run,
 * 0.10-0.13 idle DUT-s per host s at host pressure 22-33 %, its delivered
 * rate 0.6 % below the quiet runs'; docs/measurements.md, "TCP beside
 * another board") it is a measurement, idle there it is not.
 */
static void a_host_paced_run_on_a_contended_host_is_caught(void **state)
{
	(void)state;
	struct clock_check cc;
	struct run_clocks udp = { .pacing = PACED_BY_HOST, .dut_s = 11.2, .dut_idle_s = 0.1,
				  .host_s = 4, .host_wait_s = 0.87 * 4 };
	assert_int_equal(crosscheck_clocks(&udp, &cc), 0);
	assert_true(cc.host_behind);
	assert_non_null(strstr(cc.reason, "contended 87 %"));
	udp.host_wait_s = 0.25 * 4;
	assert_int_equal(crosscheck_clocks(&udp, &cc), 0);
	assert_true(cc.host_behind);
	udp.host_wait_s = 0.24 * 4;
	assert_int_equal(crosscheck_clocks(&udp, &cc), 0);
	assert_false(cc.host_behind);

	struct run_clocks tcp = { .pacing = PACED_BY_TCP, .dut_s = 5.1, .dut_idle_s = 0.3,
				  .host_s = 2.5, .host_wait_s = 0.33 * 2.5 };
	assert_int_equal(crosscheck_clocks(&tcp, &cc), 0);
	assert_false(cc.host_behind);
	assert_false(cc.waited_for_host);
	tcp.dut_idle_s = 2.6;	/* more idle DUT-seconds than host seconds */
	assert_int_equal(crosscheck_clocks(&tcp, &cc), 0);
	assert_true(cc.host_behind);
	assert_non_null(strstr(cc.reason, "2.6 s of it idle"));
	/* the runs of the slower machine: TCP DUT-RX -64 %, 1.9 idle DUT-s a
	 * host second at 23 % pressure; TCP DUT-TX -29 %, 0.51 at 32 % */
	struct run_clocks slow[] = {
		{ .pacing = PACED_BY_TCP, .dut_s = 4.8, .dut_idle_s = 2.06, .host_s = 1.08,
		  .host_wait_s = 0.235 * 1.08 },
		{ .pacing = PACED_BY_TCP, .dut_s = 3.9, .dut_idle_s = 0.71, .host_s = 1.4,
		  .host_wait_s = 0.324 * 1.4 },
	};
	for (size_t i = 0; i < HB_ARRAY_SIZE(slow); i++) {
		assert_int_equal(crosscheck_clocks(&slow[i], &cc), 0);
		assert_true(cc.host_behind);
	}
	/* beside another board, as it was: 0.23 at 34 %; with the host
	 * alone, 0.52 at 1 % */
	struct run_clocks fine[] = {
		{ .pacing = PACED_BY_TCP, .dut_s = 4.0, .dut_idle_s = 0.32, .host_s = 1.4,
		  .host_wait_s = 0.344 * 1.4 },
		{ .pacing = PACED_BY_TCP, .dut_s = 4.0, .dut_idle_s = 0.73, .host_s = 1.4,
		  .host_wait_s = 0.01 * 1.4 },
	};
	for (size_t i = 0; i < HB_ARRAY_SIZE(fine); i++) {
		assert_int_equal(crosscheck_clocks(&fine[i], &cc), 0);
		assert_false(cc.host_behind);
	}
}

/* Every kind of workload: how it is paced, and whether it may go beside
 * another board (the executor's host turns, the planner's phases). */
static void each_kind_of_workload_is_paced_as_measured(void **state)
{
	(void)state;
	static const struct {
		enum wl_proto proto;
		enum wl_dir dir;
		uint64_t rate_bps;
		enum run_pacing pacing;
		int shares;		/* the DUT's clock runs on while it idles */
		int shares_held;	/* held while the host keeps sending */
	} kinds[] = {
		{ WL_UDP, WL_DUT_TX, 0, PACED_BY_DUT, 1, 1 },
		{ WL_UDP, WL_DUT_TX, 1000000, PACED_BY_RATE, 0, 0 },
		{ WL_TCP, WL_DUT_TX, 0, PACED_BY_TCP, 0, 1 },
		{ WL_TCP, WL_DUT_RX, 0, PACED_BY_TCP, 0, 1 },
		{ WL_TCP, WL_BIDIR, 0, PACED_BY_TCP, 0, 1 },
		{ WL_UDP, WL_DUT_RX, 1000000, PACED_BY_HOST, 0, 0 },
		{ WL_UDP, WL_DUT_RX, 0, PACED_BY_HOST, 0, 0 },
	};
	for (size_t i = 0; i < HB_ARRAY_SIZE(kinds); i++) {
		struct workload w = { .proto = kinds[i].proto, .dir = kinds[i].dir,
				      .rate_bps = kinds[i].rate_bps };
		assert_int_equal(crosscheck_pacing(&w), kinds[i].pacing);
		assert_int_equal(crosscheck_shares_host(&w, 0), kinds[i].shares);
		assert_int_equal(crosscheck_shares_host(&w, 1), kinds[i].shares_held);
	}
}

/* concurrent.sh, sleep=off: tcp-rx-smoke beside another emulator on 2
 * cores; the agent killed iperf3 after 35 DUT-seconds, 27 of them idle,
 * while the host sent for about 1 s (pressure below 25 %). Not a number,
 * and not the DUT's fault either. */
static void a_dut_that_waited_for_the_host_is_not_blamed(void **state)
{
	(void)state;
	struct clock_check cc;
	struct run_clocks rx = { .pacing = PACED_BY_TCP, .dut_s = 35.5, .dut_idle_s = 27.3,
				 .host_s = 2.0, .host_wait_s = 0.1 };
	assert_int_equal(crosscheck_clocks(&rx, &cc), 0);
	assert_false(cc.host_behind);
	assert_true(cc.waited_for_host);
	assert_non_null(strstr(cc.reason, "27.3 s of it idle"));
	/* with a task waiting for a host CPU a fifth of the time, a TCP run's
	 * host fell behind (a UDP run's would need a quarter) */
	rx.host_wait_s = 0.4;
	assert_int_equal(crosscheck_clocks(&rx, &cc), 0);
	assert_true(cc.host_behind);
	rx.host_wait_s = 0.1;
	/* the DUT sending UDP waits for its own timers, never for the host */
	rx.pacing = PACED_BY_DUT;
	assert_int_equal(crosscheck_clocks(&rx, &cc), 0);
	assert_false(cc.waited_for_host);
	/* a busy receiving DUT waited for nothing */
	rx.pacing = PACED_BY_TCP;
	rx.dut_idle_s = 0.2;
	assert_int_equal(crosscheck_clocks(&rx, &cc), 0);
	assert_false(cc.waited_for_host);
}

/* TCP DUT-RX's two counts of one transfer (iperf3's read, the bytes the
 * DUT acknowledged): the five runs of three benches and a starved host
 * (2026-12-06) where they parted, each with a sign of the host, and the
 * runs that kept together on a contended host or beside an idling DUT. */
static void a_tcp_rx_run_whose_counts_part_on_a_busy_host_is_caught(void **state)
{
	(void)state;
	static const struct {
		double read, acked, wait_pct, idle;
	} parted[] = {
		{ 29.06, 32.82, 23.5, 1.905 },	/* bench36: the clock rules caught it */
		{ 76.98, 80.80, 38.8, 0.137 },	/* bench37 */
		{ 81.72, 77.79, 24.6, 0.217 },	/* bench37 */
		{ 81.75, 77.21, 1.6, 0.879 },	/* bench38, the host otherwise quiet */
		{ 77.50, 81.47, 58.2, 0.113 },	/* starve.sh: 5.0 % low */
	}, kept[] = {
		{ 81.33, 81.01, 46.0, 0.056 }, { 81.74, 82.29, 33.5, 0.074 },
		{ 81.52, 81.06, 0.9, 0.381 }, { 82.01, 81.57, 0.6, 0.371 },
	};
	for (size_t i = 0; i < HB_ARRAY_SIZE(parted); i++) {
		struct clock_check cc = { .idle_per_host_s = parted[i].idle,
					  .host_wait_pct = parted[i].wait_pct };
		assert_int_equal(crosscheck_tcp_received(parted[i].read, parted[i].acked, &cc), 1);
		assert_true(cc.host_behind);
		assert_non_null(strstr(cc.reason, "acknowledged"));
	}
	for (size_t i = 0; i < HB_ARRAY_SIZE(kept); i++) {
		struct clock_check cc = { .idle_per_host_s = kept[i].idle,
					  .host_wait_pct = kept[i].wait_pct };
		assert_int_equal(crosscheck_tcp_received(kept[i].read, kept[i].acked, &cc), 0);
		assert_false(cc.host_behind);
	}
	/* a gap without a host sign is the DUT's own, and stands */
	struct clock_check own = { .idle_per_host_s = 0.1, .host_wait_pct = 2 };
	assert_int_equal(crosscheck_tcp_received(77.5, 81.5, &own), 0);
	assert_false(own.host_behind);
	/* either count or the clocks unknown: nothing decided */
	struct clock_check unknown = { .idle_per_host_s = -1, .host_wait_pct = 50 };
	assert_int_equal(crosscheck_tcp_received(77.5, 81.5, &unknown), -1);
	unknown.idle_per_host_s = 0.5;
	assert_int_equal(crosscheck_tcp_received(-1, 81.5, &unknown), -1);
	assert_int_equal(crosscheck_tcp_received(77.5, 0, &unknown), -1);
	assert_false(unknown.host_behind);
}

/*
 * A host late at the test's set-up: the run of docs/measurements.md ("A
 * host late at a run's set-up"), whose host answered the parameters 25.36
 * DUT-seconds late, then ran its 4 s cleanly. Over the whole window it
 * looks behind; over the test's data it is not. The same numbers with the
 * idle seconds inside the data stay behind.
 */
static void a_wait_at_the_set_up_is_left_out(void **state)
{
	(void)state;
	struct clock_check cc;
	struct run_clocks late = { .pacing = PACED_BY_DUT, .dut_s = 30.0, .dut_idle_s = 25.5,
				   .host_s = 5.2, .host_wait_s = 0.39 * 5.2 };
	assert_int_equal(crosscheck_clocks(&late, &cc), 0);
	assert_true(cc.host_behind);
	late.dut_outside_s = 25.378;
	late.dut_waits_s = 25.360;
	late.host_outside_s = 0.9;
	assert_int_equal(crosscheck_clocks(&late, &cc), 0);
	assert_false(cc.host_behind);
	assert_true(cc.idle_per_host_s > 0.032 && cc.idle_per_host_s < 0.033);	/* 0.14 / 4.3 */
	assert_true(cc.host_wait_pct > 38.9 && cc.host_wait_pct < 39.1);	/* the window's */
	/* without the host's record, its seconds stay whole */
	late.host_outside_s = 0;
	assert_int_equal(crosscheck_clocks(&late, &cc), 0);
	assert_false(cc.host_behind);
	/* the idle inside the data stays: 10 idle DUT-s in 2 host-s */
	struct run_clocks behind = { .pacing = PACED_BY_DUT, .dut_s = 12.5, .dut_idle_s = 10.5,
				     .host_s = 2.5, .host_wait_s = 1.0, .dut_outside_s = 0.5,
				     .dut_waits_s = 0.5, .host_outside_s = 0.5 };
	assert_int_equal(crosscheck_clocks(&behind, &cc), 0);
	assert_true(cc.host_behind);
	assert_true(cc.idle_per_host_s > 4.99 && cc.idle_per_host_s < 5.01);
	assert_non_null(strstr(cc.reason, "the DUT's clock ran 12.0 s, 10.0 s of it idle, while "
					  "2.0 s passed on the host's over the test's data (its "
					  "set-up and teardown 0.5 s more on the DUT's, 0.5 s of it "
					  "idle, 0.5 s on the host's)"));
	/* the DUT's own work outside the test is not taken off its idle */
	behind.dut_waits_s = 0.1;
	assert_int_equal(crosscheck_clocks(&behind, &cc), 0);
	assert_true(cc.idle_per_host_s > 5.19 && cc.idle_per_host_s < 5.21);
	behind.dut_waits_s = 0.5;
	/* outside seconds a clock does not have are not known */
	behind.dut_outside_s = 12.5;
	behind.host_outside_s = 3;
	assert_int_equal(crosscheck_clocks(&behind, &cc), 0);
	assert_true(cc.idle_per_host_s > 4.19 && cc.idle_per_host_s < 4.21);
	assert_true(cc.dut_outside_s == 0 && cc.host_outside_s == 0);
	assert_null(strstr(cc.reason, "set-up"));
}

static void unknown_clocks_decide_nothing(void **state)
{
	(void)state;
	struct clock_check cc = { .host_behind = 7 };
	static const struct run_clocks unknown[] = {
		{ .dut_s = 11, .dut_idle_s = 10, .host_s = 2, .host_wait_s = -1 },	/* no PSI */
		{ .dut_s = 11, .dut_idle_s = 10, .host_s = 0, .host_wait_s = 0 },
		{ .dut_s = 11, .dut_idle_s = -1, .host_s = 2, .host_wait_s = 2 },
		{ .dut_s = -1, .dut_idle_s = 10, .host_s = 2, .host_wait_s = 2 },
		{ .dut_s = 11, .dut_idle_s = 10, .host_s = 2, .host_wait_s = 2, .dut_outside_s = -1 },
		{ .dut_s = 11, .dut_idle_s = 10, .host_s = 2, .host_wait_s = 2, .host_outside_s = -1 },
		{ .dut_s = 11, .dut_idle_s = 10, .host_s = 2, .host_wait_s = 2, .dut_waits_s = -1 },
	};
	for (size_t i = 0; i < HB_ARRAY_SIZE(unknown); i++)
		assert_int_equal(crosscheck_clocks(&unknown[i], &cc), -1);
	assert_int_equal(cc.host_behind, 7);
}

static void psi_some_total(void **state)
{
	(void)state;
	long long us = 0;
	/* this machine's /proc/pressure/cpu, 2026-12-01 */
	assert_int_equal(crosscheck_psi_some_us("some avg10=5.19 avg60=10.17 avg300=22.11 "
						"total=377065118\nfull avg10=0.00 avg60=0.00 "
						"avg300=0.00 total=0\n", &us), 0);
	assert_int_equal(us, 377065118);
	assert_int_equal(crosscheck_psi_some_us("some avg10=0.00 total=0", &us), 0);
	assert_int_equal(us, 0);
	static const char *const bad[] = {
		"", "full avg10=0.00 total=5\n", "some avg10=0.00\nfull total=5\n",
		"some avg10=0.00 total=\n", "some avg10=0.00 total=-3\n",
	};
	for (size_t i = 0; i < HB_ARRAY_SIZE(bad); i++)
		assert_int_equal(crosscheck_psi_some_us(bad[i], &us), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(recorded_runs_are_measurements),
		cmocka_unit_test(the_busy_host_runs_of_issue_15_are_caught),
		cmocka_unit_test(both_signs_are_needed),
		cmocka_unit_test(a_host_paced_run_on_a_contended_host_is_caught),
		cmocka_unit_test(each_kind_of_workload_is_paced_as_measured),
		cmocka_unit_test(a_dut_that_waited_for_the_host_is_not_blamed),
		cmocka_unit_test(a_tcp_rx_run_whose_counts_part_on_a_busy_host_is_caught),
		cmocka_unit_test(a_wait_at_the_set_up_is_left_out),
		cmocka_unit_test(unknown_clocks_decide_nothing),
		cmocka_unit_test(psi_some_total),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
