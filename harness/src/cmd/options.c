#include "cmd/options.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/decisions.h"
#include "build/patchset.h"
#include "config/catalog.h"
#include "deploy/dut.h"
#include "store/store.h"
#include "util/util.h"

static void set_list(struct strlist *l, const char *csv)
{
	strlist_free(l);
	strlist_split(l, csv, ",");
}

int add_user_patches(struct exec_opts *b, int is_series, const char *path)
{
	char err[2048];
	/* The build applies patches from its own directory: a relative path
	 * must not depend on where hilbench was started. */
	char *abs = realpath(path, NULL);
	const char *use = abs ? abs : path;	/* missing: the loader says so */
	int rc = is_series ? patchset_add_series(&b->user_patches, use, err, sizeof(err))
			   : patchset_add_patch(&b->user_patches, use, err, sizeof(err));
	if (rc < 0)
		hb_err("%s %s: %s", is_series ? "--series" : "--patch", path, err);
	free(abs);
	return rc;
}

int parse_int_option(const char *option, const char *arg, int lo, int hi, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < lo || v > hi) {
		hb_err("%s %s: give a whole number from %d to %d", option, arg, lo, hi);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* 2026-11-30, 2026-11-30T06:00, 2026-11-30T06:00:00Z: what the store's
 * started column compares against as text. */
static int is_iso_date(const char *s)
{
	struct tm tm;
	const char *rest = strptime(s, "%Y-%m-%d", &tm);
	if (!rest || strlen(s) != 10 + strlen(rest))
		return 0;
	if (!*rest)
		return 1;
	const char *t = strptime(rest, "T%H:%M", &tm);
	if (t && *t == ':')
		t = strptime(t, ":%S", &tm);
	return t && (!*t || !strcmp(t, "Z"));
}

int selection_option(int c, const char *arg, struct selection *sel)
{
	switch (c) {
	case 'S': sel->session = arg; return 1;
	case 'P': sel->plan = arg; return 1;
	case 'b': sel->board = arg; return 1;
	case 's': sel->strategy = arg; return 1;
	case 'w': sel->workload = arg; return 1;
	case 'd':
		if (!is_iso_date(arg)) {
			hb_err("--since %s: give an ISO 8601 date or UTC time, e.g. 2026-11-30 "
			       "or 2026-11-30T06:00:00Z", arg);
			return -1;
		}
		sel->since = arg;
		return 1;
	default:
		return 0;
	}
}

int changepoint_option(int c, const char *arg, struct cp_params *cp)
{
	char *end;
	int v;
	switch (c) {
	case 'n':
		if (parse_int_option("--min-segment", arg, 2, 100000, &v) < 0)
			return -1;
		cp->min_segment = (size_t)v;
		return 1;
	case 'R':
		if (parse_int_option("--permutations", arg, 19, 100000, &v) < 0)
			return -1;
		cp->permutations = (unsigned)v;
		return 1;
	case 'A':
		cp->alpha = strtod(arg, &end);
		if (end == arg || *end || !(cp->alpha > 0 && cp->alpha < 1)) {
			hb_err("--alpha %s: give a level between 0 and 1, e.g. 0.05", arg);
			return -1;
		}
		return 1;
	case 'x':
		errno = 0;
		cp->seed = strtoull(arg, &end, 0);
		if (errno || end == arg || *arg == '-' || *end) {
			hb_err("--seed %s: give a number, e.g. 42 or 0x2a", arg);
			return -1;
		}
		return 1;
	default:
		return 0;
	}
}

int run_options_parse(int argc, char **argv, const char *usage, const char *default_plan,
		      struct run_options *o)
{
	static const struct option opts[] = {
		{ "board", required_argument, NULL, 'b' },
		{ "strategy", required_argument, NULL, 's' },
		{ "strategies", required_argument, NULL, 's' },
		{ "workload", required_argument, NULL, 'w' },
		{ "workloads", required_argument, NULL, 'w' },
		{ "boards", required_argument, NULL, 'b' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "timing", required_argument, NULL, 't' },
		{ "patch", required_argument, NULL, 'p' },
		{ "series", required_argument, NULL, 'q' },
		{ "kernel-series", required_argument, NULL, 'S' },
		{ "resume", required_argument, NULL, 'R' },
		{ "attempts", required_argument, NULL, 'A' },
		{ "kernel-src", required_argument, NULL, 'K' },
		{ "fixed", no_argument, NULL, 'F' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "max-jobs", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	memset(o, 0, sizeof(*o));
	const char *boards = NULL, *strategies = NULL, *workloads = NULL, *timing = NULL;
	int repeat = 0, fixed = 0, c;
	while ((c = getopt_long(argc, argv, "b:s:w:r:t:p:q:S:R:A:K:Fj:M:h", opts, NULL)) != -1) {
		switch (c) {
		case 'F': fixed = 1; break;
		case 'j':
			if (parse_int_option("--jobs", optarg, 1, 64, &o->exec.jobs) < 0)
				return HB_FAIL_INPUT;
			break;
		case 'M':
			if (parse_int_option("--max-jobs", optarg, 1, EXECUTOR_MAX_JOBS,
					     &o->exec.max_jobs) < 0)
				return HB_EXIT_USAGE;
			break;
		case 'b': boards = optarg; break;
		case 's': strategies = optarg; break;
		case 'w': workloads = optarg; break;
		case 't': timing = optarg; break;
		case 'S': o->exec.series = optarg; break;
		case 'R': o->exec.resume = optarg; break;
		case 'K': o->exec.kernel_src = optarg; break;
		case 'r':
			if (parse_int_option("--repeat", optarg, 1, 100, &repeat) < 0)
				return HB_FAIL_INPUT;
			break;
		case 'A':
			if (parse_int_option("--attempts", optarg, 1, 10, &o->exec.attempts) < 0)
				return HB_FAIL_INPUT;
			break;
		case 'p':
		case 'q':
			if (add_user_patches(&o->exec, c == 'q', optarg) < 0)
				return HB_FAIL_INPUT;
			break;
		default:
			fputs(usage, c == 'h' ? stdout : stderr);
			return c == 'h' ? 1 : HB_FAIL_INPUT;
		}
	}
	if (optind < argc - 1) {
		hb_err("one plan at a time (got '%s' and '%s')", argv[optind], argv[optind + 1]);
		return HB_FAIL_INPUT;
	}
	const char *planname = optind < argc ? argv[optind] : default_plan;
	if (strcmp(planname, "adhoc")) {
		if (catalog_plan(planname, &o->plan) < 0)
			return HB_FAIL_INPUT;
	} else {
		if (!boards || !strategies || !workloads) {
			hb_err("name a PLAN, or all of --board, --strategy and --workload "
			       "(see `hilbench list plans|boards|strategies|workloads`)");
			return HB_FAIL_INPUT;
		}
		o->plan.name = xstrdup("adhoc");
		o->plan.description = xstrdup("from the command line");
		o->plan.repetitions = 1;
		o->plan.timing = TIMING_VIRTUAL;
	}
	if (boards)
		set_list(&o->plan.boards, boards);
	if (strategies)
		set_list(&o->plan.strategies, strategies);
	if (workloads)
		set_list(&o->plan.workloads, workloads);
	if (repeat)
		o->plan.repetitions = repeat;
	/* a number of repetitions asked for is a fixed plan */
	if (repeat || fixed)
		o->plan.repeat = REPEAT_FIXED;
	if (timing && timing_mode_parse(timing, &o->plan.timing) < 0) {
		hb_err("--timing %s: choose realtime or virtual", timing);
		return HB_FAIL_INPUT;
	}
	return 0;
}

int run_options_execute(struct run_options *o, char session[40], struct planner *pl)
{
	struct store *s = store_open(hb_store_dir());
	if (!s)
		return HB_FAIL;
	hb_install_interrupt_handlers();
	char id[40] = "";
	int rc;
	if (o->plan.repeat == REPEAT_UNTIL_DECIDED) {
		struct planner own;
		struct planner *use = pl ? pl : &own;
		rc = planner_run(use, &o->plan, s, &o->exec);
		/* bad input stops it before a run: no session to report */
		snprintf(id, sizeof(id), "%s", rc == HB_FAIL_INPUT ? "" : use->session);
		if (!pl) {
			struct selection sel = { .session = id[0] ? id : NULL };
			if (decisions_write(s, &sel, SECTION_TEXT, stdout) < 0)
				rc = HB_FAIL;
			planner_print(use, stdout);
			planner_free(use);
		}
	} else {
		rc = executor_run_plan(&o->plan, s, &o->exec, id);
	}
	if (session)
		snprintf(session, 40, "%s", id);
	if (hb_interrupted) {
		hb_err("interrupted: finished runs are stored (session %s); the board and its "
		       "network are gone", id);
		rc = HB_FAIL;
	}
	store_close(s);
	return rc;
}

void run_options_free(struct run_options *o)
{
	plan_free(&o->plan);
	strlist_free(&o->exec.user_patches);
}
