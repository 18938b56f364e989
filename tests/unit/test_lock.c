/* util/lock.c's host turns, between real processes (flock() holds per
 * open file, so a second holder must be another process or another open):
 * shared turns go together, one alone waits for them and keeps new shared
 * ones out while it waits, and a process that dies gives its turn back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/lock.h"
#include "util/util.h"

static char cache[64];

static int setup(void **state)
{
	(void)state;
	snprintf(cache, sizeof(cache), "/tmp/hb-test-lock-XXXXXX");
	if (!mkdtemp(cache))
		return -1;
	setenv("HILBENCH_CACHE", cache, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char *argv[] = { "rm", "-rf", cache, NULL };
	pid_t pid = fork();
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	int st;
	waitpid(pid, &st, 0);
	return 0;
}

/* A child that takes the turn (alone or not, waiting), writes a byte on
 * the pipe, and holds it until killed. */
static pid_t holder(int alone, int wait, int *ready)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		struct host_turn t;
		if (lock_host_turn(&t, alone, wait) != 0)
			_exit(1);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	*ready = p[0];
	return pid;
}

static void until_ready(int fd)
{
	char c;
	assert_int_equal(read(fd, &c, 1), 1);
	close(fd);
}

static void end(pid_t pid)
{
	int st;
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &st, 0), pid);
}

static void shared_turns_go_together_and_one_alone_waits(void **state)
{
	(void)state;
	int ready;
	pid_t other = holder(0, 1, &ready);
	until_ready(ready);
	struct host_turn t;
	assert_int_equal(lock_host_turn(&t, 0, 0), 0);	/* shared beside shared */
	lock_host_turn_end(&t);
	assert_int_equal(lock_host_turn(&t, 1, 0), 1);	/* alone: it would wait */
	assert_int_equal(t.host, -1);			/* and holds nothing */
	assert_int_equal(t.gate, -1);
	end(other);					/* a dead holder gives it back */
	assert_int_equal(lock_host_turn(&t, 1, 0), 0);
	lock_host_turn_end(&t);
	lock_host_turn_end(&t);				/* idempotent */
}

static void a_turn_alone_keeps_everyone_else_out(void **state)
{
	(void)state;
	int ready;
	pid_t alone = holder(1, 1, &ready);
	until_ready(ready);
	struct host_turn t;
	assert_int_equal(lock_host_turn(&t, 0, 0), 1);
	assert_int_equal(lock_host_turn(&t, 1, 0), 1);
	end(alone);
	assert_int_equal(lock_host_turn(&t, 0, 0), 0);
	lock_host_turn_end(&t);
}

/* One waiting to be alone behind a shared holder: a new shared turn waits
 * too, so the waiting one is not starved by boots that keep coming. */
static void a_waiting_alone_turn_keeps_new_shared_ones_out(void **state)
{
	(void)state;
	int ready, queued;
	pid_t shared = holder(0, 1, &ready);
	until_ready(ready);
	pid_t alone = holder(1, 1, &queued);	/* waits behind the shared one */
	struct host_turn t;
	int rc = 0;
	for (int i = 0; i < 200 && (rc = lock_host_turn(&t, 0, 0)) == 0; i++) {
		lock_host_turn_end(&t);	/* until the alone one holds the gate */
		usleep(5000);
	}
	assert_int_equal(rc, 1);
	end(shared);
	until_ready(queued);	/* it got its turn */
	assert_int_equal(lock_host_turn(&t, 0, 0), 1);
	end(alone);
	assert_int_equal(lock_host_turn(&t, 0, 0), 0);
	lock_host_turn_end(&t);
}

int main(void)
{
	/* one cache for the binary: hb_cache_dir() reads the environment once */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shared_turns_go_together_and_one_alone_waits),
		cmocka_unit_test(a_turn_alone_keeps_everyone_else_out),
		cmocka_unit_test(a_waiting_alone_turn_keeps_new_shared_ones_out),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
