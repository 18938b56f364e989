/*
 * hb-agent: the hilbench agent on the DUT (docs/agent-protocol.md).
 *
 *   hb-agent            as the initramfs's /init (pid 1): mount what it
 *                       reads, take the console as fds 0-2, set up the
 *                       test interface, then serve hbcmd lines from the
 *                       console.
 *   hb-agent run K=V... run one test, print the same lines, exit 0 (ok),
 *                       1 (error) or 2 (bad arguments). For LAVA test shells:
 *                       the interface must already be up; the hb.* parameters
 *                       still come from the kernel command line.
 *
 * Every protocol line leaves in one write(), so nothing else written to the
 * console (the kernel, busybox) can land inside it.
 *
 * HB_CMDLINE_FILE, if set, is read instead of /proc/cmdline. It exists for
 * tests on a host only.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <linux/ethtool.h>
#include <linux/netlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "agent_proto.h"

#define TRACEFS		"/sys/kernel/tracing"
#define BY_CALLBACK	"hist:keys=function.sym:vals=hitcount"
#define ETHTOOL		"/sbin/ethtool"	/* Debian 12 ships it there */
/* ethtool answers at once; a hung one must not hang the agent. */
#define SETTING_TIMEOUT_MS 10000

/* Counted per key over the run with tracefs hist triggers: timer starts and
 * expiries by callback, for hrtimers (the TX coalescing timer since 2020)
 * and timer_lists (the same timer before it, and the revert strategy), and
 * NAPI polls by device. */
static const struct hist_event {
	const char *subsystem, *event, *trigger;
	int profiled_only;	/* fires per packet: costs ~20 % of UDP pps in virtual time */
} hist_events[] = {
	{ "timer", "hrtimer_start", BY_CALLBACK, 0 },
	{ "timer", "timer_start", BY_CALLBACK, 0 },
	{ "timer", "hrtimer_expire_entry", BY_CALLBACK, 0 },
	{ "timer", "timer_expire_entry", BY_CALLBACK, 0 },
	{ "napi", "napi_poll", "hist:keys=dev_name:vals=hitcount", 1 },
};
#define HIST_EVENTS (sizeof(hist_events) / sizeof(hist_events[0]))

/* PROFILE_PERF: what perf stat counts beside perf record's cpu-clock samples. */
static const char perf_stat_events[] =
	"timer:hrtimer_start,timer:hrtimer_cancel,timer:hrtimer_expire_entry,"
	"timer:timer_start,timer:timer_expire_entry,napi:napi_poll,irq:softirq_entry";
#define PERF		"/usr/bin/perf"
/* Kernel log records from a run's window sent to the host (warnings and
 * worse): the console is quiet (loglevel 1), so this is how a NETDEV
 * WATCHDOG during a run reaches the host's health scan. */
#define KMSG_MAX	32
#define CARRIER_TIMEOUT_MS 30000
#define LISTEN_TIMEOUT_MS 10000
/* Bytes per HB B64 line: 57 bytes encode to the protocol's 76 characters. */
#define B64_CHUNK	57

#define USAGE \
	"usage: hb-agent\n" \
	"       hb-agent run proto=udp|tcp dir=tx|rx|bidir len=N rate=N time=N omit=N streams=N port=N\n" \
	"                    [profile=none|perf|ftrace functions=F1,F2,...] [id=ID]\n"

extern char **environ;

static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One protocol line, "\n" added, in a single write(). */
static void emit(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	for (size_t off = 0; off < (size_t)n;) {
		ssize_t w = write(STDOUT_FILENO, line + off, (size_t)n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		off += (size_t)w;
	}
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sleep up to ms; a child's exit ends it early (main blocks SIGCHLD, so it
 * stays pending for sigtimedwait instead of needing a handler). */
static void nap_ms(int64_t ms)
{
	sigset_t chld;
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 };

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigtimedwait(&chld, NULL, &ts);
}

/* A whole file, NUL-terminated; proc and sysfs files report size 0, so read
 * to EOF. NULL with errno set on failure. */
static char *read_all(const char *path, size_t *lenp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0, cap = 4096;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = malloc(cap);
	while (buf) {
		if (len + 1 == cap) {
			char *grown = realloc(buf, cap * 2);
			if (!grown)
				break;
			buf = grown;
			cap *= 2;
		}
		ssize_t n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (n == 0) {
			close(fd);
			buf[len] = '\0';
			if (lenp)
				*lenp = len;
			return buf;
		}
		len += (size_t)n;
	}
	int saved = errno;
	free(buf);
	close(fd);
	errno = saved;
	return NULL;
}

/* No O_TRUNC: on a tracefs trigger file it would remove every trigger. */
static int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(text);

	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, len);
	int saved = errno;
	close(fd);
	errno = saved;
	return n == (ssize_t)len ? 0 : -1;
}

static int read_u64(const char *path, uint64_t *v)
{
	char *text = read_all(path, NULL), *end;

	if (!text)
		return -1;
	errno = 0;
	unsigned long long x = strtoull(text, &end, 10);
	int ok = errno == 0 && end != text && text[0] != '-' &&
		 (*end == '\n' || *end == '\0');
	free(text);
	if (ok)
		*v = x;
	return ok ? 0 : -1;
}

static void redirect(int fd, const char *path)
{
	int f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (f < 0) {
		dprintf(STDERR_FILENO, "hb-agent: %s: %s\n", path, strerror(errno));
		_exit(126);
	}
	dup2(f, fd);
	close(f);
}

/* fork + execve, stdin from /dev/null (the console belongs to the agent),
 * stdout/stderr to files unless NULL. */
static pid_t spawn(const char *const argv[], const char *out_path, const char *err_path)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	/* The blocked SIGCHLD would survive execve. */
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	int in = open("/dev/null", O_RDONLY);
	if (in > 0) {
		dup2(in, STDIN_FILENO);
		close(in);
	}
	if (out_path)
		redirect(STDOUT_FILENO, out_path);
	if (err_path)
		redirect(STDERR_FILENO, err_path);
	execve(argv[0], (char *const *)argv, environ);
	dprintf(STDERR_FILENO, "cannot execute %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Wait for pid until deadline: 0 once it exited (status set), 1 if it
 * still runs then. */
static int wait_until(pid_t pid, int64_t deadline, int *status)
{
	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);
		if (r == pid || r < 0)
			return 0;
		int64_t left = deadline - now_ms();
		if (left <= 0)
			return 1;
		nap_ms(left);
	}
}

/* Wait for pid until deadline, then kill it. 1 if it had to be killed. */
static int wait_exit(pid_t pid, int64_t deadline, int *status)
{
	if (!wait_until(pid, deadline, status))
		return 0;
	kill(pid, SIGKILL);
	waitpid(pid, status, 0);
	return 1;
}

/* The console's input, read with read(2) rather than stdio, so that a run
 * can poll it for the host's stop without lines hiding in a FILE buffer. */
static struct {
	char buf[1024];
	size_t len;
	int eof;
} con_in;

/* One read(2) of what the console has, blocking until something comes. */
static void console_read(void)
{
	ssize_t got;

	do
		got = read(STDIN_FILENO, con_in.buf + con_in.len, sizeof(con_in.buf) - con_in.len);
	while (got < 0 && errno == EINTR);
	if (got <= 0)
		con_in.eof = 1;
	else
		con_in.len += (size_t)got;
}

/* The next console line, without its "\n", into out (at least
 * sizeof(con_in.buf) + 1 bytes): 0, or -1 at the console's end. A line
 * longer than the buffer comes out in pieces, which no command parses. */
static int console_line(char *out)
{
	for (;;) {
		char *nl = memchr(con_in.buf, '\n', con_in.len);
		size_t n = nl ? (size_t)(nl - con_in.buf) : con_in.len;
		if (nl || con_in.len == sizeof(con_in.buf)) {
			memcpy(out, con_in.buf, n);
			out[n] = '\0';
			n += nl != NULL;
			con_in.len -= n;
			memmove(con_in.buf, con_in.buf + n, con_in.len);
			return 0;
		}
		if (con_in.eof)
			return -1;
		console_read();
	}
}

/* Takes a whole `hbcmd stop id=<id>` line out of the console's input: 1 if
 * there was one. Other lines stay, in order, for serve(). */
static int console_take_stop(const char *id)
{
	char *start = con_in.buf, *end = con_in.buf + con_in.len, *nl;

	while ((nl = memchr(start, '\n', (size_t)(end - start)))) {
		struct run_spec rs;
		char err[8];
		*nl = '\0';
		int stop = command_parse(start, &rs, err, sizeof(err)) == CMD_STOP &&
			   strcmp(rs.id, id) == 0;
		*nl = '\n';
		if (stop) {
			memmove(start, nl + 1, (size_t)(end - nl - 1));
			con_in.len -= (size_t)(nl + 1 - start);
			return 1;
		}
		start = nl + 1;
	}
	return 0;
}

/* Wait for pid until the host's `hbcmd stop id=<id>` (run_spec.deadline
 * DEADLINE_HOST): 0 once it exited (status set), 1 on the stop. poll()
 * sleeps until the console or a SIGCHLD (through a signalfd; main keeps
 * SIGCHLD blocked) has something. Its timeout is the deadline on the DUT's
 * clock all the same, moved on by period_ms each time it passes: the wait
 * stops nothing then, but its timer keeps the DUT's hrtimer queue as a
 * wait under DEADLINE_DUT keeps it, with one far timer of the agent's.
 * Without that timer, hrtimer_start_range_ns() cost 15 instructions more a
 * packet and gating-5ms's UDP DUT-TX read 0.3 % fewer packets a second
 * (docs/measurements.md, "A host late at a run's set-up"). */
static int wait_host_stop(pid_t pid, const char *id, int64_t deadline, int64_t period_ms,
			  int *status)
{
	sigset_t chld;
	int stopped = 0;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);
		if (r == pid || r < 0)
			break;
		if ((stopped = console_take_stop(id)))
			break;
		if (con_in.len == sizeof(con_in.buf))
			con_in.len = 0;	/* a line longer than any command: not a stop */
		struct pollfd fds[2] = {
			{ .fd = sfd, .events = POLLIN },
			{ .fd = con_in.eof ? -1 : STDIN_FILENO, .events = POLLIN },
		};
		int64_t left = deadline - now_ms();
		for (; left <= 0; left += period_ms)
			deadline += period_ms;
		/* without a signalfd, SIGCHLD is looked for every 100 ms */
		if (poll(fds, 2, (int)(sfd < 0 && left > 100 ? 100 : left)) <= 0)
			continue;
		struct signalfd_siginfo si;
		if (fds[0].revents & POLLIN)
			while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
				;
		if (fds[1].revents)
			console_read();
	}
	if (sfd >= 0)
		close(sfd);
	return stopped;
}

/* What iperf3 is doing when its deadline passes, into the run's context
 * (dut-context.txt): its state, user and system CPU ticks and wait channel
 * from /proc, its kernel stack, and the kernel's queues of its TCP sockets
 * (/proc/net/tcp lines of the iperf3 port), so a hang can be told apart:
 * spinning in user space with data unread, or waiting on the network with
 * data unacked, and on what. */
static void note_hang(pid_t pid, const char *id, unsigned port)
{
	char path[64], *text;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((text = read_all(path, NULL))) {
		/* after "(comm)": state, then 10 fields to utime and stime */
		char *rest = strrchr(text, ')'), state = '?';
		unsigned long utime = 0, stime = 0;
		if (rest && sscanf(rest + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
				   &state, &utime, &stime) == 3)
			emit("HB CONTEXT id=%s name=iperf3_at_deadline msg=state=%c utime=%lu "
			     "stime=%lu", id, state, utime, stime);
		free(text);
	}
	snprintf(path, sizeof(path), "/proc/%d/wchan", (int)pid);
	if ((text = read_all(path, NULL))) {
		emit("HB CONTEXT id=%s name=iperf3_wchan msg=%.100s", id, text);
		free(text);
	}
	/* where in the kernel it sleeps, beyond wchan's one function (which
	 * read 0 for an iperf3 asleep in select on the emulated board). An
	 * ARM32 SMP kernel leaves another task's stack empty
	 * (arch/arm/kernel/stacktrace.c), so the line is there on arm64 and
	 * x86 DUTs only. */
	snprintf(path, sizeof(path), "/proc/%d/stack", (int)pid);
	if ((text = read_all(path, NULL))) {
		char frames[400];
		if (kernel_stack_text(text, frames, sizeof(frames)) > 0)
			emit("HB CONTEXT id=%s name=iperf3_stack msg=%s", id, frames);
		free(text);
	}
	if (!(text = read_all("/proc/net/tcp", NULL)))
		return;
	int n = 0;
	for (char *line = strtok(text, "\n"); line && n < 8; line = strtok(NULL, "\n")) {
		/* "sl local rem st tx_queue:rx_queue ...", each end "ADDR:PORT" in
		 * hex: the iperf3 port on either end */
		unsigned st, txq, rxq;
		char local[64], remote[64];
		if (sscanf(line, " %*s %63s %63s %x %x:%x", local, remote, &st, &txq, &rxq) != 5)
			continue;
		const char *lp = strchr(local, ':'), *rp = strchr(remote, ':');
		if ((!lp || strtoul(lp + 1, NULL, 16) != port) &&
		    (!rp || strtoul(rp + 1, NULL, 16) != port))
			continue;
		emit("HB CONTEXT id=%s name=tcp_at_deadline.%d msg=local=%s remote=%s state=%02X "
		     "tx_queue=%u rx_queue=%u", id, n++, local, remote, st, txq, rxq);
	}
	free(text);
}

/* iperf3 past its deadline: what it was doing (note_hang()), then SIGINT,
 * on which iperf3 writes its JSON with the intervals so far (so the host
 * sees whether its transfer had run its course), then SIGKILL if it is
 * still there after a second. */
static void stop_at_deadline(pid_t pid, const char *id, unsigned port, int *status)
{
	note_hang(pid, id, port);
	kill(pid, SIGINT);
	for (int64_t until = now_ms() + 1000; now_ms() < until;) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return;
		nap_ms(until - now_ms());
	}
	kill(pid, SIGKILL);
	waitpid(pid, status, 0);
}

static const char *const iface_counters[] = {
	"tx_packets", "rx_packets", "tx_bytes", "rx_bytes",
	"tx_errors", "rx_errors", "tx_dropped", "rx_dropped",
};
#define IFACE_COUNTERS (sizeof(iface_counters) / sizeof(iface_counters[0]))

/* All counters are read before any is printed: a phase is complete or absent. */
static int emit_counters(const char *iface, const char *id, const char *phase)
{
	uint64_t net[IFACE_COUNTERS], cpu[CPU_FIELDS];
	char path[128];

	for (size_t i = 0; i < IFACE_COUNTERS; i++) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s",
			 iface, iface_counters[i]);
		if (read_u64(path, &net[i]) < 0)
			return -1;
	}
	char *stat = read_all("/proc/stat", NULL);
	int ok = stat && cpu_stat_parse(stat, cpu) == 0;
	free(stat);
	if (!ok)
		return -1;
	/* The DUT's own clock at the sample: counter deltas become rates in the
	 * clock that is deterministic under QEMU -icount. */
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	emit("HB COUNTER id=%s phase=%s name=clock_ns value=%llu", id, phase,
	     (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec);
	for (size_t i = 0; i < IFACE_COUNTERS; i++)
		emit("HB COUNTER id=%s phase=%s name=%s value=%llu", id, phase,
		     iface_counters[i], (unsigned long long)net[i]);
	for (size_t i = 0; i < CPU_FIELDS; i++)
		emit("HB COUNTER id=%s phase=%s name=%s value=%llu", id, phase,
		     cpu_field_names[i], (unsigned long long)cpu[i]);
	return 0;
}

static void hist_path(char *out, size_t len, size_t event, const char *file)
{
	snprintf(out, len, TRACEFS "/events/%s/%s/%s", hist_events[event].subsystem,
		 hist_events[event].event, file);
}

static void hist_trigger_off(size_t event)
{
	char path[128], off[96];

	hist_path(path, sizeof(path), event, "trigger");
	snprintf(off, sizeof(off), "!%s", hist_events[event].trigger);
	write_text(path, off);
}

/* 1 if the hist triggers are on; 0 without tracefs or the events. */
static int hist_arm(int profiled)
{
	char path[128];
	int armed = 0;

	for (size_t e = 0; e < HIST_EVENTS; e++) {
		/* A trigger left by an interrupted run would carry its counts into ours. */
		hist_trigger_off(e);
		if (hist_events[e].profiled_only && !profiled)
			continue;
		hist_path(path, sizeof(path), e, "trigger");
		armed |= write_text(path, hist_events[e].trigger) == 0;
	}
	return armed;
}

static void hist_report_and_disarm(const char *id)
{
	char path[128];

	for (size_t e = 0; e < HIST_EVENTS; e++) {
		hist_path(path, sizeof(path), e, "hist");
		char *hist = read_all(path, NULL);

		for (char *line = hist; line && *line;) {
			char *nl = strchr(line, '\n');
			char caller[512];	/* KSYM_NAME_LEN */
			uint64_t hits;

			if (nl)
				*nl = '\0';
			if (hist_line_parse(line, caller, sizeof(caller), &hits) == 0)
				emit("HB HIST id=%s event=%s:%s caller=%s hits=%llu", id,
				     hist_events[e].subsystem, hist_events[e].event, caller,
				     (unsigned long long)hits);
			line = nl ? nl + 1 : NULL;
		}
		free(hist);
		hist_trigger_off(e);
	}
}

/* HB FILE, HB B64 lines, HB EOF. */
static void emit_file(const char *id, const char *name, const char *data, size_t len)
{
	emit("HB FILE id=%s name=%s size=%zu crc32=%08x", id, name, len,
	     (unsigned)crc32_update(0, data, len));
	for (size_t off = 0; off < len; off += B64_CHUNK) {
		char b64[4 * B64_CHUNK / 3 + 1];
		base64_encode(data + off, len - off < B64_CHUNK ? len - off : B64_CHUNK, b64);
		emit("HB B64 %s", b64);
	}
	emit("HB EOF id=%s", id);
}

/* Printable ASCII of text, for the end of an msg= token. */
static void printable(const char *text, size_t len, char *out, size_t outlen)
{
	size_t n = 0;

	for (size_t i = 0; i < len && n + 1 < outlen; i++)
		out[n++] = text[i] >= 0x20 && text[i] < 0x7f ? text[i] : '?';
	out[n] = '\0';
}

/* The interface's IRQ numbers: the lines of /proc/interrupts that end in
 * its name ("  41:  1234  GIC-0 114 Level  eth0"). */
static void emit_irq_affinity(const char *iface, const char *id)
{
	char *text = read_all("/proc/interrupts", NULL);

	for (char *line = text; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		size_t len = strlen(line), il = strlen(iface);
		while (len && line[len - 1] == ' ')
			line[--len] = '\0';
		char *num_end;
		long irq = strtol(line, &num_end, 10);
		if (len > il && !strcmp(line + len - il, iface) && line[len - il - 1] == ' ' &&
		    num_end != line && *num_end == ':') {
			char path[64], name[32], val[64];
			snprintf(path, sizeof(path), "/proc/irq/%ld/smp_affinity_list", irq);
			char *aff = read_all(path, NULL);
			printable(aff ? aff : "unreadable", aff ? strcspn(aff, "\n") : 10, val,
				  sizeof(val));
			snprintf(name, sizeof(name), "irq%ld.smp_affinity_list", irq);
			emit("HB CONTEXT id=%s name=%s msg=%s", id, name, val);
			free(aff);
		}
		line = nl ? nl + 1 : NULL;
	}
	free(text);
}

/* RPS (rx-N/rps_cpus) and XPS (tx-N/xps_cpus) masks of every queue. */
static void emit_queue_masks(const char *iface, const char *id)
{
	static const char *const kinds[][2] = { { "rx", "rps_cpus" }, { "tx", "xps_cpus" } };

	for (size_t k = 0; k < 2; k++)
		for (unsigned q = 0;; q++) {
			char path[128], name[48], val[64];
			snprintf(path, sizeof(path), "/sys/class/net/%s/queues/%s-%u/%s", iface,
				 kinds[k][0], q, kinds[k][1]);
			if (access(path, F_OK) != 0)
				break;
			char *mask = read_all(path, NULL);
			/* xps_cpus cannot be read on a single-queue device (EINVAL) */
			printable(mask ? mask : strerror(errno),
				  mask ? strcspn(mask, "\n") : strlen(strerror(errno)), val,
				  sizeof(val));
			snprintf(name, sizeof(name), "%s-%u.%s", kinds[k][0], q, kinds[k][1]);
			emit("HB CONTEXT id=%s name=%s msg=%s", id, name, val);
			free(mask);
		}
}

/* --- qdisc over rtnetlink (agent_proto.h builds and parses the messages) -- */

/* A datagram of a dump is at most a page or two; 16 KiB leaves room. */
#define NL_BUF 16384

/* An rtnetlink socket that asks for extended acks (the kernel's refusal as
 * text) and gives up on a silent kernel after SETTING_TIMEOUT_MS. */
static int rtnl_open(char *msg, size_t msglen)
{
	struct timeval tv = { .tv_sec = SETTING_TIMEOUT_MS / 1000 };
	int one = 1, fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

	if (fd < 0) {
		snprintf(msg, msglen, "rtnetlink socket: %s", strerror(errno));
		return -1;
	}
	/* Without extended acks (a kernel before 4.12) errno alone says why. */
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

static int rtnl_send(int fd, const void *req, size_t len, char *msg, size_t msglen)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };

	if (len == 0 || sendto(fd, req, len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) !=
	    (ssize_t)len) {
		snprintf(msg, msglen, "rtnetlink send: %s", len ? strerror(errno) : "no request");
		return -1;
	}
	return 0;
}

static ssize_t rtnl_recv(int fd, unsigned char *buf, char *msg, size_t msglen)
{
	ssize_t n = recv(fd, buf, NL_BUF, 0);

	if (n <= 0)
		snprintf(msg, msglen, "rtnetlink: no answer from the kernel: %s",
			 n < 0 ? strerror(errno) : "socket closed");
	return n;
}

/* Sends req (of type, "RTM_NEWQDISC") and waits for the kernel's answer to
 * seq: 0 on its ack; else -1 with msg "<what>: <extended ack> (<errno>)",
 * or "<what>: <errno>" without an extended ack, and *errnum the errno (0
 * when the answer never came or was malformed). */
static int rtnl_request(int fd, unsigned char *buf, size_t len, uint32_t seq, const char *type,
			const char *what, int *errnum, char *msg, size_t msglen)
{
	*errnum = 0;
	if (rtnl_send(fd, buf, len, msg, msglen) < 0)
		return -1;
	for (;;) {
		char ext[200];
		ssize_t n = rtnl_recv(fd, buf, msg, msglen);
		if (n <= 0)
			return -1;
		int found = netlink_ack_parse(buf, (size_t)n, seq, errnum, ext, sizeof(ext));
		if (found < 0) {
			snprintf(msg, msglen, "%s: malformed answer", type);
			return -1;
		}
		if (found == 0)
			continue;
		if (!*errnum)
			return 0;
		if (ext[0])
			snprintf(msg, msglen, "%s: %.199s (%s)", what, ext, strerror(*errnum));
		else
			snprintf(msg, msglen, "%s: %s", what, strerror(*errnum));
		return -1;
	}
}

/* The kind of the interface's root qdisc, from an RTM_GETQDISC dump. */
static int qdisc_read(int fd, unsigned ifindex, char *kind, size_t kindlen, char *msg,
		      size_t msglen)
{
	static unsigned char buf[NL_BUF];
	static uint32_t seq = 1000000;	/* apart from qdisc_set()'s */
	size_t len = qdisc_dump_request(buf, sizeof(buf), ++seq);
	int done = 0, errnum = 0;

	kind[0] = '\0';
	if (rtnl_send(fd, buf, len, msg, msglen) < 0)
		return -1;
	while (!done) {
		ssize_t n = rtnl_recv(fd, buf, msg, msglen);
		if (n <= 0)
			return -1;
		done = qdisc_dump_parse(buf, (size_t)n, seq, (int)ifindex, kind, kindlen, &errnum);
		if (done < 0) {
			snprintf(msg, msglen, "RTM_GETQDISC: %s%s",
				 errnum ? strerror(errnum) : "malformed answer",
				 errnum == EOPNOTSUPP ? " (a kernel without CONFIG_NET_SCHED)" : "");
			return -1;
		}
	}
	if (!kind[0]) {
		snprintf(msg, msglen, "RTM_GETQDISC shows no root qdisc on interface %u", ifindex);
		return -1;
	}
	return 0;
}

/* `tc qdisc replace dev <iface> root <kind>`, then the root's kind read
 * back. The kernel's refusal is its extended ack and errno ("Specified
 * qdisc kind is unknown" for a qdisc the kernel was built without). */
static int qdisc_set(const char *iface, const char *kind, char *out, size_t outlen, char *msg,
		     size_t msglen)
{
	static unsigned char buf[NL_BUF];
	static uint32_t seq;
	unsigned ifindex = if_nametoindex(iface);
	int fd, rc = -1;

	if (!ifindex) {
		snprintf(msg, msglen, "no interface %s: %s", iface, strerror(errno));
		return -1;
	}
	if ((fd = rtnl_open(msg, msglen)) < 0)
		return -1;
	size_t len = qdisc_replace_request(buf, sizeof(buf), ++seq, (int)ifindex, kind);
	char what[160];
	int errnum;
	snprintf(what, sizeof(what), "RTM_NEWQDISC %s root %s", iface, kind);
	if (rtnl_request(fd, buf, len, seq, "RTM_NEWQDISC", what, &errnum, msg, msglen) < 0) {
		if (errnum == EOPNOTSUPP)
			snprintf(msg + strlen(msg), msglen - strlen(msg),
				 "; a kernel without CONFIG_NET_SCHED answers this");
		goto out;
	}
	rc = qdisc_read(fd, ifindex, out, outlen, msg, msglen);
out:
	close(fd);
	return rc;
}

/* The root qdisc as context of every run: the default one (pfifo_fast
 * under mq) is part of what a baseline number was measured with. */
static void emit_qdisc(const char *iface, const char *id)
{
	char kind[QDISC_KIND_MAX] = "", msg[200] = "";
	unsigned ifindex = if_nametoindex(iface);
	int fd = ifindex ? rtnl_open(msg, sizeof(msg)) : -1;

	if (!ifindex)
		snprintf(msg, sizeof(msg), "no interface %s", iface);
	if (fd >= 0 && qdisc_read(fd, ifindex, kind, sizeof(kind), msg, sizeof(msg)) == 0)
		emit("HB CONTEXT id=%s name=qdisc msg=root=%s", id, kind);
	else
		emit("HB CONTEXT id=%s name=qdisc msg=unavailable: %s", id, msg);
	if (fd >= 0)
		close(fd);
}

/* What a result depends on besides the kernel's code: docs/agent-protocol.md. */
static void emit_context(const struct agent_params *p, const char *id)
{
	struct utsname u;
	char val[768];

	if (uname(&u) == 0)
		emit("HB CONTEXT id=%s name=kernel_release msg=%s", id, u.release);
	char *cmdline = read_all("/proc/cmdline", NULL);
	if (cmdline) {
		printable(cmdline, strcspn(cmdline, "\n"), val, sizeof(val));
		emit("HB CONTEXT id=%s name=cmdline msg=%s", id, val);
	}
	free(cmdline);

	struct ethtool_coalesce ec = { .cmd = ETHTOOL_GCOALESCE };
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", p->iface);
	ifr.ifr_data = (void *)&ec;
	if (fd >= 0 && ioctl(fd, SIOCETHTOOL, &ifr) == 0)
		emit("HB CONTEXT id=%s name=coalesce msg=rx_usecs=%u rx_frames=%u tx_usecs=%u "
		     "tx_frames=%u", id, ec.rx_coalesce_usecs, ec.rx_max_coalesced_frames,
		     ec.tx_coalesce_usecs, ec.tx_max_coalesced_frames);
	else
		emit("HB CONTEXT id=%s name=coalesce msg=unavailable: %s", id, strerror(errno));
	if (fd >= 0)
		close(fd);
	emit_irq_affinity(p->iface, id);
	emit_queue_masks(p->iface, id);
	emit_qdisc(p->iface, id);
}

/* /dev/kmsg positioned at its end: what the kernel logs from now on. */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* Warnings and worse logged since kmsg_open(), as HB KMSG lines. */
static void kmsg_report(int fd, const char *id)
{
	char rec[2048], text[900];
	int sent = 0, skipped = 0;

	if (fd < 0) {
		emit("HB KMSG id=%s level=-1 msg=cannot read /dev/kmsg", id);
		return;
	}
	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec));
		if (n < 0 && (errno == EPIPE || errno == EINTR))
			continue;	/* EPIPE: records overwritten; the next read goes on */
		if (n <= 0)
			break;
		unsigned level;
		const char *t;
		size_t tl;
		if (kmsg_record_parse(rec, (size_t)n, &level, &t, &tl) < 0 || level > 4)
			continue;
		if (sent == KMSG_MAX) {
			skipped++;
			continue;
		}
		printable(t, tl, text, sizeof(text));
		emit("HB KMSG id=%s level=%u msg=%s", id, level, text);
		sent++;
	}
	if (skipped)
		emit("HB KMSG id=%s level=4 msg=(%d more records not sent)", id, skipped);
	close(fd);
}

/* The clock at a profile window's edge, as a counter the host subtracts. */
static void emit_clock(const char *id, const char *phase, const char *name)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	emit("HB COUNTER id=%s phase=%s name=%s value=%llu", id, phase, name,
	     (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec);
}

/* Set the function filter to the names in a space-separated list, or clear
 * it with "". It needs O_TRUNC, unlike trigger files, and one write per
 * name: tracefs may take less of a longer write. */
static int ftrace_filter(const char *names)
{
	int fd = open(TRACEFS "/set_ftrace_filter", O_WRONLY | O_TRUNC | O_CLOEXEC);
	int rc = 0;

	if (fd < 0)
		return -1;
	for (const char *p = names; *p && rc == 0;) {
		size_t n = strcspn(p, ",");
		char name[RUN_FUNCTION_NAME_MAX + 2];
		snprintf(name, sizeof(name), "%.*s ", (int)n, p);
		if (write(fd, name, strlen(name)) != (ssize_t)strlen(name)) {
			if (!errno)
				errno = EIO;
			rc = -1;
		}
		p += n;
		p += strspn(p, ",");
	}
	close(fd);
	return rc;
}

/* perf record and perf stat start with their events disabled (-D -1) and
 * enable them when told on a control FIFO, answering "ack" once they
 * count (perf's --control); only then does the run's traffic start. A
 * fixed wait was not enough: with the pool of random bytes ready at boot
 * (deploy.qemu.rng_seed_bytes) the traffic took the DUT's one CPU at once,
 * perf record's set-up (kallsyms, every task's maps) had not ended when a
 * 4 s run did, and it recorded nothing. */
struct perf_ctl {
	int ctl, ack;
};

#define PERF_ENABLE_TIMEOUT_MS 60000

static int perf_ctl_open(const char *ctl, const char *ack, struct perf_ctl *c)
{
	unlink(ctl);
	unlink(ack);
	if (mkfifo(ctl, 0600) < 0 || mkfifo(ack, 0600) < 0)
		return -1;
	/* O_RDWR: neither open waits for perf to open its end */
	c->ctl = open(ctl, O_RDWR | O_CLOEXEC);
	c->ack = open(ack, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	return c->ctl >= 0 && c->ack >= 0 ? 0 : -1;
}

static void perf_ctl_close(struct perf_ctl *c, const char *ctl, const char *ack)
{
	if (c->ctl >= 0)
		close(c->ctl);
	if (c->ack >= 0)
		close(c->ack);
	c->ctl = c->ack = -1;
	unlink(ctl);
	unlink(ack);
}

/* Tells perf (pid) to enable its events and waits for its "ack\n" until
 * deadline; -1 when perf exits or does not answer in time. */
static int perf_enable(const struct perf_ctl *c, pid_t pid, int64_t deadline)
{
	static const char cmd[] = "enable\n";
	if (write(c->ctl, cmd, sizeof(cmd) - 1) != (ssize_t)(sizeof(cmd) - 1))
		return -1;
	char got[8];
	size_t n = 0;
	while (n < 4) {
		int64_t left = deadline - now_ms();
		siginfo_t info = { 0 };
		/* WNOWAIT: perf's exit status stays for profile_stop */
		if (left <= 0 || (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
				  info.si_pid == pid))
			return -1;
		struct pollfd p = { .fd = c->ack, .events = POLLIN };
		if (poll(&p, 1, left > 500 ? 500 : (int)left) > 0) {
			ssize_t r = read(c->ack, got + n, sizeof(got) - 1 - n);
			n += r > 0 ? (size_t)r : 0;
		}
	}
	return memcmp(got, "ack\n", 4) ? -1 : 0;
}

static void first_line(const char *path, char *out, size_t outlen);

struct profiler {
	enum run_profile kind;
	pid_t record, stat;	/* PROFILE_PERF */
	struct perf_ctl record_ctl, stat_ctl;
	char err[160];
};

#define PERF_RECORD_CTL "/tmp/perf-record.ctl"
#define PERF_RECORD_ACK "/tmp/perf-record.ack"
#define PERF_STAT_CTL "/tmp/perf-stat.ctl"
#define PERF_STAT_ACK "/tmp/perf-stat.ack"

/* Enabling the profiler resets its statistics. functions: the filter of
 * PROFILE_FTRACE, "a,b,c" (run_spec.functions, from the host's driver
 * file). */
static void profile_start(struct profiler *pr, enum run_profile kind, const char *functions,
			  const char *id)
{
	memset(pr, 0, sizeof(*pr));
	pr->kind = kind;
	pr->record = pr->stat = -1;
	pr->record_ctl.ctl = pr->record_ctl.ack = pr->stat_ctl.ctl = pr->stat_ctl.ack = -1;
	if (kind == PROFILE_FTRACE) {
		if (ftrace_filter(functions) < 0 ||
		    write_text(TRACEFS "/function_profile_enabled", "1") < 0)
			snprintf(pr->err, sizeof(pr->err), "function profiler: %s", strerror(errno));
	} else if (kind == PROFILE_PERF) {
		const char *rec[] = { PERF, "record", "-N", "-q", "-e", "cpu-clock", "-F", "1000",
				      "-a", "-D", "-1",
				      "--control=fifo:" PERF_RECORD_CTL "," PERF_RECORD_ACK,
				      "-o", "/tmp/perf.data", NULL };
		const char *st[] = { PERF, "stat", "-x", ",", "-a", "-e", perf_stat_events,
				     "-D", "-1", "--control=fifo:" PERF_STAT_CTL "," PERF_STAT_ACK,
				     "-o", "/tmp/perf-stat.csv", NULL };
		/* The kernel halves the sampling rate whenever a sample's handler
		 * takes "too long", which on an emulated CPU is always: left on,
		 * a run kept 10 samples of 40,000. */
		write_text("/proc/sys/kernel/perf_cpu_time_max_percent", "0");
		if (access(PERF, X_OK) != 0) {
			snprintf(pr->err, sizeof(pr->err), "no %s on the DUT: add linux-perf "
				 "to the board's userland.perf_packages", PERF);
		} else if (perf_ctl_open(PERF_RECORD_CTL, PERF_RECORD_ACK, &pr->record_ctl) < 0 ||
		    perf_ctl_open(PERF_STAT_CTL, PERF_STAT_ACK, &pr->stat_ctl) < 0) {
			snprintf(pr->err, sizeof(pr->err), "perf's control FIFOs: %s", strerror(errno));
		} else {
			pr->record = spawn(rec, "/tmp/perf-record.out", "/tmp/perf-record.err");
			pr->stat = spawn(st, "/tmp/perf-stat.out", "/tmp/perf-stat.err");
			int64_t deadline = now_ms() + PERF_ENABLE_TIMEOUT_MS;
			int rec_ok = perf_enable(&pr->record_ctl, pr->record, deadline) == 0;
			if (!rec_ok || perf_enable(&pr->stat_ctl, pr->stat, deadline) < 0) {
				char why[96];
				first_line(rec_ok ? "/tmp/perf-stat.err" : "/tmp/perf-record.err", why,
					   sizeof(why));
				snprintf(pr->err, sizeof(pr->err), "perf %s did not enable its events "
					 "within %d s: %s", rec_ok ? "stat" : "record",
					 PERF_ENABLE_TIMEOUT_MS / 1000, why[0] ? why : "no message");
			}
		}
	}
	emit_clock(id, "before", "profile_clock_ns");
}

static void profile_stop(struct profiler *pr, const char *id)
{
	emit_clock(id, "after", "profile_clock_ns");
	if (pr->kind == PROFILE_FTRACE) {
		write_text(TRACEFS "/function_profile_enabled", "0");
		size_t len = 0;
		char *text = read_all(TRACEFS "/trace_stat/function0", &len);
		if (text && len)
			emit_file(id, "function-profile.txt", text, len);
		else if (!pr->err[0])
			snprintf(pr->err, sizeof(pr->err), "no function profile: %s", strerror(errno));
		free(text);
		ftrace_filter("");
	} else if (pr->kind == PROFILE_PERF) {
		pid_t pids[2] = { pr->record, pr->stat };
		int64_t deadline = now_ms() + 60000;
		for (int i = 0; i < 2; i++) {
			int status;
			if (pids[i] <= 0)
				continue;
			kill(pids[i], SIGINT);
			if (wait_exit(pids[i], deadline, &status) && !pr->err[0])
				snprintf(pr->err, sizeof(pr->err), "perf %s did not stop on SIGINT",
					 i ? "stat" : "record");
		}
		const char *rep[] = { PERF, "report", "-i", "/tmp/perf.data", "--stdio",
				      "--sort", "sym", NULL };
		int status = 0;
		pid_t pid = spawn(rep, "/tmp/perf-report.txt", "/tmp/perf-report.err");
		if (pid > 0)
			wait_exit(pid, now_ms() + 120000, &status);
		if ((pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) && !pr->err[0]) {
			/* perf's own words: the last line of its stderr says why */
			char *why = read_all("/tmp/perf-report.err", NULL);
			char *end = why ? why + strlen(why) : NULL;
			while (end && end > why && (end[-1] == '\n' || end[-1] == ' '))
				*--end = '\0';
			char *last = why ? strrchr(why, '\n') : NULL;
			char line[120];
			last = last ? last + 1 : why;
			printable(last ? last : "", last ? strlen(last) : 0, line, sizeof(line));
			snprintf(pr->err, sizeof(pr->err), "perf report failed: %s", line);
			free(why);
		}
		static const char *const files[][2] = {
			{ "/tmp/perf-report.txt", "perf-report.txt" },
			{ "/tmp/perf-stat.csv", "perf-stat.csv" },
		};
		for (size_t f = 0; f < 2; f++) {
			size_t len = 0;
			char *text = read_all(files[f][0], &len);
			if (text && len)
				emit_file(id, files[f][1], text, len);
			else if (!pr->err[0])
				snprintf(pr->err, sizeof(pr->err), "perf wrote no %s", files[f][1]);
			free(text);
			unlink(files[f][0]);
		}
		unlink("/tmp/perf.data");
		perf_ctl_close(&pr->record_ctl, PERF_RECORD_CTL, PERF_RECORD_ACK);
		perf_ctl_close(&pr->stat_ctl, PERF_STAT_CTL, PERF_STAT_ACK);
	}
}

/* The first line of a file, made fit for the end of an msg= token. */
static void first_line(const char *path, char *out, size_t outlen)
{
	char *text = read_all(path, NULL);
	size_t n = 0;

	for (const char *c = text; c && *c && *c != '\n' && n + 1 < outlen; c++)
		out[n++] = *c >= 0x20 && *c < 0x7f ? *c : '?';
	out[n] = '\0';
	free(text);
}

static int end_run(const char *id, const char *msg)
{
	if (msg[0]) {
		emit("HB END id=%s status=error msg=%s", id, msg);
		return -1;
	}
	emit("HB END id=%s status=ok", id);
	return 0;
}

/*
 * The driver's own statistics (ETHTOOL_GSTATS: what `ethtool -S` prints),
 * read before and after a run. stmmac counts there what characterises the
 * TX timer strategies at no cost to the run: TX interrupts
 * (tx_normal_irq_n), TX cleans (tx_clean), frames asking for an interrupt
 * (tx_set_ic_bit), NAPI polls. After the run every stat that changed goes
 * out as "HB DSTAT id= name= delta=": the host picks what it knows.
 */
struct driver_stats {
	uint32_t n;
	struct ethtool_gstrings *names;
	struct ethtool_stats *before;
};

static int ethtool_ioctl(const char *iface, void *data)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface);
	ifr.ifr_data = data;
	int rc = ioctl(fd, SIOCETHTOOL, &ifr);
	close(fd);
	return rc;
}

static struct ethtool_stats *driver_stats_read(const char *iface, uint32_t n)
{
	struct ethtool_stats *st = calloc(1, sizeof(*st) + n * sizeof(uint64_t));
	if (!st)
		return NULL;
	st->cmd = ETHTOOL_GSTATS;
	st->n_stats = n;
	if (ethtool_ioctl(iface, st) < 0 || st->n_stats != n) {
		free(st);
		return NULL;
	}
	return st;
}

/* A driver without statistics (or a failed read) leaves ds->n 0. */
static void driver_stats_begin(const char *iface, struct driver_stats *ds)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t len;
	} info = { .hdr = { .cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ull << ETH_SS_STATS } };
	memset(ds, 0, sizeof(*ds));
	/* 4096: far more than any driver has; a bound on what we allocate */
	if (ethtool_ioctl(iface, &info) < 0 || !info.hdr.sset_mask || !info.len ||
	    info.len > 4096)
		return;
	ds->names = calloc(1, sizeof(*ds->names) + (size_t)info.len * ETH_GSTRING_LEN);
	if (!ds->names)
		return;
	ds->names->cmd = ETHTOOL_GSTRINGS;
	ds->names->string_set = ETH_SS_STATS;
	ds->names->len = info.len;
	if (ethtool_ioctl(iface, ds->names) < 0 || ds->names->len != info.len ||
	    !(ds->before = driver_stats_read(iface, info.len))) {
		free(ds->names);
		ds->names = NULL;
		return;
	}
	ds->n = info.len;
}

static void driver_stats_end(const char *iface, const char *id, struct driver_stats *ds)
{
	struct ethtool_stats *after = ds->n ? driver_stats_read(iface, ds->n) : NULL;
	for (uint32_t i = 0; after && i < ds->n; i++) {
		uint64_t b = ds->before->data[i], a = after->data[i];
		if (a == b)
			continue;
		char name[ETH_GSTRING_LEN + 1];
		printable((const char *)ds->names->data + (size_t)i * ETH_GSTRING_LEN,
			  strnlen((const char *)ds->names->data + (size_t)i * ETH_GSTRING_LEN,
				  ETH_GSTRING_LEN), name, sizeof(name));
		for (char *c = name; *c; c++)
			if (*c == ' ' || *c == '=')
				*c = '_';
		emit("HB DSTAT id=%s name=%s delta=%llu", id, name,
		     (unsigned long long)(a > b ? a - b : 0));
	}
	free(after);
	free(ds->names);
	free(ds->before);
	memset(ds, 0, sizeof(*ds));
}

/* The measurement window's edges for the emulator's instruction counter
 * (harness/plugin/hb-insn.c): one no-op instruction each, always executed,
 * so a run does the same work whether the plugin watches or not. The
 * plugin recognises these exact encodings; nothing else executes them. */
static void window_mark_start(void)
{
#if defined(__arm__)
	__asm__ volatile("mov r10, r10" ::: "memory");
#elif defined(__aarch64__)
	__asm__ volatile("mov x10, x10" ::: "memory");
#endif
}

static void window_mark_end(void)
{
#if defined(__arm__)
	__asm__ volatile("mov r11, r11" ::: "memory");
#elif defined(__aarch64__)
	__asm__ volatile("mov x11, x11" ::: "memory");
#endif
}

static int run_test(const struct agent_params *p, const struct run_spec *rs)
{
	char json_path[96], err_path[96], msg[400] = "", detail[256];
	struct iperf_args args;

	struct driver_stats ds;
	emit_context(p, rs->id);
	if (emit_counters(p->iface, rs->id, "before") < 0) {
		snprintf(msg, sizeof(msg), "cannot read the counters of %s", p->iface);
		return end_run(rs->id, msg);
	}
	driver_stats_begin(p->iface, &ds);
	snprintf(json_path, sizeof(json_path), "/tmp/%s.json", rs->id);
	snprintf(err_path, sizeof(err_path), "/tmp/%s.err", rs->id);
	iperf_args_build(&args, p, rs);

	int kmsg = kmsg_open();
	int hist = hist_arm(rs->profile != PROFILE_NONE);
	struct profiler prof;
	profile_start(&prof, rs->profile, rs->functions, rs->id);
	unsigned limit_s = rs->time_s + rs->omit_s + AGENT_GRACE_S;
	/* The window opens once the hist triggers and the profiler are armed
	 * and the driver's statistics read: fixed costs a run, which a DUT-RX
	 * run, whose window sees a few thousand packets, divided into every
	 * per-packet count (tracing_map_init and the allocations under it:
	 * 2,000 to 3,000 instructions a packet, varying with the packets). */
	window_mark_start();
	int64_t start = now_ms();
	pid_t pid = spawn(args.argv, json_path, err_path);
	if (pid < 0) {
		snprintf(msg, sizeof(msg), "fork: %s", strerror(errno));
		window_mark_end();
		profile_stop(&prof, rs->id);
		driver_stats_end(p->iface, rs->id, &ds);
		if (hist)
			hist_report_and_disarm(rs->id);
		kmsg_report(kmsg, rs->id);
		return end_run(rs->id, msg);
	}
	int status = 0, killed = 0;
	if (p->fault_kill_iperf_s && p->fault_kill_iperf_s < limit_s) {
		/* fault test (hb.fault_kill_iperf_s): iperf3 dies mid-run, as under
		 * the OOM killer; the status says "killed by signal 9" */
		wait_exit(pid, start + (int64_t)p->fault_kill_iperf_s * 1000, &status);
	} else {
		/* fault test (hb.fault_stop_iperf_s): iperf3 hangs mid-run */
		if (p->fault_stop_iperf_s && p->fault_stop_iperf_s < limit_s &&
		    wait_until(pid, start + (int64_t)p->fault_stop_iperf_s * 1000, &status))
			kill(pid, SIGSTOP);
		int64_t deadline = start + (int64_t)limit_s * 1000;
		killed = rs->deadline == DEADLINE_HOST ?
			 wait_host_stop(pid, rs->id, deadline, (int64_t)limit_s * 1000, &status) :
			 wait_until(pid, deadline, &status);
		if (killed)
			stop_at_deadline(pid, rs->id, rs->port, &status);
	}
	int64_t ran_ms = now_ms() - start;

	profile_stop(&prof, rs->id);
	window_mark_end();
	if (emit_counters(p->iface, rs->id, "after") < 0 && !msg[0])
		snprintf(msg, sizeof(msg), "cannot read the counters of %s", p->iface);
	driver_stats_end(p->iface, rs->id, &ds);
	if (hist)
		hist_report_and_disarm(rs->id);
	kmsg_report(kmsg, rs->id);
	if (prof.err[0] && !msg[0])
		snprintf(msg, sizeof(msg), "%s", prof.err);
	size_t json_len = 0;
	char *json = read_all(json_path, &json_len);
	/* Sent even when iperf3 failed: its JSON says why. */
	if (json && json_len)
		emit_file(rs->id, "iperf.json", json, json_len);
	if (!msg[0]) {
		if (killed && rs->deadline == DEADLINE_HOST)
			snprintf(msg, sizeof(msg), AGENT_DEADLINE_KILL " the host's deadline (%u s on "
				 "its clock), %lld s on the DUT's", limit_s, (long long)(ran_ms / 1000));
		else if (killed)
			snprintf(msg, sizeof(msg), AGENT_DEADLINE_KILL " %u s", limit_s);
		else if (WIFSIGNALED(status))
			snprintf(msg, sizeof(msg), "iperf3 killed by signal %d", WTERMSIG(status));
		else if (json && iperf_json_error(json, detail, sizeof(detail)))
			snprintf(msg, sizeof(msg), "iperf3: %s", detail);
		else if (WEXITSTATUS(status) != 0) {
			first_line(err_path, detail, sizeof(detail));
			snprintf(msg, sizeof(msg), "iperf3 exited with status %d%s%s",
				 WEXITSTATUS(status), detail[0] ? ": " : "", detail);
		} else if (!json_len)
			snprintf(msg, sizeof(msg), "iperf3 wrote no JSON");
	}
	free(json);
	unlink(json_path);
	unlink(err_path);
	return end_run(rs->id, msg);
}

/* --- hbcmd set: one runtime setting, applied and read back ---------------- */

/* Runs argv with stdout/stderr in files, within SETTING_TIMEOUT_MS. 0 if it
 * exited 0; otherwise why, from its stderr, in msg. */
static int run_captured(const char *const argv[], const char *out_path, const char *err_path,
			char *msg, size_t msglen)
{
	char detail[200];
	int status = 0;
	pid_t pid = spawn(argv, out_path, err_path);

	if (pid < 0) {
		snprintf(msg, msglen, "fork: %s", strerror(errno));
		return -1;
	}
	if (wait_exit(pid, now_ms() + SETTING_TIMEOUT_MS, &status)) {
		snprintf(msg, msglen, "%s did not finish within %d s", argv[0],
			 SETTING_TIMEOUT_MS / 1000);
		return -1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	first_line(err_path, detail, sizeof(detail));
	snprintf(msg, msglen, "%s exited with status %d%s%s", argv[0],
		 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
		 detail[0] ? ": " : "", detail);
	return -1;
}

/* The current value of an ethtool coalescing parameter, from ethtool -c. */
static int coalesce_read(const char *iface, const char *key, char *out, size_t outlen,
			 char *msg, size_t msglen)
{
	const char *argv[] = { ETHTOOL, "-c", iface, NULL };
	if (access(ETHTOOL, X_OK) != 0) {
		snprintf(msg, msglen, "no %s on the DUT: add ethtool to the board's "
			 "userland packages", ETHTOOL);
		return -1;
	}
	int rc = run_captured(argv, "/tmp/hb-set.out", "/tmp/hb-set.err", msg, msglen);
	char *text = rc == 0 ? read_all("/tmp/hb-set.out", NULL) : NULL;

	if (rc == 0 && (!text || ethtool_coalesce_value(text, key, out, outlen) < 0)) {
		snprintf(msg, msglen, "ethtool -c %s shows no %s", iface, key);
		rc = -1;
	}
	free(text);
	return rc;
}

static int coalesce_set(const char *iface, const struct set_spec *ss, char *out,
			size_t outlen, char *msg, size_t msglen)
{
	const char *argv[] = { ETHTOOL, "-C", iface, ss->key, ss->value, NULL };

	if (coalesce_read(iface, ss->key, out, outlen, msg, msglen) < 0)
		return -1;
	/* ethtool's ioctl path refuses a request that changes nothing
	 * ("no coalesce parameters changed"): skip it. */
	if (strcmp(out, ss->value) != 0 &&
	    run_captured(argv, "/tmp/hb-set.out", "/tmp/hb-set.err", msg, msglen) < 0)
		return -1;
	return coalesce_read(iface, ss->key, out, outlen, msg, msglen);
}

/* Writes value to a sysfs/procfs file and reads it back; the kernel's
 * refusal is the write's errno. */
static int file_set(const char *path, const char *value, char *out, size_t outlen,
		    char *msg, size_t msglen)
{
	if (write_text(path, value) < 0) {
		snprintf(msg, msglen, "writing %s to %s: %s", value, path, strerror(errno));
		return -1;
	}
	char *text = read_all(path, NULL);
	if (!text) {
		snprintf(msg, msglen, "reading %s: %s", path, strerror(errno));
		return -1;
	}
	size_t n = strcspn(text, "\r\n");
	snprintf(out, outlen, "%.*s", (int)n, text);
	free(text);
	return 0;
}

static int apply_setting(const struct agent_params *p, const struct set_spec *ss)
{
	char path[192], got[SET_TOKEN_MAX] = "", msg[400] = "";
	int rc = -1;

	switch (ss->method) {
	case SET_ETHTOOL_COALESCE:
		rc = coalesce_set(p->iface, ss, got, sizeof(got), msg, sizeof(msg));
		break;
	case SET_SYSFS_NET:
		snprintf(path, sizeof(path), "/sys/class/net/%s/%s", p->iface, ss->key);
		rc = file_set(path, ss->value, got, sizeof(got), msg, sizeof(msg));
		break;
	case SET_QDISC:	/* key is "root": set_command_parse() allows nothing else */
		rc = qdisc_set(p->iface, ss->value, got, sizeof(got), msg, sizeof(msg));
		break;
	case SET_IRQ_AFFINITY: {
		char *irqs = read_all("/proc/interrupts", NULL);
		unsigned irq;

		if (!irqs || iface_irq_parse(irqs, p->iface, &irq) < 0) {
			snprintf(msg, sizeof(msg), "no IRQ named %s in /proc/interrupts", p->iface);
		} else {
			snprintf(path, sizeof(path), "/proc/irq/%u/%s", irq, ss->key);
			rc = file_set(path, ss->value, got, sizeof(got), msg, sizeof(msg));
		}
		free(irqs);
		break;
	}
	}
	unlink("/tmp/hb-set.out");
	unlink("/tmp/hb-set.err");
	if (rc == 0)
		emit("HB SETTING id=%s key=%s value=%s", ss->id, ss->key, got);
	return end_run(ss->id, rc == 0 ? "" : msg);
}

static void console_setup(void)
{
	struct termios t;

	/* The host must not read its own commands back. */
	if (tcgetattr(STDIN_FILENO, &t) == 0) {
		t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
		tcsetattr(STDIN_FILENO, TCSANOW, &t);
	}
}

/* Kernel messages must not split protocol lines. Called once the link is up,
 * so the boot log up to "Link is Up" (phylink prints it right after
 * netif_carrier_on) reaches the console, where a lab engineer looks first. */
static void console_quiet(void)
{
	nap_ms(200);
	write_text("/proc/sys/kernel/printk", "1");
}

/* As pid 1, what a shell script did before exec'ing the agent: eight
 * processes (busybox sh, its mounts, mkdir) took about 0.2 s of a boot's
 * 2 s on the emulated board (docs/measurements.md, "A boot's cost").
 * /dev first, so that the console can be opened and a failed mount said. */
static const struct {
	const char *type, *dir;
} init_mounts[] = {
	{ "devtmpfs", "/dev" },		 { "proc", "/proc" },
	{ "sysfs", "/sys" },		 { "tracefs", TRACEFS },
	{ "debugfs", "/sys/kernel/debug" }, { "tmpfs", "/tmp" },
};

static void init_setup(void)
{
	for (size_t i = 0; i < sizeof(init_mounts) / sizeof(init_mounts[0]); i++) {
		const char *type = init_mounts[i].type, *dir = init_mounts[i].dir;
		int rc = mkdir(dir, 0755);
		if ((rc == 0 || errno == EEXIST) && mount(type, dir, type, 0, NULL) == 0)
			rc = 0;
		else
			rc = errno ? errno : EIO;
		if (i == 0) {
			int fd = open("/dev/console", O_RDWR);
			if (fd >= 0) {
				for (int t = 0; t <= 2; t++)
					dup2(fd, t);
				if (fd > 2)
					close(fd);
			}
		}
		if (rc && rc != EBUSY)
			fprintf(stderr, "hb-agent: cannot mount %s on %s: %s\n", type, dir,
				strerror(rc));
	}
	setenv("PATH", "/sbin:/bin:/usr/sbin:/usr/bin", 1);
}

static int load_params(struct agent_params *p, char *err, size_t errlen)
{
	const char *path = getenv("HB_CMDLINE_FILE");
	char *cmdline;

	if (!path)
		path = "/proc/cmdline";
	cmdline = read_all(path, NULL);
	if (!cmdline) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	int r = agent_params_parse(cmdline, p, err, errlen);
	free(cmdline);
	return r;
}

/* The first TCP connect() of a boot fills the kernel's port-choice
 * perturbation table with random bytes (__inet_hash_connect(),
 * get_random_sleepable_once(): 256 KiB, 4,112 ChaCha blocks, 6.8 M
 * instructions). Left to iperf3's control connection it fell inside run
 * 1's window only: 137 instructions a packet more than any later run of
 * the boot (docs/metrics.md). One connection on loopback before READY
 * pays it outside every run. */
static int connect_on_loopback(char *err, size_t errlen)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int afd = -1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (lfd >= 0 && cfd >= 0 && bind(lfd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    listen(lfd, 1) == 0 && getsockname(lfd, (struct sockaddr *)&a, &alen) == 0 &&
	    connect(cfd, (struct sockaddr *)&a, sizeof(a)) == 0)
		afd = accept(lfd, NULL, NULL);
	if (afd < 0)
		snprintf(err, errlen, "a TCP connection on loopback failed: %s", strerror(errno));
	else
		close(afd);
	if (cfd >= 0)
		close(cfd);
	if (lfd >= 0)
		close(lfd);
	return afd < 0 ? -1 : 0;
}

/* `ip addr add <cidr> dev <iface>` over rtnetlink (agent_proto.h): with the
 * two links up, three busybox processes fewer, 0.03 s of a boot sooner. */
static int addr_add(const char *iface, const char *cidr, char *msg, size_t msglen)
{
	static unsigned char buf[NL_BUF];
	static uint32_t seq = 2000000;	/* apart from the qdisc requests' */
	unsigned ifindex = if_nametoindex(iface);
	size_t len = ifindex ? addr_add_request(buf, sizeof(buf), ++seq, (int)ifindex, cidr) : 0;
	char what[160];
	int fd, rc, errnum;

	if (!ifindex) {
		snprintf(msg, msglen, "no interface %s", iface);
		return -1;
	}
	if (!len) {
		snprintf(msg, msglen, "hb.addr=%s is no IPv4 address/prefix", cidr);
		return -1;
	}
	if ((fd = rtnl_open(msg, msglen)) < 0)
		return -1;
	snprintf(what, sizeof(what), "RTM_NEWADDR %s on %s", cidr, iface);
	rc = rtnl_request(fd, buf, len, seq, "RTM_NEWADDR", what, &errnum, msg, msglen);
	close(fd);
	return rc;
}

/* `ip link set <iface> up` */
static int link_up(const char *iface, char *msg, size_t msglen)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = -1;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface);
	if (fd >= 0 && ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		rc = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	if (rc < 0)
		snprintf(msg, msglen, "cannot bring %s up: %s", iface, strerror(errno));
	if (fd >= 0)
		close(fd);
	return rc;
}

/* Address and links up, then carrier, all within CARRIER_TIMEOUT_MS. */
#define NEIGH_REACHABLE_MS "3600000"

static int net_setup(const struct agent_params *p, char *err, size_t errlen)
{
	int64_t deadline = now_ms() + CARRIER_TIMEOUT_MS;
	char path[96];
	uint64_t carrier;

	/* The driver may still be probing (deferred probe) when init starts. */
	snprintf(path, sizeof(path), "/sys/class/net/%s", p->iface);
	while (access(path, F_OK) != 0) {
		if (now_ms() >= deadline) {
			snprintf(err, errlen, "no interface %s", p->iface);
			return -1;
		}
		nap_ms(100);
	}
	/* The peer's neighbour entry stays REACHABLE for the whole boot: left at
	 * the kernel's 30 s (15-45 s at random) it went STALE inside a run,
	 * whose frames then took neigh_resolve_output() and an ARP probe
	 * instead of the cached header, some 110 instructions a frame for
	 * 22,000 frames: -0.3 % pps in a boot's third run, none in its second
	 * (docs/measurements.md). An hour outlasts any boot. */
	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/neigh/%s/base_reachable_time_ms",
		 p->iface);
	if (write_text(path, NEIGH_REACHABLE_MS) < 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	if (addr_add(p->iface, p->addr, err, errlen) < 0 || link_up("lo", err, errlen) < 0 ||
	    link_up(p->iface, err, errlen) < 0)
		return -1;
	if (connect_on_loopback(err, errlen) < 0)
		return -1;
	snprintf(path, sizeof(path), "/sys/class/net/%s/carrier", p->iface);
	while (read_u64(path, &carrier) < 0 || carrier != 1) {
		if (now_ms() >= deadline) {
			snprintf(err, errlen, "no carrier on %s after %d s", p->iface,
				 CARRIER_TIMEOUT_MS / 1000);
			return -1;
		}
		nap_ms(100);
	}
	return 0;
}

/* The device whose driver moves iface's frames: iface itself, or for a
 * DSA switch port (the R7800's lan1) the conduit its iflink names: the
 * stmmac GMAC behind the switch, the driver under test. Only a DSA conduit
 * (it has a dsa/ directory) is followed: a veth's iflink is its peer's
 * index in another namespace, which may name an unrelated device here. */
static void frame_device(const char *iface, char *out, size_t outlen)
{
	char path[96];
	uint64_t index, link;

	snprintf(out, outlen, "%s", iface);
	snprintf(path, sizeof(path), "/sys/class/net/%s/ifindex", iface);
	if (read_u64(path, &index) < 0)
		return;
	snprintf(path, sizeof(path), "/sys/class/net/%s/iflink", iface);
	if (read_u64(path, &link) < 0 || link == index)
		return;
	DIR *d = opendir("/sys/class/net");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		uint64_t i;
		if (e->d_name[0] == '.' || strlen(e->d_name) > 32)
			continue;
		snprintf(path, sizeof(path), "/sys/class/net/%s/ifindex", e->d_name);
		if (read_u64(path, &i) == 0 && i == link) {
			snprintf(path, sizeof(path), "/sys/class/net/%s/dsa", e->d_name);
			if (access(path, F_OK) == 0)
				snprintf(out, outlen, "%s", e->d_name);
			break;
		}
	}
	if (d)
		closedir(d);
}

static void emit_ready(const struct agent_params *p)
{
	char path[96], target[256], lower[40], *speed;
	const char *driver = "none";

	frame_device(p->iface, lower, sizeof(lower));
	snprintf(path, sizeof(path), "/sys/class/net/%s/device/driver", lower);
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	if (n > 0) {
		target[n] = '\0';
		driver = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
	}
	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", p->iface);
	speed = read_all(path, NULL);
	if (speed)
		speed[strcspn(speed, " \n")] = '\0';
	emit("HB READY iface=%s addr=%s driver=%s speed=%s", p->iface, p->addr,
	     driver, speed && speed[0] ? speed : "unknown");
	free(speed);
}

static void poweroff(void)
{
	sync();
	reboot(RB_POWER_OFF);
	emit("HB END id=? status=error msg=poweroff: %s", strerror(errno));
}

static void serve(const struct agent_params *p, const char *param_err)
{
	char line[sizeof(con_in.buf) + 1];

	while (console_line(line) == 0) {
		struct run_spec rs;
		char err[256];

		if (line[strspn(line, " \t\r\n")] == '\0')
			continue;
		struct set_spec ss;
		int set = set_command_parse(line, &ss, err, sizeof(err));
		if (set != 0) {
			if (set < 0 || !p)
				emit("HB END id=%s status=error msg=%s", ss.id, set < 0 ? err : param_err);
			else
				apply_setting(p, &ss);
			continue;
		}
		switch (command_parse(line, &rs, err, sizeof(err))) {
		case CMD_RUN:
			if (p)
				run_test(p, &rs);
			else
				emit("HB END id=%s status=error msg=%s", rs.id, param_err);
			break;
		case CMD_POWEROFF:
			poweroff();
			break;
		case CMD_STOP:
			/* the host's deadline crossed the run's end: nothing to stop */
			break;
		case CMD_INVALID:
			emit("HB END id=? status=error msg=%s", err);
			break;
		}
	}
}

static int run_once(int ntok, char *const tok[], const struct agent_params *p,
		    const char *param_err)
{
	struct run_spec rs;
	char err[256];

	if (run_spec_parse(ntok, tok, "run", &rs, err, sizeof(err)) < 0) {
		fprintf(stderr, "hb-agent: %s\n%s", err, USAGE);
		return 2;
	}
	if (rs.deadline == DEADLINE_HOST) {
		/* nobody is there to say stop */
		fprintf(stderr, "hb-agent: deadline=host is for a run served on the console\n%s",
			USAGE);
		return 2;
	}
	if (!p) {
		emit("HB END id=%s status=error msg=%s", rs.id, param_err);
		return 1;
	}
	return run_test(p, &rs) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct agent_params params;
	char err[256];
	sigset_t chld;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	/* As init, the arguments are the kernel's: the words of its command
	 * line it did not know (a lab's own, a module's that is not built
	 * in). They must not stop the board: a refusing init panics it. */
	int as_init = getpid() == 1;
	if (as_init)
		init_setup();
	int have_params = load_params(&params, err, sizeof(err)) == 0;

	if (!as_init && argc >= 2 && strcmp(argv[1], "run") == 0)
		return run_once(argc - 2, argv + 2, have_params ? &params : NULL, err);
	if (!as_init && argc != 1) {
		fputs(USAGE, stderr);
		return 2;
	}

	console_setup();
	struct utsname u;
	uname(&u);
	emit("HB HELLO agent=1 kernel=%s machine=%s", u.release, u.machine);
	if (!have_params)
		emit("HB ERROR msg=%s", err);
	else if (net_setup(&params, err, sizeof(err)) < 0)
		emit("HB ERROR msg=%s", err);
	else {
		console_quiet();
		emit_ready(&params);
	}
	serve(have_params ? &params : NULL, err);
	/* The console is gone. init must not exit (the kernel would panic). */
	if (getpid() == 1)
		poweroff();
	return 0;
}
