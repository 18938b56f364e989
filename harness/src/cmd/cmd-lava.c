#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build/image.h"
#include "cmd/builtin.h"
#include "config/catalog.h"
#include "config/setting.h"
#include "config/strategy.h"
#include "deploy/dut.h"
#include "deploy/lava_artifacts.h"
#include "deploy/lava_client.h"
#include "deploy/lava_job.h"
#include "deploy/lava_log.h"
#include "run/images.h"
#include "util/util.h"

static const char usage[] =
	"usage: hilbench lava job --board B --strategy S --workload W [--out FILE]\n"
	"                         [--kernel-series S] [--job-name NAME]\n"
	"                         [--kernel K --dtb D --ramdisk R]\n"
	"Prints the LAVA job for one cell (docs/lava.md): it deploys the cell's\n"
	"kernel, dtb and initramfs, boots them, has the agent apply the strategy's\n"
	"runtime settings and run the workload once, and reports each setting and\n"
	"metric as a lava-test-case. The board needs a lava: section.\n"
	"Kernel and initramfs are built if they are not cached, and referenced as\n"
	"file:// URLs (for lava-run on this machine), or, when the board names the\n"
	"lab's artifact host (lava.artifact_url), published there and referenced\n"
	"over HTTP with their SHA-256. --kernel, --dtb and --ramdisk (all three: a\n"
	"URL, or a path) name them instead, and nothing is built.\n"
	"\n"
	"usage: hilbench lava submit JOB.yaml [--server URL] [--device HOSTNAME]\n"
	"Submits a job to a LAVA server's REST API and follows it to the end:\n"
	"prints the job id, the DUT's console and LAVA's test results, and exits 0\n"
	"when the job completed, 1 when it was Incomplete or Canceled, 125 when the\n"
	"server could not be reached, 2 when it rejected the job. With --device,\n"
	"a device that is Bad, in Maintenance or Retired is reported before\n"
	"submitting. Ctrl-C cancels the job. The server is --server or\n"
	"$HILBENCH_LAVA_URL; the token comes from the file $HILBENCH_LAVA_TOKEN_FILE\n"
	"names, or $HILBENCH_LAVA_TOKEN, and is never printed. The server must be\n"
	"https://, or http:// on this machine (or with $HILBENCH_LAVA_ALLOW_HTTP=1).\n";

struct lava_opts {
	const char *board, *strategy, *workload, *out, *series, *job_name;
	const char *files[3];	/* kernel, dtb, ramdisk as given */
};

/* A file of this machine as the job's URL: published on the lab's
 * artifact host when the board names one (art->lab_server), with its
 * SHA-256; else a file:// URL for lava-run here, with its SHA-256 when
 * want_sum. An exit code. */
static int file_artifact(struct lava_artifacts *art, const char *path, int want_sum,
			 char **url, char sum[65], const char **sum_out)
{
	char err[512];

	if (art->lab_server) {
		if (lava_artifacts_publish(art, path, url, sum) < 0)
			return HB_EXIT_INFRA;
		*sum_out = sum;
		return 0;
	}
	char *abs = realpath(path, NULL);
	if (!abs) {
		hb_err("%s: %s", path, strerror(errno));
		return HB_EXIT_USAGE;
	}
	int rc = 0;
	if (!(*url = lava_file_url(abs, err, sizeof(err)))) {
		hb_err("%s", err);
		rc = HB_EXIT_USAGE;
	} else if (want_sum && sha256_file_hex(abs, sum) < 0) {
		hb_err("cannot read %s: %s", abs, strerror(errno));
		rc = HB_EXIT_INFRA;
	} else if (want_sum) {
		*sum_out = sum;
	}
	free(abs);
	return rc;
}

/* What a lab job's agent is told besides the run, owned here for the
 * spec that points into it. */
struct job_extras {
	struct strlist entries;		/* the strategy's "name=value" */
	struct setting_def *defs;
	struct lava_job_setting *settings;
	size_t n;
	char *functions;
};

static void job_extras_free(struct job_extras *x)
{
	for (size_t i = 0; i < x->n; i++)
		setting_free(&x->defs[i]);
	free(x->defs);
	free(x->settings);
	strlist_free(&x->entries);
	free(x->functions);
}

/* The strategy's runtime settings as the job's agent applies them (the
 * same settings/ files the runner sends on every other backend). */
static int job_settings(const struct strlist *entries, struct job_extras *x,
			struct lava_job_spec *spec)
{
	char err[512], name[128];
	const char *value;

	for (size_t i = 0; i < entries->n; i++)
		strlist_push(&x->entries, entries->v[i]);
	x->defs = xcalloc(x->entries.n + 1, sizeof(*x->defs));
	x->settings = xcalloc(x->entries.n + 1, sizeof(*x->settings));
	for (; x->n < x->entries.n; x->n++) {
		struct setting_def *d = &x->defs[x->n];
		snprintf(err, sizeof(err), "not name=value");
		int found = setting_split(x->entries.v[x->n], name, sizeof(name), &value) == 0 &&
			    setting_find(name, d, err, sizeof(err)) == 0;
		if (!found || setting_check_value(d, value, err, sizeof(err)) < 0) {
			if (found)
				setting_free(d);
			hb_err("strategy %s, setting '%s': %s", spec->strategy, x->entries.v[x->n],
			       err);
			return HB_EXIT_USAGE;
		}
		x->settings[x->n] = (struct lava_job_setting){
			.name = d->name, .method = setting_method_name(d->method), .key = d->key,
			.value = value,
			.compare = d->read_back == SR_INTEGER ? LAVA_READ_BACK_NUMBER
				   : d->read_back == SR_NAME  ? LAVA_READ_BACK_TEXT
							      : LAVA_READ_BACK_AGENT,
		};
	}
	spec->settings = x->settings;
	spec->n_settings = x->n;
	return 0;
}

/* Kernel, dtb and ramdisk URLs (with SHA-256 sums when built here), and
 * the strategy's driver under test in *dr (its TX timer goes into the job's
 * report), or an exit code. */
static int artifacts(const struct lava_opts *o, const struct board *b, const char *series,
		     struct lava_job_spec *spec, char *urls[3], char sums[3][65], char key[65],
		     struct driver *dr, struct job_extras *settings)
{
	struct lava_artifact *a[3] = { &spec->kernel, &spec->dtb, &spec->ramdisk };
	char err[512];

	/* A job for a strategy that does not exist is a mistake even with
	 * prebuilt files. Its runtime settings go into the job, applied by the
	 * agent before the run; an ftrace workload's functions come from the
	 * strategy's driver, as on every backend. */
	struct strategy st;
	if (strategy_load(series, o->strategy, &st, err, sizeof(err)) < 0) {
		hb_err("%s", err);
		return HB_EXIT_USAGE;
	}
	int no_driver = st.driver && catalog_driver(st.driver, dr) < 0;
	int rc = no_driver ? HB_EXIT_USAGE : job_settings(&st.settings, settings, spec);
	strategy_free(&st);
	if (rc)
		return rc;
	spec->tx_timer = dr->tx_timer;
	if (spec->workload->profile == WL_PROFILE_FTRACE) {
		if (!dr->profile.n) {
			hb_err("workload %s profiles the driver under test's functions, and strategy "
			       "%s names no driver (driver: in its series file)",
			       spec->workload->name, o->strategy);
			return HB_EXIT_USAGE;
		}
		settings->functions = argv_join(&dr->profile, ",");
		spec->functions = settings->functions;
	}
	/* A board on a lab's workers (lava.artifact_url): every file goes
	 * to its artifact host, and the job has no file:// URL. */
	struct lava_artifacts art = { 0 };
	spec->remote_worker = b->lava.artifact_url != NULL;
	if (spec->remote_worker && lava_artifacts_open(&art, b, NULL, NULL) < 0)
		return HB_EXIT_INFRA;
	if (o->files[0]) {
		for (int i = 0; i < 3; i++) {
			rc = strstr(o->files[i], "://")
				     ? (urls[i] = xstrdup(o->files[i]), 0)
				     : file_artifact(&art, o->files[i], 0, &urls[i], sums[i],
						     &a[i]->sha256);
			if (rc)
				return rc;
		}
	} else {
		struct exec_opts bo = { .perf_userland = workloads_profile_perf(spec->workload, 1) };
		struct build_result k;
		struct userland_result u;
		rc = hb_exit_of(images_prepare(b, series, o->strategy, &bo, &k, &u, NULL));
		if (rc)
			return rc;
		const char *paths[3] = { k.image, k.dtb, u.initramfs };
		/* kernel_type uimage: the job deploys the uImage hilbench made
		 * (with the DTB appended where the board's boot loader wants it). */
		struct boot_images im = { 0 };
		if (!strcmp(b->lava.kernel_type, "uimage")) {
			char *cmdline = images_cmdline(b);
			rc = hb_exit_of(boot_images_build(b, &k, &u, cmdline, &im));
			free(cmdline);
			if (rc) {
				build_result_free(&k);
				userland_result_free(&u);
				return rc;
			}
			paths[0] = im.kernel;
		}
		for (int i = 0; i < 3 && rc == 0; i++)
			rc = file_artifact(&art, paths[i], 1, &urls[i], sums[i], &a[i]->sha256);
		snprintf(key, 65, "%s", k.key);
		spec->kernel_key = key;
		boot_images_free(&im);
		build_result_free(&k);
		userland_result_free(&u);
		if (rc)
			return rc;
	}
	for (int i = 0; i < 3; i++)
		a[i]->url = urls[i];
	return 0;
}

/* --out's directory is there and writable: a path the user must fix is
 * bad input, found before anything is built (a full disk while writing
 * is not). */
static int out_dir_writable(const char *path)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, strlen(dir) + 1, ".");
	else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	int ok = access(dir, W_OK) == 0;
	if (!ok)
		hb_err("--out %s: cannot write in %s: %s; give --out a path in a writable "
		       "directory", path, dir, strerror(errno));
	free(dir);
	return ok;
}

static int render(const struct lava_opts *o)
{
	struct board b;
	struct workload w;
	char *urls[3] = { NULL, NULL, NULL };
	char sums[3][65], key[65], err[512];
	char *awk_path = hb_agent_file("lava-report.awk");
	char *awk = NULL, *cmdline = NULL, *job = NULL;
	struct driver dr = { 0 };
	struct job_extras extras = { 0 };
	int rc = HB_EXIT_USAGE;

	if (catalog_board(o->board, &b) < 0) {
		free(awk_path);
		return HB_EXIT_USAGE;
	}
	if (catalog_workload(o->workload, &w) < 0)
		goto out_board;
	/* Known before anything is built; the renderer says it again. */
	if (!b.lava.device_type) {
		hb_err("board %s has no lava: section; add one (docs/lava.md)", b.name);
		goto out;
	}
	if (o->out && !out_dir_writable(o->out))
		goto out;
	if (!(awk = read_file(awk_path, NULL))) {
		hb_err("cannot read %s: %s", awk_path, strerror(errno));
		rc = HB_EXIT_INFRA;
		goto out;
	}
	const char *series = o->series ? o->series : b.series.v[0];
	struct lava_job_spec spec = {
		.board = &b, .series = series, .strategy = o->strategy, .workload = &w,
		.job_name = o->job_name, .report_awk = awk,
	};
	rc = artifacts(o, &b, series, &spec, urls, sums, key, &dr, &extras);
	if (rc)
		goto out;
	spec.kernel_args = cmdline = images_cmdline(&b);
	rc = HB_EXIT_USAGE;
	if (!(job = lava_job_render(&spec, err, sizeof(err)))) {
		hb_err("%s", err);
	} else if (!o->out) {
		fputs(job, stdout);
		rc = HB_EXIT_OK;
	} else if (write_file_atomic(o->out, job, strlen(job)) < 0) {
		hb_err("cannot write %s: %s", o->out, strerror(errno));
		rc = HB_EXIT_INFRA;
	} else {
		rc = HB_EXIT_OK;
	}
out:
	workload_free(&w);
out_board:
	board_free(&b);
	for (int i = 0; i < 3; i++)
		free(urls[i]);
	free(job);
	free(cmdline);
	free(awk);
	free(awk_path);
	driver_free(&dr);
	job_extras_free(&extras);
	return rc;
}

/* Prints what LAVA logged from line *next on: the console, and results. */
static int follow_logs(struct lava_client *c, long id, long *next, char *err, size_t errlen)
{
	char *text;
	int rc = lava_job_logs(c, id, *next, &text, err, errlen);
	if (rc != 0)
		return rc;
	struct lava_log_entry *e = xmalloc(sizeof(*e));
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		(*next)++;
		if (lava_log_parse(line, e) < 0)
			continue;
		if (!strcmp(e->lvl, "target"))
			printf("%s\n", e->msg);
		else if (!strcmp(e->lvl, "results"))
			printf("# LAVA result: %s/%s %s%s%s%s%s\n", e->definition, e->test_case,
			       e->result, e->measurement[0] ? " " : "", e->measurement,
			       e->units[0] ? " " : "", e->units);
	}
	fflush(stdout);
	free(e);
	free(text);
	return 0;
}

static int submit(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "server", required_argument, NULL, 's' },
		{ "device", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *server = getenv("HILBENCH_LAVA_URL"), *device = NULL;
	char err[1024], *token = NULL, state[32] = "", health[32] = "";
	int c;

	while ((c = getopt_long(argc, argv, "s:d:h", opts, NULL)) != -1) {
		switch (c) {
		case 's': server = optarg; break;
		case 'd': device = optarg; break;
		default:
			fputs(usage, c == 'h' ? stdout : stderr);
			return c == 'h' ? HB_EXIT_OK : HB_EXIT_USAGE;
		}
	}
	if (optind != argc - 1 || !server || !server[0]) {
		hb_err("lava submit needs one JOB.yaml and a server (--server URL or $HILBENCH_LAVA_URL)");
		return HB_EXIT_USAGE;
	}
	char *job = read_file(argv[optind], NULL);
	if (!job) {
		hb_err("cannot read %s: %s", argv[optind], strerror(errno));
		return HB_EXIT_USAGE;
	}
	if (lava_token_load(&token, err, sizeof(err)) < 0) {
		hb_err("%s", err);
		free(job);
		return HB_EXIT_USAGE;
	}
	hb_install_interrupt_handlers();
	struct lava_client *lc = lava_client_new(server, token, NULL, err, sizeof(err));
	lava_token_free(token);
	if (!lc) {
		hb_err("%s", err);
		free(job);
		return HB_EXIT_USAGE;
	}
	long id = 0, next = 0;
	int rc = 0, status = HB_EXIT_INFRA;
	if (device && (rc = lava_device_check(lc, device, err, sizeof(err))) < 0)
		goto fail;
	if ((rc = lava_submit(lc, job, &id, err, sizeof(err))) < 0)
		goto fail;
	hb_info("LAVA job %ld submitted to %s", id, server);
	while (!hb_interrupted) {
		if ((rc = lava_job_status(lc, id, state, health, err, sizeof(err))) < 0 ||
		    (rc = follow_logs(lc, id, &next, err, sizeof(err))) < 0)
			goto fail;
		if (!strcmp(state, "Finished"))
			break;
		for (int i = 0; i < 20 && !hb_interrupted; i++)
			usleep(100000);
	}
	if (hb_interrupted) {
		/* A fresh start for the cancel itself: the flag ends every wait. */
		hb_interrupted = 0;
		rc = lava_job_cancel(lc, id, err, sizeof(err));
		hb_info("LAVA job %ld: %s", id, rc == 0 ? "canceled" : err);
		status = HB_EXIT_INFRA;
		goto out;
	}
	hb_info("LAVA job %ld finished: %s", id, health);
	status = !strcmp(health, "Complete") ? HB_EXIT_OK : HB_EXIT_FAIL;
	goto out;
fail:
	hb_err("%s", err);
	status = hb_exit_of(rc);
out:
	lava_client_free(lc);
	free(job);
	return status;
}

int cmd_lava(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "board", required_argument, NULL, 'b' },
		{ "strategy", required_argument, NULL, 's' },
		{ "workload", required_argument, NULL, 'w' },
		{ "out", required_argument, NULL, 'o' },
		{ "kernel-series", required_argument, NULL, 'S' },
		{ "job-name", required_argument, NULL, 'n' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "dtb", required_argument, NULL, 'd' },
		{ "ramdisk", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct lava_opts o = { 0 };
	int c;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage, stdout);
		return HB_EXIT_OK;
	}
	if (argc >= 2 && !strcmp(argv[1], "submit"))
		return submit(argc - 1, argv + 1);
	if (argc < 2 || strcmp(argv[1], "job")) {
		fputs(usage, stderr);
		return HB_EXIT_USAGE;
	}
	while ((c = getopt_long(argc - 1, argv + 1, "b:s:w:o:S:n:k:d:r:h", opts, NULL)) != -1) {
		switch (c) {
		case 'b': o.board = optarg; break;
		case 's': o.strategy = optarg; break;
		case 'w': o.workload = optarg; break;
		case 'o': o.out = optarg; break;
		case 'S': o.series = optarg; break;
		case 'n': o.job_name = optarg; break;
		case 'k': o.files[0] = optarg; break;
		case 'd': o.files[1] = optarg; break;
		case 'r': o.files[2] = optarg; break;
		default:
			fputs(usage, c == 'h' ? stdout : stderr);
			return c == 'h' ? HB_EXIT_OK : HB_EXIT_USAGE;
		}
	}
	if (optind != argc - 1 || !o.board || !o.strategy || !o.workload) {
		hb_err("lava job needs --board, --strategy and --workload, and nothing else");
		return HB_EXIT_USAGE;
	}
	if ((o.files[0] || o.files[1] || o.files[2]) &&
	    !(o.files[0] && o.files[1] && o.files[2])) {
		hb_err("give all of --kernel, --dtb and --ramdisk, or none (to build them)");
		return HB_EXIT_USAGE;
	}
	return render(&o);
}
