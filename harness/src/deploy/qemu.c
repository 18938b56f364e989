/*
 * qemu backend: boots the board's kernel directly (-kernel/-dtb/-initrd) in
 * QEMU, inside hilbench's private network namespace, with the serial console
 * on QEMU's stdio pipes and the EMAC on a tap device.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config/driver.h"
#include "deploy/counter.h"
#include "deploy/dut.h"
#include "deploy/netns.h"
#include "deploy/qmp.h"
#include "store/metrics.h"
#include "util/proc.h"
#include "util/util.h"

#define QEMU_TAP "hb0"
/* Ethernet + IPv4 + TCP/UDP headers, as the live capture's snaplen. */
#define QEMU_DUMP_SNAPLEN "96"

struct qemu_state {
	struct netns ns;
	pid_t pid;
	struct qmp *qmp;	/* the control monitor of a boot that saves or resumes */
	int counter_fd;		/* the counter's start socket (-1: none, or counting) */
	char version[4096];	/* whole: reused runs are matched by its end */
};

/* How long QMP may take: its greeting; a save or load of the DUT's state
 * (about 50 MB of a 1 GB guest, 0.2 to 0.4 s here: docs/measurements.md,
 * "Repetitions from a saved boot"). */
#define QEMU_QMP_OPEN_S 10
#define QEMU_STATE_S 60
/* How long the counter may take to start: a flush of the translated code
 * at the guest's next instruction; the guest is idle, waiting for the
 * first command, and it takes milliseconds. */
#define QEMU_COUNTER_START_S 10

/* Virtual time: guest time advances with executed instructions, so runs are
 * deterministic; shift=5 (32 ns an instruction) keeps the guest clock at or
 * above real time (shift=1 slowed it 12x and broke iperf3:
 * shared/notes/emulated-board.md). A board with ps_per_insn runs an
 * emulator hilbench built, whose -icount takes that instruction time
 * instead (emulator-patches/qemu-7.2/0003). */
#define ICOUNT_SHIFT "shift=5"

/* The boot's copy of the DTB with a /chosen/rng-seed of n zero bytes,
 * which QEMU overwrites with random ones at each reset before the kernel
 * reads them (qemu_fdt_randomize_seeds, QEMU 7.2's hw/arm/boot.c); a
 * kernel with RANDOM_TRUST_BOOTLOADER credits them. NULL with the error
 * said. Made here, per boot, not once per image in build/image.c: QEMU
 * boots the kernel build's DTB with -dtb and never the boot loader's files
 * image.c makes, the seed is this backend's (deploy.qemu), and the copy
 * and fdtput of the 23 KB DTB take about 20 ms against a boot's seconds. */
static char *seeded_dtb(const struct dut *d, const char *dtb, int n)
{
	char *out = path_join(d->workdir, "boot.dtb");
	if (copy_file(dtb, out) < 0) {
		hb_err("cannot copy %s to %s: %s", dtb, out, strerror(errno));
		free(out);
		return NULL;
	}
	struct strlist a = { 0 };
	strlist_split(&a, "fdtput -t bx", " ");
	strlist_push(&a, out);
	strlist_push(&a, "/chosen");
	strlist_push(&a, "rng-seed");
	for (int i = 0; i < n; i++)
		strlist_push(&a, "0");
	struct proc_opts o = PROC_OPTS_DEFAULT;
	o.stdout_fd = -1;
	int rc = proc_run(strlist_argv(&a), &o);
	strlist_free(&a);
	if (rc != 0) {
		hb_err("fdtput could not add /chosen/rng-seed to %s (deploy.qemu.rng_seed_bytes); "
		       "is device-tree-compiler installed? run `make deps`", out);
		free(out);
		return NULL;
	}
	return out;
}

/* QEMU's option syntax escapes a comma in a value by doubling it. */
static char *qemu_opt_escape(const char *v)
{
	char *out = xmalloc(2 * strlen(v) + 1), *o = out;
	for (const char *c = v; *c; c++)
		if ((*o++ = *c) == ',')
			*o++ = ',';
	*o = '\0';
	return out;
}

/* The instruction counter (harness/plugin/hb-insn.c): every function named
 * by the kernel's System.map, the hrtimer paths of the share and the
 * driver's functions counted with their callees, the driver's own code
 * added up apart; each window's counts go to d->insn_window, which the
 * runner reads (measure/runner.c). start_fd >= 0: the counter starts only
 * when qemu_ready() says so on that socket (the emulator's end). */
static void insn_plugin_args(struct dut *d, const struct dut_image *img, int start_fd,
			     struct strlist *a)
{
	char *so = qemu_opt_escape(img->insn_plugin), *map = qemu_opt_escape(img->system_map);
	char *window = path_join(d->workdir, "insn-window.txt");
	char *out = qemu_opt_escape(window);
	struct strlist opts = { 0 };
	for (size_t i = 0; metric_hrtimer_paths[i]; i++)
		strlist_pushf(&opts, "root=%s", metric_hrtimer_paths[i]);
	for (size_t i = 0; img->driver && i < img->driver->inclusive.n; i++)
		strlist_pushf(&opts, "root=%s", img->driver->inclusive.v[i]);
	if (img->driver && img->driver->rx_napi_poll)
		strlist_pushf(&opts, "root=%s", img->driver->rx_napi_poll);
	if (img->driver_functions) {
		char *own = qemu_opt_escape(img->driver_functions);
		strlist_pushf(&opts, "own=%s", own);
		free(own);
	}
	if (img->resume)
		strlist_push(&opts, "resumed=on");
	if (start_fd >= 0)
		strlist_pushf(&opts, "start=%d", start_fd);
	char *opt_args = argv_join(&opts, ",");
	strlist_push(a, "-plugin");
	strlist_pushf(a, "%s,map=%s,out=%s%s%s", so, map, out, opts.n ? "," : "", opt_args);
	snprintf(d->insn_window, sizeof(d->insn_window), "%s", window);
	strlist_free(&opts);
	free(opt_args);
	free(so);
	free(map);
	free(out);
	free(window);
}

/* The --version line, and for an emulator hilbench built what it was built
 * from: the run's record of which emulator measured it. */
static void qemu_version(struct qemu_state *q, const char *binary, const char *provenance)
{
	char *argv[] = { (char *)binary, "--version", NULL };
	char *v = proc_output(argv);
	snprintf(q->version, sizeof(q->version), "%.*s%s%s", v ? (int)strcspn(v, "\n") : 7,
		 v ? v : "unknown", provenance ? "; hilbench emulator: " : "",
		 provenance ? provenance : "");
	free(v);
}

/* QEMU's command line for this boot: the board's machine, the image
 * (with dtb, the board's or its seeded copy), the console on stdio, the
 * EMAC on the tap with a header dump, virtual time, the counter plugin,
 * and where qmp_fd >= 0 the control monitor on it (a boot that saves or
 * resumes; one that resumes waits for its state: -incoming defer), where
 * counter_fd >= 0 the counter's start socket. */
static void qemu_argv(struct dut *d, const struct dut_image *img, const char *binary,
		      const char *dtb, int qmp_fd, int counter_fd, struct strlist *a)
{
	const struct board *b = d->board;
	strlist_push(a, binary);
	strlist_push(a, "-M");
	strlist_push(a, b->qemu.machine);
	if (b->qemu.cpu) {
		strlist_push(a, "-cpu");
		strlist_push(a, b->qemu.cpu);
	}
	if (b->qemu.memory_mb) {
		strlist_push(a, "-m");
		strlist_pushf(a, "%d", b->qemu.memory_mb);
	}
	const char *const boot[] = { "-kernel", img->kernel, "-dtb", dtb, "-initrd", img->initrd,
				     "-append", img->cmdline, "-serial", "stdio", "-netdev",
				     "tap,id=n0,ifname=" QEMU_TAP ",script=no,downscript=no",
				     "-net", "nic,netdev=n0" };
	for (size_t i = 0; i < HB_ARRAY_SIZE(boot); i++)
		strlist_push(a, boot[i]);
	/* Every frame the NIC model exchanges with the tap, headers only: an
	 * independent count from inside the emulator (measure/pcapfile.h). */
	char *dump = path_join(d->workdir, "netdev.pcap");
	char *file = qemu_opt_escape(dump);
	strlist_push(a, "-object");
	strlist_pushf(a, "filter-dump,id=hbdump,netdev=n0,maxlen=%s,file=%s", QEMU_DUMP_SNAPLEN, file);
	free(file);
	snprintf(d->netdev_pcap, sizeof(d->netdev_pcap), "%s", dump);
	free(dump);
	if (d->timing == TIMING_VIRTUAL) {
		strlist_push(a, "-icount");
		char ps[32] = "";
		if (b->qemu.ps_per_insn)
			snprintf(ps, sizeof(ps), ",ps-per-insn=%d", b->qemu.ps_per_insn);
		strlist_pushf(a, ICOUNT_SHIFT "%s,sleep=%s,align=off", ps,
			      b->qemu.icount_sleep ? "on" : "off");
		if (b->qemu.peer_hold_us) {
			strlist_push(a, "-object");
			strlist_pushf(a, "filter-hold,id=hbhold,netdev=n0,queue=tx,hold-us=%d",
				      b->qemu.peer_hold_us);
		}
	}
	if (img->insn_plugin && img->system_map)
		insn_plugin_args(d, img, counter_fd, a);
	for (size_t i = 0; i < b->qemu.globals.n; i++) {
		strlist_push(a, "-global");
		strlist_push(a, b->qemu.globals.v[i]);
	}
	for (size_t i = 0; i < b->qemu.extra_args.n; i++)
		strlist_push(a, b->qemu.extra_args.v[i]);
	if (qmp_fd >= 0) {
		strlist_push(a, "-chardev");
		strlist_pushf(a, "socket,id=hbqmp,fd=%d", qmp_fd);
		strlist_push(a, "-mon");
		strlist_push(a, "chardev=hbqmp,mode=control");
	}
	if (img->resume) {
		strlist_push(a, "-incoming");
		strlist_push(a, "defer");
	}
}

/* A socket pair to talk to the emulator over (what: for the error): sv[1]
 * for the emulator, inherited (no close-on-exec), sv[0] ours. */
static int emulator_pair(int sv[2], const char *what)
{
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		hb_err("cannot make the emulator's %s socket: %s", what, strerror(errno));
		return -1;
	}
	if (fcntl(sv[1], F_SETFD, 0) < 0) {
		hb_err("cannot make the emulator's %s socket: %s", what, strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	return 0;
}

static void close_pair(int sv[2])
{
	for (int i = 0; i < 2; i++)
		if (sv[i] >= 0)
			close(sv[i]);
}

/* Loads the saved DUT img->resume into the emulator waiting for it. The
 * file is opened anew, so the emulator reads it from its start whatever
 * an earlier load left of the offset of the saved descriptor. */
static int qemu_resume(struct qemu_state *q, const struct dut_image *img)
{
	char err[512], *self = xasprintf("/proc/self/fd/%d", img->resume->fd);
	int fd = open(self, O_RDONLY | O_CLOEXEC);
	int rc = fd < 0 ? hb_errbuf(err, sizeof(err), "cannot open %s: %s", self, strerror(errno))
			: qmp_load(q->qmp, fd, QEMU_STATE_S, err, sizeof(err));
	if (fd >= 0)
		close(fd);
	if (rc < 0)
		hb_err("cannot start from boot %s's saved DUT: %s", img->resume->boot_id, err);
	free(self);
	return rc;
}

static int qemu_start(struct dut *d, const struct dut_image *img)
{
	const struct board *b = d->board;
	struct qemu_state *q = xcalloc(1, sizeof(*q));
	q->ns.orig_fd = -1;
	q->pid = -1;
	q->counter_fd = -1;
	d->priv = q;
	const char *binary = img->emulator ? img->emulator : b->qemu.binary;
	if (!binary) {
		hb_err("%s names emulator %s, which was not built; run it through "
		       "`hilbench run` or `hilbench boot`", b->path, b->qemu.emulator);
		return -1;
	}
	qemu_version(q, binary, img->emulator_provenance);
	char *seeded = NULL;
	if (b->qemu.rng_seed_bytes && !(seeded = seeded_dtb(d, img->dtb, b->qemu.rng_seed_bytes)))
		return -1;
	int qmp[2] = { -1, -1 }, counter[2] = { -1, -1 };
	/* a resumed guest counts from its load, whose code starts untranslated */
	int late_counter = img->insn_plugin && img->system_map && !img->resume;
	if (((img->save || img->resume) && emulator_pair(qmp, "control") < 0) ||
	    (late_counter && emulator_pair(counter, "counter") < 0)) {
		close_pair(qmp);
		free(seeded);
		return -1;
	}
	struct strlist a = { 0 };
	qemu_argv(d, img, binary, seeded ? seeded : img->dtb, qmp[1], counter[1], &a);
	free(seeded);
	int to[2] = { -1, -1 }, from[2] = { -1, -1 };
	if (netns_enter(&q->ns, QEMU_TAP, b->host_addr) < 0 || pipe2(to, O_CLOEXEC) < 0 ||
	    pipe2(from, O_CLOEXEC) < 0) {
		close_pair(to);
		close_pair(qmp);
		close_pair(counter);
		strlist_free(&a);
		return -1;
	}
	char *log = path_join(d->workdir, "qemu.log");
	struct proc_opts o = PROC_OPTS_DEFAULT;
	o.stdin_fd = to[0];
	o.stdout_fd = from[1];
	o.log = log;
	o.new_pgrp = 1;
	o.no_huge_pages = 1;
	q->pid = proc_spawn(strlist_argv(&a), &o);
	int saved = errno;
	close(to[0]);
	close(from[1]);
	if (qmp[1] >= 0)
		close(qmp[1]);
	if (counter[1] >= 0)
		close(counter[1]);
	q->counter_fd = counter[0];
	char *cmd = argv_display(strlist_argv(&a));
	if (d->log)
		fprintf(d->log, "# hilbench: %s\n", cmd);
	if (q->pid < 0)
		hb_err("cannot start %s: %s; run `make deps`", cmd, strerror(saved));
	free(cmd);
	free(log);
	strlist_free(&a);
	if (q->pid < 0) {
		close(to[1]);
		close(from[0]);
		if (qmp[0] >= 0)
			close(qmp[0]);
		return -1;
	}
	d->con_wr = to[1];
	d->con_rd = from[0];
	if (qmp[0] < 0)
		return 0;
	char err[512];
	q->qmp = xmalloc(sizeof(*q->qmp));
	if (qmp_open(q->qmp, qmp[0], QEMU_QMP_OPEN_S, err, sizeof(err)) < 0) {
		hb_err("the emulator's control monitor: %s", err);
		return -1;
	}
	return img->resume ? qemu_resume(q, img) : 0;
}

/* The agent is ready: the counter starts now, the boot's code untranslated
 * for it (harness/plugin/hb-insn.c, start=FD), and no run starts before it
 * says it counts. */
static int qemu_ready(struct dut *d)
{
	struct qemu_state *q = d->priv;
	if (!q || q->counter_fd < 0)
		return 0;
	int rc = counter_start(q->counter_fd, QEMU_COUNTER_START_S, d->health, sizeof(d->health));
	close(q->counter_fd);
	q->counter_fd = -1;
	if (rc == 0 && d->log)
		fprintf(d->log, "# hilbench: the instruction counter counts from here\n");
	return rc;
}

static int qemu_save(struct dut *d, int fd)
{
	struct qemu_state *q = d->priv;
	char err[512];
	if (qmp_save(q->qmp, fd, QEMU_STATE_S, err, sizeof(err)) == 0)
		return 0;
	hb_err("%s: the booted DUT was not saved, later boots boot anew (%s)", d->board->name, err);
	return -1;
}

static void qemu_stop(struct dut *d)
{
	struct qemu_state *q = d->priv;
	if (!q)
		return;
	if (q->pid > 0) {
		kill(q->pid, SIGTERM);
		kill(q->pid, SIGCONT);	/* a held emulator takes its SIGTERM */
		int st;
		double deadline = monotonic_s() + 5;
		while (waitpid(q->pid, &st, WNOHANG) == 0) {
			if (monotonic_s() > deadline) {
				kill(q->pid, SIGKILL);
				waitpid(q->pid, &st, 0);
				break;
			}
			usleep(20000);
		}
	}
	netns_leave(&q->ns);
	if (q->counter_fd >= 0)
		close(q->counter_fd);
	if (q->qmp) {
		qmp_close(q->qmp);
		free(q->qmp);
	}
	free(q);
	d->priv = NULL;
}

/* SIGSTOP stops every thread of the emulator, and with them the guest's
 * clock in virtual time (-icount, align=off: QEMU_CLOCK_VIRTUAL advances
 * only with executed instructions and idle warps); SIGCONT goes on where
 * it was. Frames the host sends meanwhile wait in the tap's queue. */
static void qemu_hold(struct dut *d, int on)
{
	struct qemu_state *q = d->priv;
	if (q && q->pid > 0)
		kill(q->pid, on ? SIGSTOP : SIGCONT);
}

static const char *qemu_get_version(struct dut *d)
{
	struct qemu_state *q = d->priv;
	return q ? q->version : "unknown";
}

static const struct deploy_ops qemu_ops = {
	.name = "qemu",
	.start = qemu_start,
	.stop = qemu_stop,
	.version = qemu_get_version,
	.hold = qemu_hold,
	.ready = qemu_ready,
	.save = qemu_save,
	.records_link = 1,
};
DEPLOY_BACKEND(qemu_ops)
