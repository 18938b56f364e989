#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/dataset.h"
#include "analyze/gate.h"
#include "build/gitsource.h"
#include "build/patchset.h"
#include "cmd/builtin.h"
#include "config/catalog.h"
#include "deploy/dut.h"
#include "measure/bench.h"
#include "util/proc.h"
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

struct bisect_opts {
	const char *good, *bad, *repo, *base, *metric, *plan_name;
	const char *good_session, *log;	/* given to each --step by the parent */
	int step;
	struct plan plan;
	struct workload wl;
	const struct gate_metric *gm;
	double threshold_pct;
};

/* One revision on the emulated board: the plan's first board, reference
 * strategy and workload; the session id goes to session. */
static int measure(struct bisect_opts *b, struct store *s, const char *rev, char session[40],
		   struct git_revision *gr)
{
	if (git_revision_prepare(b->repo, rev, b->base, gr) < 0)
		return HB_EXIT_USAGE;
	struct bench_opts o = { 0 };
	char tag[16], err[1024];
	git_revision_tag(gr, tag);
	o.revision = tag;
	if (gr->patch && patchset_add_patch(&o.user_patches, gr->patch, err, sizeof(err)) < 0) {
		hb_err("%s", err);
		return HB_EXIT_USAGE;
	}
	hb_info("bisect: measuring %.12s %s", gr->commit, gr->subject);
	int rc = bench_run_plan(&b->plan, s, &o, session);
	strlist_free(&o.user_patches);
	return rc;
}

/* The metric's values in a session, into *d (the series points into it). */
static const struct series *samples(struct bisect_opts *b, struct store *s, const char *session,
				    struct dataset *d)
{
	struct selection sel = { .session = session };
	if (dataset_load(s, &sel, d) < 0)
		return NULL;
	return dataset_find(d, b->wl.name, b->plan.strategies.v[0], b->metric);
}

static void decide(const struct bisect_opts *b, const struct series *good,
		   const struct series *cand, struct gate_decision *d)
{
	gate_decide(good->v, good->n, cand->v, cand->n, b->gm->better, b->plan.gate.alpha,
		    b->threshold_pct, d);
}

static double mean_of(const struct series *s)
{
	double sum = 0;
	for (size_t i = 0; i < s->n; i++)
		sum += s->v[i];
	return s->n ? sum / (double)s->n : NAN;
}

/* `git bisect run` calls this for each revision: 0 good, 1 bad, 125 skip.
 * Anything else would abort the bisection, so every failure is a skip. */
static int run_step(struct bisect_opts *b, struct store *s)
{
	char *head[] = { "git", "rev-parse", "BISECT_HEAD", NULL };	/* --no-checkout */
	char *rev = proc_output(head);
	if (!rev) {
		hb_err("bisect --step: no BISECT_HEAD here; `hilbench bisect` runs the steps");
		return HB_EXIT_INFRA;
	}
	char session[40] = "";
	struct git_revision gr;
	struct dataset good = { 0 }, cand = { 0 };
	int rc = measure(b, s, rev, session, &gr);
	const struct series *g = samples(b, s, b->good_session, &good);
	const struct series *c = rc == HB_EXIT_OK ? samples(b, s, session, &cand) : NULL;
	int verdict = HB_EXIT_INFRA;
	const char *word = "skip (not measured)";
	struct gate_decision d;
	if (g && c) {
		decide(b, g, c, &d);
		verdict = d.outcome == GATE_REGRESSED ? 1 :
			  d.outcome == GATE_PASS || d.outcome == GATE_IMPROVED ? 0 : HB_EXIT_INFRA;
		word = verdict == 1 ? "bad" : verdict == 0 ? "good" : "skip (undecided)";
		hb_info("bisect: %.12s %s %.6g (good %.6g, %+.2f %%): %s", gr.commit, b->metric,
			mean_of(c), mean_of(g), d.delta_pct, word);
	}
	FILE *log = fopen(b->log, "a");
	if (log) {
		fprintf(log, "%s %s %.17g %s\n", rev, *session ? session : "-",
			c ? mean_of(c) : NAN, word);
		fclose(log);
	}
	dataset_free(&good);
	dataset_free(&cand);
	git_revision_free(&gr);
	free(rev);
	return verdict;
}

/* The mean logged for commit, or NaN. */
static double logged_mean(const char *log, const char *commit)
{
	char *text = read_file(log, NULL);
	double v = NAN;
	struct strlist lines = { 0 };
	strlist_split(&lines, text ? text : "", "\n");
	for (size_t i = 0; i < lines.n; i++)
		if (!strncmp(lines.v[i], commit, 40) && lines.v[i][40] == ' ') {
			char *p = strchr(lines.v[i] + 41, ' ');
			if (p)
				v = strtod(p + 1, NULL);
		}
	strlist_free(&lines);
	free(text);
	return v;
}

static int git_in(const char *dir, char *const args[])
{
	struct strlist argv = { 0 };
	strlist_push(&argv, "git");
	strlist_push(&argv, "-C");
	strlist_push(&argv, dir);
	for (size_t i = 0; args[i]; i++)
		strlist_push(&argv, args[i]);
	int rc = proc_run(strlist_argv(&argv), NULL);
	strlist_free(&argv);
	return rc;
}

static int run_bisect(struct bisect_opts *b, struct store *s)
{
	char good_session[40] = "", bad_session[40] = "";
	struct git_revision good_rev, bad_rev;
	struct dataset gd = { 0 }, bd = { 0 };
	int rc = measure(b, s, b->good, good_session, &good_rev);
	if (rc == HB_EXIT_OK && !hb_interrupted)
		rc = measure(b, s, b->bad, bad_session, &bad_rev);
	else
		memset(&bad_rev, 0, sizeof(bad_rev));
	const struct series *g = rc == HB_EXIT_OK ? samples(b, s, good_session, &gd) : NULL;
	const struct series *bs = rc == HB_EXIT_OK ? samples(b, s, bad_session, &bd) : NULL;
	char *tmp = NULL, *wt = NULL, *log = NULL;
	if (!g || !bs) {
		hb_err("bisect: GOOD or BAD could not be measured (see above); nothing to bisect");
		rc = rc == HB_EXIT_USAGE ? HB_EXIT_USAGE : HB_EXIT_INFRA;
		goto out;
	}
	struct gate_decision d;
	decide(b, g, bs, &d);
	printf("good %.12s: %s %.6g; bad %.12s: %.6g (%+.2f %%, threshold %.2f %%): %s\n",
	       good_rev.commit, b->metric, mean_of(g), bad_rev.commit, mean_of(bs), d.delta_pct,
	       b->threshold_pct, gate_outcome_name(d.outcome));
	if (d.outcome != GATE_REGRESSED) {
		hb_err("bisect: BAD is not a regression of GOOD on %s; nothing to bisect", b->metric);
		rc = HB_EXIT_INFRA;
		goto out;
	}
	char tmpl[] = "/tmp/hb-bisect-XXXXXX";
	tmp = xstrdup(mkdtemp(tmpl) ? tmpl : "");
	if (!*tmp) {
		hb_err("cannot create a temporary directory in /tmp");
		rc = HB_EXIT_INFRA;
		goto out;
	}
	wt = path_join(tmp, "worktree");
	log = path_join(tmp, "steps.log");
	FILE *f = fopen(log, "w");
	if (f) {
		fprintf(f, "%s %s %.17g good\n%s %s %.17g bad\n", good_rev.commit, good_session,
			mean_of(g), bad_rev.commit, bad_session, mean_of(bs));
		fclose(f);
	}
	/* this very binary for the steps, even if its file was replaced since
	 * (an upgrade or a rebuild mid-bisect): /proc/<pid>/exe stays valid
	 * while we wait for git */
	char self[32];
	snprintf(self, sizeof(self), "/proc/%d/exe", (int)getpid());
	char *add[] = { "worktree", "add", "--quiet", "--detach", "--no-checkout", wt,
			bad_rev.commit, NULL };
	char *start[] = { "bisect", "start", "--no-checkout", bad_rev.commit, good_rev.commit, NULL };
	struct strlist run = { 0 };
	strlist_split(&run, "bisect run", " ");
	strlist_push(&run, self);
	strlist_split(&run, "bisect --step", " ");
	const char *pairs[][2] = { { "--kernel-git", b->repo }, { "--kernel-base", good_rev.base },
				   { "--metric", b->metric }, { "--plan", b->plan_name },
				   { "--good-session", good_session }, { "--log", log },
				   { "--good", good_rev.commit }, { "--bad", bad_rev.commit } };
	for (size_t i = 0; i < HB_ARRAY_SIZE(pairs); i++) {
		strlist_push(&run, pairs[i][0]);
		strlist_push(&run, pairs[i][1]);
	}
	rc = HB_EXIT_INFRA;
	if (git_in(b->repo, add) == 0 && git_in(wt, start) == 0 &&
	    git_in(wt, strlist_argv(&run)) == 0) {
		char *bad_ref[] = { "git", "-C", wt, "rev-parse", "refs/bisect/bad", NULL };
		char *culprit = proc_output(bad_ref);
		if (culprit && strlen(culprit) == 40) {
			char *parent_spec = xasprintf("%s^", culprit);
			char *par[] = { "git", "-C", wt, "rev-parse", parent_spec, NULL };
			char *subj[] = { "git", "-C", wt, "log", "-1", "--format=%s", culprit, NULL };
			char *parent = proc_output(par), *subject = proc_output(subj);
			double after = logged_mean(log, culprit);
			double before = parent ? logged_mean(log, parent) : NAN;
			printf("culprit %s %s\n", culprit, subject ? subject : "");
			printf("  %s: %.6g before (%.12s) -> %.6g after (%+.2f %%)\n", b->metric, before,
			       parent ? parent : "?", after, 100 * (after - before) / fabs(before));
			rc = HB_EXIT_OK;
			free(parent);
			free(subject);
			free(parent_spec);
		} else {
			hb_err("bisect: git named no culprit (every step skipped?); see %s", log);
		}
		free(culprit);
	}
	strlist_free(&run);
	char *reset[] = { "bisect", "reset", NULL };
	char *remove[] = { "worktree", "remove", "--force", wt, NULL };
	if (path_exists(wt)) {
		git_in(wt, reset);
		git_in(b->repo, remove);
	}
out:
	if (tmp && *tmp)
		rm_rf(tmp);
	free(tmp);
	free(wt);
	free(log);
	dataset_free(&gd);
	dataset_free(&bd);
	git_revision_free(&good_rev);
	git_revision_free(&bad_rev);
	return rc;
}

static int parse(int argc, char **argv, struct bisect_opts *b)
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
		{ "good-session", required_argument, NULL, 'G' },
		{ "log", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "g:B:k:K:m:p:SG:l:h", opts, NULL)) != -1) {
		switch (c) {
		case 'g': b->good = optarg; break;
		case 'B': b->bad = optarg; break;
		case 'k': b->repo = optarg; break;
		case 'K': b->base = optarg; break;
		case 'm': b->metric = optarg; break;
		case 'p': b->plan_name = optarg; break;
		case 'S': b->step = 1; break;
		case 'G': b->good_session = optarg; break;
		case 'l': b->log = optarg; break;
		default:
			fputs(usage, c == 'h' ? stdout : stderr);
			return c == 'h' ? HB_EXIT_OK : HB_EXIT_USAGE;
		}
	}
	if (optind < argc || !b->good || !b->bad || !b->repo ||
	    (b->step && (!b->good_session || !b->log))) {
		hb_err("give --good REV --bad REV --kernel-git DIR; see `hilbench bisect --help`");
		return HB_EXIT_USAGE;
	}
	if (catalog_plan(b->plan_name, &b->plan) < 0)
		return HB_EXIT_USAGE;
	if (!b->plan.gate.present) {
		hb_err("plan %s has no gate section: bisect needs its thresholds (see plans/gate.yaml)",
		       b->plan.path);
		return HB_EXIT_USAGE;
	}
	if (catalog_workload(b->plan.workloads.v[0], &b->wl) < 0)
		return HB_EXIT_USAGE;
	const struct gate_metric *gm = b->plan.gate.metrics.v;
	for (size_t i = 0; i < b->plan.gate.metrics.n && !b->gm; i++)
		if (!strcmp(gm[i].metric, b->metric) && gate_metric_applies(&gm[i], b->wl.proto))
			b->gm = &gm[i];
	if (!b->gm) {
		hb_err("--metric %s: plan %s gates no such metric for %s", b->metric, b->plan.path,
		       b->wl.name);
		return HB_EXIT_USAGE;
	}
	b->threshold_pct = b->gm->threshold_pct[b->plan.timing];
	/* the reference strategy only: the driver change is the revision */
	while (b->plan.strategies.n > 1)
		free(b->plan.strategies.v[--b->plan.strategies.n]);
	return -1;
}

int cmd_bisect(int argc, char **argv)
{
	struct bisect_opts b = { .metric = "pps", .plan_name = "gate" };
	int rc = parse(argc, argv, &b);
	if (rc == -1) {
		struct store *s = store_open(hb_store_dir());
		if (!s) {
			rc = HB_EXIT_INFRA;
		} else {
			hb_install_interrupt_handlers();
			rc = b.step ? run_step(&b, s) : run_bisect(&b, s);
			store_close(s);
		}
	} else if (b.step && rc != HB_EXIT_OK) {
		rc = HB_EXIT_INFRA;	/* a step never aborts git bisect */
	}
	if (b.wl.name)
		workload_free(&b.wl);
	plan_free(&b.plan);
	return rc;
}
