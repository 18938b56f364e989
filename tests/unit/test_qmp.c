/* deploy/qmp.c against a test double of QEMU's control monitor: a forked
 * child on the other end of a socket pair that checks each command it is
 * sent and answers with scripted lines, as QEMU 7.2 does (greeting, events
 * between answers, errors with a desc). It stands in for the emulator only
 * to test the client around it; the real monitor is what `hilbench run`
 * saves and resumes through (docs/measurements.md, "Repetitions from a
 * saved boot"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "deploy/qmp.h"
#include "util/util.h"

#define GREETING "{\"QMP\": {\"version\": {\"qemu\": {\"major\": 7}}, \"capabilities\": []}}\r\n"
#define OK "{\"return\": {}}\r\n"
#define TIMEOUT_S 5

/* A command the double expects (a part of it) and the lines it answers. */
struct step {
	const char *expect;
	const char *answer;
};

/* One line from the client, and the descriptor passed with it (-1 none). */
static int recv_line(int fd, char *line, size_t len, int *passed)
{
	size_t n = 0;
	*passed = -1;
	while (n + 1 < len) {
		char c;
		union {
			char buf[CMSG_SPACE(sizeof(int))];
			struct cmsghdr align;
		} control;
		struct iovec iov = { .iov_base = &c, .iov_len = 1 };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = control.buf, .msg_controllen = sizeof(control.buf) };
		if (recvmsg(fd, &m, 0) != 1)
			return -1;
		struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
		if (cm && cm->cmsg_type == SCM_RIGHTS)
			memcpy(passed, CMSG_DATA(cm), sizeof(int));
		if (c == '\n')
			break;
		line[n++] = c;
	}
	line[n] = '\0';
	return 0;
}

/* The double: the greeting, then each step; a passed descriptor gets
 * "saved state" written into it. Exits 0 when every command matched. With
 * hang set it stays silent after the steps until killed. */
static pid_t monitor(int fd, const char *greeting, const struct step *steps, size_t n,
		     int hang)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid)
		return pid;
	if (write(fd, greeting, strlen(greeting)) < 0)
		_exit(2);
	for (size_t i = 0; i < n; i++) {
		char line[4096];
		int passed;
		if (recv_line(fd, line, sizeof(line), &passed) < 0 || !strstr(line, steps[i].expect))
			_exit(1);
		if (passed >= 0) {
			if (write(passed, "saved state", 11) != 11)
				_exit(3);
			close(passed);
		}
		if (write(fd, steps[i].answer, strlen(steps[i].answer)) < 0)
			_exit(2);
	}
	while (hang)
		pause();
	_exit(0);
}

static int finish(pid_t pid)
{
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* A client on one end of a pair whose other end the double plays. */
static pid_t start(struct qmp *q, const char *greeting, const struct step *steps, size_t n,
		   int hang)
{
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	pid_t pid = monitor(sv[1], greeting, steps, n, hang);
	close(sv[1]);
	q->fd = sv[0];
	return pid;
}

/* What a save or a load (qmp_save, qmp_load) does against the double
 * playing steps after the greeting: its result, its message in err; the
 * state file it was given, which the caller closes, in *file. The double
 * must have seen every step. */
static int scripted(const struct step *steps, size_t n,
		    int (*op)(struct qmp *, int, double, char *, size_t), char err[512], int *file)
{
	static struct qmp q;
	pid_t pid = start(&q, GREETING, steps, n, 0);
	*file = memfd_create("test-qmp", MFD_CLOEXEC);
	assert_true(*file >= 0);
	assert_int_equal(qmp_open(&q, q.fd, TIMEOUT_S, err, 512), 0);
	int rc = op(&q, *file, TIMEOUT_S, err, 512);
	qmp_close(&q);
	assert_int_equal(finish(pid), 0);
	return rc;
}

static void save_passes_the_file_and_lets_the_guest_run_on(void **state)
{
	(void)state;
	const struct step steps[] = {
		{ "qmp_capabilities", OK },
		{ "\"getfd\"", OK },
		{ "\"fd:hbstate\"", "{\"timestamp\": {}, \"event\": \"MIGRATION\"}\r\n" OK },
		{ "query-migrate", "{\"return\": {\"status\": \"active\"}}\r\n" },
		{ "query-migrate", "{\"return\": {\"status\": \"completed\", \"ram\": {}}}\r\n" },
		{ "\"cont\"", "{\"event\": \"RESUME\"}\r\n" OK },
	};
	char err[512] = "";
	int file;
	assert_int_equal(scripted(steps, HB_ARRAY_SIZE(steps), qmp_save, err, &file), 0);
	char got[32] = "";
	assert_int_equal(pread(file, got, sizeof(got) - 1, 0), 11);
	assert_string_equal(got, "saved state");
	close(file);
}

static void a_failed_save_says_why(void **state)
{
	(void)state;
	const struct step steps[] = {
		{ "qmp_capabilities", OK },
		{ "\"getfd\"", OK },
		{ "\"migrate\"", OK },
		{ "query-migrate",
		  "{\"return\": {\"status\": \"failed\", \"error-desc\": \"No space left\"}}\r\n" },
	};
	char err[512] = "";
	int file;
	assert_int_equal(scripted(steps, HB_ARRAY_SIZE(steps), qmp_save, err, &file), -1);
	assert_non_null(strstr(err, "the save failed: No space left"));
	close(file);
}

static void load_returns_once_the_guest_runs(void **state)
{
	(void)state;
	const struct step steps[] = {
		{ "qmp_capabilities", OK },
		{ "\"getfd\"", OK },
		{ "\"migrate-incoming\"", OK },
		{ "query-status", "{\"return\": {\"status\": \"inmigrate\", \"running\": false}}\r\n" },
		{ "query-status", "{\"return\": {\"status\": \"running\", \"running\": true}}\r\n" },
	};
	char err[512] = "";
	int file;
	assert_int_equal(scripted(steps, HB_ARRAY_SIZE(steps), qmp_load, err, &file), 0);
	close(file);
}

static void a_loaded_guest_that_does_not_run_is_an_error(void **state)
{
	(void)state;
	const struct step steps[] = {
		{ "qmp_capabilities", OK },
		{ "\"getfd\"", OK },
		{ "\"migrate-incoming\"", OK },
		{ "query-status", "{\"return\": {\"status\": \"paused\", \"running\": false}}\r\n" },
	};
	char err[512] = "";
	int file;
	assert_int_equal(scripted(steps, HB_ARRAY_SIZE(steps), qmp_load, err, &file), -1);
	assert_non_null(strstr(err, "'paused', not running"));
	close(file);
}

static void an_error_answer_gives_qemus_reason(void **state)
{
	(void)state;
	const struct step steps[] = {
		{ "qmp_capabilities",
		  "{\"error\": {\"class\": \"GenericError\", \"desc\": \"Capabilities negotiation is "
		  "already complete\"}}\r\n" },
	};
	static struct qmp q;
	char err[512] = "";
	pid_t pid = start(&q, GREETING, steps, HB_ARRAY_SIZE(steps), 0);
	assert_int_equal(qmp_open(&q, q.fd, TIMEOUT_S, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "already complete"));
	qmp_close(&q);
	assert_int_equal(finish(pid), 0);
}

/* qmp_open() against a double that sends greeting and, with hang, stays
 * silent until killed: it fails, saying want. */
static void open_fails(const char *greeting, int hang, const char *want)
{
	static struct qmp q;
	char err[512] = "";
	pid_t pid = start(&q, greeting, NULL, 0, hang);
	assert_int_equal(qmp_open(&q, q.fd, TIMEOUT_S, err, sizeof(err)), -1);
	assert_non_null(strstr(err, want));
	qmp_close(&q);
	if (hang)
		kill(pid, SIGKILL);
	int rc = finish(pid);
	if (!hang)
		assert_int_equal(rc, 0);
}

/* What the other end sends is read as untrusted: no greeting, a line that
 * is not an object, one longer than the buffer, an end of the stream. */
static void what_the_monitor_sends_is_checked(void **state)
{
	(void)state;
	open_fails("{\"return\": {}}\r\n", 0, "not its greeting");
	open_fails("[\"QMP\"]\r\n", 0, "not a JSON object");
	char *long_line = malloc(QMP_LINE_MAX + 2);
	memset(long_line, ' ', QMP_LINE_MAX + 1);
	long_line[QMP_LINE_MAX + 1] = '\0';
	open_fails(long_line, 1, "longer than");
	free(long_line);
	open_fails(GREETING, 0, "closed its monitor");
}

static void a_silent_monitor_times_out(void **state)
{
	(void)state;
	static struct qmp q;
	char err[512] = "";
	pid_t pid = start(&q, GREETING, NULL, 0, 1);
	assert_int_equal(qmp_open(&q, q.fd, 0.2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no answer in time"));
	qmp_close(&q);
	qmp_close(&q);	/* idempotent */
	kill(pid, SIGKILL);
	finish(pid);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(save_passes_the_file_and_lets_the_guest_run_on),
		cmocka_unit_test(a_failed_save_says_why),
		cmocka_unit_test(load_returns_once_the_guest_runs),
		cmocka_unit_test(a_loaded_guest_that_does_not_run_is_an_error),
		cmocka_unit_test(an_error_answer_gives_qemus_reason),
		cmocka_unit_test(what_the_monitor_sends_is_checked),
		cmocka_unit_test(a_silent_monitor_times_out),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
