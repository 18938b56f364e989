/* proc: programs start from argv arrays; with kill_tree nothing make starts
 * outlives hilbench (a killed `hilbench build` once left kbuild's sub-make
 * compiling in a build tree the next build resumed in). The tree here is
 * kbuild's shape in small: a make that runs a sub-make whose recipe is a
 * long sleep. */
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

/* make -> sub-make -> sleep, whose pid is written to `pidfile` once it
 * runs (the recipe's shell execs sleep, so its pid is the sleep's). */
static char *const *tree_argv(const char *pidfile)
{
	static char makefile[64];
	snprintf(makefile, sizeof(makefile), "%s.mk", pidfile);
	char *text = xasprintf("top:\n\t$(MAKE) -f %s inner\n"
			       "inner:\n\techo $$$$ > %s.tmp && mv %s.tmp %s && exec sleep 60\n",
			       makefile, pidfile, pidfile, pidfile);
	assert_int_equal(write_file_atomic(makefile, text, strlen(text)), 0);
	free(text);
	static char *argv[] = { "make", "-s", "-f", makefile, "top", NULL };
	return argv;
}

/* A fresh name for the pid file; the file itself appears once sleep runs. */
static void new_pidfile_name(char *pidfile)
{
	int fd = mkstemp(pidfile);
	assert_true(fd >= 0);
	close(fd);
	unlink(pidfile);
}

static void remove_files(const char *pidfile)
{
	char *mk = xasprintf("%s.mk", pidfile);
	unlink(mk);
	unlink(pidfile);
	free(mk);
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

static void test_exit_status_and_exec_failure(void **state)
{
	(void)state;
	struct proc_opts o = PROC_OPTS_DEFAULT;
	o.kill_tree = 1;
	char *exit7[] = { "sh", "-c", "exit 7", NULL };
	assert_int_equal(proc_run(exit7, &o), 7);
	char *killed[] = { "sh", "-c", "kill -TERM $$", NULL };	/* no children here */
	assert_int_equal(proc_run(killed, &o), 128 + SIGTERM);
	char *missing[] = { "/nonexistent/hb-no-such-program", NULL };
	errno = 0;
	assert_int_equal(proc_run(missing, &o), -1);
	assert_int_equal(errno, ENOENT);
}

/* no_huge_pages: the program runs with transparent huge pages off (the
 * kernel reports it in the child's own status). */
static void test_no_huge_pages_reaches_the_program(void **state)
{
	(void)state;
	char *status = read_file("/proc/self/status", NULL);
	int reported = status && strstr(status, "\nTHP_enabled:");
	free(status);
	if (!reported)	/* a kernel before 5.0 does not say */
		skip();
	struct proc_opts o = PROC_OPTS_DEFAULT;
	char *thp_off[] = { "grep", "-q", "^THP_enabled:[[:space:]]*0$", "/proc/self/status", NULL };
	char *thp_on[] = { "grep", "-q", "^THP_enabled:[[:space:]]*1$", "/proc/self/status", NULL };
	assert_int_equal(proc_run(thp_on, &o), 0);
	o.no_huge_pages = 1;
	assert_int_equal(proc_run(thp_off, &o), 0);
}

/* hilbench SIGKILLed while its program runs: the program's own children
 * die too. */
static void test_tree_dies_with_hilbench(void **state)
{
	(void)state;
	char pidfile[] = "/tmp/hb-test-proc-XXXXXX";
	new_pidfile_name(pidfile);
	pid_t hilbench = fork();
	assert_true(hilbench >= 0);
	if (hilbench == 0) {
		struct proc_opts o = PROC_OPTS_DEFAULT;
		o.kill_tree = 1;
		o.log = "/dev/null";
		proc_run(tree_argv(pidfile), &o);
		_exit(0);
	}
	pid_t sleeper = read_pid(pidfile);
	kill(hilbench, SIGKILL);
	waitpid(hilbench, NULL, 0);
	assert_true(gone_within(sleeper, 5));
	remove_files(pidfile);
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
	new_pidfile_name(pidfile);
	struct sigaction sa = { 0 }, old;
	sa.sa_handler = on_alarm;	/* no SA_RESTART, as hilbench's handlers */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old);
	alarm(1);
	struct proc_opts o = PROC_OPTS_DEFAULT;
	o.kill_tree = 1;
	o.log = "/dev/null";
	/* make reports its killed children its own way (exit 2, or SIGTERM) */
	assert_int_not_equal(proc_run(tree_argv(pidfile), &o), 0);
	alarm(0);
	sigaction(SIGALRM, &old, NULL);
	assert_true(gone_within(read_pid(pidfile), 5));
	remove_files(pidfile);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_status_and_exec_failure),
		cmocka_unit_test(test_no_huge_pages_reaches_the_program),
		cmocka_unit_test(test_tree_dies_with_hilbench),
		cmocka_unit_test(test_handled_signal_stops_the_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
