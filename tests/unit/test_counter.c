/* counter: the start of the emulator's instruction counter, against a
 * TEST DOUBLE of the plugin (harness/plugin/hb-insn.c): the other end of
 * a socket pair, answering as the test says. It tests hilbench's side of
 * the handshake only: what it sends, and what it says for each answer
 * (counting, none in time, the socket closed, another byte, interrupted).
 * The real plugin answers from the vCPU's thread, which no guest can hold,
 * so its silence cannot be made on a real emulator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "deploy/counter.h"
#include "deploy/dut.h"

static int fds[2];	/* [0] hilbench's, [1] the double's */
static char why[256];

static int setup(void **state)
{
	(void)state;
	why[0] = '\0';
	return socketpair(AF_UNIX, SOCK_STREAM, 0, fds);
}

static int teardown(void **state)
{
	(void)state;
	close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	return 0;
}

/* The double's answer waits in the socket before it is asked: the
 * handshake reads it after its own byte is sent. */
static void counting_is_started(void **state)
{
	(void)state;
	assert_int_equal(write(fds[1], "C", 1), 1);
	assert_int_equal(counter_start(fds[0], 5, why, sizeof(why)), 0);
	char c = 0;
	assert_int_equal(read(fds[1], &c, 1), 1);	/* it asked */
	assert_int_equal(c, 'S');
	assert_string_equal(why, "");
}

static void silence_is_no_answer_in_time(void **state)
{
	(void)state;
	assert_int_equal(counter_start(fds[0], 0.05, why, sizeof(why)), -1);
	assert_string_equal(why, "the emulator's instruction counter did not start: "
				 "no answer within 0.05 s");
}

static void a_closed_socket_points_at_the_emulators_log(void **state)
{
	(void)state;
	close(fds[1]);
	fds[1] = -1;
	assert_int_equal(counter_start(fds[0], 5, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "did not start: the emulator closed its socket (its qemu.log"));
}

static void another_byte_is_named(void **state)
{
	(void)state;
	assert_int_equal(write(fds[1], "\xff", 1), 1);
	assert_int_equal(counter_start(fds[0], 5, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "did not start: it answered byte 0xff, not 'C'"));
}

static void an_interrupt_ends_the_wait(void **state)
{
	(void)state;
	hb_interrupted = 1;
	int rc = counter_start(fds[0], 5, why, sizeof(why));
	hb_interrupted = 0;
	assert_int_equal(rc, -1);
	assert_string_equal(why, "the emulator's instruction counter did not start: interrupted");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(counting_is_started, setup, teardown),
		cmocka_unit_test_setup_teardown(silence_is_no_answer_in_time, setup, teardown),
		cmocka_unit_test_setup_teardown(a_closed_socket_points_at_the_emulators_log, setup,
						teardown),
		cmocka_unit_test_setup_teardown(another_byte_is_named, setup, teardown),
		cmocka_unit_test_setup_teardown(an_interrupt_ends_the_wait, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
