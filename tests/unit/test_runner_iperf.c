/* runner: the iperf3 part of a run's metrics from the two JSON files
 * (runner_iperf_metrics()), here the per-interval spread: stddev over the
 * measured intervals, warm-up left out, a UDP receiver's packets/s less
 * its lost packets; and whether a run iperf3 was stopped in at its deadline
 * had run its transfer's course (runner_transfer_ran()), and which error
 * of the host's libiperf still leaves a measurement. The JSON is written
 * by the test, shaped as iperf3's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/runner.h"
#include "util/util.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hb-test-runner-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rm_rf(dir);
}

/* A UDP receiver's report: a warm-up interval, then 90 and 120 datagrams
 * received (100 - 10 lost, 120 - 0) at 1 and 3 Mbit/s in 1 s each. */
static const char dut_rx[] =
	"{\"intervals\":["
	"{\"sum\":{\"end\":1,\"seconds\":1,\"bits_per_second\":9e6,\"packets\":900,"
	"\"lost_packets\":0,\"omitted\":true}},"
	"{\"sum\":{\"end\":1,\"seconds\":1,\"bits_per_second\":1e6,\"packets\":100,"
	"\"lost_packets\":10,\"omitted\":false}},"
	"{\"sum\":{\"end\":2,\"seconds\":1,\"bits_per_second\":3e6,\"packets\":120,"
	"\"lost_packets\":0,\"omitted\":false}}],"
	"\"end\":{\"sum_received\":{\"seconds\":2,\"bits_per_second\":2e6,\"packets\":220,"
	"\"lost_packets\":10}}}";
static const char host_tx[] =
	"{\"end\":{\"sum_sent\":{\"seconds\":2,\"bits_per_second\":2e6,\"packets\":220}}}";

/* The DUT's iperf3 JSON after the agent's SIGINT at the deadline: the
 * measured intervals of a 2 s test add up to 2 s (1.98 here), or stop short
 * of it (1 s), or are not there. */
static void a_transfer_that_ran_its_course_is_told_apart(void **state)
{
	(void)state;
	static const struct {
		const char *json;
		int ran;
	} cases[] = {
		{ "{\"start\":{\"test_start\":{\"duration\":2,\"omit\":1}},\"intervals\":["
		  "{\"sum\":{\"seconds\":1.0,\"omitted\":true}},"
		  "{\"sum\":{\"seconds\":0.99,\"omitted\":false}},"
		  "{\"sum\":{\"seconds\":0.99,\"omitted\":false}}],"
		  "\"error\":\"interrupt - the client has terminated\"}", 1 },
		/* the omitted second does not count */
		{ "{\"start\":{\"test_start\":{\"duration\":2}},\"intervals\":["
		  "{\"sum\":{\"seconds\":1.0,\"omitted\":true}},"
		  "{\"sum\":{\"seconds\":1.0,\"omitted\":false}}],\"error\":\"interrupt\"}", 0 },
		/* hostile numbers: negative, huge, strings */
		{ "{\"start\":{\"test_start\":{\"duration\":2}},\"intervals\":["
		  "{\"sum\":{\"seconds\":-5}},{\"sum\":{\"seconds\":1e300}},"
		  "{\"sum\":{\"seconds\":\"2\"}}]}", 0 },
		{ "{\"intervals\":[{\"sum\":{\"seconds\":10}}]}", 0 },	/* no duration */
		{ "{\"start\":{\"test_start\":{\"duration\":2}},\"intervals\":{}}", 0 },
		{ "not json", 0 },
		{ "", 0 },
	};
	char *path = path_join(dir, "dut-iperf.json");
	for (size_t i = 0; i < HB_ARRAY_SIZE(cases); i++) {
		assert_int_equal(write_file_atomic(path, cases[i].json, strlen(cases[i].json)), 0);
		assert_int_equal(runner_transfer_ran(path), cases[i].ran);
	}
	unlink(path);
	assert_int_equal(runner_transfer_ran(path), 0);	/* no file */
	free(path);
}

static double metric(const struct run_result *r, const char *name)
{
	for (size_t i = 0; i < r->n_metrics; i++)
		if (!strcmp(r->metrics[i].name, name))
			return r->metrics[i].value;
	return NAN;
}

static void interval_spread_of_a_udp_receiver(void **state)
{
	(void)state;
	char *dut = path_join(dir, "dut-iperf.json"), *host = path_join(dir, "host-iperf.json");
	assert_int_equal(write_file_atomic(dut, dut_rx, strlen(dut_rx)), 0);
	assert_int_equal(write_file_atomic(host, host_tx, strlen(host_tx)), 0);
	struct workload w = { .name = "udp-rx", .dir = WL_DUT_RX, .proto = WL_UDP,
			      .duration_s = 2, .streams = 1 };
	static struct run_result res;	/* large: not on the stack */
	assert_int_equal(runner_iperf_metrics(&w, dut, host, &res), 1);
	assert_float_equal(metric(&res, "mbps_interval_stddev"), sqrt(2), 1e-9);
	assert_float_equal(metric(&res, "pps_interval_stddev"), sqrt(450), 1e-9);
	free(dut);
	free(host);
}

/* A TCP DUT-RX test of 2 s as the DUT's iperf3 (the client, -R) reports
 * it: its intervals cover the test, or (short) stop after 1 s. */
static const char dut_tcp_rx[] =
	"{\"start\":{\"test_start\":{\"duration\":2,\"omit\":0}},\"intervals\":["
	"{\"sum\":{\"seconds\":1,\"bits_per_second\":8e7,\"omitted\":false}},"
	"{\"sum\":{\"seconds\":1,\"bits_per_second\":8.2e7,\"omitted\":false}}],"
	"\"end\":{\"sum_received\":{\"seconds\":2,\"bits_per_second\":8.1e7}}}";
static const char dut_tcp_rx_short[] =
	"{\"start\":{\"test_start\":{\"duration\":2,\"omit\":0}},\"intervals\":["
	"{\"sum\":{\"seconds\":1,\"bits_per_second\":8e7,\"omitted\":false}}],"
	"\"end\":{\"sum_received\":{\"seconds\":1,\"bits_per_second\":8e7}}}";

/* The host's libiperf (the server, sending) with "error" set to `err`. */
static int host_says(const char *dut_text, const char *err, enum wl_proto proto,
		     struct run_result *res)
{
	char *host_text = xasprintf("{\"error\":\"%s\",\"end\":{\"sum_sent\":{\"seconds\":3,"
				    "\"bits_per_second\":5e7}}}", err);
	char *dut = path_join(dir, "dut-iperf.json"), *host = path_join(dir, "host-iperf.json");
	assert_int_equal(write_file_atomic(dut, dut_text, strlen(dut_text)), 0);
	assert_int_equal(write_file_atomic(host, host_text, strlen(host_text)), 0);
	struct workload w = { .name = "tcp-rx", .dir = WL_DUT_RX, .proto = proto,
			      .duration_s = 2, .streams = 1 };
	int ok = runner_iperf_metrics(&w, dut, host, res);
	free(host_text);
	free(dut);
	free(host);
	return ok;
}

/* libiperf 3.12's TCP_INFO read of a stream it closed at TEST_END is a
 * measurement when the DUT's intervals cover the test, without the host's
 * numbers; any other host error, a short transfer, or UDP is not. */
static void a_host_error_after_the_test_leaves_the_dut_numbers(void **state)
{
	(void)state;
	static struct run_result res;	/* large: not on the stack */
	const char *late = "getsockopt - Bad file descriptor";
	assert_int_equal(host_says(dut_tcp_rx, late, WL_TCP, &res), 1);
	assert_float_equal(metric(&res, "mbps"), 81, 1e-9);
	assert_true(isnan(metric(&res, "host_mbps")));
	assert_int_equal(host_says(dut_tcp_rx_short, late, WL_TCP, &res), 0);
	assert_non_null(strstr(res.reason, late));
	assert_int_equal(host_says(dut_tcp_rx, late, WL_UDP, &res), 0);
	assert_int_equal(host_says(dut_tcp_rx, "unable to receive results", WL_TCP, &res), 0);
	assert_non_null(strstr(res.reason, "unable to receive results"));
	assert_int_equal(host_says(dut_tcp_rx, "getsockopt - Bad file descriptor!", WL_TCP, &res), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(interval_spread_of_a_udp_receiver),
		cmocka_unit_test(a_host_error_after_the_test_leaves_the_dut_numbers),
		cmocka_unit_test(a_transfer_that_ran_its_course_is_told_apart),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
