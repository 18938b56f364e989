/* runner: the iperf3 part of a run's metrics from the two JSON files
 * (runner_iperf_metrics()), here the per-interval spread: stddev over the
 * measured intervals, warm-up left out, a UDP receiver's packets/s less
 * its lost packets. The JSON is written by the test, shaped as iperf3's. */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(interval_spread_of_a_udp_receiver),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
