/*
 * traffic: the host side of a workload, through libiperf.
 *
 * Each iperf side runs in a forked child: libiperf keeps global state and
 * calls exit() on some errors, and a child can be killed on a deadline
 * without leaving the harness in an unknown state. The child writes
 * iperf's JSON result to json_path.
 *
 * The host is always iperf's server: the DUT's iperf3 is the client in
 * every direction (with -R when the DUT receives), so the client's timer,
 * which ends a test, runs on the DUT's clock.
 *
 * Contract: traffic_server_start() returns 0 when the child listens;
 * traffic_wait() returns 0 when iperf finished and its JSON was written,
 * else -1 (it kills the child on timeout or interruption); when the child
 * was killed by a signal it did not get from here (the host's side broke,
 * not the DUT's) it says so in err ("" otherwise; err may be NULL).
 * Children die with the harness.
 */
#ifndef HB_TRAFFIC_H
#define HB_TRAFFIC_H

#include <stddef.h>
#include <sys/types.h>


struct iperf_job {
	pid_t pid;
	char *json_path;
};

int traffic_server_start(struct iperf_job *j, const char *bind_addr, int port,
			 const char *json_path);
int traffic_wait(struct iperf_job *j, double timeout_s, char *err, size_t errlen);
void traffic_job_free(struct iperf_job *j);

#endif
