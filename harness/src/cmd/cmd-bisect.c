#include <getopt.h>
#include <math.h>
#include <stdio.h>

#include "cmd/builtin.h"
#include "run/bisect.h"
#include "store/metrics.h"
#include "util/util.h"

static const char usage[] =
	"usage: hilbench bisect --good REV --bad REV --kernel-git DIR [--kernel-base REV]\n"
	"                       [--metric M] [--plan P]\n"
	"Which commit between GOOD and BAD made METRIC (default pps) worse? Drives\n"
	"`git bisect run` in a temporary worktree of DIR (DIR's HEAD, index and\n"
	"work tree are never touched). Each revision is built as Debian's\n"
	"linux-source plus `git diff BASE REV` (BASE: --kernel-base, default the\n"
	"root commit; docs/history.md) and measured with the plan's reference\n"
	"strategy, first workload, repetitions and timing (default plan: gate).\n"
	"A step is bad when the plan's gate says REGRESSED against GOOD, good when\n"
	"it says pass or improved, and skipped (125) when it cannot be built,\n"
	"booted or decided.\n"
	"Exit: 0 culprit found, 125 GOOD and BAD do not differ or no culprit\n"
	"could be named, 2 bad input.\n";

/* -1: go on; else the exit code (help printed, or a usage error said). */
static int parse(int argc, char **argv, struct bisect *b, int *step)
{
	static const struct option opts[] = {
		{ "good", required_argument, NULL, 'g' },
		{ "bad", required_argument, NULL, 'B' },
		{ "kernel-git", required_argument, NULL, 'k' },
		{ "kernel-base", required_argument, NULL, 'K' },
		{ "metric", required_argument, NULL, 'm' },
		{ "plan", required_argument, NULL, 'p' },
		/* for the steps `git bisect run` calls back */
		{ "step", no_argument, NULL, 'S' },
		{ "log", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "g:B:k:K:m:p:Sl:h", opts, NULL)) != -1) {
		switch (c) {
		case 'g': b->good = optarg; break;
		case 'B': b->bad = optarg; break;
		case 'k': b->repo = optarg; break;
		case 'K': b->base = optarg; break;
		case 'm': b->metric = optarg; break;
		case 'p': b->plan_name = optarg; break;
		case 'S': *step = 1; break;
		case 'l': b->log = optarg; break;
		default:
			fputs(usage, c == 'h' ? stdout : stderr);
			return c == 'h' ? HB_EXIT_OK : HB_EXIT_USAGE;
		}
	}
	if (optind < argc || !b->good || !b->bad || !b->repo ||
	    (*step && !b->log)) {
		hb_err("give --good REV --bad REV --kernel-git DIR; see `hilbench bisect --help`");
		return HB_EXIT_USAGE;
	}
	return -1;
}

/* GOOD against BAD, as the gate judged them. */
static void print_ends(const struct bisect *b)
{
	printf("good %.12s: %s %.6g (%zu runs); bad %.12s: %.6g (%zu runs) "
	       "(%+.2f %%, threshold %.2f %%): %s\n", b->good_rev.commit, b->metric,
	       bisect_mean(&b->good_values), b->good_values.n, b->bad_rev.commit,
	       bisect_mean(&b->bad_values), b->bad_values.n, b->ends.delta_pct, b->threshold_pct,
	       gate_outcome_name(b->ends.outcome));
	if (b->ends.where[0])
		printf("  where: %s\n", b->ends.where);
}

static void print_culprit(const struct bisect *b)
{
	printf("culprit %s %s\n", b->culprit, b->subject ? b->subject : "");
	printf("  %s: %.6g before (%.12s) -> %.6g after (%+.2f %%)\n", b->metric, b->before,
	       b->parent ? b->parent : "?", b->after, 100 * (b->after - b->before) / fabs(b->before));
	if (b->where[0])
		printf("  where: %s\n", b->where);
}

static int run_bisect(struct bisect *b, struct store *s)
{
	int rc = hb_exit_of(bisect_ends(b, s));
	if (rc)
		return rc;
	print_ends(b);
	if (b->ends.outcome != GATE_REGRESSED) {
		hb_err("bisect: BAD is not a regression of GOOD on %s; nothing to bisect", b->metric);
		return HB_EXIT_INFRA;
	}
	rc = hb_exit_of(bisect_narrow(b, s));
	if (rc == 0)
		print_culprit(b);
	return rc;
}

int cmd_bisect(int argc, char **argv)
{
	struct bisect b = { .metric = METRIC_PPS, .plan_name = PLAN_GATE };
	int step = 0;
	int rc = parse(argc, argv, &b, &step);
	if (rc == -1 && (rc = hb_exit_of(bisect_load(&b))) == 0) {
		struct store *s = store_open(hb_store_dir());
		if (!s) {
			rc = HB_EXIT_INFRA;
		} else {
			hb_install_interrupt_handlers();
			rc = step ? bisect_step(&b, s) : run_bisect(&b, s);
			store_close(s);
		}
	} else if (step && rc != HB_EXIT_OK) {
		rc = BISECT_SKIP;	/* a step never aborts git bisect */
	}
	bisect_free(&b);
	return rc;
}
