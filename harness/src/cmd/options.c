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

static const struct option run_opts[] = {
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
	{ "fresh-reference", no_argument, NULL, 'N' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

/* What the command line says of the plan, over the plan file's own. */
struct plan_args {
	const char *boards, *strategies, *workloads, *timing;
	int repeat, fixed;
};

/* One option of run_opts, c with its argument arg, into o's run options
 * or pa; 0 to go on, else what run_options_parse() returns. */
static int run_option(int c, const char *arg, const char *usage, struct run_options *o,
		      struct plan_args *pa)
{
	switch (c) {
	case 'F': pa->fixed = 1; return 0;
	case 'N': o->exec.fresh_reference = 1; return 0;
	case 'j':
		return parse_int_option("--jobs", arg, 1, 64, &o->exec.jobs) < 0 ? HB_FAIL_INPUT : 0;
	case 'M':
		return parse_int_option("--max-jobs", arg, 1, EXECUTOR_MAX_JOBS,
					&o->exec.max_jobs) < 0 ? HB_FAIL_INPUT : 0;
	case 'b': pa->boards = arg; return 0;
	case 's': pa->strategies = arg; return 0;
	case 'w': pa->workloads = arg; return 0;
	case 't': pa->timing = arg; return 0;
	case 'S': o->exec.series = arg; return 0;
	case 'R': o->exec.resume = arg; return 0;
	case 'K': o->exec.kernel_src = arg; return 0;
	case 'r':
		return parse_int_option("--repeat", arg, 1, 100, &pa->repeat) < 0 ? HB_FAIL_INPUT : 0;
	case 'A':
		return parse_int_option("--attempts", arg, 1, 10, &o->exec.attempts) < 0 ?
		       HB_FAIL_INPUT : 0;
	case 'p':
	case 'q':
		return add_user_patches(&o->exec, c == 'q', arg) < 0 ? HB_FAIL_INPUT : 0;
	default:
		fputs(usage, c == 'h' ? stdout : stderr);
		return c == 'h' ? 1 : HB_FAIL_INPUT;
	}
}

/* The plan named planname, or "adhoc": the one --board, --strategy and
 * --workload make; 0, or -1 with the reason printed. */
static int load_plan(const char *planname, const struct plan_args *pa, struct plan *p)
{
	if (strcmp(planname, "adhoc"))
		return catalog_plan(planname, p) < 0 ? -1 : 0;
	if (!pa->boards || !pa->strategies || !pa->workloads) {
		hb_err("name a PLAN, or all of --board, --strategy and --workload "
		       "(see `hilbench list plans|boards|strategies|workloads`)");
		return -1;
	}
	p->name = xstrdup("adhoc");
	p->description = xstrdup("from the command line");
	p->repetitions = 1;
	p->timing = TIMING_VIRTUAL;
	return 0;
}

/* The command line's boards, strategies, workloads, repetitions and
 * timing over the plan's; 0, or -1 with the reason printed. */
static int apply_plan_args(const struct plan_args *pa, struct plan *p)
{
	if (pa->boards)
		set_list(&p->boards, pa->boards);
	if (pa->strategies)
		set_list(&p->strategies, pa->strategies);
	if (pa->workloads)
		set_list(&p->workloads, pa->workloads);
	if (pa->repeat)
		p->repetitions = pa->repeat;
	/* a number of repetitions asked for is a fixed plan */
	if (pa->repeat || pa->fixed)
		p->repeat = REPEAT_FIXED;
	if (pa->timing && timing_mode_parse(pa->timing, &p->timing) < 0) {
		hb_err("--timing %s: choose realtime or virtual", pa->timing);
		return -1;
	}
	/* a plan whose gate names no metric in this mode judges nothing:
	 * its runs are reported */
	plan_gate_for_timing(p);
	return 0;
}

int run_options_parse(int argc, char **argv, const char *usage, const char *default_plan,
		      struct run_options *o)
{
	memset(o, 0, sizeof(*o));
	struct plan_args pa = { 0 };
	int c, rc;
	while ((c = getopt_long(argc, argv, "b:s:w:r:t:p:q:S:R:A:K:Fj:M:Nh", run_opts, NULL)) != -1)
		if ((rc = run_option(c, optarg, usage, o, &pa)))
			return rc;
	if (optind < argc - 1) {
		hb_err("one plan at a time (got '%s' and '%s')", argv[optind], argv[optind + 1]);
		return HB_FAIL_INPUT;
	}
	const char *planname = optind < argc ? argv[optind] : default_plan;
	if (load_plan(planname, &pa, &o->plan) < 0 || apply_plan_args(&pa, &o->plan) < 0)
		return HB_FAIL_INPUT;
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
			struct dataset d = { 0 };
			if ((sel.session && dataset_load(s, &sel, &d) < 0) ||
			    decisions_write(s, &sel, &d, SECTION_TEXT, stdout) < 0)
				rc = HB_FAIL;
			dataset_free(&d);
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
