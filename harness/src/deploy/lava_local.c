/*
 * lava-local backend: the board's LAVA job, run by LAVA's own dispatcher
 * (lava-run) on this machine, inside hilbench's network namespace.
 *
 * One boot is one LAVA job and serves one run (one_run_per_boot). LAVA
 * downloads the kernel, dtb and initramfs over HTTP from a lighttpd in the
 * namespace (lava_artifacts.h: content-addressed, SHA-256 checked), deploys
 * them to TFTP (an in.tftpd in the namespace), powers the device on by
 * connecting to it (the device dictionary's connection is QEMU with U-Boot
 * on an emulated SD card), interrupts U-Boot, boots, and runs the job's
 * test: the agent, serving commands that arrive on a TCP port. hilbench
 * sees the console through LAVA's log (the "target" lines of lava-run's
 * stdout), and its "hbcmd run" goes to that port, so the runner drives the
 * host side, counts frames and computes metrics exactly as on the qemu
 * backend. LAVA's own results (lvl "results": its actions, and the test
 * cases the DUT reported) are kept beside the console.
 *
 * Files in the boot directory: lava-job.yaml, lava-device.yaml,
 * lava-dispatcher.yaml, lava.log (lava-run's whole log), lava-results.yaml
 * (its results lines), tftpd.log, lighttpd.conf, lighttpd.log.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "deploy/dut.h"
#include "deploy/lava_artifacts.h"
#include "deploy/lava_job.h"
#include "deploy/lava_session.h"
#include "deploy/netns.h"
#include "util/proc.h"
#include "util/util.h"

#define LAVA_TAP "hb0"
/* Where the agent in the job takes hilbench's commands (lava_job.h). */
#define CONTROL_PORT 5300
/* From the agent's END to lava-run's exit: LAVA's report steps (one
 * lava-test-case per metric, ~0.15 s each) and its teardown. */
#define FINISH_TIMEOUT_S 120
#define SD_IMAGE_BYTES (64 << 20)	/* QEMU wants a power of 2 */
#define SD_BOOTLOADER_OFFSET 8192	/* where the H3's boot ROM looks */
#define TFTP_DEFAULTS "/etc/default/tftpd-hpa"

struct lava_local {
	struct netns ns;
	pid_t lava_pid, tftpd_pid;
	int lava_out;		/* lava-run's stdout */
	int cmd_out;		/* what the runner writes to the console */
	pthread_t relay;
	int relay_started;
	struct lava_session s;
	struct lava_artifacts art;	/* the job's files over HTTP */
	char dut_ip[64];
	char sd_image[4096];
	char version[192];
};

/* The directory LAVA's tftp deploy writes to, which in.tftpd must serve:
 * TFTP_DIRECTORY in tftpd-hpa's defaults, as lava-dispatcher reads it. */
static char *tftp_directory(void)
{
	char *text = read_file(TFTP_DEFAULTS, NULL);
	char *dir = NULL, *save = NULL;
	for (char *line = text ? strtok_r(text, "\n", &save) : NULL; line && !dir;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "TFTP_DIRECTORY=", 15))
			continue;
		char *v = line + 15;
		size_t n = strlen(v);
		if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
			v++;
			n -= 2;
		}
		dir = xasprintf("%.*s", (int)n, v);
	}
	free(text);
	return dir ? dir : xstrdup("/srv/tftp");
}

/* A sparse 64 MiB card with U-Boot (SPL first) at 8 KiB; QEMU opens it
 * with snapshot=on, so the job never changes it. */
static int make_sd_image(const char *bootloader, const char *path)
{
	size_t len;
	char *bin = read_file(bootloader, &len);
	if (!bin) {
		hb_err("cannot read the SD card's U-Boot %s: %s (make deps extracts it from armhf u-boot-sunxi)",
		       bootloader, strerror(errno));
		return -1;
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int ok = fd >= 0 && len < SD_IMAGE_BYTES - SD_BOOTLOADER_OFFSET &&
		 ftruncate(fd, SD_IMAGE_BYTES) == 0 &&
		 pwrite(fd, bin, len, SD_BOOTLOADER_OFFSET) == (ssize_t)len;
	if (!ok)
		hb_err("cannot write the SD image %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(bin);
	return ok ? 0 : -1;
}

static void *relay_main(void *arg)
{
	struct lava_local *l = arg;
	size_t cap = 1 << 16, llen = 0, clen = 0;
	char *lbuf = xmalloc(cap), *cbuf = xmalloc(4096);
	int cmd_open = 1;
	for (;;) {
		struct pollfd p[2] = { { .fd = l->lava_out, .events = POLLIN },
				       { .fd = cmd_open ? l->cmd_out : -1, .events = POLLIN } };
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents &&
		    !lava_session_pump(l->cmd_out, cbuf, 4096, &clen, &l->s, lava_session_command))
			cmd_open = 0;
		if (p[0].revents &&
		    !lava_session_pump(l->lava_out, lbuf, cap, &llen, &l->s, lava_session_log_line))
			break;
	}
	/* lava-run is done: the console ends here. */
	lava_session_end_console(&l->s);
	free(lbuf);
	free(cbuf);
	return NULL;
}

static void set_version(struct lava_local *l, const struct board *b)
{
	char *dv[] = { "dpkg-query", "-W", "-f", "${Version}", "lava-dispatcher", NULL };
	char *qv[] = { b->qemu.binary ? b->qemu.binary : "qemu-system-arm", "--version", NULL };
	char *lava = proc_output(dv), *qemu = proc_output(qv);
	/* The boot path goes with every result: U-Boot's boots keep time
	 * differently from direct -kernel boots (shared/notes/lava.md). */
	snprintf(l->version, sizeof(l->version), "lava-run %s, U-Boot from SD, %.*s",
		 lava ? lava : "unknown", qemu ? (int)strcspn(qemu, "\n") : 7,
		 qemu ? qemu : "unknown");
	free(lava);
	free(qemu);
}

/* The files lava-run reads: job, device, dispatcher. */
static int write_inputs(struct dut *d, const struct dut_image *img, struct lava_local *l,
			const char *job_path, const char *dev_path, const char *disp_path)
{
	const struct board *b = d->board;
	char err[512], host_ip[64], mask[32];
	char *urls[3] = { NULL, NULL, NULL }, *awk = NULL, *job = NULL, *types = NULL;
	char sums[3][65];
	const char *files[3] = { img->kernel, img->dtb, img->initrd };
	int rc = -1;

	/* lava-run downloads them over HTTP and checks each SHA-256, as a
	 * lab's worker would (lava_artifacts.h). */
	for (int i = 0; i < 3; i++)
		if (lava_artifacts_publish(&l->art, files[i], &urls[i], sums[i]) < 0)
			goto out;
	char *awk_path = hb_agent_file("lava-report.awk");
	awk = read_file(awk_path, NULL);
	if (!awk)
		hb_err("cannot read %s: %s", awk_path, strerror(errno));
	free(awk_path);
	if (!awk)
		goto out;
	struct lava_job_spec spec = {
		.board = b, .series = img->series, .strategy = img->strategy, .workload = img->workload,
		.kernel = { urls[0], sums[0] }, .dtb = { urls[1], sums[1] },
		.ramdisk = { urls[2], sums[2] }, .kernel_args = img->cmdline, .report_awk = awk,
		.tx_timer = img->driver ? img->driver->tx_timer : NULL, .run_id = img->run_id,
		.control_port = CONTROL_PORT, .remote_worker = l->art.lab_server,
	};
	if (!(job = lava_job_render(&spec, err, sizeof(err)))) {
		hb_err("%s", err);
		goto out;
	}
	if (write_file_atomic(job_path, job, strlen(job)) < 0) {
		hb_err("cannot write %s: %s", job_path, strerror(errno));
		goto out;
	}

	char *lookup[] = { "bash", NULL, NULL };
	lookup[1] = path_join(hb_home(), "lava/device-types.sh");
	types = proc_output(lookup);
	free(lookup[1]);
	if (!types || !types[0]) {
		hb_err("LAVA's device types are not available (lava/device-types.sh failed)");
		goto out;
	}
	/* The device as lava-server would render it for this job: the job's
	 * context, plus where this boot's QEMU, SD card and tap are. */
	board_ip(b->host_addr, host_ip, sizeof(host_ip));
	int prefix = atoi(strchr(b->dut_addr, '/') + 1);
	uint32_t m = prefix ? ~0u << (32 - prefix) : 0;
	snprintf(mask, sizeof(mask), "%u.%u.%u.%u", m >> 24, (m >> 16) & 255, (m >> 8) & 255,
		 m & 255);
	struct strlist a = { 0 };
	strlist_push(&a, "/usr/bin/python3");
	strlist_pushf(&a, "%s/lava/render-device.py", hb_home());
	strlist_push(&a, b->lava.device);
	strlist_push(&a, types);
	strlist_push(&a, dev_path);
	strlist_pushf(&a, "extra_kernel_args=%s %s", img->cmdline, LAVA_SHELL_INIT);
	strlist_pushf(&a, "hb_qemu=%s", b->qemu.binary ? b->qemu.binary : "qemu-system-arm");
	strlist_pushf(&a, "hb_sd_image=%s", l->sd_image);
	strlist_pushf(&a, "hb_tap=%s", LAVA_TAP);
	strlist_pushf(&a, "hb_dut_ip=%s", l->dut_ip);
	strlist_pushf(&a, "hb_host_ip=%s", host_ip);
	strlist_pushf(&a, "hb_netmask=%s", mask);
	int st = proc_run(strlist_argv(&a), NULL);
	strlist_free(&a);
	if (st != 0) {
		hb_err("the LAVA device %s did not render (see the message above)", b->lava.device);
		goto out;
	}
	/* LAVA's TFTP commands tell U-Boot to fetch from the dispatcher. */
	char *disp = xasprintf("# lava-run's dispatcher configuration (hilbench lava-local)\n"
			       "dispatcher_ip: %s\n", host_ip);
	rc = write_file_atomic(disp_path, disp, strlen(disp));
	if (rc < 0)
		hb_err("cannot write %s: %s", disp_path, strerror(errno));
	free(disp);
out:
	for (int i = 0; i < 3; i++)
		free(urls[i]);
	free(awk);
	free(job);
	free(types);
	return rc;
}

/* This boot's state with nothing started yet, which stop() can take down
 * however far start() got. */
static struct lava_local *lava_local_new(struct dut *d)
{
	struct lava_local *l = xcalloc(1, sizeof(*l));

	l->ns.orig_fd = -1;
	l->lava_pid = l->tftpd_pid = -1;
	l->lava_out = l->cmd_out = -1;
	l->s.con_in = -1;
	d->priv = l;
	set_version(l, d->board);
	return l;
}

/* What this backend cannot boot for. */
static int check_boot(const struct dut *d, const struct dut_image *img)
{
	const struct board *b = d->board;

	if (!img->workload || !img->run_id) {
		hb_err("%s: lava-local boots once per run and needs the run to boot for", b->path);
		return -1;
	}
	if (d->timing == TIMING_VIRTUAL) {
		hb_err("%s: the lava-local backend boots through U-Boot without QEMU's -icount; "
		       "run it in real time (--timing realtime, or timing: realtime in the plan)",
		       b->path);
		return -1;
	}
	return 0;
}

/* in.tftpd in the namespace, on the host side's address only, serving the
 * directory LAVA's tftp deploy writes to. */
static int start_tftpd(struct dut *d, struct lava_local *l, const char *host_ip)
{
	char *dir = tftp_directory();
	char *log = path_join(d->workdir, "tftpd.log");
	char *host = xasprintf("%s:69", host_ip);

	mkdir_p(dir, 0755);
	char *tftpd[] = { "/usr/sbin/in.tftpd", "--foreground", "--listen", "--address", host,
			  "--secure", dir, NULL };
	struct proc_opts o = PROC_OPTS_DEFAULT;
	o.log = log;
	l->tftpd_pid = proc_spawn(tftpd, &o);
	if (l->tftpd_pid < 0)
		hb_err("cannot start in.tftpd: %s (install tftpd-hpa: make deps)", strerror(errno));
	free(host);
	free(log);
	free(dir);
	return l->tftpd_pid < 0 ? -1 : 0;
}

/* lava-run on the job, its stdout (with its log) on stdout_fd. */
static int spawn_lava_run(struct dut *d, struct lava_local *l, int stdout_fd, char *job_path,
			  char *dev_path, char *disp_path)
{
	static unsigned seq;
	char *outdir = path_join(d->workdir, "lava-output");
	/* Job ids name lava-run's directories: unique among concurrent runs. */
	char id[24];
	snprintf(id, sizeof(id), "%d", (int)(getpid() % 20000) * 100000 + (int)(seq++ % 100000));
	char *lava[] = { "lava-run", "--job-id", id, "--output-dir", outdir, "--device", dev_path,
			 "--dispatcher", disp_path, job_path, NULL };
	/* Debian's python first: LAVA's modules are only there. Unbuffered,
	 * so console lines reach hilbench as the DUT prints them.
	 * The artifact host is in the namespace: a proxy from the caller's
	 * environment would be unreachable from here. */
	char *env[] = { "PATH=/usr/bin:/usr/sbin:/bin:/sbin", "PYTHONUNBUFFERED=1", "no_proxy=*",
			"NO_PROXY=*", NULL };
	struct proc_opts lo = PROC_OPTS_DEFAULT;
	/* lava-run logs to stderr when it is not on a terminal. */
	lo.stdout_fd = stdout_fd;
	lo.merge_stderr = 1;
	lo.env_add = env;
	lo.new_pgrp = 1;
	l->lava_pid = proc_spawn(lava, &lo);
	int saved = errno;
	char *cmd = argv_display(lava);
	if (d->log)
		fprintf(d->log, "# hilbench: %s\n", cmd);
	if (l->lava_pid < 0)
		hb_err("cannot start %s: %s (install lava-dispatcher: make deps)", cmd, strerror(saved));
	free(cmd);
	free(outdir);
	return l->lava_pid < 0 ? -1 : 0;
}

/* lava-run, and the relay between its log and the console pipes the
 * runner reads and writes (d->con_rd, d->con_wr). */
static int start_lava_run(struct dut *d, struct lava_local *l, char *job_path, char *dev_path,
			  char *disp_path)
{
	int to[2] = { -1, -1 }, con[2] = { -1, -1 }, out[2] = { -1, -1 };
	int rc = -1;

	if (pipe2(to, O_CLOEXEC) < 0 || pipe2(con, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0) {
		hb_err("pipe: %s", strerror(errno));
		goto out;
	}
	if (spawn_lava_run(d, l, out[1], job_path, dev_path, disp_path) < 0)
		goto out;
	close(out[1]);
	out[1] = -1;
	l->lava_out = out[0];
	l->cmd_out = to[0];
	l->s.con_in = con[1];
	out[0] = to[0] = con[1] = -1;
	if (pthread_create(&l->relay, NULL, relay_main, l) != 0) {
		hb_err("cannot start the LAVA log reader");
		goto out;
	}
	l->relay_started = 1;
	d->con_wr = to[1];
	d->con_rd = con[0];
	to[1] = con[0] = -1;
	rc = 0;
out:
	for (int i = 0; i < 2; i++) {
		if (to[i] >= 0)
			close(to[i]);
		if (con[i] >= 0)
			close(con[i]);
		if (out[i] >= 0)
			close(out[i]);
	}
	return rc;
}

static int lava_local_start(struct dut *d, const struct dut_image *img)
{
	const struct board *b = d->board;
	struct lava_local *l = lava_local_new(d);

	if (check_boot(d, img) < 0)
		return -1;
	board_ip(b->dut_addr, l->dut_ip, sizeof(l->dut_ip));
	char *job_path = path_join(d->workdir, "lava-job.yaml");
	char *dev_path = path_join(d->workdir, "lava-device.yaml");
	char *disp_path = path_join(d->workdir, "lava-dispatcher.yaml");
	char host_ip[64];
	int rc = -1;

	board_ip(b->host_addr, host_ip, sizeof(host_ip));
	snprintf(l->sd_image, sizeof(l->sd_image), "%s/sd.img", d->workdir);
	/* The artifact host (unless the board names the lab's) and TFTP in
	 * the namespace, on the host side's address only. */
	if (make_sd_image(b->lava.sd_bootloader, l->sd_image) == 0 &&
	    lava_session_open(&l->s, d->workdir, l->dut_ip, CONTROL_PORT) == 0 &&
	    netns_enter(&l->ns, LAVA_TAP, b->host_addr) == 0 &&
	    lava_artifacts_open(&l->art, b, host_ip, d->workdir) == 0 &&
	    write_inputs(d, img, l, job_path, dev_path, disp_path) == 0 &&
	    start_tftpd(d, l, host_ip) == 0)
		rc = start_lava_run(d, l, job_path, dev_path, disp_path);
	free(disp_path);
	free(dev_path);
	free(job_path);
	return rc;
}

/* Waits for pid until the deadline, copying what is left of the console
 * into the console log meanwhile (LAVA's report steps print there, and a
 * full pipe would stall the relay and lava-run behind it); 1 when it
 * exited, with its status in *st. */
static int wait_draining(struct dut *d, pid_t pid, double deadline, int *st)
{
	char buf[4096];
	for (;;) {
		pid_t r = waitpid(pid, st, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			return 1;
		if (monotonic_s() > deadline)
			return 0;
		struct pollfd p = { .fd = d->con_rd, .events = POLLIN };
		if (d->con_rd >= 0 && poll(&p, 1, 50) > 0) {
			ssize_t n = read(d->con_rd, buf, sizeof(buf));
			if (n > 0 && d->log)
				fwrite(buf, 1, (size_t)n, d->log);
		} else if (d->con_rd < 0) {
			usleep(50000);
		}
	}
}

/* Every process still in this boot's namespace (QEMU, should lava-run have
 * left it behind): being in the anonymous namespace makes it ours. */
static void kill_namespace_leftovers(void)
{
	char self[64], path[64], link[64];
	ssize_t n = readlink("/proc/thread-self/ns/net", self, sizeof(self) - 1);
	if (n <= 0)
		return;
	self[n] = '\0';
	DIR *dir = opendir("/proc");
	struct dirent *de;
	while (dir && (de = readdir(dir))) {
		pid_t pid = (pid_t)atoi(de->d_name);
		if (pid <= 0 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (!strcmp(link, self)) {
			hb_info("lava-local: stopping pid %d left in the benchmark network", (int)pid);
			kill(pid, SIGKILL);
		}
	}
	if (dir)
		closedir(dir);
}

static void lava_local_stop(struct dut *d)
{
	struct lava_local *l = d->priv;
	if (!l)
		return;
	int st = 0, ran = l->lava_pid > 0;
	if (ran) {
		/* A run that went to the agent ends the job by itself; otherwise
		 * (interrupted, boot failed) LAVA is told to cancel. */
		int done = l->s.run_sent && !hb_interrupted &&
			   wait_draining(d, l->lava_pid, monotonic_s() + FINISH_TIMEOUT_S, &st);
		if (!done) {
			kill(l->lava_pid, SIGTERM);
			if (!wait_draining(d, l->lava_pid, monotonic_s() + 20, &st)) {
				kill(-l->lava_pid, SIGKILL);
				waitpid(l->lava_pid, &st, 0);
			}
		}
	}
	if (l->tftpd_pid > 0) {
		kill(l->tftpd_pid, SIGTERM);
		waitpid(l->tftpd_pid, NULL, 0);
	}
	lava_artifacts_close(&l->art);
	if (l->ns.orig_fd >= 0)
		kill_namespace_leftovers();
	/* Nothing writes lava-run's stdout any more: the relay ends. */
	if (l->relay_started) {
		lava_session_drain(d, 10);
		pthread_join(l->relay, NULL);
	}
	if (ran && d->log) {
		fprintf(d->log, "\n# hilbench: lava-run %s %d; LAVA job %s, %d result(s), "
			"%d not passed (lava-results.yaml)\n",
			WIFEXITED(st) ? "exited" : "killed by signal",
			WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
			l->s.job_passed ? "passed" : "did not pass", l->s.n_results, l->s.n_failed);
		fflush(d->log);
	}
	if (ran && !l->s.job_passed && l->s.run_sent && !hb_interrupted)
		hb_err("lava-local: the LAVA job did not pass; see lava.log in %s", d->workdir);
	if (l->lava_out >= 0)
		close(l->lava_out);
	if (l->cmd_out >= 0)
		close(l->cmd_out);
	lava_session_close(&l->s);
	netns_leave(&l->ns);
	if (l->sd_image[0])
		unlink(l->sd_image);
	free(l);
	d->priv = NULL;
}

static const char *lava_local_version(struct dut *d)
{
	struct lava_local *l = d->priv;
	return l ? l->version : "unknown";
}

static const struct deploy_ops lava_local_ops = {
	.name = "lava-local",
	.start = lava_local_start,
	.stop = lava_local_stop,
	.version = lava_local_version,
	.one_run_per_boot = 1,
};
DEPLOY_BACKEND(lava_local_ops)
