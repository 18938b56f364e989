#include "deploy/qmp.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "deploy/dut.h"
#include "util/util.h"

/* The name QEMU files the passed state file under (getfd), for fd: URIs. */
#define QMP_FDNAME "hbstate"
/* How long between two looks at a migration's progress. */
#define QMP_POLL_US 10000
/* Said whether the close shows on a read or on a send (EPIPE): which one
 * sees it first is a race with the emulator's exit. */
#define MONITOR_CLOSED "QMP: the emulator closed its monitor (it exited: see its qemu.log)"

/* The next JSON object QEMU sent, or NULL with err. */
static cJSON *next_object(struct qmp *q, double deadline, char *err, size_t errlen)
{
	for (;;) {
		char *nl = memchr(q->buf, '\n', q->len);
		if (nl) {
			size_t n = (size_t)(nl - q->buf);
			cJSON *o = cJSON_ParseWithLength(q->buf, n);
			q->len -= n + 1;
			memmove(q->buf, nl + 1, q->len);
			if (!cJSON_IsObject(o)) {
				cJSON_Delete(o);
				hb_errbuf(err, errlen, "QMP: a line that is not a JSON object");
				return NULL;
			}
			return o;
		}
		if (q->len == sizeof(q->buf)) {
			hb_errbuf(err, errlen, "QMP: a line longer than %d bytes", QMP_LINE_MAX);
			return NULL;
		}
		ssize_t got = read_within(q->fd, q->buf + q->len, sizeof(q->buf) - q->len, deadline);
		if (got <= 0) {
			hb_errbuf(err, errlen, "%s", got == READ_INTERRUPTED ? "QMP: interrupted" :
				  got == READ_NONE_IN_TIME ? "QMP: no answer in time" : MONITOR_CLOSED);
			return NULL;
		}
		q->len += (size_t)got;
	}
}

/* Sends one command, with pass_fd alongside when >= 0 (SCM_RIGHTS), and
 * reads up to its answer, past events. Its "return" member, owned by
 * *reply; NULL with err (QEMU's own description for an "error"). */
static cJSON *command(struct qmp *q, const char *json, int pass_fd, double deadline,
		      cJSON **reply, char *err, size_t errlen)
{
	struct iovec iov[2] = { { .iov_base = (void *)json, .iov_len = strlen(json) },
				{ .iov_base = "\n", .iov_len = 1 } };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	memset(&control, 0, sizeof(control));
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = 2 };
	if (pass_fd >= 0) {
		m.msg_control = control.buf;
		m.msg_controllen = sizeof(control.buf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
	}
	ssize_t sent;
	do
		sent = sendmsg(q->fd, &m, MSG_NOSIGNAL);
	while (sent < 0 && errno == EINTR && !hb_interrupted);
	if (sent < 0 && (errno == EPIPE || errno == ECONNRESET)) {
		hb_errbuf(err, errlen, "%s", MONITOR_CLOSED);
		return NULL;
	}
	if (sent != (ssize_t)(iov[0].iov_len + 1)) {
		hb_errbuf(err, errlen, "QMP: cannot send %s: %s", json,
			  sent < 0 ? strerror(errno) : "sent in part");
		return NULL;
	}
	for (;;) {
		cJSON *o = next_object(q, deadline, err, errlen);
		if (!o)
			return NULL;
		cJSON *ret = cJSON_GetObjectItemCaseSensitive(o, "return");
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "error");
		if (ret) {
			*reply = o;
			return ret;
		}
		if (e) {
			const cJSON *desc = cJSON_GetObjectItemCaseSensitive(e, "desc");
			hb_errbuf(err, errlen, "QMP %s: %.300s", json,
				  cJSON_IsString(desc) ? desc->valuestring : "failed, no reason given");
			cJSON_Delete(o);
			return NULL;
		}
		cJSON_Delete(o);	/* an event */
	}
}

/* A command whose answer is only read for success. */
static int simple(struct qmp *q, const char *json, int pass_fd, double deadline, char *err,
		  size_t errlen)
{
	cJSON *reply = NULL;
	if (!command(q, json, pass_fd, deadline, &reply, err, errlen))
		return -1;
	cJSON_Delete(reply);
	return 0;
}

/* The "status" string of a query's answer into out ("" when absent). */
static int query_status(struct qmp *q, const char *json, double deadline, char *out,
			size_t outlen, char *detail, size_t detlen, char *err, size_t errlen)
{
	cJSON *reply = NULL;
	const cJSON *ret = command(q, json, -1, deadline, &reply, err, errlen);
	if (!ret)
		return -1;
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(ret, "status");
	const cJSON *desc = cJSON_GetObjectItemCaseSensitive(ret, "error-desc");
	snprintf(out, outlen, "%.40s", cJSON_IsString(st) ? st->valuestring : "");
	if (detail)
		snprintf(detail, detlen, "%.300s", cJSON_IsString(desc) ? desc->valuestring : "");
	cJSON_Delete(reply);
	return 0;
}

int qmp_open(struct qmp *q, int fd, double timeout_s, char *err, size_t errlen)
{
	q->fd = fd;
	q->len = 0;
	double deadline = monotonic_s() + timeout_s;
	cJSON *greeting = next_object(q, deadline, err, errlen);
	if (!greeting)
		return -1;
	int ok = cJSON_GetObjectItemCaseSensitive(greeting, "QMP") != NULL;
	cJSON_Delete(greeting);
	if (!ok)
		return hb_errbuf(err, errlen, "QMP: the emulator's first line is not its greeting");
	return simple(q, "{\"execute\":\"qmp_capabilities\"}", -1, deadline, err, errlen);
}

int qmp_save(struct qmp *q, int state_fd, double timeout_s, char *err, size_t errlen)
{
	double deadline = monotonic_s() + timeout_s;
	if (simple(q, "{\"execute\":\"getfd\",\"arguments\":{\"fdname\":\"" QMP_FDNAME "\"}}",
		   state_fd, deadline, err, errlen) < 0 ||
	    simple(q, "{\"execute\":\"migrate\",\"arguments\":{\"uri\":\"fd:" QMP_FDNAME "\"}}",
		   -1, deadline, err, errlen) < 0)
		return -1;
	char st[48], why[320];
	for (;;) {
		if (query_status(q, "{\"execute\":\"query-migrate\"}", deadline, st, sizeof(st),
				 why, sizeof(why), err, errlen) < 0)
			return -1;
		if (!strcmp(st, "completed"))
			break;
		if (!strcmp(st, "failed") || !strcmp(st, "cancelled"))
			/* the guest was not stopped: it runs on */
			return hb_errbuf(err, errlen, "QMP: the save %s: %s", st,
					 why[0] ? why : "no reason given");
		usleep(QMP_POLL_US);
	}
	/* a completed migration leaves the guest paused where it was saved */
	return simple(q, "{\"execute\":\"cont\"}", -1, deadline, err, errlen);
}

int qmp_load(struct qmp *q, int state_fd, double timeout_s, char *err, size_t errlen)
{
	double deadline = monotonic_s() + timeout_s;
	if (simple(q, "{\"execute\":\"getfd\",\"arguments\":{\"fdname\":\"" QMP_FDNAME "\"}}",
		   state_fd, deadline, err, errlen) < 0 ||
	    simple(q, "{\"execute\":\"migrate-incoming\",\"arguments\":{\"uri\":\"fd:" QMP_FDNAME
		   "\"}}", -1, deadline, err, errlen) < 0)
		return -1;
	/* the guest was saved running, so it runs once loaded; console input
	 * before that would be lost to the serial port's loaded state */
	char st[48];
	for (;;) {
		if (query_status(q, "{\"execute\":\"query-status\"}", deadline, st, sizeof(st),
				 NULL, 0, err, errlen) < 0)
			return -1;
		if (!strcmp(st, "running"))
			return 0;
		if (strcmp(st, "inmigrate"))
			return hb_errbuf(err, errlen, "QMP: the loaded guest is '%s', not running", st);
		usleep(QMP_POLL_US);
	}
}

void qmp_close(struct qmp *q)
{
	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
}
