/*
 * Config loaders: the shipped files load; each kind of mistake is reported
 * at the exact FILE:LINE:COL with a message that says what to do.
 *
 * Broken inputs are either fixtures in tests/data/bad/ (one defect each) or
 * variants of a valid base text written to a temporary directory, so a
 * variant's line numbers do not depend on the shipped files.
 */
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config/board.h"
#include "config/catalog.h"
#include "config/driver.h"
#include "config/emulator.h"
#include "config/plan.h"
#include "config/strategy.h"
#include "config/workload.h"
#include "util/util.h"

static char err[1024];

static char *home_path(const char *rel)
{
	const char *home = getenv("HILBENCH_HOME");
	assert_non_null(home);
	return path_join(home, rel);
}

/* 'b'oard, 'w'orkload, 'p'lan or 'd'river: load path, free it on success. */
static int load(int kind, const char *path)
{
	struct board b;
	struct workload w;
	struct plan p;
	struct driver dr;
	int rc;

	err[0] = '\0';
	switch (kind) {
	case 'b':
		if (!(rc = board_load(path, &b, err, sizeof err)))
			board_free(&b);
		else
			assert_null(b.name);	/* nothing left to free */
		return rc;
	case 'w':
		if (!(rc = workload_load(path, &w, err, sizeof err)))
			workload_free(&w);
		return rc;
	case 'd':
		if (!(rc = driver_load(path, &dr, err, sizeof err)))
			driver_free(&dr);
		else
			assert_null(dr.name);
		return rc;
	default:
		if (!(rc = plan_load(path, &p, err, sizeof err)))
			plan_free(&p);
		return rc;
	}
}

/* Whether err is at path:line:col and contains phrase; prints both if not,
 * so callers can clean up before asserting. */
static int error_is(const char *path, int line, int col, const char *phrase)
{
	char *prefix = xasprintf("%s:%d:%d: ", path, line, col);
	int ok = !strncmp(err, prefix, strlen(prefix)) && strstr(err, phrase);
	if (!ok)
		print_error("got:  %s\nwant: %s...%s...\n", err, prefix, phrase);
	free(prefix);
	return ok;
}

/* ---- the shipped files ---- */

static void load_all(int kind, const char *pattern)
{
	char *pat = home_path(pattern);
	glob_t g;
	assert_int_equal(glob(pat, 0, NULL, &g), 0);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		if (load(kind, g.gl_pathv[i]))
			print_error("%s\n", err);
		assert_string_equal(err, "");
	}
	globfree(&g);
	free(pat);
}

static void test_shipped_files_load(void **state)
{
	(void)state;
	load_all('b', "boards/*.yaml");
	load_all('w', "workloads/*.yaml");
	load_all('p', "plans/*.yaml");
}

static void test_shipped_board_values(void **state)
{
	char *path = home_path("boards/qemu-orangepi-pc.yaml");
	struct board b;
	(void)state;

	assert_int_equal(board_load(path, &b, err, sizeof err), 0);
	assert_string_equal(b.path, path);
	assert_string_equal(b.name, "qemu-orangepi-pc");
	assert_string_equal(b.arch, "arm");
	assert_string_equal(b.debian_arch, "armhf");
	assert_int_equal(b.series.n, 1);
	assert_string_equal(b.series.v[0], "6.1");
	assert_string_equal(b.image, "zImage");
	assert_true(b.config_fragment[0] == '/');
	const char *tail = "/boards/qemu-orangepi-pc.config";
	assert_string_equal(b.config_fragment + strlen(b.config_fragment) - strlen(tail), tail);
	assert_string_equal(b.dut_driver, "dwmac-sun8i");
	assert_string_equal(b.host_addr, "198.18.0.1/24");
	assert_string_equal(b.dut_addr, "198.18.0.2/24");
	assert_string_equal(b.backend, "qemu");
	assert_int_equal(b.boot_timeout_s, 120);
	assert_string_equal(b.qemu.machine, "orangepi-pc");
	assert_null(b.qemu.cpu);
	assert_int_equal(b.qemu.memory_mb, 0);
	assert_int_equal(b.qemu.extra_args.n, 5);
	assert_string_equal(b.qemu.extra_args.v[4], "-no-reboot");
	assert_int_equal(b.packages.n, 3);
	assert_string_equal(b.packages.v[2], "ethtool");	/* runtime settings */
	assert_int_equal(b.perf_packages.n, 1);	/* for perf workloads only */
	assert_string_equal(b.perf_packages.v[0], "linux-perf");
	board_free(&b);
	free(path);
}

static struct board load_shipped(const char *name)
{
	char *rel = xasprintf("boards/%s.yaml", name);
	char *path = home_path(rel);
	struct board b;
	err[0] = '\0';
	if (board_load(path, &b, err, sizeof err))
		print_error("%s\n", err);
	assert_string_equal(err, "");
	free(rel);
	free(path);
	return b;
}

/* The real boards: what each boot loader takes, and what they declare. */
static void test_shipped_real_boards(void **state)
{
	(void)state;
	err[0] = '\0';
	struct board r = load_shipped("ipq806x-r7800");
	assert_string_equal(r.defconfig, "qcom_defconfig");
	assert_int_equal(r.boot_format, BOOT_UIMAGE_APPENDED_DTB);
	assert_string_equal(boot_format_name(r.boot_format), "uimage-appended-dtb");
	assert_true(r.load_addr == 0x42208000u && r.entry_addr == 0x42208000u);
	assert_null(r.external_dtb);
	assert_string_equal(r.lava.device_type, "ipq806x-r7800");
	assert_string_equal(r.dut_driver, "ipq806x-gmac-dwmac");
	board_free(&r);

	struct board c = load_shipped("cyclone5-socdk");
	assert_string_equal(c.dtb, "socfpga_cyclone5_socdk.dtb");
	assert_int_equal(c.boot_format, BOOT_PLAIN);
	assert_true(c.load_addr == 0);
	assert_string_equal(c.lava.device_type, "cyclone5-socdk");
	assert_string_equal(c.dut_driver, "socfpga-dwmac");
	board_free(&c);

	struct board a = load_shipped("agilex5-socdk");
	assert_string_equal(a.arch, "arm64");
	assert_string_equal(a.debian_arch, "arm64");
	assert_string_equal(a.min_series, "6.12");
	assert_int_equal(a.boot_format, BOOT_FIT);
	assert_string_equal(a.lava.device_type, "agilex5-socdk");
	board_free(&a);
}

/* A board with kernel.min_series refuses older series, naming the line. */
static void test_board_series_check(void **state)
{
	(void)state;
	err[0] = '\0';
	struct board a = load_shipped("agilex5-socdk");
	assert_int_equal(board_series_check(&a, "6.12", err, sizeof err), 0);
	assert_int_equal(board_series_check(&a, "6.18", err, sizeof err), 0);
	assert_int_equal(board_series_check(&a, "7.0", err, sizeof err), 0);
	assert_int_equal(board_series_check(&a, "6.1", err, sizeof err), -1);
	char *at = xasprintf("%s:%d:%d: board agilex5-socdk needs kernel 6.12 or newer", a.path,
			     a.min_series_line, a.min_series_col);
	assert_true(a.min_series_line > 1);
	assert_non_null(strstr(err, at));
	assert_non_null(strstr(err, "intel/socfpga_agilex5_socdk.dtb is not in 6.1"));
	assert_non_null(strstr(err, "--kernel-src DIR"));
	free(at);
	assert_int_equal(board_series_check(&a, "six", err, sizeof err), -1);
	assert_non_null(strstr(err, "kernel series 'six' is not MAJOR.MINOR"));
	board_free(&a);

	struct board r = load_shipped("ipq806x-r7800");
	assert_int_equal(board_series_check(&r, "6.1", err, sizeof err), 0);
	board_free(&r);
}

static void test_series_compare(void **state)
{
	int cmp;
	(void)state;
	assert_int_equal(series_compare("6.1", "6.12", &cmp), 0);
	assert_true(cmp < 0);
	assert_int_equal(series_compare("6.12", "6.1", &cmp), 0);
	assert_true(cmp > 0);
	assert_int_equal(series_compare("6.12", "6.12", &cmp), 0);
	assert_int_equal(cmp, 0);
	assert_int_equal(series_compare("7.0", "6.19", &cmp), 0);
	assert_true(cmp > 0);
	assert_int_equal(series_compare("6", "6.1", &cmp), -1);
	assert_int_equal(series_compare("6.1.2", "6.1", &cmp), -1);
	assert_int_equal(series_compare("6.", "6.1", &cmp), -1);
	assert_int_equal(series_compare("v6.1", "6.1", &cmp), -1);
}

/* Per-series strategy stacks: on 6.12 gating is upstream, and says so. */
/* The shipped driver file, and every shipped strategy names a driver that
 * loads. */
static void test_driver_files(void **state)
{
	(void)state;
	struct driver dr;
	char *path = home_path("drivers/stmmac.yaml");
	assert_int_equal(driver_load(path, &dr, err, sizeof err), 0);
	free(path);
	assert_string_equal(dr.tx_timer, "stmmac_tx_timer");
	assert_string_equal(dr.tx_napi_poll, "stmmac_napi_poll_tx");
	assert_string_equal(dr.xmit, "stmmac_xmit");
	assert_string_equal(dr.source, "drivers/net/ethernet/stmicro/stmmac");
	assert_int_equal(dr.profile.n, 8);
	assert_int_equal(dr.inclusive.n, 5);
	assert_string_equal(dr.inclusive.v[0], "stmmac_xmit");
	assert_int_equal(dr.calls.n, 4);
	assert_string_equal(dr.calls.v[3], "__napi_schedule");
	assert_int_equal(dr.stats.n, 4);
	const struct driver_stat *st = dr.stats.v;
	assert_string_equal(st[0].stat, "tx_normal_irq_n");
	assert_string_equal(st[0].metric, "tx_irqs_per_pkt");
	assert_int_equal(st[3].per, DRIVER_PER_RX);
	driver_free(&dr);

	static const char *const series[] = { "6.1", "6.12" };
	for (size_t i = 0; i < HB_ARRAY_SIZE(series); i++) {
		struct strlist names = { 0 };
		assert_int_equal(strategy_list(series[i], &names), 0);
		assert_true(names.n > 0);
		for (size_t j = 0; j < names.n; j++) {
			struct strategy s;
			assert_int_equal(strategy_load(series[i], names.v[j], &s, err, sizeof err), 0);
			assert_string_equal(s.driver, "stmmac");
			assert_int_equal(catalog_driver(s.driver, &dr), 0);
			driver_free(&dr);
			strategy_free(&s);
		}
		strlist_free(&names);
		struct strategy base;
		assert_int_equal(strategy_load(series[i], "base", &base, err, sizeof err), 0);
		assert_null(base.driver);
		strategy_free(&base);
	}
}

/* `driver:` in a series file: once, a known driver, only for strategies;
 * a strategy without one does not load. */
static void test_strategy_driver(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		int strategy;		/* loaded as a strategy's series, else a user's */
		const char *phrase;
	} cases[] = {
		{ "# s\ndriver: stmmac\n", 1, NULL },
		{ "# s\ndriver: stmmac\n", 0, ":2: 'driver:' is only for strategies" },
		{ "# s\ndriver: e1000e\n", 1, ":2: no driver 'e1000e' (drivers/<name>.yaml); known drivers: stmmac" },
		{ "# s\ndriver: ../stmmac\n", 1, ":2: no driver '../stmmac'" },
		{ "driver: stmmac\ndriver: stmmac\n", 1, ":2: a second 'driver:' line" },
	};
	char dir[] = "/tmp/hb-test-driver.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *file = path_join(dir, "series");
	for (size_t i = 0; i < HB_ARRAY_SIZE(cases); i++) {
		assert_int_equal(write_file_atomic(file, cases[i].text, strlen(cases[i].text)), 0);
		struct strlist patches = { 0 };
		char *driver = NULL;
		err[0] = '\0';
		int rc = series_file_load(file, &patches, NULL, NULL, NULL,
					  cases[i].strategy ? &driver : NULL, err, sizeof err);
		if (cases[i].phrase) {
			assert_int_equal(rc, -1);
			assert_non_null(strstr(err, cases[i].phrase));
		} else {
			assert_int_equal(rc, 0);
			assert_string_equal(driver, "stmmac");
		}
		free(driver);
		strlist_free(&patches);
	}
	free(file);
	rm_rf(dir);

	/* a strategy of the tree's own without a driver line */
	char *sdir = xasprintf("%s/driver-patches/.test-driver/nodriver", getenv("HILBENCH_HOME"));
	assert_int_equal(mkdir_p(sdir, 0755), 0);
	char *sfile = path_join(sdir, "series");
	assert_int_equal(write_file_atomic(sfile, "# no driver\n", 12), 0);
	struct strategy s;
	assert_int_equal(strategy_load(".test-driver", "nodriver", &s, err, sizeof err), -1);
	assert_non_null(strstr(err, "nodriver/series: names no driver under test; add a line 'driver: <name>'"));
	char *top = path_dirname(sdir);
	rm_rf(top);
	free(top);
	free(sfile);
	free(sdir);
}

static void test_strategy_upstream(void **state)
{
	struct strategy st;
	(void)state;
	assert_int_equal(strategy_load("6.12", "gating", &st, err, sizeof err), 0);
	assert_int_equal(st.patches.n, 0);
	assert_int_equal(st.upstream.n, 1);
	assert_non_null(strstr(st.upstream.v[0], "net: stmmac: improve TX timer arm logic"));
	strategy_free(&st);
	assert_int_equal(strategy_load("6.12", "hrtimer-active", &st, err, sizeof err), 0);
	assert_int_equal(st.patches.n, 1);
	assert_int_equal(st.upstream.n, 0);
	strategy_free(&st);

	char dir[] = "/tmp/hb-test-upstream.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *file = path_join(dir, "series");
	const char *text = "# user series\nupstream: something\n";
	assert_int_equal(write_file_atomic(file, text, strlen(text)), 0);
	struct strlist patches = { 0 }, upstream = { 0 };
	assert_int_equal(series_file_load(file, &patches, NULL, NULL, NULL, NULL, err, sizeof err), -1);
	char *want = xasprintf("%s:2: 'upstream:' is only for strategies", file);
	assert_non_null(strstr(err, want));
	free(want);
	text = "upstream:   \n";
	assert_int_equal(write_file_atomic(file, text, strlen(text)), 0);
	assert_int_equal(series_file_load(file, &patches, NULL, &upstream, NULL, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, ":1: 'upstream:' names nothing"));
	strlist_free(&patches);
	strlist_free(&upstream);
	rm_rf(dir);
	free(file);
}

static void test_shipped_workload_and_plan_values(void **state)
{
	char *wpath = home_path("workloads/udp64-dut-tx.yaml");
	char *ppath = home_path("plans/default.yaml");
	struct workload w;
	struct plan p;
	(void)state;

	assert_int_equal(workload_load(wpath, &w, err, sizeof err), 0);
	assert_int_equal(w.proto, WL_UDP);
	assert_int_equal(w.dir, WL_DUT_TX);
	assert_int_equal(w.length, 64);
	assert_int_equal(w.rate_bps, 0);
	assert_int_equal(w.duration_s, 10);
	assert_int_equal(w.duration_own_boot_s, 3);
	assert_int_equal(w.omit_s, 1);
	assert_int_equal(w.streams, 1);
	workload_free(&w);
	/* its ftrace variant: a run sharing its boot runs 10 s, one with a
	 * boot to itself 3 s, and their digests tell the two apart */
	char *fpath = home_path("workloads/udp64-dut-tx-ftrace.yaml");
	assert_int_equal(workload_load(fpath, &w, err, sizeof err), 0);
	free(fpath);
	assert_int_equal(w.duration_own_boot_s, 3);
	char shared[65], own[65], again[65];
	workload_digest(&w, shared);
	workload_as_run(&w, 0);
	workload_digest(&w, again);
	assert_string_equal(shared, again);
	workload_as_run(&w, 1);
	assert_int_equal(w.duration_s, 3);
	workload_digest(&w, own);
	assert_string_not_equal(shared, own);
	assert_int_equal(strlen(own), 64);
	workload_free(&w);

	assert_int_equal(plan_load(ppath, &p, err, sizeof err), 0);
	assert_string_equal(p.name, "default");
	assert_int_equal(p.boards.n, 1);
	/* the first strategy is the reference of every table: baseline */
	assert_true(p.strategies.n >= 1);
	assert_string_equal(p.strategies.v[0], "baseline");
	for (size_t i = 0; i < p.strategies.n; i++) {
		struct strategy st;
		assert_int_equal(strategy_load("6.1", p.strategies.v[i], &st, err, sizeof err), 0);
		strategy_free(&st);
	}
	assert_int_equal(p.workloads.n, 4);
	assert_string_equal(p.workloads.v[2], "tcp-dut-rx");
	assert_string_equal(p.workloads.v[3], "udp64-dut-tx-ftrace");
	assert_int_equal(p.repetitions, 3);
	assert_int_equal(p.timing, TIMING_VIRTUAL);
	/* the main job's runs are added until decided, to the gate's thresholds */
	assert_int_equal(p.repeat, REPEAT_UNTIL_DECIDED);
	assert_true(p.gate.present);
	plan_free(&p);
	free(wpath);
	free(ppath);
}

/* The gate's TCP DUT-TX rate: what arrived in virtual time, iperf3's
 * count in real time; each mode keeps only the metrics with a threshold
 * in it. */
static const struct gate_metric *gated(const struct plan *p, const char *metric,
				       enum gate_traffic dir)
{
	const struct gate_metric *m = p->gate.metrics.v;
	for (size_t i = 0; i < p->gate.metrics.n; i++)
		if (!strcmp(m[i].metric, metric) && m[i].protocol == GATE_TCP &&
		    m[i].traffic == dir)
			return &m[i];
	return NULL;
}

static void test_gate_metrics_per_timing_mode(void **state)
{
	char *path = home_path("plans/gate.yaml");
	struct plan p;
	(void)state;
	assert_int_equal(plan_load(path, &p, err, sizeof err), 0);
	size_t all = p.gate.metrics.n;
	const struct gate_metric *acked = gated(&p, "mbps_acked", GATE_DUT_TX);
	assert_non_null(acked);
	assert_true(acked->threshold_pct[TIMING_VIRTUAL] == 10);
	assert_true(acked->threshold_pct[TIMING_REALTIME] < 0);
	assert_true(gated(&p, "mbps", GATE_DUT_TX)->threshold_pct[TIMING_VIRTUAL] < 0);
	p.timing = TIMING_VIRTUAL;
	assert_int_equal(plan_gate_for_timing(&p), all - 1);
	assert_non_null(gated(&p, "mbps_acked", GATE_DUT_TX));
	assert_null(gated(&p, "mbps", GATE_DUT_TX));
	assert_non_null(gated(&p, "mbps", GATE_DUT_RX));
	plan_free(&p);
	assert_int_equal(plan_load(path, &p, err, sizeof err), 0);
	p.timing = TIMING_REALTIME;
	assert_int_equal(plan_gate_for_timing(&p), all - 1);
	assert_null(gated(&p, "mbps_acked", GATE_DUT_TX));
	assert_non_null(gated(&p, "mbps", GATE_DUT_TX));
	plan_free(&p);
	free(path);
}

static void test_enum_names(void **state)
{
	enum timing_mode m;
	(void)state;

	assert_string_equal(wl_proto_name(WL_UDP), "udp");
	assert_string_equal(wl_proto_name(WL_TCP), "tcp");
	assert_string_equal(wl_dir_name(WL_DUT_TX), "dut-tx");
	assert_string_equal(wl_dir_name(WL_DUT_RX), "dut-rx");
	assert_string_equal(timing_mode_name(TIMING_REALTIME), "realtime");
	assert_string_equal(timing_mode_name(TIMING_VIRTUAL), "virtual");
	assert_int_equal(timing_mode_parse("realtime", &m), 0);
	assert_int_equal(m, TIMING_REALTIME);
	assert_int_equal(timing_mode_parse("virtual", &m), 0);
	assert_int_equal(m, TIMING_VIRTUAL);
	assert_int_equal(timing_mode_parse("Virtual", &m), -1);
}

/* The shipped emulator loads; each mistake is reported where it is. */
static void test_emulator_files(void **state)
{
	(void)state;
	char *path = home_path("emulators/qemu-7.2.yaml");
	struct emulator e;
	assert_int_equal(emulator_load(path, &e, err, sizeof err), 0);
	assert_string_equal(e.package, "qemu");
	assert_string_equal(e.target, "arm-softmmu");
	assert_true(e.patches[0] == '/');
	assert_int_equal(e.devices.n, 4);
	emulator_free(&e);
	char *text = read_file(path, NULL);
	assert_non_null(text);
	static const struct {
		const char *from, *to, *phrase;
	} bad[] = {
		{ "version: \"1:7.2+dfsg-7+deb12u18\"", "version: \"7.2 (latest)\"",
		  "is not a Debian version" },
		{ "ALLWINNER_H3,", "allwinner-h3,", "device 'allwinner-h3' is not a Kconfig symbol" },
		{ "patches: ../emulator-patches/qemu-7.2", "patches: nowhere",
		  "'nowhere' is no directory with a series file" },
		{ "--disable-docs,", "disable-docs,", "does not start with --" },
	};
	char *dir = xasprintf("%s/emulators", getenv("HILBENCH_HOME"));
	for (size_t i = 0; i < HB_ARRAY_SIZE(bad); i++) {
		char *at = strstr(text, bad[i].from);
		assert_non_null(at);
		char *variant = xasprintf("%.*s%s%s", (int)(at - text), text, bad[i].to,
					  at + strlen(bad[i].from));
		/* beside the shipped file, so relative patches resolve alike */
		char *tmp = xasprintf("%s/.test-%d/qemu-7.2.yaml", dir, (int)i);
		char *tmpdir = path_dirname(tmp);
		mkdir_p(tmpdir, 0755);
		assert_int_equal(write_file_atomic(tmp, variant, strlen(variant)), 0);
		int rc = emulator_load(tmp, &e, err, sizeof err);
		if (rc == 0 || !strstr(err, bad[i].phrase) || strncmp(err, tmp, strlen(tmp)))
			print_error("case %zu: %s\n", i, err);
		rm_rf(tmpdir);
		assert_int_equal(rc, -1);
		assert_non_null(strstr(err, bad[i].phrase));
		free(tmp);
		free(tmpdir);
		free(variant);
	}
	free(dir);
	free(text);
	free(path);
}

/* A calibrated board runs a workload's seconds scaled, never below 1. */
static void test_board_virtual_seconds(void **state)
{
	(void)state;
	struct board b = { 0 };
	assert_int_equal(board_virtual_seconds(&b, 10), 10);
	b.qemu.duration_scale = 0.2;
	assert_int_equal(board_virtual_seconds(&b, 10), 2);
	assert_int_equal(board_virtual_seconds(&b, 4), 1);
	assert_int_equal(board_virtual_seconds(&b, 1), 1);
	assert_int_equal(board_virtual_seconds(&b, 0), 0);
	b.qemu.duration_scale = 0.25;
	assert_int_equal(board_virtual_seconds(&b, 10), 3);
}

static void test_missing_file(void **state)
{
	(void)state;
	assert_int_equal(load('b', "/nonexistent/x.yaml"), -1);
	assert_non_null(strstr(err, "/nonexistent/x.yaml: cannot read: No such file"));
}

/* ---- variants of valid base texts ---- */

static const char board_base[] =
	"name: tmp-board\n"				/* 1 */
	"description: test board\n"
	"arch: arm\n"
	"cross_compile: arm-linux-gnueabihf-\n"
	"debian_arch: armhf\n"				/* 5 */
	"series: [\"6.1\"]\n"
	"kernel:\n"
	"  defconfig: sunxi_defconfig\n"
	"  config_fragment: tmp-board.config\n"
	"  image: zImage\n"				/* 10 */
	"  dtb: sun8i-h3-orangepi-pc.dtb\n"
	"  cmdline: console=ttyS0,115200\n"
	"dut:\n"
	"  interface: eth0\n"
	"  driver: dwmac-sun8i\n"			/* 15 */
	"  host_addr: 198.18.0.1/24\n"
	"  dut_addr: 198.18.0.2/24\n"
	"deploy:\n"
	"  backend: qemu\n"
	"  boot_timeout_s: 120\n"			/* 20 */
	"  qemu:\n"
	"    binary: qemu-system-arm\n"
	"    machine: orangepi-pc\n"
	"    memory_mb: 512\n"
	"    extra_args: [-no-reboot]\n"		/* 25 */
	"userland:\n"
	"  packages: [busybox-static, iperf3]\n";

/* board_base on arm64 with a boot format only 32-bit arm has. */
static const char board_arm64_appended_dtb[] =
	"name: tmp-board\n"				/* 1 */
	"description: test board\n"
	"arch: arm64\n"
	"cross_compile: aarch64-linux-gnu-\n"
	"debian_arch: arm64\n"				/* 5 */
	"series: [\"6.1\"]\n"
	"kernel:\n"
	"  defconfig: defconfig\n"
	"  config_fragment: tmp-board.config\n"
	"  image: Image\n"				/* 10 */
	"  dtb: intel/socfpga_agilex_socdk.dtb\n"
	"  cmdline: console=ttyS0,115200\n"
	"dut:\n"
	"  interface: eth0\n"
	"  driver: socfpga-dwmac\n"			/* 15 */
	"  host_addr: 198.18.0.1/24\n"
	"  dut_addr: 198.18.0.2/24\n"
	"deploy:\n"
	"  backend: lava\n"
	"  boot_timeout_s: 120\n"			/* 20 */
	"userland:\n"
	"  packages: [busybox-static, iperf3]\n"
	"lava:\n"
	"  device_type: tmp\n"
	"  device: tmp-01\n"				/* 25 */
	"  deploy_to: tftp\n"
	"  kernel_type: image\n"
	"  boot_method: u-boot\n"
	"  boot_commands: ramdisk\n"
	"  prompts: [\"/ #\"]\n"			/* 30 */
	"boot:\n"
	"  format: uimage-appended-dtb\n"
	"  load_addr: \"0x80000\"\n";

static const char workload_base[] =
	"name: tmp-wl\n"				/* 1 */
	"description: test workload\n"
	"protocol: udp\n"
	"direction: dut-rx\n"
	"length: 1400\n"				/* 5 */
	"rate: 100000000\n"
	"duration: 10\n"
	"omit: 1\n"
	"streams: 1\n";

static const char plan_base[] =
	"name: tmp-plan\n"				/* 1 */
	"description: test plan\n"
	"boards: [tmp-board]\n"
	"strategies: [baseline, coalesce-v2]\n"
	"workloads: [tmp-wl]\n"			/* 5 */
	"repetitions: 3\n"
	"timing: realtime\n";

static const char driver_base[] =
	"name: tmp-drv\n"
	"description: test driver\n"
	"tx_timer: foo_tx_timer\n"
	"tx_napi_poll: foo_poll_tx\n"
	"xmit: foo_xmit\n"
	"profile: [hrtimer_interrupt, foo_xmit]\n"
	"stats:\n"
	"  - stat: tx_irq\n"
	"    metric: tx_irqs_per_pkt\n"
	"    per: tx\n"
	"    counts: TX interrupts\n"
	"  - stat: rx_irq\n"
	"    metric: rx_irqs_per_pkt\n"
	"    per: rx\n"
	"    counts: RX interrupts\n";

struct variant {
	const char *name;
	int kind;		/* 'b', 'w', 'p', 'd' */
	const char *from, *to;	/* replace the one `from` in the base text;
				 * from NULL: `to` is the whole text */
	int line, col;		/* 0: the variant must load */
	const char *phrase;
};

/* Writes the variant as <tmpdir>/tmp-{board,wl,plan}.yaml (names match) next
 * to the board's config fragment, loads it and checks the outcome. */
static void run_variant(void **state)
{
	const struct variant *v = *state;
	const char *base = v->kind == 'b' ? board_base : v->kind == 'w' ? workload_base :
			   v->kind == 'd' ? driver_base : plan_base;
	const char *file = v->kind == 'b' ? "tmp-board.yaml" : v->kind == 'w' ? "tmp-wl.yaml" :
			   v->kind == 'd' ? "tmp-drv.yaml" : "tmp-plan.yaml";
	char dir[] = "/tmp/hb-test-config.XXXXXX";
	char *text;

	if (v->from) {
		const char *at = strstr(base, v->from);
		assert_non_null(at);
		assert_null(strstr(at + 1, v->from));	/* unambiguous */
		text = xasprintf("%.*s%s%s", (int)(at - base), base, v->to,
				 at + strlen(v->from));
	} else {
		text = xstrdup(v->to);
	}
	assert_non_null(mkdtemp(dir));
	char *path = path_join(dir, file);
	char *frag = path_join(dir, "tmp-board.config");
	assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
	assert_int_equal(write_file_atomic(frag, "CONFIG_STMMAC_ETH=y\n", 20), 0);
	char *dts = path_join(dir, "tmp-board.dts");
	assert_int_equal(write_file_atomic(dts, "/dts-v1/;\n/ { };\n", 17), 0);
	free(dts);

	int rc = load(v->kind, path);
	int ok = v->line ? rc == -1 && error_is(path, v->line, v->col, v->phrase) : rc == 0;
	if (!ok && !v->line)
		print_error("%s\n", err);
	rm_rf(dir);
	free(text);
	free(path);
	free(frag);
	assert_true(ok);
}

/* The base board on the lava backend: its deploy section replaced (the
 * 'from' of a variant) by a lava one ('to', more text may follow). */
#define LAVA_BOARD_FROM \
	"  backend: qemu\n  boot_timeout_s: 120\n  qemu:\n    binary: qemu-system-arm\n" \
	"    machine: orangepi-pc\n    memory_mb: 512\n    extra_args: [-no-reboot]\n"
#define LAVA_BOARD_TO \
	"  backend: lava\n  boot_timeout_s: 120\nlava:\n  device_type: ipq806x-r7800\n" \
	"  deploy_to: tftp\n  kernel_type: zimage\n  boot_method: u-boot\n" \
	"  boot_commands: ramdisk\n  prompts: [\"/ #\"]\n  device: lab-r7800-01\n"

static const struct variant variants[] = {
	/* the base texts and edge values that must be accepted */
	{ "board base loads", 'b', NULL, board_base, 0, 0, NULL },
	{ "workload base loads", 'w', NULL, workload_base, 0, 0, NULL },
	{ "plan base loads", 'p', NULL, plan_base, 0, 0, NULL },
	{ "lava backend needs no qemu", 'b',
	  LAVA_BOARD_FROM, LAVA_BOARD_TO, 0, 0, NULL },
	{ "lava backend without a lava device", 'b',
	  LAVA_BOARD_FROM,
	  "  backend: lava\n  boot_timeout_s: 120\n", 19, 12,
	  "deploy.backend is lava but the lava: section names no 'device'" },
	{ "lava-local backend without its SD bootloader", 'b',
	  LAVA_BOARD_FROM,
	  "  backend: lava-local\n  boot_timeout_s: 120\nlava:\n  device_type: x\n"
	  "  deploy_to: tftp\n  kernel_type: zimage\n  boot_method: u-boot\n"
	  "  boot_commands: ramdisk\n  prompts: [\"/ #\"]\n  device: d\n", 19, 12,
	  "lacks 'device' (a dictionary in lava/devices/) or an absolute 'sd_bootloader'" },
	{ "lava artifact host of a lab", 'b', "iperf3]\n",
	  "iperf3]\nlava:\n  device_type: x\n  deploy_to: tftp\n  kernel_type: zimage\n"
	  "  boot_method: u-boot\n  boot_commands: ramdisk\n  prompts: [\"/ #\"]\n"
	  "  artifact_url: https://artifacts.lab.example/hb/\n"
	  "  artifact_dir: /srv/hilbench/artifacts\n", 0, 0, NULL },
	{ "lava artifact_url not http", 'b', "iperf3]\n",
	  "iperf3]\nlava:\n  device_type: x\n  deploy_to: tftp\n  kernel_type: zimage\n"
	  "  boot_method: u-boot\n  boot_commands: ramdisk\n  prompts: [\"/ #\"]\n"
	  "  artifact_url: file:///srv/a\n", 35, 17,
	  "lava.artifact_url 'file:///srv/a' is not an http:// or https:// URL" },
	{ "lava artifact_url with a query", 'b', "iperf3]\n",
	  "iperf3]\nlava:\n  device_type: x\n  deploy_to: tftp\n  kernel_type: zimage\n"
	  "  boot_method: u-boot\n  boot_commands: ramdisk\n  prompts: [\"/ #\"]\n"
	  "  artifact_url: http://lab/a?b=1\n", 35, 17, "has '?' (byte 13)" },
	{ "lava artifact_dir relative", 'b', "iperf3]\n",
	  "iperf3]\nlava:\n  device_type: x\n  deploy_to: tftp\n  kernel_type: zimage\n"
	  "  boot_method: u-boot\n  boot_commands: ramdisk\n  prompts: [\"/ #\"]\n"
	  "  artifact_dir: srv/a\n", 35, 17, "lava.artifact_dir 'srv/a' is not an absolute path" },
	{ "lava peers, a namespace per device", 'b',
	  LAVA_BOARD_FROM, LAVA_BOARD_TO
	  "  peers:\n    - device: lab-r7800-01\n      netns: hb-peer-01\n"
	  "    - device: lab-r7800-02\n      netns: hb-peer-02\n", 0, 0, NULL },
	{ "lava peers, a device twice", 'b',
	  LAVA_BOARD_FROM, LAVA_BOARD_TO
	  "  peers:\n    - device: lab-r7800-01\n      netns: hb-peer-01\n"
	  "    - device: lab-r7800-01\n      netns: hb-peer-02\n", 32, 15,
	  "device 'lab-r7800-01' has two peers (lava.peers[1])" },
	{ "lava peers, a namespace twice", 'b',
	  LAVA_BOARD_FROM, LAVA_BOARD_TO
	  "  peers:\n    - device: lab-r7800-01\n      netns: hb-peer-01\n"
	  "    - device: lab-r7800-02\n      netns: hb-peer-01\n", 33, 14,
	  "namespace 'hb-peer-01' is the peer of two devices (lava.peers[1])" },
	{ "lava peers, a namespace no name", 'b',
	  LAVA_BOARD_FROM, LAVA_BOARD_TO
	  "  peers:\n    - device: lab-r7800-01\n      netns: ../etc\n", 31, 14,
	  "'lava.peers[1].netns' has '../etc', which is not a valid name" },
	{ "lava peers on a board of another backend", 'b', "iperf3]\n",
	  "iperf3]\nlava:\n  device_type: x\n  deploy_to: tftp\n  kernel_type: zimage\n"
	  "  boot_method: u-boot\n  boot_commands: ramdisk\n  prompts: [\"/ #\"]\n"
	  "  peers:\n    - device: d\n      netns: n\n", 36, 5,
	  "lava.peers names the traffic peers of a LAVA server's devices, but deploy.backend is qemu" },
	{ "/31 point-to-point pair", 'b', "198.18.0.1/24\n  dut_addr: 198.18.0.2/24",
	  "198.18.0.0/31\n  dut_addr: 198.18.0.1/31", 0, 0, NULL },
	{ "tcp length below 16", 'w', "protocol: udp\ndirection: dut-rx\nlength: 1400",
	  "protocol: tcp\ndirection: dut-rx\nlength: 8", 0, 0, NULL },
	{ "udp length 16", 'w', "length: 1400", "length: 16", 0, 0, NULL },
	{ "rate at uint64 max", 'w', "rate: 100000000", "rate: 18446744073709551615", 0, 0, NULL },

	/* document-level */
	{ "empty file", 'w', NULL, "# nothing\n", 2, 1, "holds no YAML document" },
	{ "root is a list", 'w', NULL, "- a\n- b\n", 1, 1, "must be a mapping" },
	{ "two documents", 'w', "omit: 1\n", "omit: 1\n---\nomit: 2\n", 9, 1,
	  "a second YAML document starts here; keep one document per file" },
	{ "anchor", 'w', "duration: 10", "duration: &d 10", 7, 11, "anchor '&d' is not supported" },
	{ "alias", 'w', "omit: 1", "omit: *d", 8, 7, "alias '*d' is not supported" },
	{ "tag", 'w', "duration: 10", "duration: !!int 10", 7, 11, "tag 'tag:yaml.org,2002:int' is not supported" },
	{ "non-scalar key", 'w', "omit: 1", "? [omit]\n: 1", 8, 3, "a mapping key must be a plain string" },
	{ "duplicate nested key", 'b', "    memory_mb: 512\n", "    memory_mb: 512\n    memory_mb: 256\n",
	  25, 5, "duplicate key 'memory_mb' (first at line 24)" },
	{ "tab indentation", 'w', "omit: 1\n", "omit:\n\t1\n", 9, 1, "fix the YAML syntax" },
	{ "invalid UTF-8", 'w', "test workload", "test \xff workload", 2, 19, "invalid leading UTF-8 octet; fix the YAML syntax" },
	{ "nesting too deep", 'w', "omit: 1",
	  "omit: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", 8, 38,
	  "nested deeper than 32 levels" },

	/* board schema */
	{ "unknown key in deploy.qemu", 'b', "    memory_mb: 512", "    memory: 512", 24, 5,
	  "unknown key 'memory' in 'deploy.qemu'; expected one of: binary, machine, cpu, memory_mb, "
	  "extra_args, emulator, globals, ps_per_insn, icount_sleep, peer_hold_us, insn_profile, "
	  "saved_boot, "
	  "rng_seed_bytes, duration_scale" },
	{ "an emulator hilbench builds, its properties and instruction time", 'b',
	  "    binary: qemu-system-arm\n",
	  "    emulator: qemu-7.2\n    globals: [allwinner-sun8i-emac.tx-int-ctl=on]\n"
	  "    ps_per_insn: 3224\n    icount_sleep: on\n    duration_scale: 0.2\n"
	  "    insn_profile: on\n", 0, 0, NULL },
	{ "the instruction counter on Debian's QEMU", 'b', "    memory_mb: 512\n",
	  "    memory_mb: 512\n    insn_profile: on\n", 25, 19,
	  "insn_profile needs an emulator hilbench builds" },
	{ "a peer hold on an emulator hilbench builds", 'b', "    binary: qemu-system-arm\n",
	  "    emulator: qemu-7.2\n    peer_hold_us: 20000\n", 0, 0, NULL },
	{ "a peer hold on Debian's QEMU", 'b', "    memory_mb: 512\n",
	  "    memory_mb: 512\n    peer_hold_us: 20000\n", 25, 19,
	  "peer_hold_us needs an emulator hilbench builds" },
	{ "a peer hold where an idle guest already waits in real time", 'b',
	  "    binary: qemu-system-arm\n",
	  "    emulator: qemu-7.2\n    icount_sleep: on\n    peer_hold_us: 20000\n", 24, 19,
	  "peer_hold_us holds a clock that would otherwise jump" },
	{ "a peer hold of no time", 'b', "    memory_mb: 512\n",
	  "    memory_mb: 512\n    peer_hold_us: 0\n", 25, 19, "peer_hold_us" },
	{ "both an installed QEMU and an emulator", 'b', "    binary: qemu-system-arm\n",
	  "    binary: qemu-system-arm\n    emulator: qemu-7.2\n", 22, 5,
	  "deploy.qemu needs exactly one of 'binary' (an installed QEMU" },
	{ "neither an installed QEMU nor an emulator", 'b', "    binary: qemu-system-arm\n", "",
	  22, 5, "deploy.qemu needs exactly one of 'binary'" },
	{ "an instruction time on Debian's QEMU", 'b', "    memory_mb: 512\n",
	  "    memory_mb: 512\n    ps_per_insn: 3224\n", 25, 18,
	  "ps_per_insn needs an emulator hilbench builds" },
	{ "a global that is not DEVICE.PROPERTY=VALUE", 'b', "    binary: qemu-system-arm\n",
	  "    emulator: qemu-7.2\n    globals: [tx-int-ctl=on]\n", 23, 14,
	  "global 'tx-int-ctl=on' is not DEVICE.PROPERTY=VALUE" },
	{ "a random seed for the kernel's pool", 'b', "    memory_mb: 512\n",
	  "    memory_mb: 512\n    rng_seed_bytes: 32\n", 0, 0, NULL },
	{ "a random seed too short to make the pool ready", 'b', "    memory_mb: 512\n",
	  "    memory_mb: 512\n    rng_seed_bytes: 16\n", 25, 21, "rng_seed_bytes" },
	{ "a duration scale above 1", 'b', "    memory_mb: 512\n",
	  "    memory_mb: 512\n    duration_scale: 2\n", 25, 21, "duration_scale" },
	{ "missing nested key", 'b', "  backend: qemu\n", "", 18, 1,
	  "'deploy' is missing required key 'backend'; add it" },
	{ "missing nested mapping", 'b', "userland:\n  packages: [busybox-static, iperf3]\n", "", 1, 1,
	  "the file is missing required key 'userland'; add it" },
	{ "mapping where string expected", 'b', "\narch: arm", "\narch: {a: b}", 3, 7, "'arch' must be a string, got a mapping" },
	{ "string where list expected", 'b', "[-no-reboot]", "-no-reboot", 25, 17,
	  "'deploy.qemu.extra_args' must be a list of strings, got '-no-reboot'" },
	{ "list item not a string", 'b', "[busybox-static, iperf3]", "[busybox-static, [iperf3]]", 27, 30,
	  "'userland.packages' must be a list of strings, got a list" },
	{ "string where mapping expected", 'b',
	  "kernel:\n  defconfig: sunxi_defconfig\n  config_fragment: tmp-board.config\n"
	  "  image: zImage\n  dtb: sun8i-h3-orangepi-pc.dtb\n  cmdline: console=ttyS0,115200\n",
	  "kernel: sunxi\n", 7, 9,
	  "'kernel' must be a mapping, got 'sunxi'" },
	{ "empty value", 'b', "description: test board", "description:", 2, 13,
	  "'description' has no value; give it a string" },
	{ "empty list", 'b', "[\"6.1\"]", "[]", 6, 9, "'series' must list at least 1 item(s)" },
	{ "bad arch", 'b', "\narch: arm", "\narch: x86_64", 3, 7, "'arch' must be one of arm, arm64, got 'x86_64'" },
	{ "bad backend", 'b', "backend: qemu", "backend: ssh", 19, 12,
	  "'deploy.backend' must be one of lava, lava-local, qemu, got 'ssh'" },
	{ "memory out of range", 'b', "memory_mb: 512", "memory_mb: 8", 24, 16,
	  "'deploy.qemu.memory_mb' must be between 16 and 65536, got 8" },
	{ "boot timeout not a number", 'b', "boot_timeout_s: 120", "boot_timeout_s: 2m", 20, 19,
	  "'deploy.boot_timeout_s' must be an integer, got '2m'" },
	{ "quoted number", 'b', "boot_timeout_s: 120", "boot_timeout_s: \"120\"", 20, 19,
	  "must be an integer (without quotes), got '120'" },
	{ "invalid name", 'b', "name: tmp-board", "name: Tmp-Board", 1, 7, "not a valid name" },

	/* board semantics */
	{ "name/basename mismatch", 'b', "name: tmp-board", "name: other-board", 1, 7,
	  "name 'other-board' does not match the file name 'tmp-board.yaml'; rename the file to 'other-board.yaml'" },
	{ "backend qemu without qemu", 'b',
	  "  qemu:\n    binary: qemu-system-arm\n    machine: orangepi-pc\n    memory_mb: 512\n"
	  "    extra_args: [-no-reboot]\n", "", 19, 12,
	  "deploy.backend is qemu but there is no 'deploy.qemu' mapping" },
	{ "host outside 198.18/15", 'b', "198.18.0.1/24", "10.0.0.1/24", 16, 14,
	  "dut.host_addr '10.0.0.1/24' is outside 198.18.0.0/15, the range RFC 2544 reserves for benchmarking" },
	{ "address just above 198.18/15", 'b', "198.18.0.2/24", "198.20.0.2/24", 17, 13,
	  "dut.dut_addr '198.20.0.2/24' is outside 198.18.0.0/15" },
	{ "prefix wider than /15", 'b', "198.18.0.1/24\n  dut_addr: 198.18.0.2/24",
	  "198.18.0.1/14\n  dut_addr: 198.18.0.2/14", 16, 14, "is outside 198.18.0.0/15" },
	{ "address without prefix", 'b', "198.18.0.2/24", "198.18.0.2", 17, 13,
	  "dut.dut_addr '198.18.0.2' is not an IPv4 host address with a prefix length" },
	{ "network address", 'b', "198.18.0.2/24", "198.18.0.0/24", 17, 13, "is not an IPv4 host address" },
	{ "broadcast address", 'b', "198.18.0.2/24", "198.18.0.255/24", 17, 13, "is not an IPv4 host address" },
	{ "different subnets", 'b', "198.18.0.2/24", "198.18.1.2/24", 17, 13,
	  "dut.dut_addr '198.18.1.2/24' is not in the same subnet as dut.host_addr '198.18.0.1/24'" },
	{ "different prefix lengths", 'b', "198.18.0.2/24", "198.18.0.2/16", 17, 13, "not in the same subnet" },
	{ "same address", 'b', "198.18.0.2/24", "198.18.0.1/24", 17, 13,
	  "is the same address as dut.host_addr" },
	{ "config fragment missing", 'b', "config_fragment: tmp-board.config", "config_fragment: nope.config", 9, 20,
	  "kernel.config_fragment 'nope.config' is not a file (looked for /tmp/hb-test-config." },

	/* boot: and the kernel series (lines 28 on: appended to the base) */
	{ "uimage with a load address", 'b', "iperf3]\n",
	  "iperf3]\nboot:\n  format: uimage\n  load_addr: \"0x42208000\"\n", 0, 0, NULL },
	{ "fit with an entry point", 'b', "iperf3]\n",
	  "iperf3]\nboot:\n  format: fit\n  load_addr: \"0x86000000\"\n  entry_addr: \"0x86000000\"\n",
	  0, 0, NULL },
	{ "plain boot format", 'b', "iperf3]\n", "iperf3]\nboot:\n  format: plain\n", 0, 0, NULL },
	{ "unknown boot format", 'b', "iperf3]\n", "iperf3]\nboot:\n  format: zboot\n", 29, 11,
	  "'boot.format' must be one of plain, uimage, uimage-appended-dtb, fit, got 'zboot'" },
	{ "uimage without load address", 'b', "iperf3]\n", "iperf3]\nboot:\n  format: uimage\n", 29, 11,
	  "boot.format uimage needs boot.load_addr" },
	{ "load address not hex", 'b', "iperf3]\n",
	  "iperf3]\nboot:\n  format: fit\n  load_addr: \"42208000\"\n", 30, 14,
	  "boot.load_addr '42208000' is not a hex address; write it like \"0x42208000\"" },
	{ "load address too long", 'b', "iperf3]\n",
	  "iperf3]\nboot:\n  format: fit\n  load_addr: \"0x100000000000000000\"\n", 30, 14,
	  "is not a hex address" },
	{ "load address above 4 GiB", 'b', "iperf3]\n",
	  "iperf3]\nboot:\n  format: uimage\n  load_addr: \"0x100000000\"\n", 30, 14,
	  "boot.load_addr '0x100000000' is above 4 GiB" },
	{ "lava uimage without a uimage format", 'b', "iperf3]\n",
	  "iperf3]\nlava:\n  device_type: tmp\n  deploy_to: tftp\n  kernel_type: uimage\n"
	  "  boot_method: u-boot\n  boot_commands: ramdisk\n  prompts: [\"/ #\"]\n", 31, 16,
	  "lava.kernel_type uimage needs boot.format uimage or uimage-appended-dtb" },
	{ "entry address not hex", 'b', "iperf3]\n",
	  "iperf3]\nboot:\n  format: fit\n  load_addr: \"0x1000\"\n  entry_addr: \"0xZ\"\n", 31, 15,
	  "boot.entry_addr '0xZ' is not a hex address" },
	{ "plain takes no address", 'b', "iperf3]\n",
	  "iperf3]\nboot:\n  format: plain\n  load_addr: \"0x1000\"\n", 30, 14,
	  "boot.format plain boots the image where the boot loader put it and takes no address" },
	{ "appended dtb is 32-bit only", 'b', NULL, board_arm64_appended_dtb, 32, 11,
	  "boot.format uimage-appended-dtb is for 32-bit arm (CONFIG_ARM_APPENDED_DTB); use fit or uimage for arm64" },
	{ "series not MAJOR.MINOR", 'b', "[\"6.1\"]", "[\"6\"]", 6, 10,
	  "series '6' is not a kernel series; write MAJOR.MINOR" },
	{ "min_series met", 'b', "  cmdline: console=ttyS0,115200\n",
	  "  cmdline: console=ttyS0,115200\n  min_series: \"6.1\"\n", 0, 0, NULL },
	{ "series older than min_series", 'b', "  cmdline: console=ttyS0,115200\n",
	  "  cmdline: console=ttyS0,115200\n  min_series: \"6.12\"\n", 6, 10,
	  "series '6.1' is older than kernel.min_series '6.12' (line 13)" },
	{ "min_series not a series", 'b', "  cmdline: console=ttyS0,115200\n",
	  "  cmdline: console=ttyS0,115200\n  min_series: latest\n", 13, 15,
	  "kernel.min_series 'latest' is not a kernel series" },
	{ "external dtb found", 'b', "  cmdline: console=ttyS0,115200\n",
	  "  cmdline: console=ttyS0,115200\n  external_dtb: tmp-board.dts\n", 0, 0, NULL },
	{ "external dtb missing", 'b', "  cmdline: console=ttyS0,115200\n",
	  "  cmdline: console=ttyS0,115200\n  external_dtb: nope.dtb\n", 13, 17,
	  "kernel.external_dtb 'nope.dtb' is not a file (looked for /tmp/hb-test-config." },
	{ "external dtb of another kind", 'b', "  cmdline: console=ttyS0,115200\n",
	  "  cmdline: console=ttyS0,115200\n  external_dtb: tmp-board.config\n", 13, 17,
	  "kernel.external_dtb 'tmp-board.config' must name a .dts" },

	/* workload */
	{ "bad direction", 'w', "direction: dut-rx", "direction: rx", 4, 12,
	  "'direction' must be one of dut-tx, dut-rx, bidir, got 'rx'" },
	{ "length above udp max", 'w', "length: 1400", "length: 65508", 5, 9,
	  "'length' must be between 0 and 65507, got 65508" },
	{ "udp length below 16", 'w', "length: 1400", "length: 8", 5, 9,
	  "'length' must be 0 (iperf3's default) or at least 16 for udp, got 8" },
	{ "negative rate", 'w', "rate: 100000000", "rate: -1", 6, 7,
	  "'rate' must be between 0 and 18446744073709551615, got -1" },
	{ "rate above uint64", 'w', "rate: 100000000", "rate: 18446744073709551616", 6, 7,
	  "'rate' must be between 0 and 18446744073709551615" },
	{ "rate with unit", 'w', "rate: 100000000", "rate: 100M", 6, 7, "'rate' must be an integer, got '100M'" },
	{ "int overflow", 'w', "duration: 10", "duration: 99999999999999999999", 7, 11,
	  "'duration' must be between 1 and 3600, got 99999999999999999999" },
	{ "omit too long", 'w', "omit: 1", "omit: 61", 8, 7, "'omit' must be between 0 and 60, got 61" },
	{ "own-boot duration zero", 'w', "omit: 1", "duration_own_boot: 0\nomit: 1", 8, 20,
	  "'duration_own_boot' must be between 1 and 3600, got 0" },
	{ "too many streams", 'w', "streams: 1", "streams: 17", 9, 10, "'streams' must be between 1 and 16, got 17" },

	/* plan */
	{ "invalid name in list", 'p', "coalesce-v2", "Coalesce v2", 4, 24,
	  "'strategies' has 'Coalesce v2', which is not a valid name" },
	{ "empty board list", 'p', "[tmp-board]", "[]", 3, 9, "'boards' must list at least 1 item(s)" },
	{ "repetitions out of range", 'p', "repetitions: 3", "repetitions: 101", 6, 14,
	  "'repetitions' must be between 1 and 100, got 101" },
	{ "bad timing", 'p', "timing: realtime", "timing: wallclock", 7, 9,
	  "'timing' must be one of realtime, virtual, got 'wallclock'" },
	{ "missing workloads", 'p', "workloads: [tmp-wl]\n", "", 1, 1,
	  "the file is missing required key 'workloads'" },

	/* plan: the gate section (line 8 on) */
#define T "timing: realtime\n"
#define HEAD(cap) "gate:\n  alpha: 0.05\n  max_repetitions: " cap "\n  metrics:\n"
#define PPS "    - metric: pps\n"
#define THR "      threshold_pct: {virtual: 0.25, realtime: 15}\n"
	{ "gate section loads", 'p', T, T HEAD("6") PPS THR, 0, 0, NULL },
	{ "gate first_repetitions", 'p', T, T HEAD("6") PPS THR "  first_repetitions: 2\n",
	  0, 0, NULL },
	{ "gate pass rule", 'p', T, T HEAD("6") PPS THR "  pass: no-change\n", 0, 0, NULL },
	{ "gate metric change_repetitions", 'p', T,
	  T HEAD("6") PPS THR "      change_repetitions: 2\n", 0, 0, NULL },
	{ "gate metric change_repetitions above the cap", 'p', T,
	  T HEAD("6") PPS THR "      change_repetitions: 7\n", 12, 15,
	  "'change_repetitions' (7) of metric 'pps' is above 'gate.max_repetitions' (6)" },
	{ "gate metric spread floor", 'p', T,
	  T HEAD("6") PPS THR "      spread_floor_pct: {virtual: 5}\n", 0, 0, NULL },
	{ "gate metric spread floor out of range", 'p', T,
	  T HEAD("6") PPS THR "      spread_floor_pct: {virtual: 5, realtime: 150}\n", 14, 48,
	  "'gate.metrics[1].spread_floor_pct.realtime' must be between 0 and 100, got 150" },
	{ "gate metric reference runs", 'p', T,
	  T HEAD("6") PPS THR "      reference_repetitions: {virtual: 3}\n", 0, 0, NULL },
	{ "gate metric reference of one run", 'p', T,
	  T HEAD("6") PPS THR "      reference_repetitions: {virtual: 1}\n", 14, 40,
	  "'gate.metrics[1].reference_repetitions.virtual' must be between 2 and 100, got 1" },
	{ "gate unknown pass rule", 'p', T, T HEAD("6") PPS THR "  pass: maybe\n", 14, 9,
	  "'gate.pass' must be one of no-regression, no-change, got 'maybe'" },
	{ "gate alpha quoted", 'p', T, T "gate:\n  alpha: '0.05'\n", 9, 10,
	  "'gate.alpha' must be a number (without quotes), got '0.05'" },
	{ "gate alpha out of range", 'p', T, T "gate:\n  alpha: 0.9\n", 9, 10,
	  "'gate.alpha' must be between 1e-06 and 0.5, got 0.9" },
	{ "gate metric not a mapping", 'p', T, T HEAD("6") "    - pps\n", 12, 7,
	  "'gate.metrics[1]' must be a mapping" },
	{ "gate metric with a direction", 'p', T, T HEAD("6") PPS "      better: higher\n" THR, 13, 15,
	  "'gate.metrics[1].better': a metric's better direction is the metric table's" },
	/* metrics_from: another plan's list (plans/gate.yaml: pps udp, mbps udp, mbps
	 * tcp, insn_rx_driver_per_pkt) */
	{ "gate metrics from plans/gate.yaml", 'p', T,
	  T "gate:\n  alpha: 0.05\n  max_repetitions: 6\n  metrics_from: gate\n", 0, 0, NULL },
	{ "gate metrics_only from plans/gate.yaml", 'p', T,
	  T "gate:\n  alpha: 0.05\n  max_repetitions: 6\n  metrics_from: gate\n"
	  "  metrics_only: [pps, mbps]\n", 0, 0, NULL },
	{ "gate metrics_only names what the other plan does not gate", 'p', T,
	  T "gate:\n  alpha: 0.05\n  max_repetitions: 6\n  metrics_from: gate\n"
	  "  metrics_only: [pps, jitter_ms]\n", 12, 23, "does not gate 'jitter_ms'; name one of" },
	{ "gate metrics_from a plan that is not there", 'p', T,
	  T "gate:\n  alpha: 0.05\n  max_repetitions: 6\n  metrics_from: no-such-plan\n", 11, 17,
	  "'metrics_from: no-such-plan' does not load: " },
	{ "gate metrics_from a plan without a gate", 'p', T,
	  T "gate:\n  alpha: 0.05\n  max_repetitions: 6\n  metrics_from: knobs\n", 11, 17,
	  "has no gate section to take metrics from" },
	{ "gate metrics and metrics_from", 'p', T,
	  T HEAD("6") PPS THR "  metrics_from: gate\n", 12, 5,
	  "needs exactly one of 'metrics' (a list of metrics and thresholds) or 'metrics_from'" },
	{ "gate without metrics or metrics_from", 'p', T,
	  T "gate:\n  alpha: 0.05\n  max_repetitions: 6\n", 9, 3, "needs exactly one of 'metrics'" },
	{ "gate metrics_only without metrics_from", 'p', T,
	  T HEAD("6") PPS THR "  metrics_only: [pps]\n", 14, 17,
	  "'metrics_only' picks from the plan 'metrics_from' names" },
	{ "gate metric for one direction", 'p', T, T HEAD("6") PPS "      direction: dut-tx\n" THR,
	  0, 0, NULL },
	{ "gate metric for runs without a profiler", 'p', T,
	  T HEAD("6") PPS "      profile: none\n" THR, 0, 0, NULL },
	{ "gate metric bad profiler", 'p', T, T HEAD("6") PPS "      profile: gprof\n" THR, 13, 16,
	  "'gate.metrics[1].profile' must be one of any, none, ftrace, perf, got 'gprof'" },
	{ "gate metric bad traffic direction", 'p', T,
	  T HEAD("6") PPS "      direction: out\n" THR, 13, 18,
	  "'gate.metrics[1].direction' must be one of any, dut-tx, dut-rx, bidir, got 'out'" },
	{ "gate metric without threshold", 'p', T, T HEAD("6") PPS, 12, 7,
	  "'gate.metrics[1]' is missing required key 'threshold_pct'" },
	{ "gate threshold for one timing mode", 'p', T,
	  T HEAD("6") PPS "      threshold_pct: {realtime: 15}\n", 0, 0, NULL },
	{ "gate threshold for no timing mode", 'p', T,
	  T HEAD("6") PPS "      threshold_pct: {}\n", 13, 22,
	  "'threshold_pct' of metric 'pps' names no timing mode; give 'virtual', 'realtime' "
	  "or both" },
	{ "gate threshold unknown mode", 'p', T,
	  T HEAD("6") PPS "      threshold_pct: {virtual: 0.25, wallclock: 15}\n", 13, 38,
	  "unknown key 'wallclock' in 'gate.metrics[1].threshold_pct'" },
	{ "gate without metrics", 'p', T, T "gate:\n  alpha: 0.05\n  max_repetitions: 6\n  metrics: []\n",
	  11, 12, "'gate.metrics' is empty" },
	{ "gate cap below repetitions", 'p', T, T HEAD("2") PPS THR, 10, 20,
	  "'gate.max_repetitions' (2) is below the reference's repetitions (3)" },
	{ "gate reference repetitions above the cap", 'p', T,
	  T HEAD("6") PPS THR "  reference_repetitions: 8\n", 10, 20,
	  "'gate.max_repetitions' (6) is below the reference's repetitions (8)" },
	/* repeat: until-decided needs the gate section's thresholds */
	{ "repeat until decided loads", 'p', T, T "repeat: until-decided\n" HEAD("6") PPS THR,
	  0, 0, NULL },
	{ "repeat until decided without a gate", 'p', T, T "repeat: until-decided\n", 8, 9,
	  "'repeat: until-decided' decides each metric to a threshold the plan's gate section "
	  "gives; add one (copy plans/gate.yaml's) or give 'repeat: fixed'" },
	{ "repeat unknown rule", 'p', T, T "repeat: forever\n", 8, 9,
	  "'repeat' must be one of fixed, until-decided, got 'forever'" },
#undef T
#undef HEAD
#undef PPS
#undef THR

	/* driver */
	{ "driver base loads", 'd', NULL, driver_base, 0, 0, NULL },
	{ "a driver without stats", 'd', NULL,
	  "name: tmp-drv\ndescription: d\ntx_timer: t\ntx_napi_poll: p\nxmit: x\n"
	  "profile: [x]\nstats: []\n", 0, 0, NULL },
	{ "function not an identifier", 'd', "xmit: foo_xmit", "xmit: foo-xmit", 5, 7,
	  "'xmit' is no list the agent can profile (functions=: names are C identifiers" },
	{ "function starting with a digit", 'd', "tx_timer: foo_tx_timer", "tx_timer: 1timer", 3, 11,
	  "a name must start with [A-Za-z_]" },
	{ "profile name too long", 'd', "[hrtimer_interrupt,",
	  "[a123456789a123456789a123456789a123456789a123456789a123456789abcd,", 6, 10,
	  "a name longer than 63 characters" },
	{ "profile with too many names", 'd', "[hrtimer_interrupt,",
	  "[a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16,", 6, 10,
	  "more than 16 names" },
	{ "profile empty", 'd', "[hrtimer_interrupt, foo_xmit]", "[]", 6, 10,
	  "'profile' must list at least 1 item(s)" },
	{ "stat with a space", 'd', "stat: tx_irq\n", "stat: tx irq\n", 8, 11,
	  "'stats[1].stat' 'tx irq' is no ethtool -S name" },
	{ "metric not a metric name", 'd', "metric: tx_irqs_per_pkt", "metric: TX-irqs", 9, 13,
	  "'stats[1].metric' 'TX-irqs' is no metric name" },
	{ "per neither tx nor rx", 'd', "per: tx", "per: both", 10, 10,
	  "'stats[1].per' must be one of tx, rx, got 'both'" },
	{ "stat listed twice", 'd', "stat: rx_irq", "stat: tx_irq", 12, 11,
	  "stat 'tx_irq' is listed twice (stats[1]); keep one" },
	{ "metric from two stats", 'd', "metric: rx_irqs_per_pkt", "metric: tx_irqs_per_pkt", 13, 13,
	  "metric 'tx_irqs_per_pkt' comes from two stats (stats[1])" },
	{ "stat without counts", 'd', "    counts: RX interrupts\n", "", 12, 5,
	  "'stats[2]' is missing required key 'counts'" },
	{ "driver name mismatch", 'd', "name: tmp-drv", "name: other-drv", 1, 7,
	  "name 'other-drv' does not match the file name 'tmp-drv.yaml'" },
	{ "driver source in the tree", 'd', "xmit: foo_xmit\n",
	  "xmit: foo_xmit\nsource: drivers/net/ethernet/foo\n", 0, 0, NULL },
	{ "driver source out of the tree", 'd', "xmit: foo_xmit\n",
	  "xmit: foo_xmit\nsource: drivers/../../etc\n", 6, 9,
	  "'source' 'drivers/../../etc' is no directory of the kernel tree" },
	{ "driver source absolute", 'd', "xmit: foo_xmit\n",
	  "xmit: foo_xmit\nsource: /usr/src\n", 6, 9, "(relative, no '..')" },
};

/* ---- fixtures: tests/data/bad/<defect>.yaml ---- */

struct fixture {
	const char *file;
	int kind;
	int line, col;
	const char *phrase;
};

static void run_fixture(void **state)
{
	const struct fixture *f = *state;
	char *rel = xasprintf("tests/data/bad/%s", f->file);
	char *path = home_path(rel);

	int ok = load(f->kind, path) == -1 && error_is(path, f->line, f->col, f->phrase);
	free(path);
	free(rel);
	assert_true(ok);
}

static const struct fixture fixtures[] = {
	{ "syntax-bad-indent.yaml", 'w', 4, 11,
	  "mapping values are not allowed in this context; fix the YAML syntax" },
	{ "syntax-unclosed-bracket.yaml", 'p', 5, 11,
	  "did not find expected ',' or ']' (while parsing a flow sequence at line 4); fix the YAML syntax" },
	{ "unknown-key-top.yaml", 'w', 4, 1,
	  "unknown key 'protocl' at the top level; expected one of: name, description, protocol," },
	{ "unknown-key-nested.yaml", 'b', 5, 3,
	  "unknown key 'boot_timeout' in 'deploy'; expected one of: backend, boot_timeout_s, qemu" },
	{ "missing-key.yaml", 'w', 2, 1, "the file is missing required key 'duration'; add it" },
	{ "wrong-type-list.yaml", 'b', 3, 14, "'description' must be a string, got a list" },
	{ "out-of-range.yaml", 'w', 8, 11, "'duration' must be between 1 and 3600, got 0" },
	{ "bad-enum.yaml", 'w', 4, 11, "'protocol' must be one of udp, tcp, got 'icmp'" },
	{ "duplicate-key.yaml", 'p', 6, 1,
	  "duplicate key 'repetitions' (first at line 4); remove one of them" },
	{ "name-mismatch.yaml", 'w', 2, 7,
	  "name 'udp64-dut-tx' does not match the file name 'name-mismatch.yaml'" },
	{ "driver-bad-symbol.yaml", 'd', 4, 11,
	  "'tx_timer' is no list the agent can profile (functions=: names are C identifiers joined by ',')" },
	{ "driver-bad-call.yaml", 'd', 8, 8,
	  "'calls' is no list the agent can profile (functions=: names are C identifiers joined by ',')" },
	{ "driver-stat-twice.yaml", 'd', 12, 11,
	  "stat 'tx_clean' is listed twice (stats[1]); keep one" },
	{ "addr-outside-range.yaml", 'b', 18, 13,
	  "dut.dut_addr '192.168.1.2/24' is outside 198.18.0.0/15, the range RFC 2544 reserves for benchmarking" },
};

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_shipped_files_load),
		cmocka_unit_test(test_shipped_board_values),
		cmocka_unit_test(test_shipped_workload_and_plan_values),
		cmocka_unit_test(test_gate_metrics_per_timing_mode),
		cmocka_unit_test(test_shipped_real_boards),
		cmocka_unit_test(test_board_series_check),
		cmocka_unit_test(test_series_compare),
		cmocka_unit_test(test_strategy_upstream),
		cmocka_unit_test(test_driver_files),
		cmocka_unit_test(test_strategy_driver),
		cmocka_unit_test(test_enum_names),
		cmocka_unit_test(test_emulator_files),
		cmocka_unit_test(test_board_virtual_seconds),
		cmocka_unit_test(test_missing_file),
	};
	/* One cmocka test per table row, so a failure names the case. */
	enum { NF = HB_ARRAY_SIZE(fixed), NV = HB_ARRAY_SIZE(variants),
	       NX = HB_ARRAY_SIZE(fixtures) };
	static struct CMUnitTest tests[NF + NV + NX];
	size_t n = 0;

	for (size_t i = 0; i < NF; i++)
		tests[n++] = fixed[i];
	for (size_t i = 0; i < NV; i++)
		tests[n++] = (struct CMUnitTest){ .name = variants[i].name,
			.test_func = run_variant, .initial_state = (void *)&variants[i] };
	for (size_t i = 0; i < NX; i++)
		tests[n++] = (struct CMUnitTest){ .name = fixtures[i].file,
			.test_func = run_fixture, .initial_state = (void *)&fixtures[i] };
	return _cmocka_run_group_tests("config", tests, n, NULL, NULL);
}
