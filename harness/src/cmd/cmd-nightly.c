#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/history.h"
#include "cmd/builtin.h"
#include "cmd/options.h"
#include "config/catalog.h"
#include "deploy/dut.h"
#include "run/nightly.h"
#include "util/util.h"

static const char usage[] =
	"usage: hilbench nightly PLAN [--kernel-git DIR --rev REV [--kernel-base REV]]\n"
	"                             [--min-segment N] [--alpha A]\n"
	"Cron-friendly: runs PLAN once per kernel revision, then looks for change\n"
	"points, and runs in two modes, in the plan's history (docs/history.md).\n"
	"  - a lock (<store>/nightly.lock): a second nightly on the same store\n"
	"    while one runs exits 125 at once;\n"
	"  - idempotent: when this plan (same file contents) already ran against\n"
	"    this kernel revision, the stored session is reported, not rerun;\n"
	"  - the revision is Debian's linux-source package version of every\n"
	"    board's kernel series, or with --kernel-git the commit REV resolves\n"
	"    to: Debian's source plus `git diff BASE REV` (docs/history.md).\n"
	"Exit: 0 no regression, 1 the newest change of some series is a\n"
	"regression, 125 runs missing or another nightly running, 2 bad input.\n";

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
	plan_gate_for_timing(&plan);
	struct nightly n = { .plan = &plan, .repo = repo, .rev = rev, .base = base };
	struct store *s = store_open(hb_store_dir());
	int rc = s ? hb_exit_of(nightly_run(&n, s)) : HB_EXIT_INFRA;
	if (rc)
		goto out;
	printf("nightly: plan %s, %s, session %s:", plan.name, n.revision, n.session);
	for (int i = 0; i < RUN_CLASSES; i++)
		printf("%s %zu %s", i ? "," : "", n.classes[i], run_class_name((enum run_class)i));
	printf("\n");

	struct history h;
	struct selection sel = { .plan = plan.name };
	rc = HB_EXIT_INFRA;
	if (history_load(s, &sel, NULL, HIST_PER_RUN, &h) < 0)
		goto out;
	history_detect(&h, &cp);
	if (history_movers(&h, s) < 0 || history_modes(&h, s) < 0) {
		history_free(&h);
		goto out;
	}
	history_write_changes(&h, stdout);
	int regression = history_newest_is_regression(&h);
	history_free(&h);
	rc = regression ? HB_EXIT_FAIL : hb_interrupted ? HB_EXIT_INFRA : hb_exit_of(n.run_rc);
	printf("nightly: %s\n", regression ? "REGRESSION in the newest segment" :
	       rc == HB_EXIT_OK ? "ok" : "runs missing (stored with their reasons); will rerun");
out:
	if (s)
		nightly_free(&n);
	store_close(s);
	plan_free(&plan);
	return rc;
}
