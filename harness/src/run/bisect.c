#include "run/bisect.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/dataset.h"
#include "analyze/movers.h"
#include "config/catalog.h"
#include "run/revision.h"
#include "util/proc.h"
#include "util/util.h"

int bisect_load(struct bisect *b)
{
	if (catalog_plan(b->plan_name, &b->plan) < 0)
		return HB_FAIL_INPUT;
	if (!b->plan.gate.present) {
		hb_err("plan %s has no gate section: bisect needs its thresholds (see plans/gate.yaml)",
		       b->plan.path);
		return HB_FAIL_INPUT;
	}
	plan_gate_for_timing(&b->plan);
	char err[1024];
	if (gate_check_metrics(&b->plan.gate, err, sizeof(err)) < 0) {
		hb_err("%s", err);
		return HB_FAIL_INPUT;
	}
	if (catalog_workload(b->plan.workloads.v[0], &b->wl) < 0)
		return HB_FAIL_INPUT;
	b->gm = gate_metric_for(&b->plan.gate, &b->wl, b->metric, b->plan.timing);
	if (!b->gm) {
		hb_err("--metric %s: plan %s gates no such metric for %s", b->metric, b->plan.path,
		       b->wl.name);
		return HB_FAIL_INPUT;
	}
	b->threshold_pct = b->gm->threshold_pct[b->plan.timing];
	/* the reference strategy only: the driver change is the revision */
	while (b->plan.strategies.n > 1)
		free(b->plan.strategies.v[--b->plan.strategies.n]);
	/* and the first workload only: the one the metric is judged on */
	while (b->plan.workloads.n > 1)
		free(b->plan.workloads.v[--b->plan.workloads.n]);
	return 0;
}

/* One revision on the emulated board: the plan's first board, reference
 * strategy and workload; the session id goes to session. */
static int measure(struct bisect *b, struct store *s, const char *rev, int reps,
		   char session[40], struct git_revision *gr)
{
	git_revision_free(gr);
	struct exec_opts o = { .stages = b->stages };
	if (exec_opts_use_revision(&o, b->repo, rev, b->base, gr) < 0) {
		strlist_free(&o.user_patches);
		return HB_FAIL_INPUT;
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

/* Appends the metric's values of a session; -1 when it has none. */
static int add_session(const struct bisect *b, struct store *s, const char *session,
		       struct bisect_values *x)
{
	struct dataset d;
	struct selection sel = { .session = session };
	int rc = dataset_load(s, &sel, &d);
	/* a session of one build: the strategy with the bisect's patches */
	const struct series *k = rc == 0 ? dataset_find(&d, b->wl.name, NULL, NULL, b->metric)
					 : NULL;
	if (k) {
		x->v = xrealloc(x->v, (x->n + k->n + 1) * sizeof(double));
		memcpy(x->v + x->n, k->v, k->n * sizeof(double));
		x->n += k->n;
	}
	dataset_free(&d);
	return k ? 0 : -1;
}

/* Where the instructions moved (analyze/movers.h) from the runs of the
 * sessions a to those of b, into buf ("" without the emulator's counts). */
static void where_between(const struct bisect *b, struct store *s, const struct strlist *a,
			  const struct strlist *c, char *buf, size_t len)
{
	struct selection *sa = xcalloc(a->n + 1, sizeof(*sa)), *sc = xcalloc(c->n + 1, sizeof(*sc));
	for (size_t i = 0; i < a->n; i++)
		sa[i].session = a->v[i];
	for (size_t i = 0; i < c->n; i++)
		sc[i].session = c->v[i];
	if (!a->n || !c->n || movers_between(s, sa, a->n, sc, c->n, b->wl.name, buf, len) < 0)
		buf[0] = '\0';	/* a verdict without its where: the store said why */
	free(sa);
	free(sc);
}

/* reps more runs of rev, their values appended to x; the session's id is
 * pushed to sessions when given. */
static int measure_into(struct bisect *b, struct store *s, const char *rev, int reps,
			struct bisect_values *x, struct git_revision *gr, struct strlist *sessions)
{
	char session[40] = "";
	int rc = measure(b, s, rev, reps, session, gr);
	if (*session && add_session(b, s, session, x) == 0 && sessions)
		strlist_push(sessions, session);
	return rc;
}

/* A line of the steps' log: the revision, its mean, its sessions (comma
 * separated, "-" for none) and the verdict's word. */
static void log_step(const char *path, const char *rev, double mean,
		     const struct strlist *sessions, const char *word)
{
	FILE *log = fopen(path, "a");
	if (!log)
		return;
	char *list = sessions->n ? argv_join(sessions, ",") : xstrdup("-");
	fprintf(log, "%s %.17g %s %s\n", rev, mean, list, word);
	free(list);
	fclose(log);
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

/* The sessions logged for commit, pushed to out. */
static void logged_sessions(const char *log, const char *commit, struct strlist *out)
{
	char *text = read_file(log, NULL);
	struct strlist lines = { 0 };
	strlist_split(&lines, text ? text : "", "\n");
	for (size_t i = 0; i < lines.n; i++) {
		if (strncmp(lines.v[i], commit, 40) || lines.v[i][40] != ' ')
			continue;
		struct strlist words = { 0 };
		strlist_split(&words, lines.v[i], " ");
		strlist_free(out);
		if (words.n > 2 && strcmp(words.v[2], "-"))
			strlist_split(out, words.v[2], ",");
		strlist_free(&words);
	}
	strlist_free(&lines);
	free(text);
}

/* The gate's procedure (analyze/gate.h) on GOOD's runs and a revision's.
 * Both sides start at the plan's repetitions (GOOD and BAD; each step's
 * revision against GOOD's runs) and, while the metric is open, get one run
 * at a time on the side with fewer up to the cap (gate_next_run()), so the
 * looks are counted as the gate's with first_repetitions = repetitions: 2
 * (cap - repetitions) + 1 at most. A step adds to GOOD too: a GOOD whose
 * few runs spread wide would leave every step beside it open however many
 * runs the step made (its interval's degrees of freedom are GOOD's). */
static struct gate_policy policy(const struct bisect *b)
{
	struct gate_policy both = b->plan.gate;
	both.first_repetitions = b->plan.repetitions;
	return both;
}

static void decide(const struct bisect *b, struct gate_seq *seq, const struct bisect_values *cand,
		   struct gate_decision *d)
{
	struct gate_policy both = policy(b);
	struct gate_rule rule = gate_metric_rule(b->gm, b->plan.timing);
	gate_look(&both, b->plan.repetitions, seq, b->good_values.v, b->good_values.n, cand->v,
		  cand->n, gate_metric_better(b->gm), &rule, d);
}

/* Looks at GOOD's runs and rev's (both measured) and adds runs while the
 * decision d is open. A run GOOD gets is logged (b->log, when set) as GOOD's
 * line anew, which later steps read. Returns HB_FAIL_INPUT when a
 * revision could not be had, else 0. */
static int settle(struct bisect *b, struct store *s, const char *rev, struct bisect_values *cand,
		  struct git_revision *gr, struct strlist *sessions, struct gate_decision *d)
{
	struct gate_policy both = policy(b);
	struct gate_seq seq = { 0 };
	decide(b, &seq, cand, d);
	int reps, tries = 0;
	enum gate_next next;
	while (d->outcome == GATE_OPEN && !hb_interrupted && tries++ < 2 * both.max_repetitions &&
	       (next = gate_next_run(&both, b->plan.repetitions, b->good_values.n, cand->n, true,
				     &reps)) != GATE_NEXT_NONE) {
		int good = next == GATE_NEXT_REFERENCE;
		int rc = good ? measure_into(b, s, b->good, reps, &b->good_values, &b->good_rev,
					     &b->good_sessions)
			      : measure_into(b, s, rev, reps, cand, gr, sessions);
		if (rc == HB_FAIL_INPUT)
			return rc;
		if (good && b->log)
			log_step(b->log, b->good_rev.commit, bisect_mean(&b->good_values),
				 &b->good_sessions, "good");
		decide(b, &seq, cand, d);
	}
	return 0;
}

double bisect_mean(const struct bisect_values *x)
{
	double sum = 0;
	for (size_t i = 0; i < x->n; i++)
		sum += x->v[i];
	return x->n ? sum / (double)x->n : NAN;
}

int bisect_ends(struct bisect *b, struct store *s)
{
	struct bisect_values *g = &b->good_values, *bs = &b->bad_values;
	int reps = b->plan.repetitions;
	int rc = measure_into(b, s, b->good, reps, g, &b->good_rev, &b->good_sessions);
	if (rc != HB_FAIL_INPUT && !hb_interrupted)
		rc = measure_into(b, s, b->bad, reps, bs, &b->bad_rev, &b->bad_sessions);
	if (rc == HB_FAIL_INPUT || !g->n || !bs->n) {
		hb_err("bisect: GOOD or BAD could not be measured (see above); nothing to bisect");
		return rc == HB_FAIL_INPUT ? HB_FAIL_INPUT : HB_FAIL;
	}
	if (settle(b, s, b->bad, bs, &b->bad_rev, &b->bad_sessions, &b->ends) == HB_FAIL_INPUT)
		return HB_FAIL_INPUT;
	where_between(b, s, &b->good_sessions, &b->bad_sessions, b->ends.where,
		      sizeof(b->ends.where));
	return 0;
}

int bisect_step(struct bisect *b, struct store *s)
{
	char *head[] = { "git", "rev-parse", "BISECT_HEAD", NULL };	/* --no-checkout */
	char *rev = proc_output(head);
	if (!rev) {
		hb_err("bisect --step: no BISECT_HEAD here; `hilbench bisect` runs the steps");
		return BISECT_SKIP;
	}
	/* git bisect run exports GIT_DIR for the worktree; the kernel's
	 * setlocalversion would then stamp the worktree's HEAD (BAD) into every
	 * kernel release, and `git -C repo` would not mean repo */
	static const char *const git_env[] = { "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE",
					       "GIT_PREFIX", "GIT_COMMON_DIR" };
	for (size_t i = 0; i < HB_ARRAY_SIZE(git_env); i++)
		unsetenv(git_env[i]);
	struct git_revision gr = { 0 };
	struct bisect_values cand = { 0 };
	struct strlist sessions = { 0 };
	/* GOOD's runs: its last line in the log, which the bisection wrote and
	 * each step that added runs to GOOD wrote anew */
	strlist_free(&b->good_sessions);
	free(b->good_values.v);
	b->good_values = (struct bisect_values){ 0 };
	logged_sessions(b->log, b->good, &b->good_sessions);
	for (size_t i = 0; i < b->good_sessions.n; i++)
		add_session(b, s, b->good_sessions.v[i], &b->good_values);
	/* a run that failed (a killed iperf3 on a loaded host) is stored with
	 * its reason; the pass runs still count, and the gate asks for more */
	int rc = measure_into(b, s, rev, b->plan.repetitions, &cand, &gr, &sessions);
	struct gate_decision d = { .outcome = GATE_INCONCLUSIVE };
	if (rc != HB_FAIL_INPUT && b->good_values.n && cand.n)
		settle(b, s, rev, &cand, &gr, &sessions, &d);
	enum bisect_verdict verdict = d.outcome == GATE_REGRESSED ? BISECT_BAD :
				      d.outcome == GATE_PASS || d.outcome == GATE_IMPROVED
				      ? BISECT_GOOD : BISECT_SKIP;
	const char *word = verdict == BISECT_BAD ? "bad" : verdict == BISECT_GOOD ? "good" :
			   cand.n ? "skip (undecided)" : "skip (not measured)";
	where_between(b, s, &b->good_sessions, &sessions, d.where, sizeof(d.where));
	hb_info("bisect: %.12s %s %.6g over %zu runs (good %.6g): %s%s%s", rev, b->metric,
		bisect_mean(&cand), cand.n, bisect_mean(&b->good_values), word,
		d.where[0] ? "; where: " : "", d.where);
	log_step(b->log, rev, bisect_mean(&cand), &sessions, word);
	strlist_free(&sessions);
	free(cand.v);
	git_revision_free(&gr);
	free(rev);
	return verdict;
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

/* `git bisect run`'s words: this very binary's step with what it needs to
 * judge a revision against GOOD's runs. /proc/<pid>/exe, not argv[0]: the
 * binary's file may be replaced (an upgrade or a rebuild mid-bisect) while
 * we wait for git, and this link stays valid. */
static void step_command(const struct bisect *b, const char *log, struct strlist *run)
{
	char self[32];
	snprintf(self, sizeof(self), "/proc/%d/exe", (int)getpid());
	strlist_split(run, "bisect run", " ");
	strlist_push(run, b->step_program ? b->step_program : self);
	strlist_split(run, "bisect --step", " ");
	const char *pairs[][2] = { { "--kernel-git", b->repo }, { "--kernel-base", b->good_rev.base },
				   { "--metric", b->metric }, { "--plan", b->plan_name },
				   { "--log", log }, { "--good", b->good_rev.commit },
				   { "--bad", b->bad_rev.commit } };
	for (size_t i = 0; i < HB_ARRAY_SIZE(pairs); i++) {
		strlist_push(run, pairs[i][0]);
		strlist_push(run, pairs[i][1]);
	}
}

/* What git's bisection in wt ended at: the culprit, its subject and parent,
 * the means the steps logged for the two and where the instructions moved
 * between their runs. */
static int read_culprit(struct bisect *b, struct store *s, const char *wt, const char *log)
{
	char *bad_ref[] = { "git", "-C", (char *)wt, "rev-parse", "refs/bisect/bad", NULL };
	char *culprit = proc_output(bad_ref);
	if (!culprit || strlen(culprit) != 40) {
		hb_err("bisect: git named no culprit (every step skipped?); see %s", log);
		free(culprit);
		return HB_FAIL;
	}
	char *parent_spec = xasprintf("%s^", culprit);
	char *par[] = { "git", "-C", (char *)wt, "rev-parse", parent_spec, NULL };
	char *subj[] = { "git", "-C", (char *)wt, "log", "-1", "--format=%s", culprit, NULL };
	b->culprit = culprit;
	b->parent = proc_output(par);
	b->subject = proc_output(subj);
	b->after = logged_mean(log, culprit);
	b->before = b->parent ? logged_mean(log, b->parent) : NAN;
	struct strlist before = { 0 }, after = { 0 };
	if (b->parent)
		logged_sessions(log, b->parent, &before);
	logged_sessions(log, culprit, &after);
	where_between(b, s, &before, &after, b->where, sizeof(b->where));
	strlist_free(&before);
	strlist_free(&after);
	free(parent_spec);
	return 0;
}

/* `git bisect run` in a worktree wt of the repository, removed after. */
static int bisect_in(struct bisect *b, struct store *s, const char *wt, const char *log)
{
	char *add[] = { "worktree", "add", "--quiet", "--detach", "--no-checkout", (char *)wt,
			b->bad_rev.commit, NULL };
	char *start[] = { "bisect", "start", "--no-checkout", b->bad_rev.commit,
			  b->good_rev.commit, NULL };
	struct strlist run = { 0 };
	step_command(b, log, &run);
	int rc = HB_FAIL;
	if (git_in(b->repo, add) == 0 && git_in(wt, start) == 0 &&
	    git_in(wt, strlist_argv(&run)) == 0)
		rc = read_culprit(b, s, wt, log);
	strlist_free(&run);
	char *reset[] = { "bisect", "reset", NULL };
	char *remove[] = { "worktree", "remove", "--force", (char *)wt, NULL };
	if (path_exists(wt)) {
		git_in(wt, reset);
		git_in(b->repo, remove);
	}
	return rc;
}

void bisect_log_ends(const struct bisect *b, const char *log)
{
	log_step(log, b->good_rev.commit, bisect_mean(&b->good_values), &b->good_sessions, "good");
	log_step(log, b->bad_rev.commit, bisect_mean(&b->bad_values), &b->bad_sessions, "bad");
}

int bisect_narrow(struct bisect *b, struct store *s)
{
	char tmpl[] = "/tmp/hb-bisect-XXXXXX";
	if (!mkdtemp(tmpl)) {
		hb_err("cannot create a temporary directory in /tmp");
		return HB_FAIL;
	}
	char *wt = path_join(tmpl, "worktree");
	char *log = path_join(tmpl, "steps.log");
	bisect_log_ends(b, log);
	int rc = bisect_in(b, s, wt, log);
	rm_rf(tmpl);
	free(wt);
	free(log);
	return rc;
}

void bisect_free(struct bisect *b)
{
	if (b->wl.name)
		workload_free(&b->wl);
	plan_free(&b->plan);
	strlist_free(&b->good_sessions);
	strlist_free(&b->bad_sessions);
	free(b->good_values.v);
	free(b->bad_values.v);
	git_revision_free(&b->good_rev);
	git_revision_free(&b->bad_rev);
	free(b->culprit);
	free(b->subject);
	free(b->parent);
}
