/* bisect: the driver over the doubles of run_double.h (a test double of
 * the board's deploy backend; builds and runs that only pretend) with
 * plans/gate.yaml, a real store and a real git history the test makes:
 * GOOD against BAD (a regression, or none), each step's verdict (good,
 * bad, inconclusive, a build that fails) and the whole narrowing through
 * `git bisect run`, which calls this binary back as the step
 * (`test_bisect bisect --step ...`, as it would call hilbench). The
 * script (which revisions are slower, noisy or do not build) is in the
 * environment, so that those steps read it too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/bisect.h"
#include "run_double.h"
#include "util/proc.h"
#include "util/util.h"

#define COMMITS 7	/* c0 (the base) .. c6 */

static char dir[64];
static char *repo, *self;
static char commit[COMMITS][41];
static struct store *st;

/* The revision tags (g<12 hex>) of commits, space-separated, into var. */
static void script(const char *var, const int *which, size_t n)
{
	struct strlist tags = { 0 };
	for (size_t i = 0; i < n; i++)
		strlist_pushf(&tags, "g%.12s", commit[which[i]]);
	char *v = argv_join(&tags, " ");
	setenv(var, v, 1);
	free(v);
	strlist_free(&tags);
}

static int listed(const char *var, const char *revision)
{
	const char *v = getenv(var);
	return *revision && v && strstr(v, revision);
}

/* A tight spread (0.1 %) around 100, or 90 for a slower revision; a noisy
 * one spreads 20 %, so no verdict within the cap. */
static double mbps(const char *strategy, size_t run)
{
	(void)strategy;
	if (listed("HB_TEST_NOISY", dbl.revision))
		return 100 * (1 + 0.2 * (run % 2 ? 1 : -1));
	double rate = listed("HB_TEST_SLOW", dbl.revision) ? 90 : 100;
	return rate * (1 + 0.001 * ((double)(run % 3) - 1));
}

/* The emulator's count: a slower revision runs 240 instructions more a
 * packet in stmmac_xmit. */
static double xmit_insn(const char *strategy, size_t run)
{
	(void)strategy;
	(void)run;
	return listed("HB_TEST_SLOW", dbl.revision) ? 941 : 701;
}

static int unbuildable(const char *revision)
{
	return listed("HB_TEST_UNBUILDABLE", revision) ? HB_FAIL : 0;
}

static void script_doubles(const char *manifests)
{
	double_reset(manifests);
	dbl.mbps = mbps;
	dbl.xmit_insn = xmit_insn;
	dbl.prepare_revision = unbuildable;
	deploy_substitute(&double_ops);
}

static int git(char *const args[])
{
	struct strlist argv = { 0 };
	strlist_split(&argv, "git -c user.name=t -c user.email=t@t.invalid -C", " ");
	strlist_push(&argv, repo);
	for (size_t i = 0; args[i]; i++)
		strlist_push(&argv, args[i]);
	struct proc_opts quiet = PROC_OPTS_DEFAULT;
	quiet.stdout_fd = -1;
	int rc = proc_run(strlist_argv(&argv), &quiet);
	strlist_free(&argv);
	return rc;
}

/* c0 .. c6, each a line more of driver.c; c0 stands for Debian's tree. */
static int make_history(void)
{
	char *init[] = { "git", "init", "-q", repo, NULL };
	if (proc_run(init, NULL) < 0)
		return -1;
	char *file = path_join(repo, "driver.c");
	struct strlist text = { 0 };
	int rc = 0;
	for (int i = 0; i < COMMITS && rc == 0; i++) {
		strlist_pushf(&text, "int c%d;", i);
		char *body = argv_join(&text, "\n");
		char subject[8];
		snprintf(subject, sizeof(subject), "c%d", i);
		char *add[] = { "add", "driver.c", NULL };
		char *ci[] = { "commit", "-q", "-m", subject, NULL };
		char *head[] = { "git", "-C", repo, "rev-parse", "HEAD", NULL };
		rc = write_file_atomic(file, body, strlen(body)) < 0 || git(add) || git(ci);
		char *id = rc ? NULL : proc_output(head);
		if (id)
			snprintf(commit[i], sizeof(commit[i]), "%s", id);
		rc = rc || !id;
		free(id);
		free(body);
	}
	strlist_free(&text);
	free(file);
	return rc ? -1 : 0;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hb-test-bisect-XXXXXX");
	st = double_setup(dir);
	if (!st)
		return -1;
	script_doubles(dir);
	char *store = path_join(dir, "store"), *cache = path_join(dir, "cache");
	setenv("HILBENCH_STORE", store, 1);	/* the steps' */
	setenv("HILBENCH_CACHE", cache, 1);	/* the revisions' diffs */
	free(store);
	free(cache);
	repo = path_join(dir, "repo");
	return make_history();
}

static int teardown(void **state)
{
	(void)state;
	deploy_substitute(NULL);
	store_close(st);
	free(repo);
	return rm_rf(dir);
}

static void bisect_init(struct bisect *b, int good, int bad)
{
	*b = (struct bisect){ .good = commit[good], .bad = commit[bad], .repo = repo,
			      .base = commit[0], .metric = "pps", .plan_name = "gate",
			      .stages = &double_stages, .step_program = self };
	assert_int_equal(bisect_load(b), 0);
}

static void unscript(void)
{
	unsetenv("HB_TEST_SLOW");
	unsetenv("HB_TEST_NOISY");
	unsetenv("HB_TEST_UNBUILDABLE");
}

static void equal_ends_are_nothing_to_bisect(void **state)
{
	(void)state;
	unscript();
	struct bisect b;
	bisect_init(&b, 1, 6);
	assert_int_equal(bisect_ends(&b, st), 0);
	assert_int_equal(b.ends.outcome, GATE_PASS);
	assert_string_equal(b.ends.where, "");	/* no function moved */
	assert_int_equal(b.good_sessions.n, 1);
	assert_int_equal(b.good_values.n, (size_t)b.plan.repetitions);
	bisect_free(&b);
}

static void a_revision_not_there_is_an_input_error(void **state)
{
	(void)state;
	struct bisect b;
	bisect_init(&b, 1, 6);
	b.bad = "no-such-revision";
	assert_int_equal(bisect_ends(&b, st), HB_FAIL_INPUT);
	bisect_free(&b);
}

/* c0 (GOOD) .. c6 (BAD), slower from commit first_slow on; c2 noisy (no
 * verdict within the cap), c3 not built: the ends are a regression. */
static void regressed_from(int first_slow, struct bisect *b)
{
	int slow[COMMITS], n = 0, noisy[] = { 2 }, broken[] = { 3 };
	for (int i = first_slow; i < COMMITS; i++)
		slow[n++] = i;
	script("HB_TEST_SLOW", slow, (size_t)n);
	script("HB_TEST_NOISY", noisy, 1);
	script("HB_TEST_UNBUILDABLE", broken, 1);
	bisect_init(b, 0, COMMITS - 1);
	assert_int_equal(bisect_ends(b, st), 0);
	assert_int_equal(b->ends.outcome, GATE_REGRESSED);
	assert_string_equal(b->ends.where, "+240 instructions/packet in stmmac_xmit");
}

/* BAD slower than GOOD; then each step's verdict on a revision git would
 * hand it (BISECT_HEAD of a bisection started in the repository). */
static void each_step_is_good_bad_or_skipped(void **state)
{
	(void)state;
	struct bisect b;
	regressed_from(4, &b);

	char *start[] = { "bisect", "start", "--no-checkout", commit[6], commit[0], NULL };
	char *reset[] = { "bisect", "reset", NULL };
	assert_int_equal(git(start), 0);
	char *log = path_join(dir, "steps.log");
	bisect_log_ends(&b, log);
	b.log = log;
	char cwd[4096];
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(repo), 0);
	static const struct {
		int commit, verdict;
		const char *word;
	} steps[] = {
		{ 1, BISECT_GOOD, "good" },
		{ 5, BISECT_BAD, "bad" },
		{ 2, BISECT_SKIP, "skip (undecided)" },
		{ 3, BISECT_SKIP, "skip (not measured)" },
	};
	for (size_t i = 0; i < HB_ARRAY_SIZE(steps); i++) {
		char *at[] = { "update-ref", "BISECT_HEAD", commit[steps[i].commit], NULL };
		assert_int_equal(git(at), 0);
		size_t runs = dbl.ran;
		assert_int_equal(bisect_step(&b, st), steps[i].verdict);
		char *text = read_file(log, NULL);
		char *line = xasprintf("%s ", commit[steps[i].commit]);
		char *word = xasprintf(" %s\n", steps[i].word);
		char *at_line = text ? strstr(text, line) : NULL;
		assert_non_null(at_line);
		assert_non_null(strstr(at_line, word));
		if (steps[i].verdict == BISECT_SKIP && steps[i].commit == 2) {
			/* open to the cap on both sides: GOOD's runs grew with
			 * the step's, one at a time, and the log says so */
			int cap = b.plan.gate.max_repetitions, reps = b.plan.repetitions;
			assert_int_equal(dbl.ran - runs, (size_t)(2 * cap - reps));
			char *good = xasprintf("%s ", commit[0]), *last = NULL;
			for (char *g = strstr(text, good); g; g = strstr(g + 1, good))
				last = g;
			assert_non_null(last);
			size_t sessions = 1;
			for (char *c = strchr(last + 41, ' '); c && *c != '\n'; c++)
				sessions += *c == ',';
			assert_int_equal(sessions, 1 + (size_t)(cap - reps));
			free(good);
		}
		free(word);
		free(line);
		free(text);
	}
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(git(reset), 0);
	free(log);
	bisect_free(&b);
	unscript();
}

/* git bisect run over c0 (good) .. c6 (bad), c5 the first slower one; c3
 * does not build and c2 cannot be decided, so git goes round them. */
static void the_first_bad_commit_is_found(void **state)
{
	(void)state;
	struct bisect b;
	regressed_from(5, &b);
	assert_int_equal(bisect_narrow(&b, st), 0);
	assert_string_equal(b.culprit, commit[5]);
	assert_string_equal(b.subject, "c5");
	assert_string_equal(b.parent, commit[4]);
	assert_true(b.after < b.before);
	assert_float_equal(100 * (b.after - b.before) / b.before, -10, 0.5);
	/* between the runs of c4 and c5, where the work was added */
	assert_string_equal(b.where, "+240 instructions/packet in stmmac_xmit");
	char *list[] = { "git", "-C", repo, "worktree", "list", "--porcelain", NULL };
	char *worktrees = proc_output(list);
	assert_non_null(worktrees);
	assert_null(strstr(worktrees, "hb-bisect-"));	/* removed after */
	free(worktrees);
	bisect_free(&b);
	unscript();
}

/* The commit next to the culprit (c4) cannot be built: git can name no
 * single first bad commit. */
static void a_skip_next_to_the_culprit_names_none(void **state)
{
	(void)state;
	struct bisect b;
	regressed_from(4, &b);
	assert_int_equal(bisect_narrow(&b, st), HB_FAIL);
	assert_null(b.culprit);
	bisect_free(&b);
	unscript();
}

/* `test_bisect bisect --step` as git bisect run calls it: the options the
 * bisection gives (run/bisect.c's step_command), a step over the doubles,
 * its verdict the exit code. */
static int step_main(int argc, char **argv)
{
	struct bisect b = { .stages = &double_stages };
	for (int i = 3; i + 1 < argc; i += 2) {	/* after "bisect --step" */
		const char *o = argv[i], *v = argv[i + 1];
		if (!strcmp(o, "--kernel-git"))
			b.repo = v;
		else if (!strcmp(o, "--kernel-base"))
			b.base = v;
		else if (!strcmp(o, "--metric"))
			b.metric = v;
		else if (!strcmp(o, "--plan"))
			b.plan_name = v;
		else if (!strcmp(o, "--log"))
			b.log = v;
		else if (!strcmp(o, "--good"))
			b.good = v;
		else if (!strcmp(o, "--bad"))
			b.bad = v;
	}
	int rc = BISECT_SKIP;
	char *manifests = path_join(hb_store_dir(), "..");
	struct store *s = store_open(hb_store_dir());
	script_doubles(manifests);
	if (s && bisect_load(&b) == 0)
		rc = bisect_step(&b, s);
	deploy_substitute(NULL);
	store_close(s);
	bisect_free(&b);
	free(manifests);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "bisect") && !strcmp(argv[2], "--step"))
		return step_main(argc, argv);
	self = realpath(argv[0], NULL);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(equal_ends_are_nothing_to_bisect),
		cmocka_unit_test(a_revision_not_there_is_an_input_error),
		cmocka_unit_test(each_step_is_good_bad_or_skipped),
		cmocka_unit_test(the_first_bad_commit_is_found),
		cmocka_unit_test(a_skip_next_to_the_culprit_names_none),
	};
	int rc = cmocka_run_group_tests(tests, setup, teardown);
	free(self);
	return rc;
}
