/*
 * lava_log: LAVA's log lines (recorded from a real lava-run, LAVA 2023.01)
 * read back as the lava-local backend needs them: the DUT's console text,
 * and the results with their measurements, including LAVA's tagged values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "deploy/lava_log.h"

static void target_line_gives_console_text(void **state)
{
	(void)state;
	struct lava_log_entry e;
	assert_int_equal(lava_log_parse("{\"dt\": \"2026-11-30T07:34:52.487324\", \"lvl\": \"target\", "
					"\"msg\": \"HB COUNTER id=x phase=before name=clock_ns value=8685\"}",
					&e), 0);
	assert_string_equal(e.lvl, "target");
	assert_string_equal(e.msg, "HB COUNTER id=x phase=before name=clock_ns value=8685");
}

static void results_line_with_tags_and_nesting(void **state)
{
	(void)state;
	struct lava_log_entry e;
	/* "extra" (a nested mapping) and a list come before the fields read */
	const char *line = "- {\"dt\": \"2026-11-30T07:35:08.284110\", \"lvl\": \"results\", \"msg\": "
			   "{\"extra\": {\"a\": [1, 2], \"case\": \"not-this\"}, \"case\": \"pps\", "
			   "\"definition\": \"0_hilbench-udp64-dut-tx\", \"endtc\": ! \"942\", "
			   "\"measurement\": ! \"724.268339\", \"result\": \"pass\", "
			   "\"starttc\": ! \"942\", \"units\": \"packets/s\"}}";
	assert_int_equal(lava_log_parse(line, &e), 0);
	assert_string_equal(e.lvl, "results");
	assert_string_equal(e.test_case, "pps");
	assert_string_equal(e.definition, "0_hilbench-udp64-dut-tx");
	assert_string_equal(e.measurement, "724.268339");
	assert_string_equal(e.result, "pass");
	assert_string_equal(e.units, "packets/s");
	assert_string_equal(e.msg, "");
}

static void debug_line_with_list_msg(void **state)
{
	(void)state;
	struct lava_log_entry e;
	assert_int_equal(lava_log_parse("{\"dt\": \"x\", \"lvl\": \"debug\", \"msg\": [\"-\\\\[ cut here\", "
					"\"/ #\"]}", &e), 0);
	assert_string_equal(e.lvl, "debug");
	assert_string_equal(e.msg, "");
}

static void not_a_log_line(void **state)
{
	(void)state;
	struct lava_log_entry e;
	static const char *const bad[] = {
		"", "plain text", "[1, 2]", "{\"dt\": \"x\"}", "{\"lvl\": [1]}",
		"{\"lvl\": \"target\", \"msg\": \"a\"} {", "{\"lvl\": \"target\"}\n---\n{\"lvl\": \"x\"}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(lava_log_parse(bad[i], &e), -1);
}

static void long_text_is_cut_not_overflowed(void **state)
{
	(void)state;
	static char line[3 * sizeof(((struct lava_log_entry *)0)->msg)];
	struct lava_log_entry e;
	int n = snprintf(line, sizeof(line), "{\"lvl\": \"target\", \"msg\": \"");
	memset(line + n, 'a', sizeof(line) - (size_t)n - 8);
	strcpy(line + sizeof(line) - 8, "\"}");
	assert_int_equal(lava_log_parse(line, &e), 0);
	assert_int_equal(strlen(e.msg), sizeof(e.msg) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(target_line_gives_console_text),
		cmocka_unit_test(results_line_with_tags_and_nesting),
		cmocka_unit_test(debug_line_with_list_msg),
		cmocka_unit_test(not_a_log_line),
		cmocka_unit_test(long_text_is_cut_not_overflowed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
