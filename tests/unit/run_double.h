/*
 * run_double.h: test doubles for the run stage's unit tests (test_executor,
 * test_gate_loop, test_bisect). Nothing here builds, boots or measures.
 *
 * - double_ops is a TEST DOUBLE of struct deploy_ops (deploy/dut.h). It
 *   stands in for the board's "qemu" backend (deploy_substitute()), so the
 *   repository's own board files boot through it and dut_boot() runs for
 *   real: start() hands back a console (a pipe) carrying what a scripted
 *   boot would print (the agent's HELLO and READY, a panic, nothing), or
 *   fails as an emulator that will not start or a lab that takes no boots.
 *   double_saving_ops is the same with deploy_ops.save: a save writes a few
 *   bytes into the file it is given, and a start from a saved DUT
 *   (dut_image.resume) prints nothing, the agent having said READY before
 *   the save.
 * - double_stages is a test double of the executor's steps (run/executor.h):
 *   prepare() "builds" a kernel whose manifest it writes to the test's
 *   directory (or fails, for a revision the script says does not build),
 *   run() returns a scripted outcome per run, its metrics a function of the
 *   strategy that was booted and of the kernel revision last built, so a
 *   gate or a bisection sees the candidate better or worse.
 *
 * Every function is static inline: each test includes the doubles it uses.
 */
#ifndef HB_RUN_DOUBLE_H
#define HB_RUN_DOUBLE_H

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build/gitsource.h"
#include "deploy/dut.h"
#include "run/executor.h"
#include "store/store.h"
#include "util/util.h"

/* What the next boot does. */
enum double_boot {
	BOOT_READY,		/* the agent says HELLO and READY: dut_boot() 0 */
	BOOT_PANIC,		/* a kernel panic on the console: HB_FAIL_DUT */
	BOOT_SILENT,		/* the console closes at once: -1 */
	BOOT_NO_START,		/* start() fails: -1 */
	BOOT_LAB_DOWN,		/* start() fails, the lab takes no boots */
	BOOT_WRONG_KERNEL,	/* READY, but from another kernel than the build's */
};

#define DOUBLE_MAX 64
#define DOUBLE_KERNEL "6.1.0-hb-double"

/* The script (what the next boots and runs do; past its end every boot is
 * READY and every run passes) and what the doubles saw. */
struct double_state {
	enum double_boot boots[DOUBLE_MAX];
	size_t nboots;
	enum run_class runs[DOUBLE_MAX];
	size_t nruns;
	int prepare_rc;		/* what prepare() returns */
	/* what prepare() returns for a revision (exec_opts.revision); NULL: 0 */
	int (*prepare_revision)(const char *revision);
	/* mbps of a passing run of a booted strategy (and of dbl.revision); NULL: 100 */
	double (*mbps)(const char *strategy, size_t run);
	/* the emulator's count a passing run stores as
	 * insn_self_per_pkt.stmmac_xmit (analyze/movers.h); NULL: none */
	double (*xmit_insn)(const char *strategy, size_t run);
	/* what a passing DUT-RX run stores as insn_rx_driver_per_pkt; NULL: none */
	double (*rx_insn)(const char *strategy, size_t run);
	const char *dir;	/* where prepare() writes manifests */
	/* seen */
	size_t started, stopped, ran, prepared;
	size_t saved, resumed;	/* double_saving_ops's saves, and starts from one */
	size_t prepared_with_perf;	/* prepare()s asked for the perf userland */
	char strategy[64];	/* booted now */
	char revision[16];	/* the last prepare()'s exec_opts.revision (g<12 hex>), "" for none */
	char booted[DOUBLE_MAX][64];	/* each boot's strategy */
	char ran_workloads[DOUBLE_MAX][64];
};

static struct double_state dbl;

static inline void double_reset(const char *dir)
{
	memset(&dbl, 0, sizeof(dbl));
	dbl.dir = dir;
}

static inline int double_start(struct dut *d, const struct dut_image *img)
{
	size_t i = dbl.started++;
	enum double_boot what = i < dbl.nboots ? dbl.boots[i] : BOOT_READY;
	snprintf(dbl.strategy, sizeof(dbl.strategy), "%s", img->strategy ? img->strategy : "");
	if (i < DOUBLE_MAX)
		snprintf(dbl.booted[i], sizeof(dbl.booted[i]), "%s", dbl.strategy);
	if (what == BOOT_NO_START)
		return -1;
	if (what == BOOT_LAB_DOWN)
		return HB_FAIL_LAB;
	int p[2];
	if (pipe(p) < 0)
		return -1;
	char text[256] = "";
	if (img->resume)
		dbl.resumed++;
	else if (what == BOOT_READY || what == BOOT_WRONG_KERNEL)
		snprintf(text, sizeof(text), "Booting Linux\nHB HELLO kernel=%s\nHB READY driver=%s "
			 "speed=100\n", what == BOOT_READY ? DOUBLE_KERNEL : "5.10.0-other",
			 d->board->dut_driver);
	else if (what == BOOT_PANIC)
		snprintf(text, sizeof(text), "Kernel panic - not syncing: the double's\n");
	/* the script fits the pipe: the console then closes, as a powered-off board's */
	if (write(p[1], text, strlen(text)) != (ssize_t)strlen(text))
		return -1;
	close(p[1]);
	d->con_rd = p[0];
	d->con_wr = open("/dev/null", O_WRONLY | O_CLOEXEC);
	return 0;
}

static inline void double_stop(struct dut *d)
{
	(void)d;
	dbl.stopped++;
}

static inline const char *double_version(struct dut *d)
{
	(void)d;
	return "deploy test double 1";
}

static const struct deploy_ops double_ops = {
	.name = "qemu", .start = double_start, .stop = double_stop, .version = double_version,
	.records_link = 1,	/* its runs store mbps_acked, as the emulator's do */
};

static inline int double_save(struct dut *d, int fd)
{
	(void)d;
	dbl.saved++;
	return write(fd, "saved", 5) == 5 ? 0 : -1;
}

static const struct deploy_ops double_saving_ops = {
	.name = "qemu", .start = double_start, .stop = double_stop, .version = double_version,
	.save = double_save, .records_link = 1,
};

/* A temp dir made from tmpl (mkdtemp's), a store in it, the doubles reset
 * and double_ops in place of the board's qemu backend; NULL on failure. */
static inline struct store *double_setup(char *tmpl)
{
	if (!mkdtemp(tmpl))
		return NULL;
	char *dir = path_join(tmpl, "store");
	struct store *s = store_open(dir);
	free(dir);
	double_reset(tmpl);
	deploy_substitute(&double_ops);
	return s;
}

static inline int double_prepare(const struct board *b, const char *series, const char *strategy,
				 const struct exec_opts *o, struct build_result *k,
				 struct userland_result *u, struct emulator_result *e)
{
	(void)b;
	dbl.prepared++;
	dbl.prepared_with_perf += o->perf_userland != 0;
	memset(k, 0, sizeof(*k));
	memset(u, 0, sizeof(*u));
	if (e)
		memset(e, 0, sizeof(*e));
	dbl.revision[0] = 0;
	if (o->revision)
		git_revision_tag(o->revision, dbl.revision);
	int rc = dbl.prepare_rc;
	if (!rc && dbl.prepare_revision)
		rc = dbl.prepare_revision(dbl.revision);
	if (rc)
		return rc;
	/* the key stands for the kernel: one per strategy, patch set and revision */
	snprintf(k->key, sizeof(k->key), "double-%s-%zu%s", strategy, o->user_patches.n,
		 dbl.revision);
	snprintf(k->config_sha256, sizeof(k->config_sha256), "config-double");
	k->series = xstrdup(series);
	k->dir = path_join(dbl.dir, k->key);
	k->image = path_join(k->dir, "zImage");
	k->manifest = path_join(k->dir, "manifest.json");
	k->kernel_release = xstrdup(DOUBLE_KERNEL);
	/* the user's patches as kernel.c's manifest lists them */
	cJSON *m = cJSON_CreateObject();
	cJSON *patches = cJSON_AddArrayToObject(m, "patches");
	for (size_t i = 0; i < o->user_patches.n; i++) {
		cJSON *p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, "layer", "user");
		cJSON_AddStringToObject(p, "path", o->user_patches.v[i]);
		char sha[65];
		if (sha256_file_hex(o->user_patches.v[i], sha) == 0)
			cJSON_AddStringToObject(p, "sha256", sha);
		cJSON_AddItemToArray(patches, p);
	}
	cJSON_AddStringToObject(cJSON_AddObjectToObject(m, "source"), "kernel_version", "6.1.0");
	char *manifest = cJSON_PrintUnformatted(m);
	cJSON_Delete(m);
	int rc_write = mkdir_p(k->dir, 0755) < 0 ||
		       write_file_atomic(k->manifest, manifest, strlen(manifest)) < 0 ? -1 : 0;
	free(manifest);
	if (rc_write < 0)
		return -1;
	u->initramfs = path_join(dbl.dir, "initramfs.cpio.gz");
	snprintf(u->sha256, sizeof(u->sha256), "initramfs-double");
	return 0;
}

static inline enum run_class double_run(struct dut *d, const struct workload *w,
					const char *run_id, const char *rundir,
					struct run_result *res)
{
	(void)d;
	(void)run_id;
	(void)rundir;
	size_t i = dbl.ran++;
	memset(res, 0, sizeof(*res));
	if (i < DOUBLE_MAX)
		snprintf(dbl.ran_workloads[i], sizeof(dbl.ran_workloads[i]), "%s", w->name);
	res->cls = i < dbl.nruns ? dbl.runs[i] : RUN_PASS;
	if (res->cls != RUN_PASS) {
		snprintf(res->reason, sizeof(res->reason), "the double's %s", run_class_name(res->cls));
		return res->cls;
	}
	double mbps = dbl.mbps ? dbl.mbps(dbl.strategy, i) : 100;
	static const char *const names[] = { "mbps", "pps" };
	for (size_t m = 0; m < 2; m++) {
		snprintf(res->names[m], sizeof(res->names[m]), "%s", names[m]);
		snprintf(res->sources[m], sizeof(res->sources[m]), "the double");
		res->metrics[m] = (struct metric){ .name = res->names[m], .source = res->sources[m],
						   .value = m ? mbps * 1e6 / 8 / 64 : mbps,
						   .unit = m ? "packets/s" : "Mbit/s" };
	}
	res->n_metrics = 2;
	if (dbl.xmit_insn) {
		snprintf(res->names[2], sizeof(res->names[2]), "insn_self_per_pkt.stmmac_xmit");
		snprintf(res->sources[2], sizeof(res->sources[2]), "the double");
		res->metrics[2] = (struct metric){ .name = res->names[2], .source = res->sources[2],
						   .value = dbl.xmit_insn(dbl.strategy, i),
						   .unit = "instructions/packet" };
		res->n_metrics = 3;
	}
	if (w->proto == WL_TCP && w->dir != WL_BIDIR) {
		/* the runner's delivered rate from the emulator's record of the
		 * link (measure/tcpacked.h): the double's rate stands for it */
		size_t k = res->n_metrics++;
		snprintf(res->names[k], sizeof(res->names[k]), "mbps_acked");
		snprintf(res->sources[k], sizeof(res->sources[k]), "the double");
		res->metrics[k] = (struct metric){ .name = res->names[k], .source = res->sources[k],
						   .value = mbps, .unit = "Mbit/s" };
	}
	if (dbl.rx_insn && w->dir == WL_DUT_RX) {
		size_t k = res->n_metrics++;
		snprintf(res->names[k], sizeof(res->names[k]), "insn_rx_driver_per_pkt");
		snprintf(res->sources[k], sizeof(res->sources[k]), "the double");
		res->metrics[k] = (struct metric){ .name = res->names[k], .source = res->sources[k],
						   .value = dbl.rx_insn(dbl.strategy, i),
						   .unit = "instructions/packet" };
	}
	return res->cls;
}

static const struct exec_stages double_stages = { .prepare = double_prepare, .run = double_run };

#endif
