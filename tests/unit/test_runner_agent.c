/* runner: the agent's lines as the host reads them (runner_agent_metrics()),
 * from a console that is a file: a test double of the DUT, written by the
 * test. The console is hostile input: an HB FILE whose size= is near 2^64
 * or not a number, counters and hist hits beyond any real count, must be
 * refused without an overflow (the tests run under ASan/UBSan). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_proto.h"
#include "config/catalog.h"
#include "measure/runner.h"
#include "store/metrics.h"
#include "util/util.h"

static char dir[64];
static struct run_result res;	/* large: not on the stack */
static struct driver stmmac;	/* drivers/stmmac.yaml, the driver under test */
static const struct driver *under_test = &stmmac;	/* what run_console() boots */

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hb-test-runner-agent-XXXXXX");
	return mkdtemp(dir) && catalog_driver("stmmac", &stmmac) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	driver_free(&stmmac);
	return rm_rf(dir);
}

/* A UDP sender's report on the DUT, and the host's receiving side. */
static const char dut_tx[] =
	"{\"end\":{\"sum_sent\":{\"seconds\":2,\"bits_per_second\":2e6,\"packets\":2000}}}";
static const char host_rx[] =
	"{\"end\":{\"sum_received\":{\"seconds\":2,\"bits_per_second\":2e6,\"packets\":2000,"
	"\"lost_packets\":0}}}";

/* The agent's HB FILE of data as it sends it (B64 lines of 57 bytes), with
 * size= and crc32= as given, or the true ones for NULL. */
static char *file_lines(const char *data, const char *size, const char *crc)
{
	size_t len = strlen(data);
	char true_size[24], true_crc[16];
	snprintf(true_size, sizeof(true_size), "%zu", len);
	snprintf(true_crc, sizeof(true_crc), "%08x", (unsigned)crc32_update(0, data, len));
	char *out = xasprintf("HB FILE id=r1 name=iperf.json size=%s crc32=%s\n",
			      size ? size : true_size, crc ? crc : true_crc);
	for (size_t off = 0; off < len; off += 57) {
		char b64[80];
		base64_encode(data + off, len - off < 57 ? len - off : 57, b64);
		char *more = xasprintf("%sHB B64 %s\n", out, b64);
		free(out);
		out = more;
	}
	char *more = xasprintf("%sHB EOF id=r1\n", out);
	free(out);
	return more;
}

/* runner_agent_metrics() on a console holding text. */
static int run_console(const char *text)
{
	char *con = path_join(dir, "console");
	char *host = path_join(dir, "host-iperf.json");
	assert_int_equal(write_file_atomic(con, text, strlen(text)), 0);
	assert_int_equal(write_file_atomic(host, host_rx, strlen(host_rx)), 0);
	struct board b = { .dut_interface = "eth0" };
	struct dut d = { .board = &b, .con_wr = -1, .under_test = under_test };
	d.con_rd = open(con, O_RDONLY | O_CLOEXEC);
	assert_true(d.con_rd >= 0);
	struct workload w = { .name = "udp-tx", .dir = WL_DUT_TX, .proto = WL_UDP,
			      .duration_s = 2, .streams = 1 };
	int ok = runner_agent_metrics(&d, &w, "r1", dir, host, &res);
	close(d.con_rd);
	free(con);
	free(host);
	return ok;
}

static double metric(const char *name)
{
	for (size_t i = 0; i < res.n_metrics; i++)
		if (!strcmp(res.metrics[i].name, name))
			return res.metrics[i].value;
	return NAN;
}

static const char counters[] =
	"HB COUNTER id=r1 phase=before name=tx_packets value=100\n"
	"HB COUNTER id=r1 phase=before name=clock_ns value=0\n"
	"HB COUNTER id=r1 phase=after name=tx_packets value=2100\n"
	"HB COUNTER id=r1 phase=after name=clock_ns value=2000000000\n";

static void an_intact_file_and_counters_give_metrics(void **state)
{
	(void)state;
	char *file = file_lines(dut_tx, NULL, NULL);
	char *text = xasprintf("%s%s[ 12.3] kernel noise\nHB END id=r1 status=ok\n", counters, file);
	assert_int_equal(run_console(text), 1);
	assert_float_equal(metric("pps"), 1000, 1e-9);
	assert_float_equal(metric("dut_tx_packets"), 2000, 1e-9);
	free(text);
	free(file);
}

/* A run whose iperf.json is sent with size= and crc32= as given (NULL: the
 * true ones) is not measured: the file did not arrive intact. */
static void assert_file_refused(const char *data, const char *size, const char *crc)
{
	char *file = file_lines(data, size, crc);
	char *text = xasprintf("%s%sHB END id=r1 status=ok\n", counters, file);
	assert_int_equal(run_console(text), 0);
	assert_non_null(strstr(res.reason, "did not arrive intact"));
	free(text);
	free(file);
}

/* size+64 wrapped to a few bytes, and the first B64 line overflowed the
 * heap; a size with a sign or suffix was read by its digits. The CRC is
 * the true one: only the size is wrong. */
static void a_file_size_that_is_not_a_sane_number_is_refused(void **state)
{
	(void)state;
	size_t n = strlen(dut_tx);
	char *sizes[] = {
		xstrdup("18446744073709551600"), xstrdup("18446744073709551615"),
		xstrdup("18446744073709551616"), xstrdup("-1"), xasprintf("%zuabc", n),
		xasprintf("%zu.0", n), xasprintf("+%zu", n), xasprintf("0x%zx", n),
		xasprintf("00000000000000000000000%zu", n),	/* cut to 0 by proto_get */
		xstrdup("67108865"),	/* FILE_MAX + 1 */
	};
	for (size_t i = 0; i < HB_ARRAY_SIZE(sizes); i++) {
		assert_file_refused(dut_tx, sizes[i], NULL);
		free(sizes[i]);
	}
	/* a crc32 that is not 8 hex digits: refused, not read as a number */
	char *crc = xasprintf("0x%08x", (unsigned)crc32_update(0, dut_tx, n));
	assert_file_refused(dut_tx, NULL, crc);
	free(crc);
}

/* More B64 than size= announced: never decoded past the buffer. */
static void more_data_than_announced_is_refused(void **state)
{
	(void)state;
	char *big = xasprintf("%s%s%s", dut_tx, dut_tx, dut_tx);
	assert_file_refused(big, "1", NULL);
	free(big);
}

/* Two hist buckets of 2^63 - 1 hits overflowed the sum of TX timer starts;
 * a counter or a driver statistic beyond 2^53 is noise, not a count. */
static void counts_beyond_any_real_one_are_ignored(void **state)
{
	(void)state;
	char *file = file_lines(dut_tx, NULL, NULL);
	char *text = xasprintf(
		"%s"
		"HB COUNTER id=r1 phase=before name=rx_packets value=0\n"
		"HB COUNTER id=r1 phase=after name=rx_packets value=99999999999999999999999\n"
		"HB HIST id=r1 event=timer:hrtimer_start caller=stmmac_tx_timer hits=9223372036854775807\n"
		"HB HIST id=r1 event=timer:hrtimer_start caller=stmmac_tx_timer hits=9223372036854775807\n"
		"HB CONTEXT id=r1 name=coalesce msg=rx_usecs=-5 tx_usecs=18446744073709551615 tx_frames=25\n"
		"HB DSTAT id=r1 name=tx_clean delta=1000\n"
		"HB DSTAT id=r1 name=tx_set_ic_bit delta=+18446744073709551615\n"
		"%sHB END id=r1 status=ok\n", counters, file);
	assert_int_equal(run_console(text), 1);
	assert_true(isnan(metric("dut_rx_packets")));
	assert_true(isnan(metric("hrtimer_starts_per_pkt")));
	assert_true(isnan(metric("coalesce_rx_usecs")));
	assert_true(isnan(metric("coalesce_tx_usecs")));
	assert_float_equal(metric("coalesce_tx_frames"), 25, 1e-9);
	assert_float_equal(metric("ethtool.tx_clean"), 1000, 1e-9);
	assert_float_equal(metric("ethtool.tx_set_ic_bit"), 0, 1e-9);	/* as if not sent */
	free(text);
	free(file);
}

static const char *unit_of(const char *name)
{
	for (size_t i = 0; i < res.n_metrics; i++)
		if (!strcmp(res.metrics[i].name, name))
			return res.metrics[i].unit;
	return "(not stored)";
}

/* Units come from the metric table (store/metrics.h): every metric of a
 * run with every kind of agent line has its row's, the ones it had when
 * the runner named them itself. */
static void every_metric_has_its_table_unit(void **state)
{
	(void)state;
	char *file = file_lines(dut_tx, NULL, NULL);
	char *text = xasprintf(
		"%s"
		"HB COUNTER id=r1 phase=before name=rx_packets value=0\n"
		"HB COUNTER id=r1 phase=after name=rx_packets value=50\n"
		"HB COUNTER id=r1 phase=before name=cpu_idle value=0\n"
		"HB COUNTER id=r1 phase=after name=cpu_idle value=100\n"
		"HB COUNTER id=r1 phase=before name=cpu_system value=0\n"
		"HB COUNTER id=r1 phase=after name=cpu_system value=100\n"
		"HB HIST id=r1 event=timer:hrtimer_start caller=stmmac_tx_timer hits=2000\n"
		"HB HIST id=r1 event=timer:timer_start caller=stmmac_tx_timer hits=1\n"
		"HB HIST id=r1 event=timer:hrtimer_expire_entry caller=stmmac_tx_timer hits=3\n"
		"HB HIST id=r1 event=timer:timer_expire_entry caller=process_timeout hits=4\n"
		"HB HIST id=r1 event=napi:napi_poll caller=eth0 hits=5\n"
		"HB CONTEXT id=r1 name=coalesce msg=rx_usecs=100 rx_frames=1 tx_usecs=1000 tx_frames=25\n"
		"HB DSTAT id=r1 name=tx_clean delta=1000\n"
		"HB DSTAT id=r1 name=tx_normal_irq_n delta=80\n"
		"%sHB END id=r1 status=ok\n", counters, file);
	assert_int_equal(run_console(text), 1);
	for (size_t i = 0; i < res.n_metrics; i++) {
		const struct metric_def *m = metric_find(res.metrics[i].name);
		if (!m)
			fail_msg("%s has no row in store/metrics.c", res.metrics[i].name);
		assert_string_equal(res.metrics[i].unit, m->unit);
	}
	static const char *const was[][2] = {
		{ "pps", "packets/s" }, { "mbps", "Mbit/s" }, { "host_mbps", "Mbit/s" },
		{ "dut_tx_packets", "packets" }, { "pps_counter", "packets/s" },
		{ "hrtimer_start.stmmac_tx_timer", "events" }, { "napi_poll.eth0", "events" },
		{ "timer_expire_entry.process_timeout", "events" },
		{ "hrtimer_expiries_per_s", "events/s" }, { "tx_timer_expiries_per_pkt", "ratio" },
		{ "hrtimer_starts_per_pkt", "ratio" }, { "ethtool.tx_clean", "events" },
		{ "tx_irqs_per_pkt", "ratio" }, { "cpu_busy_pct", "%" },
		{ "coalesce_tx_usecs", "us" }, { "coalesce_tx_frames", "frames" },
	};
	for (size_t i = 0; i < HB_ARRAY_SIZE(was); i++)
		assert_string_equal(unit_of(was[i][0]), was[i][1]);
	free(text);
	free(file);
}

/* The driver's functions and statistics come from its file: another
 * driver's TX timer and stats are not stmmac's, and no driver, no metric
 * of them. */
static void the_driver_file_names_what_is_counted(void **state)
{
	(void)state;
	char *file = file_lines(dut_tx, NULL, NULL);
	char *text = xasprintf(
		"%s"
		"HB HIST id=r1 event=timer:hrtimer_start caller=stmmac_tx_timer hits=2000\n"
		"HB HIST id=r1 event=timer:hrtimer_start caller=other_tx_timer hits=500\n"
		"HB DSTAT id=r1 name=tx_clean delta=1000\n"
		"HB DSTAT id=r1 name=tx_done delta=400\n"
		"%sHB END id=r1 status=ok\n", counters, file);
	assert_int_equal(run_console(text), 1);
	assert_float_equal(metric("hrtimer_starts_per_pkt"), 1.0, 1e-9);
	assert_float_equal(metric("tx_cleans_per_pkt"), 0.5, 1e-9);

	struct driver_stat done = { .stat = (char[]){ "tx_done" },
				    .metric = (char[]){ "tx_cleans_per_pkt" },
				    .per = DRIVER_PER_TX, .counts = (char[]){ "TX completions" } };
	struct driver other = stmmac;
	other.tx_timer = (char[]){ "other_tx_timer" };
	other.stats = (struct ytable){ .v = &done, .n = 1 };
	under_test = &other;
	assert_int_equal(run_console(text), 1);
	assert_float_equal(metric("hrtimer_starts_per_pkt"), 0.25, 1e-9);
	assert_float_equal(metric("tx_cleans_per_pkt"), 0.2, 1e-9);
	assert_true(isnan(metric("ethtool.tx_clean")));

	under_test = NULL;
	assert_int_equal(run_console(text), 1);
	assert_true(isnan(metric("hrtimer_starts_per_pkt")));
	assert_true(isnan(metric("tx_cleans_per_pkt")));
	assert_float_equal(metric("hrtimer_start.stmmac_tx_timer"), 2000, 1e-9);
	under_test = &stmmac;
	free(text);
	free(file);
}

static void numbers_are_whole_bounded_decimals(void **state)
{
	(void)state;
	unsigned long long v = 7;
	assert_int_equal(parse_uint("0", 0, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_uint("18446744073709551615", ~0ull, &v), 0);
	assert_true(v == ~0ull);
	assert_int_equal(parse_uint("18446744073709551616", ~0ull, &v), -1);
	assert_int_equal(parse_uint("100", 99, &v), -1);
	assert_int_equal(parse_uint("1", 0, &v), -1);
	assert_int_equal(parse_uint("", 99, &v), -1);
	assert_int_equal(parse_uint("-1", 99, &v), -1);
	assert_int_equal(parse_uint("1 ", 99, &v), -1);
	assert_true(v == ~0ull);	/* untouched by the refusals */
	assert_int_equal(proto_get_uint("READY speed=1000 driver=x", "speed", 10000, &v), 1);
	assert_int_equal(v, 1000);
	/* 23 zeros and a 5: cut by proto_get's buffer, it would read as 0 */
	assert_int_equal(proto_get_uint("FILE size=000000000000000000000005", "size", 99, &v), 0);
	assert_int_equal(proto_get_uint("FILE size=", "size", 99, &v), 0);
	assert_int_equal(proto_get_uint("FILE", "size", 99, &v), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(an_intact_file_and_counters_give_metrics),
		cmocka_unit_test(a_file_size_that_is_not_a_sane_number_is_refused),
		cmocka_unit_test(more_data_than_announced_is_refused),
		cmocka_unit_test(counts_beyond_any_real_one_are_ignored),
		cmocka_unit_test(every_metric_has_its_table_unit),
		cmocka_unit_test(the_driver_file_names_what_is_counted),
		cmocka_unit_test(numbers_are_whole_bounded_decimals),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
