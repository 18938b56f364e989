/* proc: programs start from argv arrays; with kill_tree nothing they start
 * outlives hilbench (a killed `hilbench build` once left make's sub-make
 * compiling in a build tree the next build resumed in). The programs here
 * are sh and sleep: the test is about process trees, not about them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/proc.h"
#include "util/util.h"

/* Gone, or a zombie nobody has reaped yet (PID 1 in a container may not). */
static int gone(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	char *stat = read_file(path, NULL);
	if (!stat)
		return 1;
	const char *close_paren = strrchr(stat, ')');
	int zombie = close_paren && close_paren[1] == ' ' && close_paren[2] == 'Z';
	free(stat);
	return zombie;
}

static int gone_within(pid_t pid, int seconds)
{
	for (int i = 0; i < seconds * 20; i++) {
		if (gone(pid))
			return 1;
		nanosleep(&(struct timespec){ .tv_nsec = 50000000 }, NULL);
	}
	return 0;
}

/* A tree of two: sh, and a sleep it started in the background, whose pid
 * is written to `pidfile` once it runs. */
static char *const *tree_argv(const char *pidfile)
{
	static char script[256];
	snprintf(script, sizeof(script), "sleep 60 & echo $! > %s.tmp && mv %s.tmp %s; wait",
		 pidfile, pidfile, pidfile);
	static char *argv[] = { "sh", "-c", script, NULL };
	return argv;
}

static pid_t read_pid(const char *pidfile)
{
	for (int i = 0; i < 200; i++) {
		char *s = read_file(pidfile, NULL);
		if (s) {
			pid_t p = (pid_t)atoi(s);
			free(s);
			return p;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 25000000 }, NULL);
	}
	fail_msg("%s never appeared", pidfile);
	return -1;
}

static void test_exit_status_through_the_guardian(void **state)
{
	(void)state;
	struct proc_opts o = PROC_OPTS_DEFAULT;
	o.kill_tree = 1;
	char *exit7[] = { "sh", "-c", "exit 7", NULL };
	assert_int_equal(proc_run(exit7, &o), 7);
	char *killed[] = { "sh", "-c", "kill -TERM $$", NULL };
	assert_int_equal(proc_run(killed, &o), 128 + SIGTERM);
	char *missing[] = { "/nonexistent/hb-no-such-program", NULL };
	errno = 0;
	assert_int_equal(proc_run(missing, &o), -1);
	assert_int_equal(errno, ENOENT);
}

/* hilbench SIGKILLed while its program runs: the program's own children
 * die too. */
static void test_tree_dies_with_hilbench(void **state)
{
	(void)state;
	char pidfile[] = "/tmp/hb-test-proc-XXXXXX";
	int fd = mkstemp(pidfile);
	assert_true(fd >= 0);
	close(fd);
	unlink(pidfile);
	pid_t hilbench = fork();
	assert_true(hilbench >= 0);
	if (hilbench == 0) {
		struct proc_opts o = PROC_OPTS_DEFAULT;
		o.kill_tree = 1;
		proc_run(tree_argv(pidfile), &o);
		_exit(0);
	}
	pid_t sleeper = read_pid(pidfile);
	kill(hilbench, SIGKILL);
	waitpid(hilbench, NULL, 0);
	assert_true(gone_within(sleeper, 5));
	unlink(pidfile);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* A handled signal (Ctrl-C in `hilbench run`) interrupts the wait: the
 * tree is killed and proc_run() returns. */
static void test_handled_signal_stops_the_tree(void **state)
{
	(void)state;
	char pidfile[] = "/tmp/hb-test-proc-XXXXXX";
	int fd = mkstemp(pidfile);
	assert_true(fd >= 0);
	close(fd);
	unlink(pidfile);
	struct sigaction sa = { 0 }, old;
	sa.sa_handler = on_alarm;	/* no SA_RESTART, as hilbench's handlers */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old);
	pid_t watcher = fork();
	assert_true(watcher >= 0);
	if (watcher == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pid_t sleeper = read_pid(pidfile);
		_exit(gone_within(sleeper, 10) ? 0 : 1);
	}
	alarm(1);
	struct proc_opts o = PROC_OPTS_DEFAULT;
	o.kill_tree = 1;
	assert_int_equal(proc_run(tree_argv(pidfile), &o), 128 + SIGKILL);
	alarm(0);
	sigaction(SIGALRM, &old, NULL);
	int st;
	assert_int_equal(waitpid(watcher, &st, 0), watcher);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	unlink(pidfile);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_status_through_the_guardian),
		cmocka_unit_test(test_tree_dies_with_hilbench),
		cmocka_unit_test(test_handled_signal_stops_the_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
