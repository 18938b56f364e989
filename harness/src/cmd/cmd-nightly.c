#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/history.h"
#include "build/gitsource.h"
#include "cmd/builtin.h"
#include "cmd/options.h"
#include "config/board.h"
#include "config/catalog.h"
#include "deploy/dut.h"
#include "run/executor.h"
#include "run/revision.h"
#include "measure/nightly.h"
#include "util/proc.h"
#include "util/util.h"

static const char usage[] =
	"usage: hilbench nightly PLAN [--kernel-git DIR --rev REV [--kernel-base REV]]\n"
	"                             [--min-segment N] [--alpha A]\n"
	"Cron-friendly: runs PLAN once per kernel revision, then looks for change\n"
	"points in the plan's history (docs/history.md).\n"
	"  - a lock (<store>/nightly.lock): a second nightly on the same store\n"
	"    while one runs exits 125 at once;\n"
	"  - idempotent: when this plan (same file contents) already ran against\n"
	"    this kernel revision, the stored session is reported, not rerun;\n"
	"  - the revision is Debian's linux-source package version of every\n"
	"    board's kernel series, or with --kernel-git the commit REV resolves\n"
	"    to: Debian's source plus `git diff BASE REV` (docs/history.md).\n"
	"Exit: 0 no regression, 1 the newest change of some series is a\n"
	"regression, 125 runs missing or another nightly running, 2 bad input.\n";

/* What the kernel source is tonight: the Debian package version per series. */
static char *debian_revision(const struct plan *p)
{
	struct strlist parts = { 0 };
	for (size_t i = 0; i < p->boards.n; i++) {
		struct board b = { 0 };
		if (catalog_board(p->boards.v[i], &b) < 0) {
			strlist_free(&parts);
			return NULL;
		}
		char *pkg = xasprintf("linux-source-%s", b.series.v[0]);
		char *q[] = { "dpkg-query", "-W", "-f", "${Version}", pkg, NULL };
		char *v = proc_output(q);
		strlist_pushf(&parts, "%s=%s", pkg, v && *v ? v : "not-installed");
		free(v);
		free(pkg);
		board_free(&b);
	}
	strlist_sort(&parts);
	char *out = argv_join(&parts, " ");
	strlist_free(&parts);
	return out;
}

struct class_count {
	size_t n[RUN_CLASSES];	/* by enum run_class */
	char last[40];		/* rows come per run and metric: count a run once */
};

static int count_class(const struct run_row *r, void *ctx)
{
	struct class_count *k = ctx;
	enum run_class cls;
	if (!strcmp(k->last, r->id))
		return 0;
	snprintf(k->last, sizeof(k->last), "%s", r->id);
	if (run_class_parse(r->cls, &cls) == 0)
		k->n[cls]++;
	return 0;
}

int cmd_nightly(int argc, char **argv)
{
	static const struct option opts[] = {
		CP_OPTION_MIN_SEGMENT,
		CP_OPTION_ALPHA,
		{ "kernel-git", required_argument, NULL, 'k' },
		{ "rev", required_argument, NULL, 'r' },
		{ "kernel-base", required_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct cp_params cp;
	cp_params_default(&cp);
	const char *repo = NULL, *rev = NULL, *base = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "n:A:k:r:K:h", opts, NULL)) != -1) {
		int taken = changepoint_option(c, optarg, &cp);
		if (taken < 0)
			return HB_EXIT_USAGE;
		if (taken)
			continue;
		switch (c) {
		case 'k': repo = optarg; break;
		case 'r': rev = optarg; break;
		case 'K': base = optarg; break;
		default:
			fputs(usage, c == 'h' ? stdout : stderr);
			return c == 'h' ? HB_EXIT_OK : HB_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		hb_err("name one PLAN (see `hilbench list plans`)");
		return HB_EXIT_USAGE;
	}
	if (!repo != !rev) {
		hb_err("--kernel-git DIR and --rev REV go together");
		return HB_EXIT_USAGE;
	}
	struct plan plan = { 0 };
	if (catalog_plan(argv[optind], &plan) < 0)
		return HB_EXIT_USAGE;
	int rc = HB_EXIT_INFRA, busy = 0, lock = -1;
	char *revision = NULL;
	struct git_revision gr = { 0 };
	struct exec_opts bo = { 0 };
	char tag[16];
	struct store *s = store_open(hb_store_dir());
	if (!s)
		goto out;
	if ((lock = nightly_lock(s, &busy)) < 0) {
		if (busy)
			hb_err("another hilbench nightly is running on %s (it holds nightly.lock); "
			       "this one does nothing", store_dir(s));
		goto out;
	}
	rc = HB_EXIT_USAGE;
	if (repo) {
		if (exec_opts_use_revision(&bo, repo, rev, base, &gr, tag) < 0)
			goto out;
		revision = xasprintf("git %s (base %.12s)", gr.commit, gr.base);
	} else if (!(revision = debian_revision(&plan))) {
		goto out;
	}
	char key[65], session[64];
	nightly_key(plan.path, revision, key);
	int found = nightly_find(s, key, session, sizeof(session));
	rc = HB_EXIT_INFRA;
	if (found < 0)
		goto out;
	int run_rc = HB_EXIT_OK;
	if (found) {
		hb_info("nightly: plan %s against %s already measured in session %s; not rerun",
			plan.name, revision, session);
	} else {
		hb_install_interrupt_handlers();
		char id[40];
		run_rc = executor_run_plan(&plan, s, &bo, id);
		snprintf(session, sizeof(session), "%s", id);
		if (run_rc == HB_EXIT_OK && !hb_interrupted)
			nightly_record(s, key, plan.name, revision, session);
	}
	struct class_count k = { 0 };
	struct selection mine = { .session = session, .all_classes = 1 };
	if (store_foreach(s, &mine, count_class, &k) < 0)
		goto out;
	printf("nightly: plan %s, %s, session %s:", plan.name, revision, session);
	for (int i = 0; i < RUN_CLASSES; i++)
		printf("%s %zu %s", i ? "," : "", k.n[i], run_class_name((enum run_class)i));
	printf("\n");

	struct history h;
	struct selection sel = { .plan = plan.name };
	if (history_load(s, &sel, NULL, HIST_PER_RUN, &h) < 0)
		goto out;
	history_detect(&h, &cp);
	history_write_changes(&h, stdout);
	int regression = history_newest_is_regression(&h);
	history_free(&h);
	rc = regression ? HB_EXIT_FAIL : hb_interrupted ? HB_EXIT_INFRA : run_rc;
	printf("nightly: %s\n", regression ? "REGRESSION in the newest segment" :
	       rc == HB_EXIT_OK ? "ok" : "runs missing (stored with their reasons); will rerun");
out:
	nightly_unlock(lock);
	free(revision);
	git_revision_free(&gr);
	strlist_free(&bo.user_patches);
	store_close(s);
	plan_free(&plan);
	return rc;
}
