/*
 * hb-agent: the hilbench agent on the DUT (docs/agent-protocol.md).
 *
 *   hb-agent            as the initramfs's init (exec'd by /init with the
 *                       console on fds 0-2): set up the console and the test
 *                       interface, then serve hbcmd lines from the console.
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
#include <sys/reboot.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "agent_proto.h"

#define BUSYBOX		"/bin/busybox"
#define HIST_TRIGGER	"hist:keys=function.sym:vals=hitcount"

/* Timer starts counted by callback: hrtimers (the TX coalescing timer since
 * 2020) and timer_lists (the same timer before it, and the revert strategy). */
static const char *const hist_events[] = { "hrtimer_start", "timer_start" };
#define HIST_EVENTS (sizeof(hist_events) / sizeof(hist_events[0]))
#define CARRIER_TIMEOUT_MS 30000
#define LISTEN_TIMEOUT_MS 10000
#define POLL_MS		20
/* Beyond time + omit: connection set-up and JSON output on a slow DUT. */
#define RUN_GRACE_S	30
/* Bytes per HB B64 line: 57 bytes encode to the protocol's 76 characters. */
#define B64_CHUNK	57

#define USAGE \
	"usage: hb-agent\n" \
	"       hb-agent run proto=udp|tcp dir=tx|rx len=N rate=N time=N omit=N streams=N port=N [id=ID]\n"

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

static int run_cmd(const char *const argv[])
{
	int status;
	pid_t pid = spawn(argv, NULL, NULL);

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* Wait for pid until deadline, then kill it. 1 if it had to be killed. */
static int wait_exit(pid_t pid, int64_t deadline, int *status)
{
	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);
		if (r == pid || r < 0)
			return 0;
		int64_t left = deadline - now_ms();
		if (left <= 0) {
			kill(pid, SIGKILL);
			waitpid(pid, status, 0);
			return 1;
		}
		nap_ms(left);
	}
}

static int port_listening(unsigned port)
{
	static const char *const tables[] = { "/proc/net/tcp", "/proc/net/tcp6" };

	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		char *text = read_all(tables[i], NULL);
		int hit = text && tcp_port_listening(text, port);
		free(text);
		if (hit)
			return 1;
	}
	return 0;
}

/* 0 once the server listens; -1 if it exited first or the deadline passed. */
static int wait_listening(pid_t pid, unsigned port, int64_t deadline)
{
	for (;;) {
		if (port_listening(port))
			return 0;
		siginfo_t si = { 0 };
		/* WNOWAIT: the exit status is collected later by wait_exit(). */
		waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT);
		if (si.si_pid == pid || now_ms() >= deadline)
			return -1;
		nap_ms(POLL_MS);
	}
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
	snprintf(out, len, "/sys/kernel/tracing/events/timer/%s/%s", hist_events[event], file);
}

/* 1 if the hist triggers are on; 0 without tracefs or the events. */
static int hist_arm(void)
{
	char path[128];
	int armed = 0;

	for (size_t e = 0; e < HIST_EVENTS; e++) {
		hist_path(path, sizeof(path), e, "trigger");
		/* A trigger left by an interrupted run would carry its counts into ours. */
		write_text(path, "!" HIST_TRIGGER);
		armed |= write_text(path, HIST_TRIGGER) == 0;
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
				emit("HB HIST id=%s event=timer:%s caller=%s hits=%llu", id,
				     hist_events[e], caller, (unsigned long long)hits);
			line = nl ? nl + 1 : NULL;
		}
		free(hist);
		hist_path(path, sizeof(path), e, "trigger");
		write_text(path, "!" HIST_TRIGGER);
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

static int run_test(const struct agent_params *p, const struct run_spec *rs)
{
	char json_path[96], err_path[96], msg[400] = "", detail[256];
	struct iperf_args args;

	if (emit_counters(p->iface, rs->id, "before") < 0) {
		snprintf(msg, sizeof(msg), "cannot read the counters of %s", p->iface);
		return end_run(rs->id, msg);
	}
	snprintf(json_path, sizeof(json_path), "/tmp/%s.json", rs->id);
	snprintf(err_path, sizeof(err_path), "/tmp/%s.err", rs->id);
	iperf_args_build(&args, p, rs);

	int hist = hist_arm();
	unsigned limit_s = rs->time_s + rs->omit_s + RUN_GRACE_S;
	int64_t start = now_ms();
	pid_t pid = spawn(args.argv, json_path, err_path);
	if (pid < 0) {
		if (hist)
			hist_report_and_disarm(rs->id);
		snprintf(msg, sizeof(msg), "fork: %s", strerror(errno));
		return end_run(rs->id, msg);
	}
	if (rs->dir == RUN_RX) {
		if (wait_listening(pid, rs->port, start + LISTEN_TIMEOUT_MS) == 0) {
			emit("HB LISTENING id=%s port=%u", rs->id, rs->port);
		} else {
			kill(pid, SIGKILL);
			snprintf(msg, sizeof(msg), "iperf3 server not listening on port %u within %d s",
				 rs->port, LISTEN_TIMEOUT_MS / 1000);
		}
	}
	int status = 0, killed = 0;
	if (p->fault_kill_iperf_s && p->fault_kill_iperf_s < limit_s) {
		/* fault test (hb.fault_kill_iperf_s): iperf3 dies mid-run, as under
		 * the OOM killer; the status says "killed by signal 9" */
		wait_exit(pid, start + (int64_t)p->fault_kill_iperf_s * 1000, &status);
	} else {
		killed = wait_exit(pid, start + (int64_t)limit_s * 1000, &status);
	}

	if (emit_counters(p->iface, rs->id, "after") < 0 && !msg[0])
		snprintf(msg, sizeof(msg), "cannot read the counters of %s", p->iface);
	if (hist)
		hist_report_and_disarm(rs->id);
	size_t json_len = 0;
	char *json = read_all(json_path, &json_len);
	/* Sent even when iperf3 failed: its JSON says why. */
	if (json && json_len)
		emit_file(rs->id, "iperf.json", json, json_len);
	if (!msg[0]) {
		if (killed)
			snprintf(msg, sizeof(msg), "iperf3 killed after %u s", limit_s);
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

/* Address and links up, then carrier, all within CARRIER_TIMEOUT_MS. */
static int net_setup(const struct agent_params *p, char *err, size_t errlen)
{
	const char *addr_add[] = { BUSYBOX, "ip", "addr", "add", p->addr, "dev", p->iface, NULL };
	const char *lo_up[] = { BUSYBOX, "ip", "link", "set", "lo", "up", NULL };
	const char *iface_up[] = { BUSYBOX, "ip", "link", "set", p->iface, "up", NULL };
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
	if (run_cmd(addr_add) < 0 || run_cmd(lo_up) < 0 || run_cmd(iface_up) < 0) {
		snprintf(err, errlen, "ip could not set up %s with %s", p->iface, p->addr);
		return -1;
	}
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
	char *line = NULL;
	size_t cap = 0;

	while (getline(&line, &cap, stdin) >= 0) {
		struct run_spec rs;
		char err[256];

		if (line[strspn(line, " \t\r\n")] == '\0')
			continue;
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
		case CMD_INVALID:
			emit("HB END id=? status=error msg=%s", err);
			break;
		}
	}
	free(line);
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
	int have_params = load_params(&params, err, sizeof(err)) == 0;

	if (argc >= 2 && strcmp(argv[1], "run") == 0)
		return run_once(argc - 2, argv + 2, have_params ? &params : NULL, err);
	if (argc != 1) {
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
