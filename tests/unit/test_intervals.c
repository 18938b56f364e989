/* intervals: the DUT's iperf3 intervals, warm-up left out; anything that
 * is not iperf3 JSON gives no intervals and no crash; a field missing or
 * not a finite number is NaN in the parsed intervals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

#include "store/intervals.h"

/* Cut from a run's dut-iperf.json (UDP 64 B, 1 s omitted, virtual time). */
static const char run[] =
	"{\"start\":{},\"intervals\":["
	"{\"streams\":[],\"sum\":{\"start\":0,\"end\":1.000046,\"bits_per_second\":1867700.1,"
	"\"packets\":3650,\"omitted\":true}},"
	"{\"streams\":[],\"sum\":{\"start\":0,\"end\":1.000012,\"bits_per_second\":1864220,"
	"\"packets\":3650,\"omitted\":false}},"
	"{\"streams\":[],\"sum\":{\"start\":1.000012,\"end\":2.000031,\"bits_per_second\":1867114,"
	"\"omitted\":false}}],\"end\":{}}";

static void intervals_after_the_warm_up(void **state)
{
	(void)state;
	double *t, *mbps;
	assert_int_equal(iperf_intervals(run, &t, &mbps), 2);
	assert_float_equal(t[0], 1.000012, 1e-12);
	assert_float_equal(mbps[0], 1.864220, 1e-12);
	assert_float_equal(t[1], 2.000031, 1e-12);
	assert_float_equal(mbps[1], 1.867114, 1e-12);
	free(t);
	free(mbps);
}

static void not_iperf_json_gives_nothing(void **state)
{
	(void)state;
	static const char *const bad[] = {
		NULL, "", "not json", "[1,2]", "{\"intervals\":{}}", "{\"intervals\":[1,\"x\",{}]}",
		"{\"intervals\":[{\"sum\":{\"end\":\"1\",\"bits_per_second\":5}}]}",
		"{\"intervals\":[{\"sum\":{\"end\":1,\"bits_per_second\":1e999}}]}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		double *t, *mbps;
		assert_int_equal(iperf_intervals(bad[i], &t, &mbps), 0);
		free(t);
		free(mbps);
	}
}

static void every_field_of_a_measured_interval(void **state)
{
	(void)state;
	cJSON *j = cJSON_Parse(run);
	struct iperf_interval *v;
	assert_int_equal(iperf_json_intervals(j, &v), 2);
	assert_float_equal(v[0].end, 1.000012, 1e-12);
	assert_float_equal(v[0].mbps, 1.864220, 1e-12);
	assert_float_equal(v[0].packets, 3650, 0);
	assert_true(isnan(v[0].seconds) && isnan(v[0].lost_packets));
	assert_true(isnan(v[1].packets));
	free(v);
	cJSON_Delete(j);

	j = cJSON_Parse("{\"intervals\":[7,{\"sum\":[]},{\"sum\":{\"seconds\":1.5,"
			"\"packets\":9,\"lost_packets\":\"2\",\"end\":1e999}}]}");
	assert_int_equal(iperf_json_intervals(j, &v), 1);
	assert_float_equal(v[0].seconds, 1.5, 0);
	assert_float_equal(v[0].packets, 9, 0);
	assert_true(isnan(v[0].lost_packets) && isnan(v[0].end) && isnan(v[0].mbps));
	free(v);
	cJSON_Delete(j);

	assert_int_equal(iperf_json_intervals(NULL, &v), 0);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(intervals_after_the_warm_up),
		cmocka_unit_test(not_iperf_json_gives_nothing),
		cmocka_unit_test(every_field_of_a_measured_interval),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
