/*
 * Runtime settings: the settings/ catalog, `setting:` lines in series
 * files, plan sweeps (values, ranges, every mistake at its FILE:LINE), and
 * the sweep curves reports draw from labelled cells.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "analyze/sweep.h"
#include "config/catalog.h"
#include "config/plan.h"
#include "config/setting.h"
#include "config/strategy.h"
#include "store/store.h"
#include "util/util.h"

static char err[2048];

/* ---- the catalog ---- */

static void test_shipped_settings_load(void **state)
{
	(void)state;
	struct strlist names = { 0 };
	assert_int_equal(catalog_names("setting", &names), 0);
	assert_true(names.n >= 10);
	for (size_t i = 0; i < names.n; i++) {
		struct setting_def s;
		if (setting_find(names.v[i], &s, err, sizeof(err)) < 0)
			print_error("%s\n", err);
		assert_string_equal(s.name, names.v[i]);
		setting_free(&s);
	}
	strlist_free(&names);
	struct setting_def s;
	assert_int_equal(setting_find("tx-usecs", &s, err, sizeof(err)), 0);
	assert_int_equal(s.method, SM_ETHTOOL_COALESCE);
	assert_string_equal(s.key, "tx-usecs");
	setting_free(&s);
	assert_int_equal(setting_find("rps-cpus", &s, err, sizeof(err)), 0);
	assert_int_equal(s.method, SM_SYSFS_NET);
	assert_string_equal(s.key, "queues/rx-0/rps_cpus");
	setting_free(&s);
}

static void test_unknown_setting_lists_known(void **state)
{
	(void)state;
	struct setting_def s;
	assert_int_equal(setting_find("tx-usec", &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no setting 'tx-usec'"));
	assert_non_null(strstr(err, "tx-usecs"));
	assert_int_equal(setting_find("../boards/x", &s, err, sizeof(err)), -1);
}

static void test_values_and_read_back(void **state)
{
	(void)state;
	struct setting_def usecs, mask;
	assert_int_equal(setting_find("tx-usecs", &usecs, err, sizeof(err)), 0);
	assert_int_equal(setting_find("irq-affinity", &mask, err, sizeof(err)), 0);
	assert_int_equal(setting_check_value(&usecs, "5000", err, sizeof(err)), 0);
	assert_int_equal(setting_check_value(&usecs, "-1", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "decimal integer"));
	assert_int_equal(setting_check_value(&usecs, "5ms", err, sizeof(err)), -1);
	assert_int_equal(setting_check_value(&mask, "f", err, sizeof(err)), 0);
	assert_int_equal(setting_check_value(&mask, "xyz", err, sizeof(err)), -1);
	assert_true(setting_same_value(&usecs, "5000", "5000"));
	assert_false(setting_same_value(&usecs, "5000", "4999"));
	assert_false(setting_same_value(&usecs, "5000", "n/a"));
	/* the kernel prints masks zero-padded, in 32-bit groups */
	assert_true(setting_same_value(&mask, "1", "00000001"));
	assert_true(setting_same_value(&mask, "100000000", "1,00000000"));
	assert_false(setting_same_value(&mask, "3", "1"));
	setting_free(&usecs);
	setting_free(&mask);
}

static void test_qdisc_setting(void **state)
{
	(void)state;
	struct setting_def q;
	assert_int_equal(setting_find("qdisc", &q, err, sizeof(err)), 0);
	assert_int_equal(q.method, SM_QDISC);
	assert_string_equal(setting_method_name(q.method), "qdisc");
	assert_string_equal(q.key, "root");
	assert_int_equal(q.read_back, SR_NAME);
	assert_int_equal(setting_check_value(&q, "fq_codel", err, sizeof(err)), 0);
	assert_int_equal(setting_check_value(&q, "pfifo_fast", err, sizeof(err)), 0);
	/* upper case, '-', '@' or '=' are no kernel qdisc names; '@' and '='
	 * would also break a sweep label */
	const char *bad[] = { "FQ", "fq-codel", "a@b", "a=b", "" };
	for (size_t i = 0; i < HB_ARRAY_SIZE(bad); i++) {
		assert_int_equal(setting_check_value(&q, bad[i], err, sizeof(err)), -1);
		assert_non_null(strstr(err, "qdisc wants a name of [a-z0-9_]"));
	}
	assert_true(setting_same_value(&q, "fq_codel", "fq_codel"));
	assert_false(setting_same_value(&q, "fq_codel", "fq"));
	assert_false(setting_same_value(&q, "fq", "fq_codel"));
	setting_free(&q);
}

/* A settings file whose method and read_back do not go together, or a
 * qdisc setting anywhere but the root, is refused at its key. */
static void test_qdisc_setting_file_errors(void **state)
{
	(void)state;
	static const struct {
		const char *text, *phrase;
		int line;
	} cases[] = {
		{ "name: q\ndescription: d\nmethod: qdisc\nkey: ingress\nread_back: name\n",
		  "a qdisc setting replaces the root qdisc; write key: root", 4 },
		{ "name: q\ndescription: d\nmethod: qdisc\nkey: root\nread_back: integer\n",
		  "'read_back' integer does not fit method qdisc", 5 },
		{ "name: q\ndescription: d\nmethod: sysfs-net\nkey: mtu\nread_back: name\n",
		  "'read_back' name does not fit method sysfs-net", 5 },
	};
	char dir[] = "/tmp/hb-test-knobs.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = path_join(dir, "q.yaml");
	for (size_t i = 0; i < HB_ARRAY_SIZE(cases); i++) {
		struct setting_def s;
		assert_int_equal(write_file_atomic(path, cases[i].text, strlen(cases[i].text)), 0);
		assert_int_equal(setting_load(path, &s, err, sizeof(err)), -1);
		char *prefix = xasprintf("%s:%d:", path, cases[i].line);
		if (strncmp(err, prefix, strlen(prefix)) || !strstr(err, cases[i].phrase))
			print_error("got: %s\nwant: %s...%s\n", err, prefix, cases[i].phrase);
		assert_int_equal(strncmp(err, prefix, strlen(prefix)), 0);
		assert_non_null(strstr(err, cases[i].phrase));
		free(prefix);
	}
	rm_rf(dir);
	free(path);
}

static void test_put_and_split(void **state)
{
	(void)state;
	struct strlist l = { 0 };
	setting_put(&l, "tx-usecs", "1000");
	setting_put(&l, "tx-frames", "1");
	setting_put(&l, "tx-usecs", "5000");
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[0], "tx-usecs=5000");
	char name[32];
	const char *value;
	assert_int_equal(setting_split(l.v[1], name, sizeof(name), &value), 0);
	assert_string_equal(name, "tx-frames");
	assert_string_equal(value, "1");
	assert_int_equal(setting_split("novalue", name, sizeof(name), &value), -1);
	strlist_free(&l);
}

/* ---- series files ---- */

static void test_knob_strategies(void **state)
{
	(void)state;
	struct strategy s;
	assert_int_equal(strategy_load("6.1", "knob-tx-usecs-5000", &s, err, sizeof(err)), 0);
	assert_int_equal(s.patches.n, 0);	/* the baseline kernel */
	assert_int_equal(s.settings.n, 1);
	assert_string_equal(s.settings.v[0], "tx-usecs=5000");
	strategy_free(&s);
	assert_int_equal(strategy_load("6.1", "knob-irq-coalescing", &s, err, sizeof(err)), 0);
	assert_int_equal(s.settings.n, 2);
	assert_string_equal(s.settings.v[0], "napi_defer_hard_irqs=1");
	assert_string_equal(s.settings.v[1], "gro_flush_timeout=20000");
	strategy_free(&s);
	assert_int_equal(strategy_load("6.1", "baseline", &s, err, sizeof(err)), 0);
	assert_int_equal(s.settings.n, 0);
	strategy_free(&s);
}

struct series_case {
	const char *name, *text;
	int user;		/* loaded as a user's series (no settings list) */
	int line;		/* 0: loads */
	const char *phrase;
};

static void run_series_case(void **state)
{
	const struct series_case *c = *state;
	char dir[] = "/tmp/hb-test-knobs.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = path_join(dir, "series");
	assert_int_equal(write_file_atomic(path, c->text, strlen(c->text)), 0);
	struct strlist patches = { 0 }, upstream = { 0 }, settings = { 0 };
	err[0] = '\0';
	int rc = series_file_load(path, &patches, NULL, &upstream, c->user ? NULL : &settings, NULL,
				  err, sizeof(err));
	char *prefix = xasprintf("%s:%d: ", path, c->line);
	int ok = c->line ? rc == -1 && !strncmp(err, prefix, strlen(prefix)) &&
			   strstr(err, c->phrase)
			 : rc == 0 && settings.n == 2;
	if (!ok)
		print_error("got: %s\nwant: %s...%s\n", err, prefix, c->phrase ? c->phrase : "");
	free(prefix);
	strlist_free(&patches);
	strlist_free(&upstream);
	strlist_free(&settings);
	rm_rf(dir);
	free(path);
	assert_true(ok);
}

static const struct series_case series_cases[] = {
	{ "series: two settings load", "# d\nsetting: tx-usecs 5000\nsetting: tx-frames 1\n",
	  0, 0, NULL },
	{ "series: unknown setting", "# d\nsetting: tx-usec 5000\n", 0, 2,
	  "no setting 'tx-usec'" },
	{ "series: bad value", "# d\n\nsetting: tx-usecs five\n", 0, 3,
	  "tx-usecs wants a decimal integer, got 'five'" },
	{ "series: no value", "setting: tx-usecs\n", 0, 1, "write 'setting: <name> <value>'" },
	{ "series: extra word", "setting: tx-usecs 1 2\n", 0, 1,
	  "write 'setting: <name> <value>'" },
	{ "series: set twice", "setting: tx-usecs 1\nsetting: tx-usecs 2\n", 0, 2,
	  "tx-usecs is set twice" },
	{ "series: a qdisc and a timer", "setting: qdisc fq_codel\nsetting: tx-usecs 0\n", 0, 0,
	  NULL },
	{ "series: a qdisc is a name", "setting: qdisc FQ-Codel\n", 0, 1,
	  "qdisc wants a name of [a-z0-9_] (e.g. fq_codel), got 'FQ-Codel'" },
	{ "series: a user's series sets nothing", "setting: tx-usecs 1\n", 1, 1,
	  "'setting:' is only for strategies" },
};

/* ---- plan sweeps ---- */

static const char plan_head[] =
	"name: tmp-plan\n"				/* 1 */
	"description: test plan\n"
	"boards: [tmp-board]\n"
	"strategies: [baseline, gating]\n"
	"workloads: [tmp-wl]\n"			/* 5 */
	"repetitions: 2\n"
	"timing: virtual\n"
	"sweeps:\n";					/* 8 */

struct sweep_case {
	const char *name, *sweeps;
	int line, col;		/* 0: loads */
	const char *phrase;
	const char *values;	/* when it loads: the first sweep's values, joined by ' ' */
};

static void run_sweep_case(void **state)
{
	const struct sweep_case *c = *state;
	char dir[] = "/tmp/hb-test-knobs.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = path_join(dir, "tmp-plan.yaml");
	char *text = xasprintf("%s%s", plan_head, c->sweeps);
	assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
	struct plan p;
	err[0] = '\0';
	int rc = plan_load(path, &p, err, sizeof(err));
	int ok;
	if (c->line) {
		char *prefix = xasprintf("%s:%d:%d: ", path, c->line, c->col);
		ok = rc == -1 && !strncmp(err, prefix, strlen(prefix)) && strstr(err, c->phrase);
		if (!ok)
			print_error("got: %s\nwant: %s...%s\n", err, prefix, c->phrase);
		free(prefix);
	} else {
		ok = rc == 0;
		if (ok) {
			const struct sweep *sw = p.sweeps.v;
			char *got = argv_join(&sw[0].values, " ");
			ok = !strcmp(got, c->values);
			if (!ok)
				print_error("values: got '%s', want '%s'\n", got, c->values);
			free(got);
			plan_free(&p);
		} else {
			print_error("%s\n", err);
		}
	}
	rm_rf(dir);
	free(text);
	free(path);
	assert_true(ok);
}

static const struct sweep_case sweep_cases[] = {
	{ "sweep: values", "  - setting: tx-usecs\n    values: [250, 1000, 40000]\n", 0, 0,
	  NULL, "250 1000 40000" },
	{ "sweep: range by step", "  - setting: napi_defer_hard_irqs\n"
	  "    range: {from: 0, to: 6, step: 2}\n", 0, 0, NULL, "0 2 4 6" },
	{ "sweep: range by factor", "  - setting: tx-usecs\n"
	  "    range: {from: 250, to: 40000, factor: 4}\n"
	  "    strategies: [baseline]\n", 0, 0, NULL, "250 1000 4000 16000" },
	{ "sweep: unknown setting", "  - setting: tx-usec\n    values: [1]\n", 9, 14,
	  "no setting 'tx-usec'", NULL },
	{ "sweep: values and range", "  - setting: tx-usecs\n    values: [1]\n"
	  "    range: {from: 1, to: 2, step: 1}\n", 9, 5, "exactly one of 'values'", NULL },
	{ "sweep: neither", "  - setting: tx-usecs\n", 9, 5, "exactly one of 'values'", NULL },
	{ "sweep: step and factor", "  - setting: tx-usecs\n"
	  "    range: {from: 1, to: 2, step: 1, factor: 2}\n", 10, 12, "exactly one of 'step'",
	  NULL },
	{ "sweep: to below from", "  - setting: tx-usecs\n"
	  "    range: {from: 10, to: 2, step: 1}\n", 10, 27, "'to' (2) is below 'from' (10)",
	  NULL },
	{ "sweep: factor from 0", "  - setting: tx-usecs\n"
	  "    range: {from: 0, to: 2, factor: 2}\n", 10, 19, "must start above 0", NULL },
	{ "sweep: too many points", "  - setting: tx-usecs\n"
	  "    range: {from: 1, to: 1000, step: 1}\n", 10, 12, "more than 64 points", NULL },
	{ "sweep: bad value", "  - setting: napi_defer_hard_irqs\n    values: [0, lots]\n",
	  10, 17, "wants a decimal integer, got 'lots'", NULL },
	{ "sweep: value twice", "  - setting: tx-usecs\n    values: [5, 7, 5]\n", 10, 20,
	  "5 is listed twice", NULL },
	{ "sweep: a mask has no range", "  - setting: rps-cpus\n"
	  "    range: {from: 1, to: 3, step: 1}\n", 10, 12, "is a mask; list its 'values'", NULL },
	{ "sweep: qdiscs", "  - setting: qdisc\n    values: [pfifo_fast, fq_codel, noqueue]\n",
	  0, 0, NULL, "pfifo_fast fq_codel noqueue" },
	{ "sweep: a name has no range", "  - setting: qdisc\n"
	  "    range: {from: 1, to: 3, step: 1}\n", 10, 12, "is a name; list its 'values'", NULL },
	{ "sweep: unknown key", "  - setting: tx-usecs\n    value: [1]\n", 10, 5,
	  "unknown key 'value'", NULL },
};

/* Every strategy a plan names, its sweeps' too, exists for the series;
 * the first that does not is named at its FILE:LINE:COL. */
static void test_sweep_strategies_checked(void **state)
{
	(void)state;
	static const struct {
		const char *strategies, *sweeps;
		int line, col;	/* 0: all exist */
	} cases[] = {
		{ "[baseline, gating]", "  - setting: tx-usecs\n    values: [0, 1000]\n"
		  "    strategies: [baseline]\n", 0, 0 },
		{ "[baseline, gating]", "  - setting: tx-usecs\n    values: [0, 1000]\n"
		  "  - setting: tx-usecs\n    values: [0]\n"
		  "    strategies: [revert, gatting]\n", 13, 26 },
		{ "[baseline, gatting]", "  - setting: tx-usecs\n    values: [0]\n"
		  "    strategies: [nosuch]\n", 4, 24 },
	};
	for (size_t i = 0; i < HB_ARRAY_SIZE(cases); i++) {
		char dir[] = "/tmp/hb-test-knobs.XXXXXX";
		assert_non_null(mkdtemp(dir));
		char *path = path_join(dir, "tmp-plan.yaml");
		char *text = xasprintf("name: tmp-plan\ndescription: test plan\nboards: [tmp-board]\n"
				       "strategies: %s\nworkloads: [tmp-wl]\nrepetitions: 2\n"
				       "timing: virtual\nsweeps:\n%s", cases[i].strategies,
				       cases[i].sweeps);
		assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
		struct plan p;
		if (plan_load(path, &p, err, sizeof(err)) < 0)
			fail_msg("%s", err);
		err[0] = '\0';
		int rc = plan_check_strategies(&p, "6.1", "tmp-board", err, sizeof(err));
		char *prefix = xasprintf("%s:%d:%d: ", path, cases[i].line, cases[i].col);
		int ok = cases[i].line ? rc == -1 && !strncmp(err, prefix, strlen(prefix)) &&
					 strstr(err, "no such strategy") && strstr(err, "(for board tmp-board)")
				       : rc == 0;
		if (!ok)
			print_error("case %zu: got %d '%s', want %s\n", i, rc, err,
				    cases[i].line ? prefix : "ok");
		plan_free(&p);
		rm_rf(dir);
		free(prefix);
		free(text);
		free(path);
		assert_true(ok);
	}
}

/* ---- sweep curves from labelled cells ---- */

static void test_label_parse(void **state)
{
	(void)state;
	char st[64], set[64];
	double x;
	assert_int_equal(sweep_label_parse("baseline@tx-usecs=1000", st, sizeof(st), set,
					   sizeof(set), &x), 0);
	assert_string_equal(st, "baseline");
	assert_string_equal(set, "tx-usecs");
	assert_true(x == 1000);
	assert_int_equal(sweep_label_parse("baseline", st, sizeof(st), set, sizeof(set), &x), -1);
	assert_int_equal(sweep_label_parse("@tx-usecs=1", st, sizeof(st), set, sizeof(set), &x), -1);
	assert_int_equal(sweep_label_parse("b@=1", st, sizeof(st), set, sizeof(set), &x), -1);
	assert_int_equal(sweep_label_parse("b@rps-cpus=ff", st, sizeof(st), set, sizeof(set), &x),
			 -1);
	assert_int_equal(sweep_label_parse("b@x=", st, sizeof(st), set, sizeof(set), &x), -1);
}

static void add_series(struct dataset *d, const char *strategy, const char *metric, double a,
		       double b)
{
	d->s = xrealloc(d->s, (d->n + 1) * sizeof(*d->s));
	struct series *s = &d->s[d->n++];
	memset(s, 0, sizeof(*s));
	s->workload = xstrdup("wl");
	s->strategy = xstrdup(strategy);
	s->metric = xstrdup(metric);
	s->unit = xstrdup("u");
	s->first_run = xstrdup("r");
	s->v = xcalloc(2, sizeof(double));
	s->v[0] = a;
	s->v[1] = b;
	s->n = 2;
	int seen = 0;
	for (size_t i = 0; i < d->strategies.n; i++)
		seen |= !strcmp(d->strategies.v[i], strategy);
	if (!seen)
		strlist_push(&d->strategies, strategy);
}

static void test_collect_curves(void **state)
{
	(void)state;
	struct dataset d;
	memset(&d, 0, sizeof(d));
	strlist_push(&d.workloads, "wl");
	add_series(&d, "baseline", "pps", 1, 1);		/* not a sweep point */
	add_series(&d, "gating@tx-usecs=4000", "pps", 30, 32);
	add_series(&d, "gating@tx-usecs=250", "pps", 10, 12);
	add_series(&d, "gating@tx-usecs=1000", "pps", 40, 42);
	add_series(&d, "baseline@tx-usecs=250", "pps", 5, 5);
	add_series(&d, "baseline@tx-usecs=1000", "pps", 5, 5);
	add_series(&d, "gating@tx-usecs=250", "cpu_busy_pct", 90, 90);
	add_series(&d, "gating@tx-usecs=1000", "cpu_busy_pct", 80, 82);
	struct sweep_set ss;
	sweep_collect(&d, &ss);
	assert_int_equal(ss.n, 2);	/* pps and cpu_busy_pct over tx-usecs */
	const struct sweep_plot *pps = &ss.plots[0];
	assert_string_equal(pps->metric, "pps");
	assert_string_equal(pps->setting, "tx-usecs");
	assert_int_equal(pps->n, 2);
	const struct sweep_curve *g = &pps->c[0];
	assert_string_equal(g->strategy, "gating");
	assert_int_equal(g->n, 3);
	assert_true(g->p[0].x == 250 && g->p[1].x == 1000 && g->p[2].x == 4000);
	assert_int_equal(g->best, 1);	/* higher pps is better */
	assert_true(g->p[1].sum.mean == 41);
	const struct sweep_plot *cpu = &ss.plots[1];
	assert_int_equal(cpu->c[0].best, 1);	/* lower CPU is better: 81 at 1000 */

	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	sweep_write_text(&ss, out, 0);
	cJSON *root = cJSON_CreateObject();
	sweep_add_json(&ss, root);
	int plot_id = 0;
	sweep_write_svg(&ss, &d, out, &plot_id);
	fclose(out);
	assert_non_null(strstr(text, "wl / pps (higher is better) / tx-usecs: gating best at 1000: 41"));
	assert_non_null(strstr(text, "tx-usecs: baseline all points alike"));
	assert_int_equal(plot_id, 2);
	assert_non_null(strstr(text, "<svg class=\"plot sweep\" id=\"plot-1\""));
	assert_null(strstr(text, "log scale"));	/* 250..4000 spans 16x, under 20x */
	char *json = cJSON_PrintUnformatted(root);
	assert_non_null(strstr(json, "\"best\":\"gating@tx-usecs=1000\""));
	free(json);
	cJSON_Delete(root);
	free(text);
	sweep_set_free(&ss);
	dataset_free(&d);
}

static void test_svg_escapes(void **state)
{
	(void)state;
	struct dataset d;
	memset(&d, 0, sizeof(d));
	strlist_push(&d.workloads, "wl");
	add_series(&d, "<b>&@x\"=1", "pps", 1, 2);
	add_series(&d, "<b>&@x\"=2", "pps", 3, 4);
	struct sweep_set ss;
	sweep_collect(&d, &ss);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	int plot_id = 0;
	sweep_write_svg(&ss, &d, out, &plot_id);
	fclose(out);
	assert_null(strstr(text, "<b>"));
	assert_non_null(strstr(text, "&lt;b&gt;&amp;"));
	assert_non_null(strstr(text, "x&quot;"));
	free(text);
	sweep_set_free(&ss);
	dataset_free(&d);
}

/* A knob switched off (0) among values spanning decades: still a log axis,
 * 0 at its left edge. */
static void test_svg_log_axis_with_zero(void **state)
{
	(void)state;
	struct dataset d;
	memset(&d, 0, sizeof(d));
	strlist_push(&d.workloads, "wl");
	add_series(&d, "b@tx-usecs=0", "pps", 1, 2);
	add_series(&d, "b@tx-usecs=250", "pps", 1, 2);
	add_series(&d, "b@tx-usecs=40000", "pps", 3, 4);
	struct sweep_set ss;
	sweep_collect(&d, &ss);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	int plot_id = 0;
	sweep_write_svg(&ss, &d, out, &plot_id);
	fclose(out);
	assert_non_null(strstr(text, "log scale"));
	/* 0 and the smallest value: distinct ticks, 0 on the axis (x = 90) */
	assert_non_null(strstr(text, "<text class=\"tick\" x=\"90.0\" y=\"238\" text-anchor=\"middle\">0</text>"));
	assert_non_null(strstr(text, ">250</text>"));
	free(text);
	sweep_set_free(&ss);
	dataset_free(&d);
}

/* ---- the store: schema 1 stores get runs.attempt and runs.settings ---- */

static int count_rows(const struct run_row *r, void *ctx)
{
	(void)r;
	++*(int *)ctx;
	return 0;
}

static void test_store_migration(void **state)
{
	(void)state;
	char dir[] = "/tmp/hb-test-knobs.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *db = path_join(dir, "hilbench.db");
	sqlite3 *h;
	/* the schema hilbench wrote before settings existed, with one run */
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h,
		"CREATE TABLE runs(id TEXT PRIMARY KEY, session TEXT, plan TEXT,"
		" board TEXT NOT NULL, strategy TEXT NOT NULL, workload TEXT NOT NULL,"
		" repetition INTEGER NOT NULL, boot_id TEXT,"
		" class TEXT NOT NULL CHECK (class IN ('pass','fail','error','miss')), reason TEXT,"
		" timing TEXT NOT NULL, started TEXT NOT NULL, ended TEXT NOT NULL,"
		" kernel_version TEXT, kernel_release TEXT, build_key TEXT, config_sha256 TEXT,"
		" build_manifest TEXT, patches TEXT, initramfs_sha256 TEXT, emulator TEXT,"
		" hilbench_commit TEXT, host TEXT, artifacts TEXT);"
		"CREATE TABLE metrics(run_id TEXT NOT NULL REFERENCES runs(id), name TEXT NOT NULL,"
		" value REAL NOT NULL, unit TEXT NOT NULL, source TEXT NOT NULL,"
		" PRIMARY KEY (run_id, name));"
		"INSERT INTO runs(id, board, strategy, workload, repetition, class, timing, started,"
		" ended) VALUES ('old', 'b', 'baseline', 'w', 1, 'pass', 'virtual', 'a', 'b');"
		"INSERT INTO metrics VALUES ('old', 'pps', 1.0, 'packets/s', 'test');"
		"PRAGMA user_version = 1;", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);

	struct store *st = store_open(dir);
	assert_non_null(st);
	struct run_record r = { .session = "s", .board = "b", .strategy = "baseline@tx-usecs=0",
				.workload = "w", .repetition = 1, .cls = RUN_FAIL,
				.reason = "refused", .timing = "virtual", .started = "c",
				.ended = "d", .settings = "[{\"name\":\"tx-usecs\"}]" };
	strcpy(r.id, "new");
	assert_int_equal(store_add_run(st, &r), 0);
	int rows = 0;
	struct selection sel = { .all_classes = 1 };
	assert_int_equal(store_foreach(st, &sel, count_rows, &rows), 0);
	assert_int_equal(rows, 2);	/* the old run's metric and the new failed run */
	store_close(st);
	/* opening again changes nothing */
	st = store_open(dir);
	assert_non_null(st);
	store_close(st);

	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	sqlite3_stmt *q;
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT (SELECT user_version FROM pragma_user_version),"
					    " (SELECT settings FROM runs WHERE id='old'),"
					    " (SELECT settings FROM runs WHERE id='new')", -1, &q, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	/* 2: attempt, 3: settings, 4: decisions, 5: workload digests and reuse,
	 * 6: the saved boot a run's boot started from */
	assert_int_equal(sqlite3_column_int(q, 0), 6);
	assert_int_equal(sqlite3_column_type(q, 1), SQLITE_NULL);
	assert_string_equal((const char *)sqlite3_column_text(q, 2), "[{\"name\":\"tx-usecs\"}]");
	sqlite3_finalize(q);
	sqlite3_close(h);
	rm_rf(dir);
	free(db);
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_shipped_settings_load),
		cmocka_unit_test(test_unknown_setting_lists_known),
		cmocka_unit_test(test_values_and_read_back),
		cmocka_unit_test(test_qdisc_setting),
		cmocka_unit_test(test_qdisc_setting_file_errors),
		cmocka_unit_test(test_put_and_split),
		cmocka_unit_test(test_knob_strategies),
		cmocka_unit_test(test_label_parse),
		cmocka_unit_test(test_collect_curves),
		cmocka_unit_test(test_svg_escapes),
		cmocka_unit_test(test_svg_log_axis_with_zero),
		cmocka_unit_test(test_store_migration),
		cmocka_unit_test(test_sweep_strategies_checked),
	};
	enum { NF = HB_ARRAY_SIZE(fixed), NS = HB_ARRAY_SIZE(series_cases),
	       NW = HB_ARRAY_SIZE(sweep_cases) };
	static struct CMUnitTest tests[NF + NS + NW];
	size_t n = 0;
	for (size_t i = 0; i < NF; i++)
		tests[n++] = fixed[i];
	for (size_t i = 0; i < NS; i++)
		tests[n++] = (struct CMUnitTest){ .name = series_cases[i].name,
			.test_func = run_series_case, .initial_state = (void *)&series_cases[i] };
	for (size_t i = 0; i < NW; i++)
		tests[n++] = (struct CMUnitTest){ .name = sweep_cases[i].name,
			.test_func = run_sweep_case, .initial_state = (void *)&sweep_cases[i] };
	return _cmocka_run_group_tests("knobs", tests, n, NULL, NULL);
}
