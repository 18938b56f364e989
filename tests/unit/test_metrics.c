/* metrics: the table's lookups (names and families), the rules its rows
 * keep, and the two places that must agree with it: docs/metrics.md's
 * table and the names measure/runner.c stores. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/catalog.h"
#include "store/metrics.h"
#include "util/util.h"

static void a_name_finds_its_row(void **state)
{
	(void)state;
	const struct metric_def *m = metric_find(METRIC_PPS);
	assert_non_null(m);
	assert_string_equal(m->name, "pps");
	assert_string_equal(m->unit, "packets/s");
	assert_int_equal(m->better, BETTER_HIGHER);
	assert_int_equal(m->shown, SHOWN_HEADLINE);
	assert_string_equal(metric_find("cpu_busy_pct")->unit, "%");
	assert_null(metric_find("nonesuch"));
	assert_null(metric_find(""));
	assert_null(metric_find("pps "));
}

static void a_generated_name_finds_its_family(void **state)
{
	(void)state;
	assert_string_equal(metric_find("ethtool.tx_clean")->name, "ethtool.<stat>");
	assert_string_equal(metric_find("hrtimer_start.stmmac_tx_timer")->unit, "events");
	assert_string_equal(metric_find("napi_poll.eth0")->name, "napi_poll.<dev>");
	assert_string_equal(metric_find("coalesce_tx_usecs")->unit, "us");
	assert_string_equal(metric_find("coalesce_rx_frames")->unit, "frames");
	/* the family with more literal characters wins, whatever the order */
	assert_string_equal(metric_find("perf_stat.hrtimer_start_per_s")->unit, "events/s");
	assert_string_equal(metric_find("perf_stat.hrtimer_start")->unit, "events");
	/* a name is never taken for a family's */
	assert_string_equal(metric_find("hrtimer_starts_per_pkt")->name, "hrtimer_starts_per_pkt");
	/* the placeholder stands for at least one character */
	assert_null(metric_find("ethtool."));
	assert_null(metric_find("coalesce__usecs"));
	assert_null(metric_find("ethtool"));
}

/* A placeholder count of a name: 0 for a metric, 1 for a family. */
static int placeholders(const char *name)
{
	int n = 0;
	for (const char *p = strchr(name, '<'); p; p = strchr(p + 1, '<'))
		n++;
	return n;
}

static void every_row_keeps_the_rules(void **state)
{
	(void)state;
	size_t reported = 0;
	for (size_t i = 0; i < n_metric_defs; i++) {
		const struct metric_def *m = &metric_defs[i];
		assert_true(placeholders(m->name) <= 1);
		if (placeholders(m->name))
			assert_non_null(strchr(strchr(m->name, '<'), '>'));
		assert_true(*m->unit && *m->what && *m->how);
		/* reports compare these: a plain name and a direction */
		if (m->shown >= SHOWN_REPORTS) {
			assert_int_equal(placeholders(m->name), 0);
			assert_int_not_equal(m->better, BETTER_NONE);
			reported++;
		}
		for (size_t k = 0; k < i; k++)
			assert_string_not_equal(m->name, metric_defs[k].name);
		/* a row of docs/metrics.md: no cell may end early */
		for (const char *t = m->what; (t = strchr(t, '|')); t++)
			assert_true(t > m->what && t[-1] == '\\');
		for (const char *t = m->how; (t = strchr(t, '|')); t++)
			assert_true(t > m->how && t[-1] == '\\');
		/* a plain row is found as itself */
		if (!placeholders(m->name))
			assert_ptr_equal(metric_find(m->name), m);
		/* the emulator's counts make every insn_ metric; what needs them
		 * says so, or a stored run without them would stand for one with
		 * them (run/gate_loop.c's reuse) */
		if (!strncmp(m->name, "insn_", 5) || strstr(m->name, "_insn_"))
			assert_int_equal(m->needs, NEEDS_INSN_COUNTS);
		if (!strncmp(m->name, "dump_", 5))
			assert_int_equal(m->needs, NEEDS_LINK_RECORD);
	}
	assert_int_equal(metric_find("mbps_acked")->needs, NEEDS_LINK_RECORD);
	assert_int_equal(metric_find("mbps")->needs, NEEDS_RUN);
	assert_true(reported >= 2);
	assert_string_equal(metric_better_name(BETTER_LOWER), "lower");
	assert_string_equal(metric_shown_name(SHOWN_REPORTS), "reports");
	assert_string_equal(metric_needs_name(NEEDS_LINK_RECORD), "link record");
}

static char *read_home_file(const char *rel)
{
	char *path = path_join(hb_home(), rel);
	char *text = read_file(path, NULL);
	if (!text)
		fail_msg("cannot read %s (HILBENCH_HOME is the clone)", path);
	free(path);
	return text;
}

static void docs_metrics_md_has_the_table(void **state)
{
	(void)state;
	char *want = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&want, &len);
	assert_non_null(out);
	metrics_write_markdown(out);
	fclose(out);
	char *doc = read_home_file("docs/metrics.md");
	static const char end[] = "<!-- end of the metric table -->";
	char *begin = strstr(doc, "| metric | unit | better |");
	char *stop = begin ? strstr(begin, end) : NULL;
	if (!stop || (size_t)(stop - begin) != len || memcmp(begin, want, len))
		fail_msg("docs/metrics.md's table is not store/metrics.c's: replace it, up to "
			 "'%s', with the output of `build/hilbench list metrics --md`", end);
	free(doc);
	free(want);
}

/* Every name measure/runner.c stores as a literal has a row (the names it
 * makes with snprintf are families; test_runner_* store those). */
static void every_name_the_runner_stores_has_a_row(void **state)
{
	(void)state;
	char *src = read_home_file("harness/src/measure/runner.c");
	static const char call[] = "add_metric(res, \"";
	size_t found = 0;
	for (char *p = strstr(src, call); p; p = strstr(p + 1, call)) {
		char name[96];
		const char *q = p + strlen(call);
		size_t n = strcspn(q, "\"");
		assert_true(n < sizeof(name));
		memcpy(name, q, n);
		name[n] = '\0';
		if (!metric_find(name))
			fail_msg("measure/runner.c stores '%s', which has no row in store/metrics.c",
				 name);
		found++;
	}
	assert_true(found >= 30);
	free(src);
}

/* Every metric a driver file makes of its statistics has a row: a ratio,
 * beside the ethtool.<stat> family. */
static void every_metric_a_driver_file_makes_has_a_row(void **state)
{
	(void)state;
	struct strlist names = { 0 };
	assert_int_equal(catalog_names("driver", &names), 0);
	assert_true(names.n >= 1);
	for (size_t i = 0; i < names.n; i++) {
		struct driver dr;
		assert_int_equal(catalog_driver(names.v[i], &dr), 0);
		const struct driver_stat *st = dr.stats.v;
		for (size_t k = 0; k < dr.stats.n; k++) {
			const struct metric_def *m = metric_find(st[k].metric);
			if (!m)
				fail_msg("drivers/%s.yaml: metric '%s' has no row in store/metrics.c",
					 names.v[i], st[k].metric);
			assert_string_equal(m->unit, "ratio");
			char *fam = xasprintf("ethtool.%s", st[k].stat);
			assert_non_null(metric_find(fam));
			free(fam);
		}
		driver_free(&dr);
	}
	strlist_free(&names);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_name_finds_its_row),
		cmocka_unit_test(a_generated_name_finds_its_family),
		cmocka_unit_test(every_row_keeps_the_rules),
		cmocka_unit_test(docs_metrics_md_has_the_table),
		cmocka_unit_test(every_name_the_runner_stores_has_a_row),
		cmocka_unit_test(every_metric_a_driver_file_makes_has_a_row),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
