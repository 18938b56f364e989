#include "measure/bench.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/catalog.h"
#include "deploy/dut.h"
#include "measure/runner.h"
#include "util/proc.h"
#include "util/util.h"

int bench_prepare(const struct board *b, const char *series, const char *strategy,
		  const struct bench_opts *o, struct build_result *k, struct userland_result *u)
{
	struct build_request req = { .board = b, .series = series, .strategy = strategy };
	req.user_patches = o->user_patches;
	req.from_scratch = o->from_scratch;
	int rc = kernel_build(&req, k);
	if (rc)
		return rc;
	rc = userland_build(b, u);
	if (rc)
		build_result_free(k);
	return rc;
}

char *bench_cmdline(const struct board *b)
{
	char peer[64];
	board_ip(b->host_addr, peer, sizeof(peer));
	return xasprintf("%s hb.iface=%s hb.addr=%s hb.peer=%s", b->cmdline, b->dut_interface,
			 b->dut_addr, peer);
}

/* Provenance shared by every run of one invocation. */
struct plan_state {
	const struct plan *plan;
	struct store *store;
	const char *session;
	char commit[64];
	char host[128];
	int total, done, passed;
	double t0;
};

/* What one (board, strategy) cell adds to it. */
struct cell {
	struct plan_state *ps;
	const struct board *board;
	const char *strategy;
	const char *series;
	struct build_result k;
	struct userland_result u;
	int built;
	char *patches;		/* JSON, from the build manifest */
	char *kernel_version;
	char boot_id[40];
	char emulator[128];
};

static void fill_provenance(struct plan_state *ps)
{
	char *rev[] = { "git", "-C", (char *)hb_home(), "rev-parse", "--short=12", "HEAD", NULL };
	char *dirty[] = { "git", "-C", (char *)hb_home(), "status", "--porcelain",
			  "--untracked-files=no", NULL };
	char *r = proc_output(rev), *d = proc_output(dirty);
	snprintf(ps->commit, sizeof(ps->commit), "%s%s", r ? r : "unknown", d && *d ? "-dirty" : "");
	free(r);
	free(d);
	gethostname(ps->host, sizeof(ps->host) - 1);
}

static void read_manifest_facts(struct cell *c)
{
	char *text = read_file(c->k.manifest, NULL);
	cJSON *m = text ? cJSON_Parse(text) : NULL;
	free(text);
	c->patches = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(m, "patches"));
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(m, "source");
	const cJSON *kv = cJSON_GetObjectItemCaseSensitive(src, "kernel_version");
	c->kernel_version = xstrdup(cJSON_IsString(kv) ? kv->valuestring : "unknown");
	cJSON_Delete(m);
}

static void cell_free(struct cell *c)
{
	if (c->built) {
		build_result_free(&c->k);
		userland_result_free(&c->u);
	}
	free(c->patches);
	free(c->kernel_version);
}

/* Store one run. Its artifacts directory is renamed into place first, so a
 * stored run always has its files and a crash leaves no half-run row. */
static void record(struct cell *c, const char *workload, int rep, const char *id,
		   const char *tmpdir, const struct run_result *res, const char *started)
{
	struct plan_state *ps = c->ps;
	char ended[32];
	utc_now(ended);
	char *rel = xasprintf("runs/%s", id);
	char *final = path_join(store_dir(ps->store), rel);
	int have_artifacts = tmpdir && rename(tmpdir, final) == 0;
	if (tmpdir && !have_artifacts)
		hb_err("cannot move %s to %s: %s", tmpdir, final, strerror(errno));
	struct run_record r = {
		.session = ps->session, .plan = ps->plan->name, .board = c->board->name,
		.strategy = c->strategy, .workload = workload, .repetition = rep,
		.boot_id = c->boot_id[0] ? c->boot_id : NULL, .cls = res->cls,
		.reason = res->cls == RUN_PASS ? NULL : res->reason,
		.timing = timing_mode_name(ps->plan->timing), .started = started, .ended = ended,
		.kernel_version = c->kernel_version,
		.kernel_release = c->built ? c->k.kernel_release : NULL,
		.build_key = c->built ? c->k.key : NULL,
		.config_sha256 = c->built ? c->k.config_sha256 : NULL,
		.build_manifest = c->built ? c->k.manifest : NULL, .patches = c->patches,
		.initramfs_sha256 = c->built ? c->u.sha256 : NULL,
		.emulator = c->emulator[0] ? c->emulator : NULL, .hilbench_commit = ps->commit,
		.host = ps->host, .artifacts = have_artifacts ? rel : NULL,
		.metrics = res->metrics, .n_metrics = res->n_metrics,
	};
	snprintf(r.id, sizeof(r.id), "%s", id);
	store_add_run(ps->store, &r);
	ps->done++;
	if (res->cls == RUN_PASS)
		ps->passed++;
	free(rel);
	free(final);
}

/* Runs that cannot happen (build or boot failed, the DUT died) are stored
 * with the reason, so reports show what is missing and why: repetitions
 * from_rep..to_rep, starting at workload from_wl in the first. */
static void record_unrun(struct cell *c, const struct workload *wls, size_t nwls,
			 int from_rep, size_t from_wl, int to_rep, enum run_class cls,
			 const char *reason)
{
	struct run_result res = { .cls = cls };
	snprintf(res.reason, sizeof(res.reason), "%s", reason);
	char now[32];
	utc_now(now);
	for (int rep = from_rep; rep <= to_rep; rep++)
		for (size_t i = rep == from_rep ? from_wl : 0; i < nwls; i++) {
			char id[40];
			store_new_id(id);
			record(c, wls[i].name, rep, id, NULL, &res, now);
		}
}

static void progress(const struct cell *c, const char *what)
{
	const struct plan_state *ps = c->ps;
	char eta[48] = "";
	if (ps->done) {
		double el = monotonic_s() - ps->t0;
		snprintf(eta, sizeof(eta), ", about %.0f min left",
			 el / ps->done * (ps->total - ps->done) / 60);
	}
	hb_info("[%d/%d runs%s] %s / %s: %s", ps->done, ps->total, eta, c->board->name,
		c->strategy, what);
}

/* One boot: repetitions first_rep..last_rep x workloads (interleaved, so a
 * drift over time spreads over all workloads alike). A failed run ends the
 * boot: the DUT's state is unknown, the rest of this boot would not be a
 * measurement. */
static void run_boot(struct cell *c, const struct workload *wls, size_t nwls, int first_rep,
		     int last_rep)
{
	struct plan_state *ps = c->ps;
	store_new_id(c->boot_id);
	char *bootdir = xasprintf("%s/boots/%s", store_dir(ps->store), c->boot_id);
	char *console = path_join(bootdir, "console.log");
	char *cmdline = bench_cmdline(c->board);
	/* The first run's id exists before the boot: a LAVA job carries it. */
	char first_id[40];
	store_new_id(first_id);
	struct dut_image img = { .kernel = c->k.image, .dtb = c->k.dtb,
				 .initrd = c->u.initramfs, .cmdline = cmdline,
				 .workload = &wls[0], .run_id = first_id,
				 .series = c->series, .strategy = c->strategy };
	struct dut d;
	mkdir_p(bootdir, 0755);
	progress(c, "booting");
	int boot = dut_boot(&d, c->board, &img, ps->plan->timing, bootdir, console);
	if (d.ops && d.ops->version)
		snprintf(c->emulator, sizeof(c->emulator), "%s", d.ops->version(&d));
	if (boot != DUT_BOOT_OK) {
		char why[768];
		snprintf(why, sizeof(why), "boot failed: %s (console: %s)",
			 d.health[0] ? d.health : "see the console log", console);
		hb_err("%s", why);
		dut_shutdown(&d);
		record_unrun(c, wls, nwls, first_rep, 0, last_rep,
			     boot == DUT_BOOT_FAILED ? RUN_FAIL : RUN_ERROR, why);
		goto out;
	}
	for (int rep = first_rep; rep <= last_rep; rep++) {
		for (size_t i = 0; i < nwls; i++) {
			char id[40], started[32], what[160];
			if (rep == first_rep && i == 0)
				memcpy(id, first_id, sizeof(id));
			else
				store_new_id(id);
			utc_now(started);
			snprintf(what, sizeof(what), "%s, repetition %d/%d", wls[i].name, rep,
				 ps->plan->repetitions);
			progress(c, what);
			char *tmp = xasprintf("%s/runs/.tmp-%s", store_dir(ps->store), id);
			mkdir_p(tmp, 0755);
			struct run_result res;
			runner_run(&d, &wls[i], id, tmp, &res);
			if (res.cls == RUN_PASS) {
				for (size_t m = 0; m < res.n_metrics; m++)
					if (!strcmp(res.metrics[m].name, "pps") ||
					    !strcmp(res.metrics[m].name, "mbps"))
						hb_info("    %s = %.1f %s", res.metrics[m].name,
							res.metrics[m].value, res.metrics[m].unit);
			} else {
				hb_err("run %s: %s: %s", id, run_class_name(res.cls), res.reason);
			}
			record(c, wls[i].name, rep, id, tmp, &res, started);
			free(tmp);
			if (hb_interrupted || res.cls != RUN_PASS) {
				char why[600];
				snprintf(why, sizeof(why), "not run: %s in run %s",
					 hb_interrupted ? "interrupted" : "the DUT failed", id);
				record_unrun(c, wls, nwls, rep + (i + 1 == nwls), (i + 1) % nwls,
					     last_rep, hb_interrupted ? RUN_MISS : RUN_ERROR, why);
				goto shutdown;
			}
		}
	}
shutdown:
	dut_shutdown(&d);
out:
	free(cmdline);
	free(console);
	free(bootdir);
}

static void run_cell(struct cell *c, const struct workload *wls, size_t nwls)
{
	const struct plan *p = c->ps->plan;
	const struct deploy_ops *ops = deploy_backend(c->board->backend);
	if (ops && ops->one_run_per_boot) {
		/* A LAVA job boots, runs one workload and ends. */
		for (int rep = 1; rep <= p->repetitions; rep++)
			for (size_t i = 0; i < nwls; i++) {
				if (hb_interrupted) {
					record_unrun(c, wls, nwls, rep, i, p->repetitions, RUN_MISS,
						     "not run: interrupted");
					return;
				}
				run_boot(c, &wls[i], 1, rep, rep);
			}
		return;
	}
	if (p->boots == BOOTS_PER_CELL) {
		run_boot(c, wls, nwls, 1, p->repetitions);
		return;
	}
	for (int rep = 1; rep <= p->repetitions; rep++) {
		if (hb_interrupted) {
			record_unrun(c, wls, nwls, rep, 0, p->repetitions, RUN_MISS,
				     "not run: interrupted");
			return;
		}
		run_boot(c, wls, nwls, rep, rep);
	}
}

int bench_run_plan(const struct plan *p, struct store *s, const struct bench_opts *o,
		   char session[40])
{
	store_new_id(session);
	struct plan_state ps = { .plan = p, .store = s, .session = session, .t0 = monotonic_s() };
	fill_provenance(&ps);
	ps.total = (int)(p->boards.n * p->strategies.n * p->workloads.n) * p->repetitions;

	/* Load everything first: a typo in the last workload must not cost an
	 * hour of measurements before it is reported. */
	struct board *boards = xcalloc(p->boards.n, sizeof(*boards));
	struct workload *wls = xcalloc(p->workloads.n, sizeof(*wls));
	int rc = HB_EXIT_OK;
	size_t nb = 0, nw = 0;
	for (; nb < p->boards.n && rc == HB_EXIT_OK; nb++)
		if (catalog_board(p->boards.v[nb], &boards[nb]) < 0)
			rc = HB_EXIT_USAGE;
	for (; nw < p->workloads.n && rc == HB_EXIT_OK; nw++)
		if (catalog_workload(p->workloads.v[nw], &wls[nw]) < 0)
			rc = HB_EXIT_USAGE;
	if (rc != HB_EXIT_OK)
		goto out;
	hb_info("session %s: plan %s, %d runs (%zu boards x %zu strategies x %zu workloads x %d), %s time",
		session, p->name, ps.total, p->boards.n, p->strategies.n, p->workloads.n,
		p->repetitions, timing_mode_name(p->timing));
	for (size_t bi = 0; bi < p->boards.n && !hb_interrupted; bi++) {
		const struct board *b = &boards[bi];
		const char *series = o->series ? o->series : b->series.v[0];
		for (size_t si = 0; si < p->strategies.n && !hb_interrupted; si++) {
			struct cell c = { .ps = &ps, .board = b, .strategy = p->strategies.v[si],
					  .series = series };
			progress(&c, "building");
			int brc = bench_prepare(b, series, c.strategy, o, &c.k, &c.u);
			if (brc == 0) {
				c.built = 1;
				read_manifest_facts(&c);
				run_cell(&c, wls, nw);
			} else {
				record_unrun(&c, wls, nw, 1, 0, p->repetitions, RUN_ERROR,
					     brc == HB_EXIT_USAGE ? "build failed: bad input (see the error above)"
								  : "build failed (see the error above)");
			}
			cell_free(&c);
		}
	}
	hb_info("session %s: %d of %d runs passed", session, ps.passed, ps.total);
	rc = ps.passed == ps.total ? HB_EXIT_OK : HB_EXIT_INFRA;
out:
	for (size_t i = 0; i < nb; i++)
		board_free(&boards[i]);
	for (size_t i = 0; i < nw; i++)
		workload_free(&wls[i]);
	free(boards);
	free(wls);
	return rc;
}
