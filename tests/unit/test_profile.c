/*
 * The parsers of the DUT profilers' output (measure/profile.c), on files a
 * real profiled run of the baseline kernel sent (tests/data/profile/; the
 * emulator's instruction counts of a real run too), and on the malformed
 * text a console may deliver.
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

static void test_insn_window(void **state)
{
	(void)state;
	char *text = fixture("insn-profile.txt");
	struct insn_window w;
	struct insn_fn e[4096];
	int n = insn_window_parse(text, &w, e, 4096);
	assert_true(n > 100);
	assert_int_equal(w.window, 1);
	assert_true(w.insns > 0 && w.insns == w.kernel + w.user);
	unsigned long long self = 0;
	int xmit = -1;
	for (int i = 0; i < n; i++) {
		self += e[i].self;
		if (!strcmp(e[i].function, "stmmac_xmit"))
			xmit = i;
	}
	/* every instruction of the window is some function's own */
	assert_int_equal(self, w.insns);
	assert_true(xmit >= 0);
	assert_true(e[xmit].inclusive);
	assert_true(e[xmit].incl > e[xmit].self && e[xmit].calls > 0);
	/* the driver's own code: stmmac_xmit's own instructions at least,
	 * and no more than all of it */
	assert_true(w.own > 0 && w.own < w.kernel);
	assert_true(e[xmit].incl_own >= e[xmit].self && e[xmit].incl_own < e[xmit].incl);
	/* more entries than room: counted, not stored */
	assert_int_equal(insn_window_parse(text, &w, e, 2), n);
	free(text);
}

static void test_insn_window_odd_lines(void **state)
{
	(void)state;
	struct insn_window w;
	struct insn_fn e[4];
	static const char head[] = "hb-insn 2\nwindow 3\ninsns 100\nkernel 90\nuser 10\nown 20\n";
	char text[512];
	/* not the plugin's, or cut short before "end" */
	assert_int_equal(insn_window_parse("", &w, e, 4), -1);
	assert_int_equal(insn_window_parse("hb-insn 1\nend\n", &w, e, 4), -1);
	assert_int_equal(insn_window_parse(head, &w, e, 4), -1);
	snprintf(text, sizeof(text), "%sfn a 60 2\nfn b 30 1 40 0 20\n[user] 10\nend\n", head);
	assert_int_equal(insn_window_parse(text, &w, e, 4), 2);
	assert_int_equal(w.window, 3);
	assert_int_equal(w.insns, 100);
	assert_int_equal(w.own, 20);
	assert_false(e[0].inclusive);
	assert_true(e[1].inclusive);
	assert_int_equal(e[1].incl, 40);
	assert_int_equal(e[1].incl_own, 20);
	/* entries that do not parse are skipped: three or four numbers (the
	 * inclusive ones of hb-insn 1), a sign, junk after them, no name, a
	 * count past 2^64 */
	snprintf(text, sizeof(text), "%sfn a 1 2 3\nfn a2 1 2 3 4\nfn b -1 2\nfn c 1 2 x\nfn \n"
		 "fn d 99999999999999999999 1\nfn e 5 6\nend\nfn f 1 1\n", head);
	assert_int_equal(insn_window_parse(text, &w, e, 4), 1);
	assert_string_equal(e[0].function, "e");
	/* a header line that does not parse leaves its value 0 */
	assert_int_equal(insn_window_parse("hb-insn 2\ninsns x\nend\n", &w, e, 4), 0);
	assert_int_equal(w.insns, 0);
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
		cmocka_unit_test(test_insn_window),
		cmocka_unit_test(test_insn_window_odd_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
