#include "deploy/lava_session.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "deploy/lava_log.h"
#include "util/util.h"

int lava_session_open(struct lava_session *l, const char *workdir, const char *dut_ip,
		      int control_port)
{
	char *raw = path_join(workdir, "lava.log");
	char *results = path_join(workdir, "lava-results.yaml");
	memset(l, 0, sizeof(*l));
	l->opened = 1;
	l->con_in = -1;
	l->control_fd = -1;
	snprintf(l->dut_ip, sizeof(l->dut_ip), "%s", dut_ip);
	l->control_port = control_port;
	l->raw = fopen(raw, "we");
	l->results = l->raw ? fopen(results, "we") : NULL;
	if (!l->results)
		hb_err("cannot write in %s: %s", workdir, strerror(errno));
	free(raw);
	free(results);
	return l->results ? 0 : -1;
}

void lava_session_end_console(struct lava_session *l)
{
	if (l->raw)
		fflush(l->raw);
	if (l->results)
		fflush(l->results);
	if (l->con_in >= 0)
		close(l->con_in);
	l->con_in = -1;
}

void lava_session_close(struct lava_session *l)
{
	if (!l->opened)		/* the backend failed before it got here */
		return;
	lava_session_end_console(l);
	if (l->control_fd >= 0)
		close(l->control_fd);
	l->control_fd = -1;
	if (l->raw)
		fclose(l->raw);
	if (l->results)
		fclose(l->results);
	l->raw = l->results = NULL;
}

/* The connection to the agent in the job (nc -l | hb-agent): opened at the
 * first command, kept for the settings that come before the run, closed
 * after the run, which tells the agent that nothing else follows. */
static int control_connect(struct lava_session *l)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)l->control_port) };
	if (inet_pton(AF_INET, l->dut_ip, &a.sin_addr) != 1)
		return -1;
	/* nc listens from the step's start, before the agent says READY; a
	 * short retry covers a slow BusyBox. */
	double deadline = monotonic_s() + 15;
	for (;;) {
		int s = netns_socket(l->peer, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s < 0)
			return -1;
		if (connect(s, (struct sockaddr *)&a, sizeof(a)) == 0)
			return s;
		close(s);
		if (monotonic_s() > deadline || hb_interrupted)
			return -1;
		usleep(200000);
	}
}

static int send_command(struct lava_session *l, const char *line)
{
	if (l->control_fd < 0 && (l->control_fd = control_connect(l)) < 0)
		return -1;
	size_t n = strlen(line);
	if (write(l->control_fd, line, n) == (ssize_t)n && write(l->control_fd, "\n", 1) == 1)
		return 0;
	close(l->control_fd);
	l->control_fd = -1;
	return -1;
}

/* One line of lava-run's stdout: kept whole, the DUT's console lines passed
 * on, LAVA's results collected. */
void lava_session_log_line(struct lava_session *l, const char *line)
{
	struct lava_log_entry *e = xmalloc(sizeof(*e));
	fprintf(l->raw, "%s\n", line);
	if (lava_log_parse(line, e) == 0) {
		if (!strcmp(e->lvl, "target")) {
			/* a console nobody reads any more loses the line */
			if (l->con_in >= 0 && write_all(l->con_in, e->msg, strlen(e->msg)) == 0)
				write_all(l->con_in, "\n", 1);
		} else if (!strcmp(e->lvl, "results")) {
			fprintf(l->results, "- %s\n", line);
			l->n_results++;
			if (strcmp(e->result, "pass") && strcmp(e->result, "skip"))
				l->n_failed++;
			if (!strcmp(e->definition, "lava") && !strcmp(e->test_case, "job"))
				l->job_passed = !strcmp(e->result, "pass");
			if (!strcmp(e->test_case, "job") && e->error_msg[0])
				snprintf(l->job_error, sizeof(l->job_error), "%s", e->error_msg);
		}
	}
	free(e);
}

/* A command from the runner: "hbcmd set" (a runtime setting) and "hbcmd
 * run" go to the agent; "hbcmd poweroff" is LAVA's to do (the job ends and
 * powers the device off). */
void lava_session_command(struct lava_session *l, const char *line)
{
	int run = !strncmp(line, "hbcmd run ", 10);
	if (!run && strncmp(line, "hbcmd set ", 10))
		return;
	if (l->run_sent) {
		hb_err("LAVA: a job serves one run; '%s' not sent", line);
		return;
	}
	if (send_command(l, line) < 0)
		hb_err("LAVA: cannot hand '%.10s' to the agent at %s:%d: %s", line, l->dut_ip,
		       l->control_port, strerror(errno));
	if (run) {
		l->run_sent = 1;
		if (l->control_fd >= 0)
			close(l->control_fd);
		l->control_fd = -1;
	}
}

/* Splits what arrived on fd into lines for fn; 0 at end of file. */
int lava_session_pump(int fd, char *buf, size_t cap, size_t *len, struct lava_session *l,
		      void (*fn)(struct lava_session *, const char *))
{
	ssize_t got = read(fd, buf + *len, cap - 1 - *len);
	if (got < 0)
		return errno == EINTR || errno == EAGAIN;
	if (got == 0)
		return 0;
	*len += (size_t)got;
	char *start = buf, *nl;
	while ((nl = memchr(start, '\n', (size_t)(buf + *len - start)))) {
		*nl = '\0';
		fn(l, start);
		start = nl + 1;
	}
	*len -= (size_t)(start - buf);
	memmove(buf, start, *len);
	if (*len == cap - 1) {	/* a longer line than LAVA writes: pass it on cut */
		buf[*len] = '\0';
		fn(l, buf);
		*len = 0;
	}
	return 1;
}

/* The rest of the console, until the relay closes it. */
void lava_session_drain(struct dut *d, double timeout_s)
{
	char buf[4096];
	double deadline = monotonic_s() + timeout_s;
	while (d->con_rd >= 0 && monotonic_s() < deadline) {
		struct pollfd p = { .fd = d->con_rd, .events = POLLIN };
		if (poll(&p, 1, 100) <= 0)
			continue;
		ssize_t n = read(d->con_rd, buf, sizeof(buf));
		if (n <= 0)
			return;
		if (d->log)
			fwrite(buf, 1, (size_t)n, d->log);
	}
}

