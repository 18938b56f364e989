#include "measure/traffic.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>	/* iperf_api.h needs it first */
#include <iperf_api.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "deploy/dut.h"
#include "deploy/netns.h"
#include "util/util.h"

/* Runs in the child: configure, run, write the JSON, exit. */
static void __attribute__((noreturn)) run_iperf(struct iperf_test *t, int server,
						 const char *json_path)
{
	/* libiperf prints its JSON to stdout as well; we keep our copy */
	int devnull = open("/dev/null", O_WRONLY);
	if (devnull >= 0)
		dup2(devnull, STDOUT_FILENO);
	int rc = server ? iperf_run_server(t) : iperf_run_client(t);
	char *json = iperf_get_test_json_output_string(t);
	int ok = json && write_file_atomic(json_path, json, strlen(json)) == 0;
	if (rc < 0)
		fprintf(stderr, "hilbench: iperf %s: %s\n", server ? "server" : "client",
			iperf_strerror(i_errno));
	iperf_free_test(t);
	_exit(rc >= 0 && ok ? 0 : 1);
}

static pid_t fork_child(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGINT, SIG_IGN);	/* the parent decides when we stop */
		signal(SIGTERM, SIG_DFL);
	}
	return pid;
}

static struct iperf_test *new_test(char role, int port)
{
	struct iperf_test *t = iperf_new_test();
	if (!t)
		return NULL;
	iperf_defaults(t);
	iperf_set_test_role(t, role);
	iperf_set_test_server_port(t, port);
	iperf_set_test_json_output(t, 1);
	iperf_set_verbose(t, 0);
	return t;
}

int traffic_server_start(struct iperf_job *j, const char *bind_addr, int port,
			 const char *json_path)
{
	j->json_path = xstrdup(json_path);
	j->pid = fork_child();
	if (j->pid < 0)
		return -1;
	if (j->pid == 0) {
		struct iperf_test *t = new_test('s', port);
		if (!t)
			_exit(1);
		iperf_set_test_bind_address(t, bind_addr);
		iperf_set_test_one_off(t, 1);
		run_iperf(t, 1, json_path);
	}
	/* The DUT may connect the moment it is told to: wait for LISTEN. */
	double deadline = monotonic_s() + 10;
	while (!netns_port_listening(port)) {
		if (monotonic_s() > deadline || waitpid(j->pid, NULL, WNOHANG) != 0 || hb_interrupted) {
			hb_err("the host's iperf server did not start listening on port %d", port);
			traffic_wait(j, 0, NULL, 0);
			return -1;
		}
		usleep(10000);
	}
	return 0;
}

int traffic_wait(struct iperf_job *j, double timeout_s, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (j->pid <= 0)
		return -1;
	double deadline = monotonic_s() + timeout_s;
	int st = 0;
	pid_t r;
	while ((r = waitpid(j->pid, &st, WNOHANG)) == 0) {
		if (monotonic_s() >= deadline || hb_interrupted) {
			kill(j->pid, SIGKILL);
			waitpid(j->pid, &st, 0);
			j->pid = -1;
			return -1;
		}
		usleep(20000);
	}
	j->pid = -1;
	if (r > 0 && WIFSIGNALED(st)) {
		/* not our kill: that returned above */
		if (err && errlen)
			snprintf(err, errlen, "the host's libiperf side died mid-run (killed by "
				 "signal %d)", WTERMSIG(st));
		return -1;
	}
	return r > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

void traffic_job_free(struct iperf_job *j)
{
	if (j->pid > 0)
		traffic_wait(j, 0, NULL, 0);
	free(j->json_path);
	j->json_path = NULL;
}
