#include "deploy/dut.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

volatile sig_atomic_t hb_interrupted;

static void on_signal(int sig)
{
	(void)sig;
	hb_interrupted = 1;
}

void hb_install_interrupt_handlers(void)
{
	struct sigaction sa = { 0 };
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: blocking waits must return with EINTR */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static const struct deploy_ops *substitute;

void deploy_substitute(const struct deploy_ops *ops)
{
	substitute = ops;
}

static const struct deploy_ops *backends[BOARD_BACKENDS_MAX];
static size_t nbackends;

void deploy_register(const struct deploy_ops *ops)
{
	/* before main(): a programming error, not a user's */
	if (nbackends == BOARD_BACKENDS_MAX || board_backend_register(ops->name) < 0) {
		fprintf(stderr, "hilbench: backend %s: more than %d backends, or its name twice\n",
			ops->name, BOARD_BACKENDS_MAX);
		abort();
	}
	backends[nbackends++] = ops;
}

const struct deploy_ops *deploy_backend(const char *name)
{
	if (substitute && !strcmp(substitute->name, name))
		return substitute;
	for (size_t i = 0; i < nbackends; i++)
		if (!strcmp(backends[i]->name, name))
			return backends[i];
	return NULL;
}

/* Console lines that mean the DUT itself misbehaved: a run that saw one is
 * a failure, never a measurement. Most informative first: a report quotes
 * the line that says what broke and where (kernel BUG at FILE:LINE), not
 * the cut-here marker that opens every splat or the panic that ends it. */
static const char *const bad_signs[] = {
	"kernel BUG at", "Unable to handle kernel", "BUG:", "NETDEV WATCHDOG",
	"WARNING: CPU:", "rcu_sched self-detected stall", "soft lockup",
	"Internal error: Oops", "Kernel panic", "------------[ cut here ]------------",
};

static int sign_rank(const char *line)
{
	for (size_t i = 0; i < HB_ARRAY_SIZE(bad_signs); i++)
		if (strstr(line, bad_signs[i]))
			return (int)i;
	return -1;
}

const char *dut_health_sign(const char *line)
{
	int r = sign_rank(line);
	return r < 0 ? NULL : bad_signs[r];
}

void dut_health_note(char *health, size_t len, const char *line)
{
	int r = sign_rank(line);
	if (r < 0)
		return;
	int have = health[0] ? sign_rank(health) : -1;
	if (have < 0 && health[0])
		return;	/* a reason set otherwise (the agent, a lost console) stays */
	if (have < 0 || r < have)
		snprintf(health, len, "%s", line);
}

static void scan_health(struct dut *d, const char *line)
{
	dut_health_note(d->health, sizeof(d->health), line);
}

int proto_get(const char *line, const char *key, char *out, size_t outlen)
{
	size_t kl = strlen(key);
	for (const char *p = line; (p = strstr(p, key)); p += kl) {
		if ((p != line && p[-1] != ' ') || p[kl] != '=')
			continue;
		const char *v = p + kl + 1;
		/* msg= runs to the end of the line; other values end at a space */
		size_t n = !strcmp(key, "msg") ? strlen(v) : strcspn(v, " ");
		snprintf(out, outlen, "%.*s", (int)n, v);
		return 1;
	}
	return 0;
}

int proto_get_uint(const char *line, const char *key, unsigned long long max,
		   unsigned long long *v)
{
	/* 20 digits hold any 64-bit number; a value that fills the buffer may
	 * have been cut by proto_get() and is not read as a smaller one */
	char s[24];
	return proto_get(line, key, s, sizeof(s)) && strlen(s) < sizeof(s) - 1 &&
	       parse_uint(s, max, v) == 0;
}

/* Take one complete line out of the buffer; 1 if there was one. */
static int take_line(struct dut *d, char *line, size_t len)
{
	char *nl = memchr(d->buf, '\n', d->blen);
	if (!nl)
		return 0;
	size_t n = (size_t)(nl - d->buf);
	size_t keep = n < len ? n : len - 1;
	memcpy(line, d->buf, keep);
	line[keep] = '\0';
	while (keep > 0 && line[keep - 1] == '\r')
		line[--keep] = '\0';
	d->blen -= n + 1;
	memmove(d->buf, nl + 1, d->blen);
	return 1;
}

ssize_t read_within(int fd, void *buf, size_t len, double deadline)
{
	for (;;) {
		if (hb_interrupted)
			return READ_INTERRUPTED;
		double left = deadline - monotonic_s();
		if (left <= 0)
			return READ_NONE_IN_TIME;
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, (int)(left * 1000) + 1);
		if (r < 0 && errno != EINTR)
			return READ_CLOSED;
		if (r <= 0)
			continue;
		ssize_t got = read(fd, buf, len);
		if (got > 0)
			return got;
		if (got < 0 && errno == EINTR)
			continue;
		return READ_CLOSED;
	}
}

int dut_read_line(struct dut *d, char *line, size_t len, double timeout_s)
{
	double deadline = monotonic_s() + timeout_s;
	for (;;) {
		while (take_line(d, line, len)) {
			scan_health(d, line);
			/* The agent's lines start at column 0; kernel output may share a
			 * line only when it interleaves, and then it is not ours. */
			if (!strncmp(line, "HB ", 3)) {
				memmove(line, line + 3, strlen(line + 3) + 1);
				return 1;
			}
		}
		if (d->blen == sizeof(d->buf)) {
			/* a line longer than the buffer is console noise: drop it */
			d->blen = 0;
		}
		ssize_t got = read_within(d->con_rd, d->buf + d->blen, sizeof(d->buf) - d->blen,
					  deadline);
		if (got == READ_NONE_IN_TIME)
			return 0;
		if (got == READ_INTERRUPTED)
			return -1;
		if (got == READ_CLOSED) {
			d->console_closed = 1;
			return -1;
		}
		if (d->log) {
			fwrite(d->buf + d->blen, 1, (size_t)got, d->log);
			fflush(d->log);
		}
		d->blen += (size_t)got;
	}
}

int dut_send(struct dut *d, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(line) - 1)
		return -1;
	line[n++] = '\n';
	return write_all(d->con_wr, line, (size_t)n);
}

int dut_boot(struct dut *d, const struct board *b, const struct dut_image *img,
	     enum timing_mode t, const char *workdir, const char *console_log)
{
	memset(d, 0, sizeof(*d));
	d->board = b;
	d->under_test = img->driver;
	d->timing = t;
	d->workdir = workdir;
	d->con_rd = d->con_wr = -1;
	d->ops = deploy_backend(b->backend);
	if (!d->ops) {
		hb_err("%s: backend '%s' is not available in this build of hilbench", b->path,
		       b->backend);
		return HB_FAIL;
	}
	d->log = fopen(console_log, "a");
	if (!d->log) {
		hb_err("cannot write %s: %s", console_log, strerror(errno));
		return HB_FAIL;
	}
	double called = monotonic_s();	/* a resumed DUT is loaded in start() */
	int started = d->ops->start(d, img);
	if (started < 0)
		return started == HB_FAIL_LAB ? HB_FAIL_LAB : HB_FAIL;

	double t0 = monotonic_s();
	if (img->resume) {
		/* the agent said HELLO and READY before the save, not again */
		const struct dut_saved *r = img->resume;
		snprintf(d->kernel_release, sizeof(d->kernel_release), "%s", r->kernel_release);
		snprintf(d->driver, sizeof(d->driver), "%s", r->driver);
		d->speed = r->speed;
		fprintf(d->log, "# hilbench: started from boot %s's saved state\n", r->boot_id);
		hb_info("%s ready in %.1f s from boot %s's saved state: %s, %s %s at %d Mb/s",
			b->name, monotonic_s() - called, r->boot_id, d->kernel_release,
			b->dut_interface, d->driver, d->speed);
		return 0;
	}
	char line[1024];
	for (;;) {
		double left = b->boot_timeout_s - (monotonic_s() - t0);
		int r = left > 0 ? dut_read_line(d, line, sizeof(line), left) : 0;
		if (r < 0 || d->health[0]) {
			if (hb_interrupted)
				return HB_FAIL;
			if (d->health[0])
				return HB_FAIL_DUT;
			/* no kernel message said why: the emulator or the console
			 * server went away, which a retry may not meet again */
			snprintf(d->health, sizeof(d->health),
				 "console closed during boot without a kernel message (the "
				 "emulator exited or the console server went away)");
			return HB_FAIL;
		}
		if (r == 0) {
			snprintf(d->health, sizeof(d->health),
				 "agent not ready after %d s (boot_timeout_s in %s)",
				 b->boot_timeout_s, b->path);
			return HB_FAIL;
		}
		if (!strncmp(line, "HELLO ", 6)) {
			proto_get(line, "kernel", d->kernel_release, sizeof(d->kernel_release));
		} else if (!strncmp(line, "ERROR", 5)) {
			snprintf(d->health, sizeof(d->health), "agent: %.480s", line);
			return HB_FAIL_DUT;
		} else if (!strncmp(line, "READY", 5)) {
			unsigned long long speed = 0;
			proto_get(line, "driver", d->driver, sizeof(d->driver));
			/* Mb/s; beyond 10 Tb/s it is noise, shown as 0 (unknown) */
			if (proto_get_uint(line, "speed", 10000000, &speed))
				d->speed = (int)speed;
			if (strcmp(d->driver, b->dut_driver)) {
				snprintf(d->health, sizeof(d->health),
					 "%s is driven by '%s', not '%s' as %s says",
					 b->dut_interface, d->driver, b->dut_driver, b->path);
				return HB_FAIL_DUT;
			}
			if (d->ops->ready && d->ops->ready(d) < 0)
				return HB_FAIL;
			hb_info("%s ready in %.1f s: %s, %s %s at %d Mb/s", b->name,
				monotonic_s() - t0, d->kernel_release, b->dut_interface,
				d->driver, d->speed);
			/* a DUT that cannot be saved still serves this boot's runs */
			if (img->save && d->ops->save &&
			    (d->saved = d->ops->save(d, img->save->fd) == 0)) {
				struct dut_saved *sv = img->save;
				snprintf(sv->kernel_release, sizeof(sv->kernel_release), "%s",
					 d->kernel_release);
				snprintf(sv->driver, sizeof(sv->driver), "%s", d->driver);
				sv->speed = d->speed;
			}
			return 0;
		}
	}
}

void dut_hold(struct dut *d, int on)
{
	if (d->ops && d->ops->hold)
		d->ops->hold(d, on);
}

void dut_shutdown(struct dut *d)
{
	if (d->ops && d->con_wr >= 0)
		dut_send(d, "hbcmd poweroff");
	if (d->ops)
		d->ops->stop(d);
	if (d->con_rd >= 0)
		close(d->con_rd);
	if (d->con_wr >= 0 && d->con_wr != d->con_rd)
		close(d->con_wr);
	d->con_rd = d->con_wr = -1;
	if (d->log)
		fclose(d->log);
	d->log = NULL;
	d->ops = NULL;
}
