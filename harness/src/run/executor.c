#include "run/executor.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "build/gitsource.h"
#include "build/symbols.h"
#include "config/catalog.h"
#include "config/emulator.h"
#include "config/setting.h"
#include "config/strategy.h"
#include "measure/crosscheck.h"
#include "measure/settings_apply.h"
#include "run/images.h"
#include "run/pool.h"
#include "store/metrics.h"
#include "store/runfile.h"
#include "util/lock.h"
#include "util/proc.h"
#include "util/util.h"

const struct exec_stages exec_pipeline = { .prepare = images_prepare, .run = runner_run };

const struct exec_stages *exec_stages_of(const struct exec_opts *o)
{
	return o->stages ? o->stages : &exec_pipeline;
}

/* Below this much free space in the store, no run starts: its artifacts
 * might not fit, and a run whose files are cut short is no measurement. A
 * boot's console log and a run's artifacts take about 200 KiB. */
#define STORE_MIN_FREE_KIB 1024

/* What a flight's process (a boot in flight, fan-out in executor.h)
 * stored, for the plan's counts: its report to the parent. */
struct flight_report {
	int stored, done, passed, kept, stopped;
};

/* The boots in flight, each in a process of its own; width is how many
 * may be. */
struct fleet {
	struct pool flights;
	size_t width;
};

/* Provenance shared by every run of one invocation. */
struct plan_state {
	const struct plan *plan;
	const struct exec_opts *opts;
	struct store *store;
	const char *session;
	char commit[64];
	char host[128];
	int total, done, passed;
	int cells;		/* with runs to do: one build each */
	int attempts;		/* tries per run on infrastructure errors */
	int stopped;		/* the store cannot take more runs: stop the plan */
	int stored;		/* rows this invocation stored */
	int kept;		/* runs whose row waits in their directory */
	struct progress own;	/* when o->progress is NULL */
	struct progress *prog;	/* o->progress or &own */
	struct fleet fleet;
};

/* One labelled cell of a boot: the strategy's own, or a sweep point. */
struct point {
	char *label;		/* strategy, or strategy@setting=value */
	struct strlist settings;	/* "name=value", applied before every run */
};

/* What one (board, kernel) boot schedule adds to it: a strategy's kernel
 * and its points (one, or a sweep's). */
struct cell {
	struct plan_state *ps;
	const struct board *board;
	const char *strategy;
	struct driver driver;	/* the strategy's driver under test */
	struct point *points;
	size_t npoints;
	const char *series;
	struct build_result k;
	struct userland_result u;
	struct emulator_result e;	/* e.binary NULL: the board's installed QEMU */
	/* the driver's own functions in this build (build/symbols.h), for the
	 * instruction counter; NULL: not counted apart */
	char *driver_functions;
	int built;
	int sweep;		/* its points are a sweep's */
	int fresh_boots;	/* boots after failed runs so far (EXECUTOR_SWEEP_REBOOTS) */
	char *patches;		/* JSON, from the build manifest */
	char *kernel_version;
	char boot_id[40];
	char resumed_from[40];	/* the saved boot that boot started from; "": booted */
	char emulator[4096];	/* the DUT's version(), whole */
};

/* One run a cell still owes: a repetition of a workload at a point. */
struct todo {
	int rep;
	size_t wl;
	size_t pt;
};

/* UDP the DUT sends at an unlimited rate (measure/crosscheck.h), not the
 * host's pace: such runs may go beside another board in virtual time. */
static bool dut_paced(const struct workload *w)
{
	return crosscheck_pacing(w) == PACED_BY_DUT;
}

static void fill_provenance(struct plan_state *ps)
{
	char *v = hb_version();
	snprintf(ps->commit, sizeof(ps->commit), "%s", v);
	free(v);
	gethostname(ps->host, sizeof(ps->host) - 1);
}

/* The revision's patch layer in a run's copy of its build's patches. A
 * cached build may have been made from another commit with the same diff
 * (a rebase, a cherry-pick, a bisection of a rebuilt history): the key is
 * the content, so its manifest names that commit's patch file. The layer
 * of the same bytes becomes this revision's file, and gets the URL of its
 * repository, which is no build input either (any mirror's commit builds
 * the same kernel). */
static void record_revision_layer(cJSON *patches, const struct git_revision *rev)
{
	if (!rev->patch)
		return;
	cJSON *p;
	cJSON_ArrayForEach(p, patches) {
		const cJSON *layer = cJSON_GetObjectItemCaseSensitive(p, "layer");
		const cJSON *psha = cJSON_GetObjectItemCaseSensitive(p, "sha256");
		if (!cJSON_IsString(layer) || strcmp(layer->valuestring, "user") ||
		    !cJSON_IsString(psha) || strcmp(psha->valuestring, rev->patch_sha256))
			continue;
		cJSON_ReplaceItemInObjectCaseSensitive(p, "path", cJSON_CreateString(rev->patch));
		if (rev->url)
			cJSON_AddStringToObject(p, "git_repository_url", rev->url);
	}
}

static void read_manifest_facts(struct cell *c)
{
	char *text = read_file(c->k.manifest, NULL);
	cJSON *m = text ? cJSON_Parse(text) : NULL;
	free(text);
	const struct git_revision *rev = c->ps->opts->revision;
	cJSON *patches = cJSON_GetObjectItemCaseSensitive(m, "patches");
	if (rev)
		record_revision_layer(patches, rev);
	c->patches = cJSON_PrintUnformatted(patches);
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(m, "source");
	const cJSON *kv = cJSON_GetObjectItemCaseSensitive(src, "kernel_version");
	const char *version = cJSON_IsString(kv) ? kv->valuestring : "unknown";
	char tag[16];
	if (rev)
		git_revision_tag(rev, tag);
	c->kernel_version = rev ? xasprintf("%s+%s", version, tag) : xstrdup(version);
	cJSON_Delete(m);
}

static void cell_free(struct cell *c)
{
	if (c->built) {
		build_result_free(&c->k);
		userland_result_free(&c->u);
		emulator_result_free(&c->e);
	}
	free(c->patches);
	free(c->kernel_version);
	free(c->driver_functions);
	driver_free(&c->driver);
	for (size_t i = 0; i < c->npoints; i++) {
		free(c->points[i].label);
		strlist_free(&c->points[i].settings);
	}
	free(c->points);
}

/* The points of a cell, labelled; then their settings: the strategy's own
 * (its series file), then the sweep's value. -1 (labels set) when the
 * strategy cannot be loaded. */
static int cell_points(struct cell *c, const char *series, const struct sweep *sw)
{
	c->sweep = sw != NULL;
	c->npoints = sw ? sw->values.n : 1;
	c->points = xcalloc(c->npoints, sizeof(*c->points));
	for (size_t i = 0; i < c->npoints; i++)
		c->points[i].label = sw ? xasprintf("%s@%s=%s", c->strategy, sw->setting,
						    sw->values.v[i])
					: xstrdup(c->strategy);
	struct strategy st;
	char err[2048];
	if (strategy_load(series, c->strategy, &st, err, sizeof(err)) < 0) {
		hb_err("%s", err);
		return -1;
	}
	if (catalog_driver(st.driver, &c->driver) < 0) {
		strategy_free(&st);
		return -1;
	}
	for (size_t i = 0; i < c->npoints; i++) {
		struct point *pt = &c->points[i];
		for (size_t k = 0; k < st.settings.n; k++)
			strlist_push(&pt->settings, st.settings.v[k]);
		if (sw)
			setting_put(&pt->settings, sw->setting, sw->values.v[i]);
	}
	strategy_free(&st);
	return 0;
}

/* Stops the plan: the store cannot take what comes next. */
static void stop_plan(struct plan_state *ps, const char *why)
{
	if (ps->stopped)
		return;
	ps->stopped = 1;
	if (ps->kept)
		hb_err("stopping the plan: %s. The runs stored so far are intact; once that is "
		       "fixed, the same command with --resume %s imports the kept run and runs "
		       "the rest", why, ps->session);
	else if (ps->stored || ps->opts->resume)
		hb_err("stopping the plan: %s. The runs stored so far are intact; once that is "
		       "fixed, the same command with --resume %s runs the rest", why, ps->session);
	else
		hb_err("stopping the plan: %s. Nothing of this session is stored; once that is "
		       "fixed, run the same command again", why);
}

/* KiB free on the store's file system; -1 if it cannot tell. */
static long long store_free_kib(const struct plan_state *ps)
{
	struct statvfs v;
	if (statvfs(store_dir(ps->store), &v) < 0)
		return -1;	/* unknown: the writes themselves will tell */
	return (long long)((unsigned long long)v.f_bavail * v.f_frsize / 1024);
}

static int store_is_full(const struct plan_state *ps)
{
	long long kib = store_free_kib(ps);
	return kib >= 0 && kib < STORE_MIN_FREE_KIB;
}

static void stop_for_space(struct plan_state *ps)
{
	char why[600];
	snprintf(why, sizeof(why), "the file system of the store %s is full (%lld KiB free, a "
		 "run needs %d KiB)", store_dir(ps->store), store_free_kib(ps), STORE_MIN_FREE_KIB);
	stop_plan(ps, why);
}

/* The store's file system has room for a boot or a run; else stops the plan. */
static int store_has_room(struct plan_state *ps)
{
	if (!store_is_full(ps))
		return 1;
	stop_for_space(ps);
	return 0;
}

/* Store one run. Its artifacts directory is renamed into place first, so a
 * stored run always has its files and a crash leaves no half-run row. A
 * retried attempt is stored too, but the run is not done yet. */
static void record(struct cell *c, const struct todo *t, const struct workload *w, int attempt,
		   int retried, const char *id, const char *tmpdir, const struct run_result *res,
		   const char *started, const char *settings)
{
	struct plan_state *ps = c->ps;
	if (ps->stopped)
		return;
	char ended[32];
	utc_now(ended);
	char *rel = xasprintf("runs/%s", id);
	char *final = path_join(store_dir(ps->store), rel);
	char digest[65];
	workload_digest(w, digest);
	int have_artifacts = tmpdir && rename(tmpdir, final) == 0;
	if (tmpdir && !have_artifacts)
		hb_err("cannot move %s to %s: %s", tmpdir, final, strerror(errno));
	struct run_record r = {
		.session = ps->session, .plan = ps->plan->name, .board = c->board->name,
		.strategy = c->points[t->pt].label, .workload = w->name, .workload_sha256 = digest,
		.repetition = t->rep,
		.boot_id = c->boot_id[0] ? c->boot_id : NULL,
		.resumed_from = c->resumed_from[0] ? c->resumed_from : NULL, .cls = res->cls,
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
		.metrics = res->metrics, .n_metrics = res->n_metrics, .attempt = attempt,
		.settings = settings,
	};
	snprintf(r.id, sizeof(r.id), "%s", id);
	if (store_add_run(ps->store, &r) < 0) {
		/* Its row goes beside its files: --resume imports it. */
		int kept = have_artifacts && runfile_write(final, &r) == 0;
		char why[800];
		snprintf(why, sizeof(why), "run %s (%s) could not be stored%s%s%s", id,
			 run_class_name(res->cls), have_artifacts ? "; its files are in " : "",
			 have_artifacts ? final : "", kept ? ", with its row (" RUNFILE_NAME ")" : "");
		ps->kept += kept;
		stop_plan(ps, why);
	} else {
		ps->stored++;
		if (!retried) {
			ps->done++;
			ps->passed += res->cls == RUN_PASS;
			progress_run_end(ps->prog, tmpdir != NULL);
		}
	}
	free(rel);
	free(final);
}

/* Runs that cannot happen (build or boot failed, the DUT died) are stored
 * with the reason, so reports show what is missing and why. */
static void record_unrun(struct cell *c, const struct workload *wls, const struct todo *t,
			 size_t n, int attempt, enum run_class cls, const char *reason)
{
	struct run_result res = { .cls = cls };
	snprintf(res.reason, sizeof(res.reason), "%s", reason);
	char now[32];
	utc_now(now);
	for (size_t i = 0; i < n; i++) {
		char id[40];
		store_new_id(id);
		record(c, &t[i], &wls[t[i].wl], attempt, 0, id, NULL, &res, now, NULL);
	}
}

static void progress(const struct cell *c, const char *what)
{
	progress_say(c->ps->prog, "%s / %s: %s", c->board->name, c->strategy, what);
}

/* Appends the retry note to a reason when attempt may be tried again. */
static int will_retry(const struct plan_state *ps, int attempt, char *reason, size_t len)
{
	if (hb_interrupted || ps->stopped || attempt >= ps->attempts)
		return 0;
	size_t n = strlen(reason);
	snprintf(reason + n, len - n, "; infrastructure, retried (attempt %d of %d)", attempt,
		 ps->attempts);
	hb_info("  retrying: attempt %d of %d", attempt + 1, ps->attempts);
	return 1;
}

/* The point's settings on the DUT, into the run's settings.log. RUN_PASS
 * when there are none. */
static enum run_class apply_point(struct dut *d, const struct point *pt, const char *id,
				  const char *tmp, char **settings, struct run_result *res)
{
	*settings = NULL;
	if (!pt->settings.n)
		return RUN_PASS;
	char *log = path_join(tmp, "settings.log");
	FILE *trace = fopen(log, "w");
	enum run_class cls = settings_apply(d, &pt->settings, id, trace, settings, res->reason,
					    sizeof(res->reason));
	if (trace)
		fclose(trace);
	free(log);
	return cls;
}

/* A boot of a cell: its directory in the store, the console log there. */
struct boot {
	struct dut d;
	char *dir, *console, *cmdline;
	char first_id[40];	/* the first run's id exists before the boot: a LAVA job carries it */
};

static void boot_free(struct boot *bt)
{
	free(bt->cmdline);
	free(bt->console);
	free(bt->dir);
}

/*
 * Saved DUTs of this process (deploy_ops.save), by what was booted. On a
 * board with deploy.qemu.saved_boot, in virtual time with a boot per
 * repetition, the first boot of a cell's images saves itself once ready,
 * before its first run, and the later boots of those images none of whose
 * runs is DUT-paced start from it, in a tenth of a boot's time. A TCP run so
 * spreads and centres nearly as one on a boot of its own, but not quite
 * (docs/measurements.md, "Repetitions from a saved boot"): off by default.
 * A DUT-paced workload boots every time: its runs repeat their boot's
 * numbers, and its spread is between boots. The first boot saves whatever
 * it runs, since a later plan of the same process (compare's next phase,
 * the gate's next look) may run TCP on those images. Each is an anonymous
 * file of about 50 MB that goes with the last process (or fork) holding
 * it; at most EXECUTOR_SAVED_MAX at once, later images boot every time. A
 * saved DUT that fails to start is forgotten: the retry boots.
 */
#define EXECUTOR_SAVED_MAX 16
static struct saved_boot {
	char *key;
	struct dut_saved s;
} saved_boots[EXECUTOR_SAVED_MAX];
static size_t nsaved;
/* A flight's process (fly_child()) ends with its one boot: what it saved
 * would go with it unused, so it starts from what it inherited only. */
static int in_flight;

/* What the boot of img is, whole: boots with the same key are the same. */
static char *saved_key(const struct cell *c, const struct dut_image *img)
{
	return xasprintf("%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s", c->board->name, img->kernel,
			 img->dtb, img->initrd, img->cmdline, img->emulator ? img->emulator : "",
			 img->insn_plugin ? img->insn_plugin : "",
			 img->driver_functions ? img->driver_functions : "",
			 timing_mode_name(c->ps->plan->timing));
}

/* Points img at the saved DUT to start from (resumable: no run of the
 * boot DUT-paced) or at *fresh to save into; neither where the plan,
 * the backend or the room does not allow it. */
static void saved_choose(const struct cell *c, const struct deploy_ops *ops, int resumable,
			 struct dut_image *img, struct dut_saved *fresh)
{
	const struct plan *p = c->ps->plan;
	if (!ops || !ops->save || !c->board->qemu.saved_boot || p->timing != TIMING_VIRTUAL ||
	    p->boots != BOOTS_PER_REPETITION)
		return;
	char *key = saved_key(c, img);
	for (size_t i = 0; i < nsaved; i++) {
		if (!strcmp(saved_boots[i].key, key)) {
			if (resumable)
				img->resume = &saved_boots[i].s;
			free(key);
			return;
		}
	}
	free(key);
	if (in_flight || nsaved == EXECUTOR_SAVED_MAX)
		return;
	*fresh = (struct dut_saved){ .fd = memfd_create("hilbench-saved-dut", MFD_CLOEXEC) };
	if (fresh->fd < 0)
		hb_err("cannot make a file for the booted DUT (%s): later boots boot anew",
		       strerror(errno));
	else
		img->save = fresh;
}

/* After a boot (booted: it came up with the build's kernel): its saved DUT
 * kept for later boots, or its file let go; a saved DUT it failed to start
 * from forgotten. */
static void saved_keep(const struct cell *c, const struct dut *d, const struct dut_image *img,
		       int booted)
{
	for (size_t i = 0; img->resume && !booted && i < nsaved; i++) {
		if (&saved_boots[i].s == img->resume) {
			free(saved_boots[i].key);
			close(saved_boots[i].s.fd);
			saved_boots[i] = saved_boots[--nsaved];
			break;
		}
	}
	if (!img->save)
		return;
	if (!d->saved || !booted) {
		close(img->save->fd);
		return;
	}
	struct saved_boot *sb = &saved_boots[nsaved++];
	sb->key = saved_key(c, img);
	sb->s = *img->save;
	snprintf(sb->s.boot_id, sizeof(sb->s.boot_id), "%s", c->boot_id);
}

/* Boots the cell's images for a first run of workload w (from a saved DUT
 * where saved_choose() allows: resumable, no run of the boot
 * DUT-paced); dut_boot()'s result. A DUT that booted something else (a
 * stale image, a board that fell back to its flash) must not produce
 * numbers for this build: HB_FAIL_DUT. */
static int boot_cell(struct cell *c, const struct workload *w, int resumable, struct boot *bt)
{
	struct plan_state *ps = c->ps;
	progress(c, "booting");
	/* a boot is the DUT's work, what it takes in its own clock: it shares
	 * the host (util/lock.h), but not with a run that has it alone */
	struct host_turn turn = HOST_TURN_NONE;
	const struct deploy_ops *ops = deploy_backend(c->board->backend);
	int turn_rc = ops && ops->hold ? lock_host_turn(&turn, 0, 1) : 0;
	/* stamped once the host is ours: the estimate times a boot from its
	 * id to its first run (run/estimate.h), not the wait for the turn */
	store_new_id(c->boot_id);
	bt->dir = xasprintf("%s/boots/%s", store_dir(ps->store), c->boot_id);
	bt->console = path_join(bt->dir, "console.log");
	if (turn_rc < 0)
		return -1;
	bt->cmdline = images_cmdline(c->board);
	store_new_id(bt->first_id);
	struct dut_image img = { .kernel = c->k.image, .dtb = c->k.dtb,
				 .initrd = c->u.initramfs, .cmdline = bt->cmdline,
				 .workload = w, .run_id = bt->first_id,
				 .series = c->series, .strategy = c->strategy, .driver = &c->driver,
				 .emulator = c->e.binary, .emulator_provenance = c->e.provenance,
				 .insn_plugin = c->e.insn_plugin, .system_map = c->k.system_map,
				 .driver_functions = c->driver_functions };
	struct dut *d = &bt->d;
	mkdir_p(bt->dir, 0755);
	struct dut_saved fresh;
	saved_choose(c, ops, resumable, &img, &fresh);
	snprintf(c->resumed_from, sizeof(c->resumed_from), "%s",
		 img.resume ? img.resume->boot_id : "");
	int boot = dut_boot(d, c->board, &img, ps->plan->timing, bt->dir, bt->console);
	lock_host_turn_end(&turn);
	saved_keep(c, d, &img, boot == 0 && !strcmp(d->kernel_release, c->k.kernel_release));
	if (d->ops && d->ops->version)
		snprintf(c->emulator, sizeof(c->emulator), "%s", d->ops->version(d));
	if (boot == 0 && strcmp(d->kernel_release, c->k.kernel_release)) {
		snprintf(d->health, sizeof(d->health),
			 "the DUT runs kernel '%s', the build manifest %s says '%s'",
			 d->kernel_release, c->k.manifest, c->k.kernel_release);
		boot = HB_FAIL_DUT;
	}
	return boot;
}

/* A boot that failed (boot_cell()'s code) holds up the runs t[0..n-1]:
 * stores them, or on a retry the attempt with the first of them. Returns
 * run_boot()'s index: 0 to boot again, else n. */
static size_t boot_failed(struct cell *c, const struct workload *wls, const struct todo *t,
			  size_t n, int attempt, int boot, struct boot *bt)
{
	struct plan_state *ps = c->ps;
	struct dut *d = &bt->d;
	struct run_result res = { .cls = boot == HB_FAIL_DUT ? RUN_FAIL : RUN_ERROR };
	snprintf(res.reason, sizeof(res.reason), "boot failed: %.300s (console: %.150s)",
		 d->health[0] ? d->health : "see the console log", bt->console);
	hb_err("%s", res.reason);
	dut_shutdown(d);
	if (hb_interrupted) {
		record_unrun(c, wls, t, n, attempt, RUN_MISS, "not run: interrupted");
	} else if (boot == HB_FAIL_LAB) {
		/* its client retried already; every boot would meet the same */
		record_unrun(c, wls, t, n, attempt, RUN_ERROR, res.reason);
		char why[700];
		snprintf(why, sizeof(why), "board %s: the lab cannot take boots (%.400s)",
			 c->board->name, d->health);
		stop_plan(ps, why);
	} else if (res.cls == RUN_ERROR && will_retry(ps, attempt, res.reason, sizeof(res.reason))) {
		/* the retry is on record with the first run it held up */
		char id[40], now[32];
		store_new_id(id);
		utc_now(now);
		record(c, &t[0], &wls[t[0].wl], attempt, 1, id, NULL, &res, now, NULL);
		return 0;
	} else {
		record_unrun(c, wls, t, n, attempt, res.cls, res.reason);
	}
	return n;
}

/* How one run on a booted DUT ended. */
struct run_end {
	enum run_class cls;
	int retry;	/* an infrastructure error with attempts left: on a fresh boot */
	int refused;	/* a setting the driver refused failed it; the DUT is as it was */
};

/* The host's turn for a run of w on d (util/lock.h): alone where the
 * host's pace is in its numbers (UDP the host sends, or real time), else
 * shared (measure/crosscheck.h, crosscheck_shares_host()). The DUT is held
 * while it waits, so its clock does not run on idle and it loads nobody's
 * measurement. RUN_PASS once taken (or for a backend whose DUTs are not on
 * this host), RUN_ERROR with the reason. */
static enum run_class take_host_turn(const struct cell *c, struct dut *d,
				     const struct workload *w, struct host_turn *turn,
				     struct run_result *res)
{
	if (!d->ops || !d->ops->hold)
		return RUN_PASS;
	int alone = c->ps->plan->timing != TIMING_VIRTUAL ||
		    !crosscheck_shares_host(w, board_peer_held(c->board));
	int rc = lock_host_turn(turn, alone, 0);
	if (rc == 1) {
		dut_hold(d, 1);
		rc = lock_host_turn(turn, alone, 1);
		dut_hold(d, 0);
	}
	if (rc == 0)
		return RUN_PASS;
	snprintf(res->reason, sizeof(res->reason), "not run: the host's turn was not taken "
		 "(see the error above)");
	return RUN_ERROR;
}

/* Run t (its try-th attempt, as run id) on the booted DUT and store it. */
static struct run_end run_one(struct cell *c, struct dut *d, const struct workload *w,
			      const struct todo *t, int try, const char *id)
{
	struct plan_state *ps = c->ps;
	const struct point *pt = &c->points[t->pt];
	char what[300], of[16] = "";
	if (ps->opts->first_repetition <= 1)
		snprintf(of, sizeof(of), "/%d", ps->plan->repetitions);
	snprintf(what, sizeof(what), "%s%s%s, repetition %d%s%s", c->npoints > 1 ?
		 pt->label : "", c->npoints > 1 ? ", " : "", w->name, t->rep, of,
		 try > 1 ? " (retry)" : "");
	progress(c, what);
	char *tmp = xasprintf("%s/runs/.tmp-%d-%s", store_dir(ps->store), (int)getpid(), id);
	mkdir_p(tmp, 0755);
	struct run_result res = { .cls = RUN_PASS };
	char *settings = NULL;
	struct host_turn turn = HOST_TURN_NONE;
	enum run_class set = take_host_turn(c, d, w, &turn, &res);
	char started[32];	/* the turn's wait is not the run's (run/estimate.h) */
	utc_now(started);
	if (set == RUN_PASS)
		set = apply_point(d, pt, id, tmp, &settings, &res);
	if (set == RUN_PASS)
		exec_stages_of(ps->opts)->run(d, w, id, tmp, &res);
	else
		res.cls = set;
	lock_host_turn_end(&turn);
	if (res.cls == RUN_PASS) {
		for (size_t m = 0; m < res.n_metrics; m++) {
			const struct metric_def *def = metric_find(res.metrics[m].name);
			if (def && def->shown == SHOWN_HEADLINE)
				hb_info("    %s = %.1f %s", res.metrics[m].name, res.metrics[m].value,
					res.metrics[m].unit);
		}
	}
	int full = res.cls != RUN_PASS && store_is_full(ps);
	if (full) {
		/* the likely cause, whatever broke first; no retry can help */
		size_t len = strlen(res.reason);
		snprintf(res.reason + len, sizeof(res.reason) - len,
			 " (the store's file system is full)");
		res.cls = RUN_ERROR;
	}
	if (res.cls != RUN_PASS)
		hb_err("run %s: %s: %s", id, run_class_name(res.cls), res.reason);
	struct run_end e = { .cls = res.cls, .refused = set == RUN_FAIL && !d->health[0] };
	e.retry = !full && res.cls == RUN_ERROR && !hb_interrupted &&
		  will_retry(ps, try, res.reason, sizeof(res.reason));
	record(c, t, w, try, e.retry, id, tmp, &res, started, settings);
	free(settings);
	free(tmp);
	if (full)
		stop_for_space(ps);
	return e;
}

/* Run t[k] failed (or the user interrupted) and ended its boot. A sweep's
 * boot holds every point: one flaky run must not cost the points after it.
 * They go on on a fresh boot, which resets whatever the failure left
 * behind (*fresh set, k + 1 returned); a cap, because a point that breaks
 * the DUT every time would otherwise boot once per run. Otherwise the runs
 * after it are stored as not run and n is returned. */
static size_t after_failed_run(struct cell *c, const struct workload *wls, const struct todo *t,
			       size_t n, size_t k, const char *id, enum run_class cls, int *fresh)
{
	if (!hb_interrupted && c->sweep && k + 1 < n &&
	    c->fresh_boots < EXECUTOR_SWEEP_REBOOTS) {
		c->fresh_boots++;
		hb_info("  going on with the next run on a fresh boot (%d of %d after failed runs "
			"in this sweep)", c->fresh_boots, EXECUTOR_SWEEP_REBOOTS);
		*fresh = 1;
		return k + 1;
	}
	char why[600];
	/* an error here is one whose attempts are used up */
	snprintf(why, sizeof(why), "not run: %s run %s%s",
		 hb_interrupted ? "interrupted in" :
		 cls == RUN_FAIL ? "the DUT failed in" : "an error, with every attempt used, ended",
		 id,
		 !hb_interrupted && c->sweep
		 ? "; the sweep's fresh boots after failed runs are used up" : "");
	record_unrun(c, wls, t + k + 1, n - k - 1, 1, hb_interrupted ? RUN_MISS : RUN_ERROR, why);
	return n;
}

/* One boot for the runs t[0..n-1] (interleaved repetitions x workloads, so a
 * drift over time spreads over all workloads alike); t[0] is on its
 * attempt-th try. A failed run ends the boot: the DUT's state is unknown,
 * the rest of this boot would not be a measurement. Returns the index of a
 * run to try again on a fresh boot (an infrastructure error with attempts
 * left; that attempt is stored), or of the run after a failed one when a
 * sweep goes on on a fresh boot (*fresh set), or n when every run is
 * stored. */
static size_t run_boot(struct cell *c, const struct workload *wls, const struct todo *t,
		       size_t n, int attempt, int *fresh)
{
	struct plan_state *ps = c->ps;
	if (!store_has_room(ps))
		return n;
	struct boot bt = { 0 };
	int resumable = 1;
	for (size_t k = 0; k < n; k++)
		resumable &= !dut_paced(&wls[t[k].wl]);
	int boot = boot_cell(c, &wls[t[0].wl], resumable, &bt);
	if (boot < 0) {
		size_t next = boot_failed(c, wls, t, n, attempt, boot, &bt);
		boot_free(&bt);
		return next;
	}
	size_t next = n;
	for (size_t k = 0; k < n && !ps->stopped; k++) {
		char id[40];
		if (!store_has_room(ps))
			break;
		if (k == 0)
			memcpy(id, bt.first_id, sizeof(id));
		else
			store_new_id(id);
		struct run_end e = run_one(c, &bt.d, &wls[t[k].wl], &t[k], k ? 1 : attempt, id);
		if (e.retry) {
			next = k;
			break;
		}
		if (hb_interrupted || (e.cls != RUN_PASS && !e.refused)) {
			next = after_failed_run(c, wls, t, n, k, id, e.cls, fresh);
			break;
		}
	}
	dut_shutdown(&bt.d);
	boot_free(&bt);
	return next;
}
/* Boots until the runs t[0..n-1] are stored, retrying after infrastructure
 * errors: each run is tried at most ps->attempts times. */
static void run_boots(struct cell *c, const struct workload *wls, const struct todo *t, size_t n)
{
	int attempt = 1;
	while (n > 0 && !c->ps->stopped) {
		if (hb_interrupted) {
			record_unrun(c, wls, t, n, attempt, RUN_MISS, "not run: interrupted");
			return;
		}
		int fresh = 0;
		size_t k = run_boot(c, wls, t, n, attempt, &fresh);
		if (k == n)
			return;
		/* run k is retried (its attempt + 1) or, after a failed run
		 * before it, tried for the first time */
		attempt = fresh ? 1 : k == 0 ? attempt + 1 : 2;
		t += k;
		n -= k;
	}
}

/* A flight that ended: what it stored into the plan's counts. */
static void landed(const struct pool_child *f, void *ctx)
{
	struct plan_state *ps = ctx;
	struct flight_report r;
	if (f->len != sizeof(r)) {
		hb_err("the process of a run (pid %d) ended without saying what it stored; "
		       "`hilbench show %s` lists what is in the store", (int)f->pid, ps->session);
		return;
	}
	memcpy(&r, f->got, sizeof(r));
	ps->stored += r.stored;
	ps->kept += r.kept;
	ps->done += r.done;
	ps->passed += r.passed;
	for (int k = 0; k < r.done; k++)
		progress_run_end(ps->prog, 1);
	/* it said why (stop_plan) */
	ps->stopped |= r.stopped;
}

/* Reaps the flights that ended, adding what each stored to the plan's
 * counts; with block, waits for one at least (while any fly). An
 * interrupt is passed on to every flight (run/pool.h). Returns how many
 * ended. */
static size_t land(struct plan_state *ps, int block)
{
	struct pool *fl = &ps->fleet.flights;
	for (;;) {
		size_t ended = pool_reap(fl, landed, ps);
		if (ended || !block || !fl->n)
			return ended;
		progress_draw(ps->prog);
		usleep(100000);
	}
}

/* A flight's work, in its own process: one boot's runs. */
struct flight {
	struct cell *c;
	const struct workload *wls;
	const struct todo *t;
	size_t n;
};

/* The flight's own process: boots, runs and stores its runs with a store
 * connection of its own, then reports on fd what it stored. */
static int fly_child(void *arg, int fd)
{
	const struct flight *f = arg;
	struct plan_state *ps = f->c->ps;
	in_flight = 1;
	struct progress own;
	progress_start(&own);
	own.lines_only = 1;
	ps->prog = &own;
	struct flight_report r = { .stopped = 1 };
	struct store *s = store_open(store_dir(ps->store));
	if (s) {
		struct plan_state before = *ps;
		ps->store = s;
		run_boots(f->c, f->wls, f->t, f->n);
		r = (struct flight_report){ .stored = ps->stored - before.stored,
					    .done = ps->done - before.done,
					    .passed = ps->passed - before.passed,
					    .kept = ps->kept - before.kept, .stopped = ps->stopped };
		store_close(s);
	}
	return write_all(fd, &r, sizeof(r));
}

/* The n runs of t, one boot's, in a flight of their own once one of the
 * fleet's places is free; stored as not run when the plan was interrupted
 * meanwhile. */
static void fly(struct cell *c, const struct workload *wls, const struct todo *t, size_t n)
{
	struct plan_state *ps = c->ps;
	while (ps->fleet.flights.n >= ps->fleet.width)
		land(ps, 1);
	if (ps->stopped)
		return;
	if (hb_interrupted) {
		record_unrun(c, wls, t, n, 1, RUN_MISS, "not run: interrupted");
		return;
	}
	struct flight f = { c, wls, t, n };
	if (pool_start(&ps->fleet.flights, "a boot", fly_child, &f, NULL) < 0) {
		hb_info("running it in this process");
		run_boots(c, wls, t, n);
	}
}

/* Boots of an emulated board at once (--jobs): only in virtual time, a
 * boot per repetition. There a DUT-paced run's numbers do not move with
 * what else the host runs (measure/crosscheck.h), and the others (TCP,
 * UDP the host sends) have the host's turn alone while the others wait,
 * held (take_host_turn()): a backend without deploy_ops.hold cannot wait
 * so, and runs such workloads one boot at a time. In real time every run
 * would need the host alone. */
static size_t emulator_width(const struct plan_state *ps, const struct board *b,
			     const struct deploy_ops *ops, const struct workload *wls, size_t nw)
{
	const struct plan *p = ps->plan;
	int jobs = ps->opts->jobs;
	if (jobs <= 1 || p->boots != BOOTS_PER_REPETITION || p->repetitions < 2)
		return 1;
	const char *why = p->timing != TIMING_VIRTUAL ? "real-time runs would slow each other" : NULL;
	for (size_t i = 0; !why && !ops->hold && i < nw; i++)
		if (!crosscheck_shares_host(&wls[i], board_peer_held(b)))
			why = "a host-paced workload's runs would slow each other";
	if (why) {
		hb_info("%s: --jobs %d: one boot at a time (%s)", b->name, jobs, why);
		return 1;
	}
	hb_info("%s: up to %d boots at once, a repetition each%s", b->name, jobs,
		ops->hold ? "; runs of UDP the host sends one at a time, the others held" : "");
	return (size_t)jobs;
}

/* How many boots of b may fly at once. A backend that boots once per run:
 * --max-jobs, else what the lab can start now, each on a link of its own
 * (the backend's slots), and never more than its cap: devices that share
 * one traffic peer run one job at a time (docs/lava.md, "Fan-out"); 1
 * without slots (lava-local: several lava-run boots at once on this
 * machine were never tried). The emulator: emulator_width(). */
static size_t fleet_width(const struct plan_state *ps, const struct board *b,
			  const struct workload *wls, size_t nw)
{
	const struct deploy_ops *ops = deploy_backend(b->backend);
	if (!ops || !ops->one_run_per_boot || !ops->slots) {
		if (ps->opts->max_jobs > 1)
			hb_info("%s: --max-jobs: its %s backend runs one boot at a time", b->name,
				ops ? ops->name : b->backend);
		return ops && !ops->one_run_per_boot ? emulator_width(ps, b, ops, wls, nw) : 1;
	}
	int cap = 1, slots = ops->slots(b, &cap);
	int n = ps->opts->max_jobs > 0 ? ps->opts->max_jobs : slots;
	if (n > cap) {
		hb_info("%s: --max-jobs %d: at most %d at once (its devices share one traffic peer)",
			b->name, n, cap);
		n = cap;
	}
	if (n > EXECUTOR_MAX_JOBS)
		n = EXECUTOR_MAX_JOBS;
	if (n > 1)
		hb_info("%s: up to %d runs at once, one %s boot each", b->name, n, ops->name);
	return n > 1 ? (size_t)n : 1;
}

static void run_cell(struct cell *c, const struct workload *wls, const struct todo *t, size_t n)
{
	const struct deploy_ops *ops = deploy_backend(c->board->backend);
	if (ops && ops->one_run_per_boot) {
		/* A LAVA job boots, runs one workload and ends. */
		for (size_t i = 0; i < n; i++) {
			if (c->ps->fleet.width > 1)
				fly(c, wls, t + i, 1);
			else
				run_boots(c, wls, t + i, 1);
		}
		return;
	}
	if (c->ps->plan->boots == BOOTS_PER_CELL) {
		run_boots(c, wls, t, n);
		return;
	}
	/* a boot per repetition and kind (cell_todo()'s order) */
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && t[j].rep == t[i].rep &&
			    dut_paced(&wls[t[j].wl]) == dut_paced(&wls[t[i].wl]); j++)
			;
		if (c->ps->fleet.width > 1)
			fly(c, wls, t + i, j - i);
		else
			run_boots(c, wls, t + i, j - i);
	}
}

/* The runs a cell owes: all of them, or on --resume those the session has
 * no pass run for. -1 if the store cannot say. */
static int cell_todo(struct plan_state *ps, const struct cell *c, const struct workload *wls,
		     size_t nwls, struct todo *t, size_t *n)
{
	*n = 0;
	int first = ps->opts->first_repetition > 1 ? ps->opts->first_repetition : 1;
	/* With a boot per repetition, each kind of workload (DUT-paced, then
	 * the others: TCP, what the host sends) has boots of its own, as
	 * compare's planner gives them (run/planner.h): a UDP run after TCP in
	 * one boot spread 5x wider
	 * between boots, and TCP DUT-TX after UDP fell in two modes 7 % apart
	 * where alone in its boot it spread 0.8 % (docs/measurements.md). */
	int kinds = ps->plan->boots == BOOTS_PER_REPETITION ? 2 : 1;
	for (int rep = first; rep < first + ps->plan->repetitions; rep++)
		for (int kind = 0; kind < kinds; kind++)
			for (size_t p = 0; p < c->npoints; p++)
				for (size_t i = 0; i < nwls; i++) {
					bool first_kind = kind == 0;	/* DUT-paced */
					if (kinds == 2 && dut_paced(&wls[i]) != first_kind)
						continue;
					if (ps->opts->runs_of && rep - first >= ps->opts->runs_of[i])
						continue;
					int have = ps->opts->resume ?
						store_has_pass(ps->store, ps->session,
							       c->board->name, c->points[p].label,
							       wls[i].name, rep) : 0;
					if (have < 0)
						return -1;
					if (!have)
						t[(*n)++] = (struct todo){ rep, i, p };
				}
	return 0;
}

/* A run's files are written to runs/.tmp-<pid>-<id>/ and renamed into place
 * when it is stored; a SIGKILLed hilbench leaves its directory behind. Those
 * of processes that are gone are removed (other processes may be writing
 * theirs into the same store). */
static void sweep_dead_tmpdirs(struct store *s)
{
	char *runs = path_join(store_dir(s), "runs");
	DIR *d = opendir(runs);	/* list_dir() skips hidden names: these are */
	struct dirent *e;
	while (d && (e = readdir(d))) {
		int pid, end = 0;
		if (sscanf(e->d_name, ".tmp-%d-%n", &pid, &end) != 1 || !end || pid <= 0 ||
		    kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		char *dir = path_join(runs, e->d_name);
		rm_rf(dir);
		free(dir);
	}
	if (d)
		closedir(d);
	free(runs);
}

/* Every strategy (the plan's and its sweeps') exists for the series the
 * board will build, and that series is one the board lists: typos are
 * input errors (HB_FAIL_INPUT, printed), found before the first build. */
static int check_cell_names(const struct board *b, const struct plan *p,
			    const struct exec_opts *o)
{
	const char *series = o->series ? o->series : b->series.v[0];
	if (images_check_series(b, series) < 0)
		return HB_FAIL_INPUT;
	char err[2048];
	if (plan_check_strategies(p, series, NULL, err, sizeof(err)) < 0) {
		hb_err("%s", err);
		return HB_FAIL_INPUT;
	}
	return 0;
}

/* The plan's cells: its strategies, then each sweep crossed with its own
 * strategies or the plan's. */
static const struct strlist *sweep_strategies(const struct plan *p, const struct sweep *sw)
{
	return sw->strategies.n ? &sw->strategies : &p->strategies;
}

static size_t plan_cells(const struct plan *p)
{
	size_t n = p->strategies.n;
	const struct sweep *sw = p->sweeps.v;
	for (size_t i = 0; i < p->sweeps.n; i++)
		n += sweep_strategies(p, &sw[i])->n;
	return n;
}

static void cell_spec(const struct plan *p, size_t ci, const char **strategy,
		      const struct sweep **sweep)
{
	*sweep = NULL;
	if (ci < p->strategies.n) {
		*strategy = p->strategies.v[ci];
		return;
	}
	ci -= p->strategies.n;
	const struct sweep *sw = p->sweeps.v;
	for (size_t i = 0; i < p->sweeps.n; i++) {
		const struct strlist *l = sweep_strategies(p, &sw[i]);
		if (ci < l->n) {
			*strategy = l->v[ci];
			*sweep = &sw[i];
			return;
		}
		ci -= l->n;
	}
}

/* A cell's points and the runs it owes; HB_FAIL_INPUT (the message
 * printed) for bad input, -1 when the store cannot say. */
static int cell_prepare(struct plan_state *ps, struct cell *c, const char *series,
			const struct sweep *sw, const struct workload *wls, size_t nw,
			struct todo *t, size_t *n)
{
	if (cell_points(c, series, sw) < 0)
		return HB_FAIL_INPUT;
	return cell_todo(ps, c, wls, nw, t, n) < 0 ? -1 : 0;
}

/* --resume: the session to continue, which must have run this plan. */
static int resume_session(struct store *s, const struct plan *p, const char *want,
			  char session[40])
{
	char plan[256];
	if (!strcmp(want, "latest")) {
		if (store_latest_session(s, session, 40) < 0) {
			hb_err("--resume latest: the store %s has no runs yet", store_dir(s));
			return -1;
		}
	} else {
		snprintf(session, 40, "%s", want);
	}
	if (store_session_plan(s, session, plan, sizeof(plan)) < 0) {
		hb_err("--resume %s: no such session in %s; `hilbench show` lists the sessions",
		       session, store_dir(s));
		return -1;
	}
	if (strcmp(plan, p->name)) {
		hb_err("--resume %s: that session ran plan '%s', not '%s'; give the same plan "
		       "and options as the interrupted run", session, plan, p->name);
		return -1;
	}
	return 0;
}

/* What a plan loads before anything runs, and each cell's runs to do. */
struct plan_load {
	struct board *boards;
	struct workload *wls;
	struct todo *todo;	/* one cell's, reused */
	size_t *ntodo;		/* per board and cell */
	size_t nb, nw, ncells;
};

/* Every cell's runs counted into ntodo and the plan's totals, before the
 * first is measured; 0 or cell_prepare()'s failure. */
static int count_runs(struct plan_state *ps, struct plan_load *L)
{
	const struct plan *p = ps->plan;
	int rc = 0;
	for (size_t bi = 0; bi < L->nb && rc == 0; bi++) {
		const char *series = ps->opts->series ? ps->opts->series : L->boards[bi].series.v[0];
		for (size_t ci = 0; ci < L->ncells && rc == 0; ci++) {
			const struct sweep *sw;
			struct cell c = { .ps = ps, .board = &L->boards[bi], .series = series };
			cell_spec(p, ci, &c.strategy, &sw);
			size_t *n = &L->ntodo[bi * L->ncells + ci];
			int prc = cell_prepare(ps, &c, series, sw, L->wls, L->nw, L->todo, n);
			if (prc < 0)
				rc = prc;
			ps->total += (int)*n;
			ps->cells += *n > 0;
			cell_free(&c);
		}
	}
	return rc;
}

/* Cell ci of board bi: built (never retried: a build is deterministic)
 * and run, or its runs stored as not run; HB_FAIL when its runs cannot
 * even be listed again. */
static int build_and_run(struct plan_state *ps, const struct plan_load *L, size_t bi, size_t ci)
{
	const struct exec_opts *o = ps->opts;
	const struct board *b = &L->boards[bi];
	const char *series = o->series ? o->series : b->series.v[0];
	const struct sweep *sw;
	struct cell c = { .ps = ps, .board = b, .series = series };
	cell_spec(ps->plan, ci, &c.strategy, &sw);
	size_t n;
	if (cell_prepare(ps, &c, series, sw, L->wls, L->nw, L->todo, &n) < 0) {
		cell_free(&c);
		return HB_FAIL;
	}
	/* A driver with a bar of its own built the cell already: this finds
	 * the cache, and its moment counts with the runs. */
	if (!o->progress) {
		progress(&c, "building");
		progress_build_begin(ps->prog);
	}
	struct exec_opts bo = *o;
	bo.perf_userland |= workloads_profile_perf(L->wls, L->nw);
	int brc = exec_stages_of(o)->prepare(b, series, c.strategy, &bo, &c.k, &c.u, &c.e);
	c.built = brc == 0;
	if (c.built && c.e.insn_plugin && c.driver.source &&
	    kernel_dir_functions(&c.k, b, c.driver.source, &c.driver_functions) < 0)
		brc = HB_FAIL;
	if (!o->progress)
		progress_build_end(ps->prog);
	if (brc == 0) {
		read_manifest_facts(&c);
		run_cell(&c, L->wls, L->todo, n);
	} else {
		record_unrun(&c, L->wls, L->todo, n, 1, RUN_ERROR,
			     brc == HB_FAIL_INPUT ? "build failed: bad input (see the error above)"
						  : "build failed (see the error above)");
	}
	cell_free(&c);
	return 0;
}

/* The session the runs go to: --resume's, the caller's, or a new one.
 * Runs that finished when the store could not take them are stored first:
 * they are not measured again, and their session exists. */
static int open_session(struct store *s, const struct plan *p, const struct exec_opts *o,
			char session[40])
{
	session[0] = '\0';
	if (o->resume && runfile_import_all(s) < 0)
		return HB_FAIL;
	if (o->resume && resume_session(s, p, o->resume, session) < 0)
		return HB_FAIL_INPUT;
	if (o->session)
		snprintf(session, 40, "%s", o->session);
	else if (!o->resume)
		store_new_id(session);
	return 0;
}

/* The plan's boards and workloads, its names checked. Everything is loaded
 * first: a typo in the last workload must not cost an hour of measurements
 * before it is reported. 0, or HB_FAIL_INPUT (said); plan_load_free() after
 * either. */
static int load_before_running(const struct plan *p, const struct exec_opts *o,
			       struct plan_load *L)
{
	*L = (struct plan_load){ .ncells = plan_cells(p) };
	L->boards = xcalloc(p->boards.n, sizeof(*L->boards));
	L->wls = xcalloc(p->workloads.n, sizeof(*L->wls));
	L->todo = xcalloc(p->workloads.n * (size_t)p->repetitions * SWEEP_MAX_POINTS,
			  sizeof(*L->todo));
	L->ntodo = xcalloc(p->boards.n * L->ncells, sizeof(*L->ntodo));
	int rc = 0;
	for (; L->nb < p->boards.n && rc == 0; L->nb++)
		if (catalog_board(p->boards.v[L->nb], &L->boards[L->nb]) < 0)
			rc = HB_FAIL_INPUT;
	for (; L->nw < p->workloads.n && rc == 0; L->nw++)
		if (catalog_workload(p->workloads.v[L->nw], &L->wls[L->nw]) < 0)
			rc = HB_FAIL_INPUT;
		else
			workload_as_run(&L->wls[L->nw], p->boots == BOOTS_PER_REPETITION &&
					p->timing == TIMING_VIRTUAL);
	for (size_t bi = 0; bi < L->nb && rc == 0; bi++)
		rc = check_cell_names(&L->boards[bi], p, o);
	return rc;
}

static void plan_load_free(struct plan_load *L)
{
	for (size_t i = 0; i < L->nb; i++)
		board_free(&L->boards[i]);
	for (size_t i = 0; i < L->nw; i++)
		workload_free(&L->wls[i]);
	free(L->boards);
	free(L->wls);
	free(L->todo);
	free(L->ntodo);
}

/* Every board's cells that owe runs, built and run, until the plan is
 * interrupted or stopped; a board's flights all land before the next
 * board's start (it may fly another width). HB_FAIL when a cell's runs
 * cannot even be listed again. */
static int run_boards(struct plan_state *ps, const struct plan_load *L)
{
	int rc = 0;
	for (size_t bi = 0; bi < L->nb && !hb_interrupted && !ps->stopped && rc == 0; bi++) {
		ps->fleet.width = fleet_width(ps, &L->boards[bi], L->wls, L->nw);
		/* an emulated board's flights all land before its next cell's
		 * build, which would take their cores (a lab's go on meanwhile) */
		const struct deploy_ops *ops = deploy_backend(L->boards[bi].backend);
		int per_cell = ops && !ops->one_run_per_boot;
		for (size_t ci = 0; ci < L->ncells && !hb_interrupted && !ps->stopped; ci++) {
			if (!L->ntodo[bi * L->ncells + ci])
				continue;	/* resumed: nothing left in this cell */
			if (build_and_run(ps, L, bi, ci) < 0) {
				rc = HB_FAIL;
				break;
			}
			while (per_cell && ps->fleet.flights.n)
				land(ps, 1);
		}
		while (ps->fleet.flights.n)
			land(ps, 1);
	}
	return rc;
}

int executor_run_plan(const struct plan *p, struct store *s, const struct exec_opts *o,
		      char session[40])
{
	struct plan_state ps = { .plan = p, .opts = o, .store = s, .session = session };
	ps.prog = o->progress ? o->progress : &ps.own;
	if (!o->progress)
		progress_start(&ps.own);
	ps.attempts = o->attempts > 0 ? o->attempts : EXECUTOR_ATTEMPTS;
	int rc = open_session(s, p, o, session);
	if (rc != 0)
		return rc;
	fill_provenance(&ps);
	struct plan_load L;
	rc = load_before_running(p, o, &L);
	/* A store that cannot take runs is found before anything is measured. */
	if (rc == 0 && store_check_writable(s) < 0)
		rc = HB_FAIL;
	if (rc == 0) {
		sweep_dead_tmpdirs(s);
		rc = count_runs(&ps, &L);
	}
	if (rc == 0 && !o->progress) {
		progress_expect(&ps.own, ps.total, ps.cells);
		hb_info("session %s: plan %s, %d runs (%zu boards x %zu cells x %zu workloads x "
			"%d%s), %s time", session, p->name, ps.total, p->boards.n, L.ncells,
			p->workloads.n, p->repetitions,
			o->resume ? ", less those already passed" : "", timing_mode_name(p->timing));
	}
	if (rc == 0)
		rc = run_boards(&ps, &L);
	if (rc == 0 && !o->progress) {
		progress_end(&ps.own);
		hb_info("session %s: %d of %d runs passed", session, ps.passed, ps.total);
	}
	if (rc == 0)
		rc = ps.passed == ps.total ? 0 : HB_FAIL;
	plan_load_free(&L);
	pool_free(&ps.fleet.flights);
	return rc;
}
