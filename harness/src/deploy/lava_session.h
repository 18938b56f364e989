/*
 * lava_session: what the lava-local and lava backends share while a LAVA
 * job runs the board: LAVA's log lines in, the DUT's console out (the
 * "target" lines, on the pipe dut.c reads), LAVA's results kept, and the
 * runner's "hbcmd set" and "hbcmd run" handed to the agent in the job,
 * which serves commands on a TCP port (lava_job.h, control_port).
 *
 * Contract: lava_session_open() creates lava.log (every log line as LAVA
 * wrote it) and lava-results.yaml (its results lines) in workdir, or
 * returns -1 with the message printed. The caller sets con_in (the write
 * end of the console pipe) and feeds lines from one thread; the counters
 * are read once that thread has ended. A job serves one run, after any
 * number of settings: a command after the run is refused with a message.
 */
#ifndef HB_LAVA_SESSION_H
#define HB_LAVA_SESSION_H

#include <stddef.h>
#include <stdio.h>

#include "deploy/dut.h"
#include "deploy/netns.h"

struct lava_session {
	int opened;		/* lava_session_open() ran: close has work to do */
	int con_in;		/* console pipe (write end); -1 once ended */
	FILE *raw, *results;
	char dut_ip[64];
	int control_port;
	int control_fd;		/* to the agent; -1 before the first command, after the run */
	/* where the agent's link is when the feeding thread is elsewhere (the
	 * device's peer, lava.peers); NULL: that thread's own namespace */
	const struct netns *peer;
	_Atomic int run_sent;	/* the agent got its command */
	int job_passed;		/* LAVA's "job" result was pass */
	int n_results, n_failed;
	char job_error[256];	/* LAVA's error_msg for the job, if any */
};

int lava_session_open(struct lava_session *l, const char *workdir, const char *dut_ip,
		      int control_port);
void lava_session_log_line(struct lava_session *l, const char *line);
void lava_session_command(struct lava_session *l, const char *line);
/* Reads what arrived on fd and hands each complete line to fn; 0 at end
 * of file, 1 otherwise. buf holds cap bytes and keeps a partial line. */
int lava_session_pump(int fd, char *buf, size_t cap, size_t *len, struct lava_session *l,
		      void (*fn)(struct lava_session *, const char *));
/* No more console: flush the files, close con_in (the DUT's console ends). */
void lava_session_end_console(struct lava_session *l);
void lava_session_close(struct lava_session *l);
/* Copies the rest of d's console into its log until the writer closes it,
 * for at most timeout_s (the writer must not block on a full pipe). */
void lava_session_drain(struct dut *d, double timeout_s);

#endif
