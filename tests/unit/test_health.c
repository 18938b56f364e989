/*
 * The DUT's health signs: a NETDEV WATCHDOG (or an oops, a panic, a
 * WARNING) on the console, or in a kernel-log record the agent forwards as
 * HB KMSG, sets the reason the runner fails the run with (runner.c: a
 * non-empty d->health or a KMSG health line makes the run RUN_FAIL). The
 * console here is a pipe carrying a recorded console log: a stand-in for
 * QEMU's stdio, to test the reading and scanning around it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "deploy/dut.h"
#include "util/util.h"

static const char watchdog_log[] =
	"HB COUNTER id=r1 phase=before name=tx_packets value=10\n"
	"[   52.310214] ------------[ cut here ]------------\n"
	"[   52.310512] NETDEV WATCHDOG: eth0 (dwmac-sun8i): transmit queue 0 timed out\n"
	"HB END id=r1 status=ok\n";

static void test_console_watchdog_sets_health(void **state)
{
	(void)state;
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], watchdog_log, strlen(watchdog_log)),
			 (ssize_t)strlen(watchdog_log));
	close(fds[1]);
	static struct dut d;
	memset(&d, 0, sizeof(d));
	d.con_rd = fds[0];
	d.con_wr = -1;
	char line[256];
	assert_int_equal(dut_read_line(&d, line, sizeof(line), 5), 1);
	assert_string_equal(line, "COUNTER id=r1 phase=before name=tx_packets value=10");
	assert_string_equal(d.health, "");
	assert_int_equal(dut_read_line(&d, line, sizeof(line), 5), 1);
	assert_string_equal(line, "END id=r1 status=ok");
	/* the telling line is kept, not the cut-here marker that opens the
	 * report */
	assert_non_null(strstr(d.health, "NETDEV WATCHDOG: eth0"));
	assert_int_equal(dut_read_line(&d, line, sizeof(line), 5), -1);
	close(fds[0]);
}

/* read_within(), the one wait on an emulator's or a DUT's descriptor:
 * what came, nothing in time, the other end gone, hilbench interrupted.
 * A pipe stands in for the console or the control socket. */
static void test_read_within_tells_the_four_ends(void **state)
{
	(void)state;
	int fds[2];
	char buf[8];
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(read_within(fds[0], buf, sizeof(buf), monotonic_s() + 0.05),
			 READ_NONE_IN_TIME);
	assert_int_equal(write(fds[1], "C", 1), 1);
	assert_int_equal(read_within(fds[0], buf, sizeof(buf), monotonic_s() + 5), 1);
	assert_int_equal(buf[0], 'C');
	hb_interrupted = 1;
	assert_int_equal(write(fds[1], "C", 1), 1);
	assert_int_equal(read_within(fds[0], buf, sizeof(buf), monotonic_s() + 5),
			 READ_INTERRUPTED);
	hb_interrupted = 0;
	assert_int_equal(read_within(fds[0], buf, sizeof(buf), monotonic_s() + 5), 1);
	close(fds[1]);
	assert_int_equal(read_within(fds[0], buf, sizeof(buf), monotonic_s() + 5), READ_CLOSED);
	close(fds[0]);
}

/* The console's reader on it: no line in time is 0 and the console still
 * open; the console closing is -1 and marks it closed (the DUT died). */
static void test_console_silent_then_closed(void **state)
{
	(void)state;
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	static struct dut d;
	memset(&d, 0, sizeof(d));
	d.con_rd = fds[0];
	d.con_wr = -1;
	char line[64];
	assert_int_equal(write(fds[1], "[ 1.0] not ours\n", 16), 16);
	assert_int_equal(dut_read_line(&d, line, sizeof(line), 0.05), 0);
	assert_int_equal(d.console_closed, 0);
	close(fds[1]);
	assert_int_equal(dut_read_line(&d, line, sizeof(line), 5), -1);
	assert_int_equal(d.console_closed, 1);
	close(fds[0]);
}

/* A panic's console: the marker, the BUG line that says what and where,
 * the oops, the panic. A report quotes the BUG line; a later, lesser sign
 * does not replace it, and a reason set by other code is left alone. */
static void test_the_most_telling_line_is_kept(void **state)
{
	(void)state;
	static const char *const splat[] = {
		"[ 61.1] ------------[ cut here ]------------",
		"[ 61.1] kernel BUG at net/core/skbuff.c:2710!",
		"[ 61.1] Internal error: Oops - BUG: 0 [#1] SMP ARM",
		"[ 61.2] Kernel panic - not syncing: Fatal exception in interrupt",
	};
	char health[512] = "";
	dut_health_note(health, sizeof(health), "[ 60.0] dwmac-sun8i eth0: Link is Up");
	assert_string_equal(health, "");
	for (size_t i = 0; i < sizeof(splat) / sizeof(splat[0]); i++)
		dut_health_note(health, sizeof(health), splat[i]);
	assert_string_equal(health, splat[1]);
	/* a watchdog alone, after its cut-here marker */
	char wd[512] = "";
	dut_health_note(wd, sizeof(wd), splat[0]);
	dut_health_note(wd, sizeof(wd), "NETDEV WATCHDOG: eth0 (dwmac-sun8i): transmit queue 0 timed out");
	assert_non_null(strstr(wd, "NETDEV WATCHDOG"));
	char set[512] = "agent: ERROR iperf3 failed";
	dut_health_note(set, sizeof(set), splat[1]);
	assert_string_equal(set, "agent: ERROR iperf3 failed");
}

static void test_kmsg_lines(void **state)
{
	(void)state;
	assert_string_equal(dut_health_sign("NETDEV WATCHDOG: eth0 (dwmac-sun8i): transmit queue 0 "
					    "timed out 5060 ms"), "NETDEV WATCHDOG");
	assert_non_null(dut_health_sign("WARNING: CPU: 0 PID: 0 at net/sched/sch_generic.c:525"));
	assert_non_null(dut_health_sign("Internal error: Oops: 17 [#1] SMP ARM"));
	assert_non_null(dut_health_sign("BUG: scheduling while atomic"));
	/* warnings the DUT logs on every healthy run */
	assert_null(dut_health_sign("process '/usr/bin/perf' started with executable stack"));
	assert_null(dut_health_sign("dwmac-sun8i 1c30000.ethernet eth0: Link is Up - 100Mbps/Full"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_console_watchdog_sets_health),
		cmocka_unit_test(test_read_within_tells_the_four_ends),
		cmocka_unit_test(test_console_silent_then_closed),
		cmocka_unit_test(test_kmsg_lines),
		cmocka_unit_test(test_the_most_telling_line_is_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
