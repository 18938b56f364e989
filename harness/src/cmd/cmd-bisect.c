#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/dataset.h"
#include "analyze/gate.h"
#include "build/gitsource.h"
#include "cmd/builtin.h"
#include "cmd/options.h"
#include "store/metrics.h"
#include "config/catalog.h"
#include "deploy/dut.h"
#include "run/executor.h"
#include "run/revision.h"
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
	struct strlist good_sessions;	/* given to each --step by the parent */
	const char *log;
	int step;
	struct plan plan;
	struct workload wl;
	const struct gate_metric *gm;
	double threshold_pct;
};

/* One revision on the emulated board: the plan's first board, reference
 * strategy and workload; the session id goes to session. */
static int measure(struct bisect_opts *b, struct store *s, const char *rev, int reps,
		   char session[40], struct git_revision *gr)
{
	git_revision_free(gr);
	struct exec_opts o = { 0 };
	char tag[16];
	if (exec_opts_use_revision(&o, b->repo, rev, b->base, gr, tag) < 0) {
		strlist_free(&o.user_patches);
		return HB_EXIT_USAGE;
	}
	hb_info("bisect: measuring %.12s %s (%d run%s)", gr->commit, gr->subject, reps,
		reps > 1 ? "s" : "");
	int planned = b->plan.repetitions;
	b->plan.repetitions = reps;
	int rc = executor_run_plan(&b->plan, s, &o, session);
	b->plan.repetitions = planned;
	strlist_free(&o.user_patches);
	return rc;
}

/* A revision's values of the metric, over one or more sessions. */
struct values {
	double *v;
	size_t n;
};

/* Appends the metric's values of a session; -1 when it has none. */
static int add_session(struct bisect_opts *b, struct store *s, const char *session,
		       struct values *x)
{
	struct dataset d;
	struct selection sel = { .session = session };
	int rc = dataset_load(s, &sel, &d);
	const struct series *k = rc == 0 ? dataset_find(&d, b->wl.name, b->plan.strategies.v[0],
							  b->metric) : NULL;
	if (k) {
		x->v = xrealloc(x->v, (x->n + k->n + 1) * sizeof(double));
		memcpy(x->v + x->n, k->v, k->n * sizeof(double));
		x->n += k->n;
	}
	dataset_free(&d);
	return k ? 0 : -1;
}

/* reps more runs of rev, their values appended to x; the session's id is
 * pushed to sessions when given. */
static int measure_into(struct bisect_opts *b, struct store *s, const char *rev, int reps,
			struct values *x, struct git_revision *gr, struct strlist *sessions)
{
	char session[40] = "";
	int rc = measure(b, s, rev, reps, session, gr);
	if (*session && add_session(b, s, session, x) == 0 && sessions)
		strlist_push(sessions, session);
	return rc;
}

/* One look of the gate's procedure (analyze/gate.h). Both sides start at
 * the plan's repetitions (GOOD and BAD; each step's revision against GOOD's
 * runs) and get one run at a time up to the cap, so the looks are counted
 * as the gate's with first_repetitions = repetitions: 2 (cap -
 * repetitions) + 1 at most. */
static void decide(const struct bisect_opts *b, struct gate_seq *seq, const struct values *good,
		   const struct values *cand, struct gate_decision *d)
{
	struct gate_policy both = b->plan.gate;
	both.first_repetitions = b->plan.repetitions;
	gate_look(&both, b->plan.repetitions, seq, good->v, good->n, cand->v, cand->n,
		  b->gm->better, b->threshold_pct, d);
}

static double mean_of(const struct values *x)
{
	double sum = 0;
	for (size_t i = 0; i < x->n; i++)
		sum += x->v[i];
	return x->n ? sum / (double)x->n : NAN;
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
	/* git bisect run exports GIT_DIR for the worktree; the kernel's
	 * setlocalversion would then stamp the worktree's HEAD (BAD) into every
	 * kernel release, and `git -C repo` would not mean repo */
	static const char *const git_env[] = { "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE",
					       "GIT_PREFIX", "GIT_COMMON_DIR" };
	for (size_t i = 0; i < HB_ARRAY_SIZE(git_env); i++)
		unsetenv(git_env[i]);
	struct git_revision gr = { 0 };
	struct values good = { 0 }, cand = { 0 };
	for (size_t i = 0; i < b->good_sessions.n; i++)
		add_session(b, s, b->good_sessions.v[i], &good);
	/* a run that failed (a killed iperf3 on a loaded host) is stored with
	 * its reason; the pass runs still count, and the gate asks for more */
	int rc = measure_into(b, s, rev, b->plan.repetitions, &cand, &gr, NULL);
	struct gate_decision d = { .outcome = GATE_INCONCLUSIVE };
	struct gate_seq seq = { 0 };
	if (rc != HB_EXIT_USAGE && good.n && cand.n) {
		decide(b, &seq, &good, &cand, &d);
		/* the gate's own policy: one more run at a time while open */
		int tries = 0;
		while (d.outcome == GATE_OPEN && cand.n < (size_t)b->plan.gate.max_repetitions &&
		       tries++ < b->plan.gate.max_repetitions && !hb_interrupted &&
		       measure_into(b, s, rev, 1, &cand, &gr, NULL) != HB_EXIT_USAGE)
			decide(b, &seq, &good, &cand, &d);
	}
	int verdict = d.outcome == GATE_REGRESSED ? 1 :
		      d.outcome == GATE_PASS || d.outcome == GATE_IMPROVED ? 0 : HB_EXIT_INFRA;
	const char *word = verdict == 1 ? "bad" : verdict == 0 ? "good" :
			   cand.n ? "skip (undecided)" : "skip (not measured)";
	hb_info("bisect: %.12s %s %.6g over %zu runs (good %.6g): %s", rev, b->metric,
		mean_of(&cand), cand.n, mean_of(&good), word);
	FILE *log = fopen(b->log, "a");
	if (log) {
		fprintf(log, "%s %.17g %s\n", rev, mean_of(&cand), word);
		fclose(log);
	}
	free(good.v);
	free(cand.v);
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
		if (!strncmp(lines.v[i], commit, 40) && lines.v[i][40] == ' ')
			v = strtod(lines.v[i] + 41, NULL);
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
	struct git_revision good_rev = { 0 }, bad_rev = { 0 };
	struct values g = { 0 }, bs = { 0 };
	struct strlist bad_sessions = { 0 };
	char *tmp = NULL, *wt = NULL, *log = NULL;
	int reps = b->plan.repetitions;
	int rc = measure_into(b, s, b->good, reps, &g, &good_rev, &b->good_sessions);
	if (rc != HB_EXIT_USAGE && !hb_interrupted)
		rc = measure_into(b, s, b->bad, reps, &bs, &bad_rev, &bad_sessions);
	if (rc == HB_EXIT_USAGE || !g.n || !bs.n) {
		hb_err("bisect: GOOD or BAD could not be measured (see above); nothing to bisect");
		rc = rc == HB_EXIT_USAGE ? HB_EXIT_USAGE : HB_EXIT_INFRA;
		goto out;
	}
	struct gate_decision d;
	struct gate_seq seq = { 0 };
	decide(b, &seq, &g, &bs, &d);
	/* the gate's policy: while open, one more run on the side with fewer */
	int tries = 0;
	while (d.outcome == GATE_OPEN && !hb_interrupted &&
	       (bs.n < (size_t)b->plan.gate.max_repetitions ||
		g.n < (size_t)b->plan.gate.max_repetitions)) {
		int more_bad = bs.n <= g.n && bs.n < (size_t)b->plan.gate.max_repetitions;
		if (tries++ >= 2 * b->plan.gate.max_repetitions ||
		    (more_bad ? measure_into(b, s, b->bad, 1, &bs, &bad_rev, &bad_sessions)
			      : measure_into(b, s, b->good, 1, &g, &good_rev, &b->good_sessions)) ==
			    HB_EXIT_USAGE)
			break;
		decide(b, &seq, &g, &bs, &d);
	}
	printf("good %.12s: %s %.6g (%zu runs); bad %.12s: %.6g (%zu runs) "
	       "(%+.2f %%, threshold %.2f %%): %s\n", good_rev.commit, b->metric, mean_of(&g), g.n,
	       bad_rev.commit, mean_of(&bs), bs.n, d.delta_pct, b->threshold_pct,
	       gate_outcome_name(d.outcome));
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
		fprintf(f, "%s %.17g good\n%s %.17g bad\n", good_rev.commit, mean_of(&g),
			bad_rev.commit, mean_of(&bs));
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
				   { "--log", log }, { "--good", good_rev.commit },
				   { "--bad", bad_rev.commit } };
	for (size_t i = 0; i < HB_ARRAY_SIZE(pairs); i++) {
		strlist_push(&run, pairs[i][0]);
		strlist_push(&run, pairs[i][1]);
	}
	for (size_t i = 0; i < b->good_sessions.n; i++) {
		strlist_push(&run, "--good-session");
		strlist_push(&run, b->good_sessions.v[i]);
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
	free(g.v);
	free(bs.v);
	strlist_free(&bad_sessions);
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
		case 'G': strlist_push(&b->good_sessions, optarg); break;
		case 'l': b->log = optarg; break;
		default:
			fputs(usage, c == 'h' ? stdout : stderr);
			return c == 'h' ? HB_EXIT_OK : HB_EXIT_USAGE;
		}
	}
	if (optind < argc || !b->good || !b->bad || !b->repo ||
	    (b->step && (!b->good_sessions.n || !b->log))) {
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
	struct bisect_opts b = { .metric = METRIC_PPS, .plan_name = "gate" };
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
	strlist_free(&b.good_sessions);
	return rc;
}
