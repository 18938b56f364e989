/*
 * The parsers of the DUT profilers' output (measure/profile.c), on files a
 * real profiled run of the baseline kernel sent (tests/data/profile/), and
 * on the malformed text a console may deliver.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "measure/profile.h"
#include "util/util.h"

static char *fixture(const char *name)
{
	const char *home = getenv("HILBENCH_HOME");
	char *path = xasprintf("%s/tests/data/profile/%s", home ? home : ".", name);
	char *text = read_file(path, NULL);
	assert_non_null(text);
	free(path);
	return text;
}

static void test_function_profile(void **state)
{
	(void)state;
	char *text = fixture("function-profile.txt");
	struct fprof_entry e[16];
	int n = fprof_parse(text, e, 16);
	assert_int_equal(n, 8);
	assert_string_equal(e[0].function, "stmmac_xmit");
	assert_int_equal(e[0].hits, 11505);
	assert_float_equal(e[0].time_us, 1598495, 0.5);
	assert_string_equal(e[1].function, "hrtimer_start_range_ns");
	assert_int_equal(e[1].hits, 11539);
	assert_float_equal(e[1].time_us, 595595.5, 0.01);
	assert_string_equal(e[7].function, "hrtimer_try_to_cancel");
	/* more entries than room: counted, not stored */
	assert_int_equal(fprof_parse(text, e, 2), 8);
	free(text);
}

static void test_function_profile_rejects(void **state)
{
	(void)state;
	struct fprof_entry e[4];
	assert_int_equal(fprof_parse("", e, 4), -1);
	assert_int_equal(fprof_parse("stmmac_xmit 1 2 us\n", e, 4), -1);	/* no header */
	/* a header and nothing that parses: an empty profile, not an error */
	assert_int_equal(fprof_parse("  Function  Hit  Time\n  --------  ---\n"
				     "  foo  x  1 us\n  bar  3  1.5 ms\n  baz 3\n", e, 4), 0);
}

static void test_perf_report(void **state)
{
	(void)state;
	char *text = fixture("perf-report.txt");
	struct perf_sym e[256];
	unsigned long long samples;
	int n = perf_report_parse(text, e, 256, &samples);
	assert_true(n > 100);
	assert_int_equal(samples, 557);
	assert_string_equal(e[0].symbol, "_raw_spin_unlock_irqrestore");
	assert_float_equal(e[0].pct, 15.98, 1e-9);
	assert_true(e[0].kernel);
	double sum = 0;
	int user = 0;
	for (int i = 0; i < n; i++) {
		sum += e[i].pct;
		user += !e[i].kernel;
	}
	assert_true(sum > 99 && sum < 101);
	assert_true(user > 0);
	free(text);
}

static void test_perf_report_header_forms(void **state)
{
	(void)state;
	struct perf_sym e[4];
	unsigned long long samples;
	assert_int_equal(perf_report_parse("# Samples: 40K of event 'cpu-clock'\n"
					   "    50.00%  [k] a\n   50.00%  [.] b\n", e, 4, &samples), 2);
	assert_int_equal(samples, 40000);
	assert_false(e[1].kernel);
	assert_int_equal(perf_report_parse("    50.00%  [k] a\n", e, 4, &samples), -1);
	/* not entries: no bracket, a share over 100 %, no symbol */
	assert_int_equal(perf_report_parse("# Samples: 3\n 1.0% k x\n 150.0%  [k] y\n 1.0%  [k]\n",
					   e, 4, &samples), 0);
}

static void test_perf_stat(void **state)
{
	(void)state;
	char *text = fixture("perf-stat.csv");
	struct perf_count c[16];
	int n = perf_stat_parse(text, c, 16);
	assert_int_equal(n, 7);
	assert_string_equal(c[0].event, "timer:hrtimer_start");
	assert_int_equal(c[0].count, 9070);
	assert_int_equal(c[0].runtime_ns, 15096556784ull);
	assert_true(c[0].counted);
	assert_string_equal(c[5].event, "napi:napi_poll");
	assert_int_equal(c[5].count, 7149);
	free(text);
}

static void test_perf_stat_odd_lines(void **state)
{
	(void)state;
	struct perf_count c[4];
	assert_int_equal(perf_stat_parse("<not supported>,,cycles,0,100.00,,\n12,,x\n", c, 4), 2);
	assert_false(c[0].counted);
	assert_string_equal(c[0].event, "cycles");
	assert_true(c[1].counted);
	assert_int_equal(c[1].runtime_ns, 0);
	assert_int_equal(perf_stat_parse("# comment\n\n12\n12,,\nx,,ev,1\n", c, 4), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_function_profile),
		cmocka_unit_test(test_function_profile_rejects),
		cmocka_unit_test(test_perf_report),
		cmocka_unit_test(test_perf_report_header_forms),
		cmocka_unit_test(test_perf_stat),
		cmocka_unit_test(test_perf_stat_odd_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
