/* options: the change-point options `history` and `nightly` share take
 * their values into cp_params, reject bad ones with a message naming the
 * option and what to give, and leave every other option to the command;
 * the same for the run selection `report` and `history` share.
 * run_options_parse() makes `run`'s and `compare`'s plan: an ad-hoc one of
 * --board, --strategy and --workload, with the command line's overrides,
 * or a usage error that says what to give.
 * The kernel revision `nightly` and `bisect` measure becomes executor options
 * (run/revision.c):
 * tested on a tiny git repository the test makes in a temp dir. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/options.h"
#include "run/revision.h"
#include "util/proc.h"
#include "util/util.h"

/* stderr into a temporary file between catch_stderr() and caught() */
static FILE *catcher;
static int saved_stderr = -1;

static void catch_stderr(void)
{
	fflush(stderr);
	catcher = tmpfile();
	assert_non_null(catcher);
	saved_stderr = dup(STDERR_FILENO);
	assert_true(saved_stderr >= 0);
	assert_true(dup2(fileno(catcher), STDERR_FILENO) >= 0);
}

static void caught(char *msg, size_t size)
{
	fflush(stderr);
	assert_true(dup2(saved_stderr, STDERR_FILENO) >= 0);
	close(saved_stderr);
	rewind(catcher);
	size_t n = fread(msg, 1, size - 1, catcher);
	msg[n] = '\0';
	fclose(catcher);
}

/* the option parsers' return value, and what they printed in msg */
static int parse_caught(int c, const char *arg, struct cp_params *cp, char *msg, size_t size)
{
	catch_stderr();
	int rc = changepoint_option(c, arg, cp);
	caught(msg, size);
	return rc;
}

static int select_caught(int c, const char *arg, struct selection *sel, char *msg, size_t size)
{
	catch_stderr();
	int rc = selection_option(c, arg, sel);
	caught(msg, size);
	return rc;
}

static void values_go_into_the_params(void **state)
{
	(void)state;
	struct cp_params cp;
	cp_params_default(&cp);
	char msg[256];
	assert_int_equal(parse_caught('n', "5", &cp, msg, sizeof(msg)), 1);
	assert_int_equal(parse_caught('A', "0.01", &cp, msg, sizeof(msg)), 1);
	assert_int_equal(parse_caught('R', "999", &cp, msg, sizeof(msg)), 1);
	assert_int_equal(parse_caught('x', "0x2a", &cp, msg, sizeof(msg)), 1);
	assert_int_equal(cp.min_segment, 5);
	assert_true(cp.alpha == 0.01);
	assert_int_equal(cp.permutations, 999);
	assert_true(cp.seed == 42);
	assert_string_equal(msg, "");
}

static void other_options_are_the_commands(void **state)
{
	(void)state;
	struct cp_params cp, before;
	cp_params_default(&cp);
	before = cp;
	char msg[256];
	assert_int_equal(parse_caught('k', "/src/linux", &cp, msg, sizeof(msg)), 0);
	assert_int_equal(parse_caught('h', NULL, &cp, msg, sizeof(msg)), 0);
	assert_true(cp.min_segment == before.min_segment && cp.alpha == before.alpha &&
		    cp.permutations == before.permutations && cp.seed == before.seed);
	assert_string_equal(msg, "");
}

static void bad_values_say_what_to_give(void **state)
{
	(void)state;
	static const struct {
		int c;
		const char *arg, *msg;
	} cases[] = {
		{ 'n', "1", "--min-segment 1: give a whole number from 2 to 100000" },
		{ 'n', "3x", "--min-segment 3x: give a whole number from 2 to 100000" },
		{ 'n', "-3", "--min-segment -3: give a whole number from 2 to 100000" },
		{ 'R', "18", "--permutations 18: give a whole number from 19 to 100000" },
		{ 'R', "100001", "--permutations 100001: give a whole number from 19 to 100000" },
		{ 'A', "1", "--alpha 1: give a level between 0 and 1, e.g. 0.05" },
		{ 'A', "0", "--alpha 0: give a level between 0 and 1, e.g. 0.05" },
		{ 'A', "nan", "--alpha nan: give a level between 0 and 1, e.g. 0.05" },
		{ 'A', "", "--alpha : give a level between 0 and 1, e.g. 0.05" },
		{ 'x', "-1", "--seed -1: give a number, e.g. 42 or 0x2a" },
		{ 'x', "", "--seed : give a number, e.g. 42 or 0x2a" },
		{ 'x', "99999999999999999999", "--seed 99999999999999999999: give a number" },
	};
	for (size_t i = 0; i < HB_ARRAY_SIZE(cases); i++) {
		struct cp_params cp;
		cp_params_default(&cp);
		char msg[256];
		assert_int_equal(parse_caught(cases[i].c, cases[i].arg, &cp, msg, sizeof(msg)), -1);
		assert_non_null(strstr(msg, cases[i].msg));
	}
}

static void a_revision_becomes_a_patch_layer(void **state)
{
	(void)state;
	char dir[] = "/tmp/hb-test-options-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *cache = path_join(dir, "cache"), *repo = path_join(dir, "repo");
	char *file = path_join(repo, "driver.c");
	setenv("HILBENCH_CACHE", cache, 1);
	char *init[] = { "git", "init", "-q", repo, NULL };
	char *add[] = { "git", "-C", repo, "add", "driver.c", NULL };
	char *commit[] = { "git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t.invalid",
			   "commit", "-q", "-m", "driver", NULL };
	struct proc_opts quiet = PROC_OPTS_DEFAULT;
	quiet.stdout_fd = -1;
	assert_int_equal(proc_run(init, &quiet), 0);
	assert_int_equal(write_file_atomic(file, "int x;\n", 7), 0);
	assert_int_equal(proc_run(add, &quiet), 0);
	assert_int_equal(proc_run(commit, &quiet), 0);
	assert_int_equal(write_file_atomic(file, "int x;\nint y;\n", 14), 0);
	commit[8] = "-qa";
	assert_int_equal(proc_run(commit, &quiet), 0);

	struct exec_opts b = { 0 };
	struct git_revision gr = { 0 };
	assert_int_equal(exec_opts_use_revision(&b, repo, "HEAD", NULL, &gr), 0);
	assert_ptr_equal(b.revision, &gr);
	assert_int_equal(b.user_patches.n, 1);
	assert_string_equal(b.user_patches.v[0], gr.patch);
	git_revision_free(&gr);
	strlist_free(&b.user_patches);

	struct exec_opts none = { 0 };
	assert_int_equal(exec_opts_use_revision(&none, repo, "no-such-rev", NULL, &gr), -1);
	assert_null(none.revision);
	assert_int_equal(none.user_patches.n, 0);
	git_revision_free(&gr);
	free(file);
	free(repo);
	free(cache);
	assert_int_equal(rm_rf(dir), 0);
}

static void a_selection_takes_each_field(void **state)
{
	(void)state;
	struct selection sel = { 0 };
	char msg[256];
	static const char *const dates[] = { "2026-11-30", "2026-11-30T06:00",
					     "2026-11-30T06:00:00", "2026-11-30T06:00:00Z" };
	for (size_t i = 0; i < HB_ARRAY_SIZE(dates); i++) {
		assert_int_equal(select_caught('d', dates[i], &sel, msg, sizeof(msg)), 1);
		assert_ptr_equal(sel.since, dates[i]);
	}
	assert_int_equal(select_caught('S', "s1", &sel, msg, sizeof(msg)), 1);
	assert_int_equal(select_caught('P', "gate", &sel, msg, sizeof(msg)), 1);
	assert_int_equal(select_caught('b', "qemu-orangepi-pc", &sel, msg, sizeof(msg)), 1);
	assert_int_equal(select_caught('s', "revert", &sel, msg, sizeof(msg)), 1);
	assert_int_equal(select_caught('w', "udp64-dut-tx", &sel, msg, sizeof(msg)), 1);
	assert_string_equal(sel.session, "s1");
	assert_string_equal(sel.plan, "gate");
	assert_string_equal(sel.board, "qemu-orangepi-pc");
	assert_string_equal(sel.strategy, "revert");
	assert_string_equal(sel.workload, "udp64-dut-tx");
	assert_int_equal(select_caught('f', "json", &sel, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "");
}

static void since_is_a_date(void **state)
{
	(void)state;
	static const char *const bad[] = { "yesterday", "2026-11-30 06:00", "2026-13-30",
					   "2026-11-30T06", "2026-11-30T06:00:00+01:00", "" };
	for (size_t i = 0; i < HB_ARRAY_SIZE(bad); i++) {
		struct selection sel = { 0 };
		char msg[256], want[160];
		snprintf(want, sizeof(want), "--since %s: give an ISO 8601 date or UTC time, "
			 "e.g. 2026-11-30 or 2026-11-30T06:00:00Z", bad[i]);
		assert_int_equal(select_caught('d', bad[i], &sel, msg, sizeof(msg)), -1);
		assert_non_null(strstr(msg, want));
		assert_null(sel.since);
	}
}

/* run_options_parse() over argv (NULL-terminated), from getopt's start,
 * with what it printed in msg; o is freed by the caller either way. */
static int run_parse_caught(char **argv, struct run_options *o, char *msg, size_t size)
{
	int argc = 0;
	while (argv[argc])
		argc++;
	optind = 0;	/* glibc: a fresh scan, as at a command's start */
	catch_stderr();
	int rc = run_options_parse(argc, argv, "usage: run\n", "adhoc", o);
	caught(msg, size);
	return rc;
}

static void an_adhoc_plan_is_the_command_lines(void **state)
{
	(void)state;
	char *argv[] = { "run", "--board", "b1,b2", "--strategy", "baseline", "--workload", "w1",
			 "--repeat", "3", "--timing", "realtime", "--jobs", "2", "--max-jobs", "4",
			 "--attempts", "5", "--kernel-series", "6.12", NULL };
	struct run_options o;
	char msg[256];
	assert_int_equal(run_parse_caught(argv, &o, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "");
	assert_string_equal(o.plan.name, "adhoc");
	assert_int_equal(o.plan.boards.n, 2);
	assert_string_equal(o.plan.boards.v[1], "b2");
	assert_string_equal(o.plan.strategies.v[0], "baseline");
	assert_string_equal(o.plan.workloads.v[0], "w1");
	assert_int_equal(o.plan.repetitions, 3);
	assert_int_equal(o.plan.repeat, REPEAT_FIXED);
	assert_int_equal(o.plan.timing, TIMING_REALTIME);
	assert_int_equal(o.exec.jobs, 2);
	assert_int_equal(o.exec.max_jobs, 4);
	assert_int_equal(o.exec.attempts, 5);
	assert_string_equal(o.exec.series, "6.12");
	run_options_free(&o);

	/* without --repeat: one repetition, virtual time */
	char *plain[] = { "run", "-b", "b1", "-s", "baseline", "-w", "w1", NULL };
	assert_int_equal(run_parse_caught(plain, &o, msg, sizeof(msg)), 0);
	assert_int_equal(o.plan.repetitions, 1);
	assert_int_equal(o.plan.timing, TIMING_VIRTUAL);
	run_options_free(&o);
}

static void bad_run_options_say_what_to_do(void **state)
{
	(void)state;
	static const struct {
		const char *argv[10];
		const char *msg;
	} cases[] = {
		{ { "run", NULL }, "name a PLAN, or all of --board, --strategy and --workload" },
		{ { "run", "-b", "b1", "-s", "baseline", NULL }, "name a PLAN, or all of --board" },
		{ { "run", "p1", "p2", NULL }, "one plan at a time (got 'p1' and 'p2')" },
		{ { "run", "-b", "b1", "-s", "s1", "-w", "w1", "--timing", "slow", NULL },
		  "--timing slow: choose realtime or virtual" },
		{ { "run", "--repeat", "0", NULL }, "--repeat 0: give a whole number from 1 to 100" },
		{ { "run", "--attempts", "11", NULL }, "--attempts 11: give a whole number from 1 to 10" },
		{ { "run", "--jobs", "65", NULL }, "--jobs 65: give a whole number from 1 to 64" },
		{ { "run", "--max-jobs", "0", NULL }, "--max-jobs 0: give a whole number from 1 to 64" },
		{ { "run", "--no-such", NULL }, "usage: run" },
	};
	for (size_t i = 0; i < HB_ARRAY_SIZE(cases); i++) {
		struct run_options o;
		char msg[512];
		assert_int_equal(run_parse_caught((char **)cases[i].argv, &o, msg, sizeof(msg)),
				 HB_FAIL_INPUT);
		assert_non_null(strstr(msg, cases[i].msg));
		run_options_free(&o);
	}
	char *help[] = { "run", "--help", NULL };
	struct run_options o;
	char msg[64];
	assert_int_equal(run_parse_caught(help, &o, msg, sizeof(msg)), 1);
	run_options_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(values_go_into_the_params),
		cmocka_unit_test(other_options_are_the_commands),
		cmocka_unit_test(bad_values_say_what_to_give),
		cmocka_unit_test(a_revision_becomes_a_patch_layer),
		cmocka_unit_test(a_selection_takes_each_field),
		cmocka_unit_test(since_is_a_date),
		cmocka_unit_test(an_adhoc_plan_is_the_command_lines),
		cmocka_unit_test(bad_run_options_say_what_to_do),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
