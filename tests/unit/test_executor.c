/* executor: the plan executor's decisions, over the doubles of run_double.h
 * (a test double of the board's deploy backend, steps that build nothing
 * and measure nothing) and a real store in a temp dir: one boot per cell
 * or per repetition; an infrastructure error is retried on a fresh boot
 * until the attempts run out, a DUT failure or a panic is not; a run that
 * fails ends its boot, the runs after it are stored as not run; a lab that
 * takes no boots stops the plan; a build failure is stored and never
 * retried; --resume runs only what the session has no pass run for; the
 * repetitions of a host-paced workload start from the first boot, saved. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/executor.h"
#include "run_double.h"
#include "store/store.h"
#include "util/util.h"

static char dir[64];
static struct store *st;
static struct plan plan;

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hb-test-executor-XXXXXX");
	st = double_setup(dir);
	memset(&plan, 0, sizeof(plan));
	plan.name = "executor-test";
	plan.repetitions = 2;
	plan.timing = TIMING_VIRTUAL;
	plan.boots = BOOTS_PER_CELL;
	strlist_push(&plan.boards, "qemu-orangepi-pc");
	strlist_push(&plan.strategies, "baseline");
	strlist_push(&plan.workloads, "udp64-dut-tx");
	strlist_push(&plan.workloads, "tcp-dut-tx");
	return st ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	deploy_substitute(NULL);
	strlist_free(&plan.boards);
	strlist_free(&plan.strategies);
	strlist_free(&plan.workloads);
	store_close(st);
	return rm_rf(dir);
}

/* The stored runs of a session, one line each: "class workload reason". */
struct runs {
	struct strlist lines;
	char last[40];
	size_t pass;
};

static int add_run(const struct run_row *r, void *ctx)
{
	struct runs *k = ctx;
	if (!strcmp(k->last, r->id))
		return 0;	/* rows come per run and metric */
	snprintf(k->last, sizeof(k->last), "%s", r->id);
	strlist_pushf(&k->lines, "%s %s %s", r->cls, r->workload, r->reason ? r->reason : "-");
	k->pass += !strcmp(r->cls, "pass");
	return 0;
}

static void stored(const char *session, struct runs *k)
{
	memset(k, 0, sizeof(*k));
	struct selection sel = { .session = session, .all_classes = 1 };
	assert_int_equal(store_foreach(st, &sel, add_run, k), 0);
}

static int execute(const struct exec_opts *o, char session[40])
{
	struct exec_opts with = *o;
	with.stages = &double_stages;
	return executor_run_plan(&plan, st, &with, session);
}

/* Runs the plan with o, expecting the result want; the session's stored
 * runs into k. */
static void run_plan(const struct exec_opts *o, int want, char session[40], struct runs *k)
{
	assert_int_equal(execute(o, session), want);
	stored(session, k);
}

static void has(const struct runs *k, size_t i, const char *start, const char *part)
{
	assert_true(i < k->lines.n);
	if (strncmp(k->lines.v[i], start, strlen(start)) || !strstr(k->lines.v[i], part))
		fail_msg("run %zu is '%s', expected '%s ...%s...'", i, k->lines.v[i], start, part);
}

static void every_run_of_a_cell_on_one_boot(void **state)
{
	(void)state;
	char session[40];
	struct runs k;
	run_plan(&(struct exec_opts){ 0 }, 0, session, &k);
	assert_int_equal(k.lines.n, 4);
	assert_int_equal(k.pass, 4);
	assert_int_equal(dbl.started, 1);
	assert_int_equal(dbl.stopped, 1);
	/* repetitions interleaved across workloads */
	assert_string_equal(dbl.ran_workloads[0], "udp64-dut-tx");
	assert_string_equal(dbl.ran_workloads[1], "tcp-dut-tx");
	assert_string_equal(dbl.ran_workloads[2], "udp64-dut-tx");
	strlist_free(&k.lines);
}

/* One plan, one userland: every cell of a plan with a perf workload boots
 * the perf userland, also for its other workloads; a plan without, never. */
static void only_a_plan_that_profiles_with_perf_boots_perf(void **state)
{
	(void)state;
	char session[40];
	strlist_push(&plan.strategies, "revert");
	assert_int_equal(execute(&(struct exec_opts){ 0 }, session), 0);
	assert_int_equal(dbl.prepared, 2);
	assert_int_equal(dbl.prepared_with_perf, 0);
	strlist_push(&plan.workloads, "udp64-dut-tx-perf");
	assert_int_equal(execute(&(struct exec_opts){ 0 }, session), 0);
	assert_int_equal(dbl.prepared, 4);
	assert_int_equal(dbl.prepared_with_perf, 2);
}

/* A boot per repetition and kind: the UDP run (DUT-paced) in a boot of
 * its own, then the TCP run (host-paced) in another, as compare's planner
 * gives them. */
static void a_boot_per_repetition(void **state)
{
	(void)state;
	plan.boots = BOOTS_PER_REPETITION;
	struct exec_opts o = { 0 };
	char session[40];
	assert_int_equal(execute(&o, session), 0);
	assert_int_equal(dbl.started, 4);
	assert_int_equal(dbl.ran, 4);
	assert_string_equal(dbl.ran_workloads[0], "udp64-dut-tx");
	assert_string_equal(dbl.ran_workloads[1], "tcp-dut-tx");
	assert_string_equal(dbl.ran_workloads[2], "udp64-dut-tx");
}

/* The store's count of the session's runs whose boot started from a saved
 * DUT (runs.resumed_from), and of those from another boot than theirs. */
static int resumed_runs(const char *session)
{
	char *path = path_join(dir, "store/hilbench.db");
	sqlite3 *db;
	sqlite3_stmt *q;
	int n = -1;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM runs WHERE session = ?1 "
					    "AND resumed_from IS NOT NULL AND resumed_from != "
					    "boot_id", -1, &q, NULL), SQLITE_OK);
	sqlite3_bind_text(q, 1, session, -1, SQLITE_STATIC);
	if (sqlite3_step(q) == SQLITE_ROW)
		n = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	sqlite3_close(db);
	free(path);
	return n;
}

/* On a board with deploy.qemu.saved_boot, a boot per repetition in virtual
 * time: the first boot of the images saves the DUT before its runs,
 * whatever they are, and a later boot whose
 * runs are all host-paced (TCP) starts from it, also in the next plan of
 * the same process; one that does not start from it is forgotten; a boot
 * with a DUT-paced run boots, and real time, or a boot per cell, never
 * saves (docs/measurements.md, "Repetitions from a saved boot"). */
static void host_paced_repetitions_start_from_the_first_boot(void **state)
{
	(void)state;
	deploy_substitute(&double_saving_ops);
	char *board = xasprintf("%s/tests/data/boards/qemu-orangepi-pc-saved.yaml",
				getenv("HILBENCH_HOME"));
	strlist_free(&plan.boards);
	strlist_push(&plan.boards, board);
	free(board);
	plan.boots = BOOTS_PER_REPETITION;
	char session[40];
	assert_int_equal(execute(&(struct exec_opts){ 0 }, session), 0);
	/* a boot per repetition and kind: the first UDP boot saves, the TCP
	 * boots start from it, the second UDP boot boots */
	assert_int_equal(dbl.started, 4);
	assert_int_equal(dbl.saved, 1);
	assert_int_equal(dbl.resumed, 2);
	assert_int_equal(resumed_runs(session), 2);

	strlist_free(&plan.workloads);
	strlist_push(&plan.workloads, "tcp-dut-tx");
	plan.repetitions = 3;
	assert_int_equal(execute(&(struct exec_opts){ 0 }, session), 0);
	assert_int_equal(dbl.started, 7);
	assert_int_equal(dbl.saved, 1);
	assert_int_equal(dbl.resumed, 5);
	assert_int_equal(dbl.ran, 7);
	assert_int_equal(resumed_runs(session), 3);

	/* a saved DUT that does not start is forgotten: the retry boots, and saves */
	dbl.boots[7] = BOOT_NO_START;
	dbl.nboots = 8;
	plan.repetitions = 1;
	assert_int_equal(execute(&(struct exec_opts){ 0 }, session), 0);
	assert_int_equal(dbl.started, 9);
	assert_int_equal(dbl.saved, 2);
	assert_int_equal(dbl.resumed, 5);
	plan.repetitions = 3;

	plan.timing = TIMING_REALTIME;
	assert_int_equal(execute(&(struct exec_opts){ 0 }, session), 0);
	plan.timing = TIMING_VIRTUAL;
	plan.boots = BOOTS_PER_CELL;
	assert_int_equal(execute(&(struct exec_opts){ 0 }, session), 0);
	assert_int_equal(dbl.started, 13);
	assert_int_equal(dbl.saved, 2);
	assert_int_equal(dbl.resumed, 5);

	/* the default board leaves it off */
	strlist_free(&plan.boards);
	strlist_push(&plan.boards, "qemu-orangepi-pc");
	plan.boots = BOOTS_PER_REPETITION;
	assert_int_equal(execute(&(struct exec_opts){ 0 }, session), 0);
	assert_int_equal(dbl.started, 16);
	assert_int_equal(dbl.saved, 2);
	assert_int_equal(dbl.resumed, 5);
}

static void an_infrastructure_error_is_retried_on_a_fresh_boot(void **state)
{
	(void)state;
	dbl.runs[dbl.nruns++] = RUN_ERROR;
	char session[40];
	struct runs k;
	run_plan(&(struct exec_opts){ 0 }, 0, session, &k);
	assert_int_equal(k.lines.n, 5);
	has(&k, 0, "error udp64-dut-tx", "infrastructure, retried (attempt 1 of 3)");
	assert_int_equal(k.pass, 4);
	assert_int_equal(dbl.started, 2);
	assert_int_equal(dbl.stopped, 2);
	strlist_free(&k.lines);
}

static void retries_stop_when_the_attempts_run_out(void **state)
{
	(void)state;
	strlist_free(&plan.workloads);
	strlist_push(&plan.workloads, "udp64-dut-tx");
	plan.repetitions = 1;
	for (; dbl.nruns < DOUBLE_MAX; dbl.nruns++)
		dbl.runs[dbl.nruns] = RUN_ERROR;
	char session[40];
	struct runs k;
	run_plan(&(struct exec_opts){ .attempts = 2 }, HB_FAIL, session, &k);
	assert_int_equal(k.lines.n, 2);
	has(&k, 0, "error", "retried (attempt 1 of 2)");
	has(&k, 1, "error", "the double's error");
	assert_null(strstr(k.lines.v[1], "retried"));
	assert_int_equal(dbl.started, 2);
	strlist_free(&k.lines);
}

static void a_dut_failure_ends_the_boot_and_is_not_retried(void **state)
{
	(void)state;
	dbl.runs[dbl.nruns++] = RUN_FAIL;
	char session[40];
	struct runs k;
	run_plan(&(struct exec_opts){ 0 }, HB_FAIL, session, &k);
	assert_int_equal(k.lines.n, 4);
	has(&k, 0, "fail udp64-dut-tx", "the double's fail");
	for (size_t i = 1; i < 4; i++)
		has(&k, i, "error", "not run: the DUT failed in run");
	assert_int_equal(dbl.started, 1);
	assert_int_equal(dbl.ran, 1);
	strlist_free(&k.lines);
}

static void a_panic_at_boot_fails_the_runs_it_held_up(void **state)
{
	(void)state;
	dbl.boots[dbl.nboots++] = BOOT_PANIC;
	char session[40];
	struct runs k;
	run_plan(&(struct exec_opts){ 0 }, HB_FAIL, session, &k);
	assert_int_equal(k.lines.n, 4);
	for (size_t i = 0; i < 4; i++)
		has(&k, i, "fail", "boot failed: Kernel panic");
	assert_int_equal(dbl.started, 1);
	assert_int_equal(dbl.ran, 0);
	strlist_free(&k.lines);
}

static void a_boot_that_never_starts_is_retried(void **state)
{
	(void)state;
	dbl.boots[dbl.nboots++] = BOOT_NO_START;
	dbl.boots[dbl.nboots++] = BOOT_SILENT;
	char session[40];
	struct runs k;
	run_plan(&(struct exec_opts){ 0 }, 0, session, &k);
	assert_int_equal(k.lines.n, 6);
	has(&k, 0, "error udp64-dut-tx", "boot failed: see the console log");
	has(&k, 0, "error", "retried (attempt 1 of 3)");
	has(&k, 1, "error udp64-dut-tx", "console closed during boot");
	has(&k, 1, "error", "retried (attempt 2 of 3)");
	assert_int_equal(k.pass, 4);
	assert_int_equal(dbl.started, 3);
	strlist_free(&k.lines);
}

static void a_dut_running_another_kernel_gives_no_numbers(void **state)
{
	(void)state;
	dbl.boots[dbl.nboots++] = BOOT_WRONG_KERNEL;
	char session[40];
	struct runs k;
	run_plan(&(struct exec_opts){ 0 }, HB_FAIL, session, &k);
	assert_int_equal(k.pass, 0);
	has(&k, 0, "fail", "the DUT runs kernel '5.10.0-other'");
	assert_int_equal(dbl.ran, 0);
	strlist_free(&k.lines);
}

static void a_lab_that_takes_no_boots_stops_the_plan(void **state)
{
	(void)state;
	strlist_push(&plan.strategies, "revert");
	dbl.boots[dbl.nboots++] = BOOT_LAB_DOWN;
	char session[40];
	struct runs k;
	run_plan(&(struct exec_opts){ 0 }, HB_FAIL, session, &k);
	assert_int_equal(k.lines.n, 4);
	for (size_t i = 0; i < 4; i++)
		has(&k, i, "error", "boot failed");
	assert_int_equal(dbl.started, 1);
	assert_int_equal(dbl.prepared, 1);	/* the second strategy is never built */
	strlist_free(&k.lines);
}

static void a_build_failure_is_stored_and_never_retried(void **state)
{
	(void)state;
	dbl.prepare_rc = HB_FAIL;
	char session[40];
	struct runs k;
	run_plan(&(struct exec_opts){ 0 }, HB_FAIL, session, &k);
	assert_int_equal(k.lines.n, 4);
	for (size_t i = 0; i < 4; i++)
		has(&k, i, "error", "build failed (see the error above)");
	assert_int_equal(dbl.prepared, 1);
	assert_int_equal(dbl.started, 0);
	strlist_free(&k.lines);
}

static void resume_runs_only_what_has_no_pass_run(void **state)
{
	(void)state;
	dbl.runs[dbl.nruns++] = RUN_PASS;
	dbl.runs[dbl.nruns++] = RUN_ERROR;	/* tcp-dut-tx, repetition 1 */
	char session[40];
	struct runs k;
	run_plan(&(struct exec_opts){ .attempts = 1 }, HB_FAIL, session, &k);
	assert_int_equal(k.lines.n, 4);
	has(&k, 1, "error tcp-dut-tx", "the double's error");
	has(&k, 2, "error", "not run: an error, with every attempt used, ended run");
	strlist_free(&k.lines);

	double_reset(dir);
	struct exec_opts again = { .resume = session };
	char resumed[40];
	assert_int_equal(execute(&again, resumed), 0);
	assert_string_equal(resumed, session);
	assert_int_equal(dbl.ran, 3);
	assert_string_equal(dbl.ran_workloads[0], "tcp-dut-tx");
	stored(session, &k);
	assert_int_equal(k.pass, 4);
	strlist_free(&k.lines);

	/* nothing left: no boot at all */
	double_reset(dir);
	assert_int_equal(execute(&again, resumed), 0);
	assert_int_equal(dbl.started, 0);
}

static void resume_of_another_plan_is_refused(void **state)
{
	(void)state;
	struct exec_opts o = { 0 };
	char session[40];
	assert_int_equal(execute(&o, session), 0);
	plan.name = "another-plan";
	struct exec_opts again = { .resume = session };
	char resumed[40];
	assert_int_equal(execute(&again, resumed), HB_FAIL_INPUT);
	assert_int_equal(dbl.started, 1);
	plan.name = "executor-test";
	struct exec_opts latest = { .resume = "latest" };
	assert_int_equal(execute(&latest, resumed), 0);
	assert_string_equal(resumed, session);
}

static int first_row(const struct run_row *r, void *ctx)
{
	char **out = ctx;
	*out = xasprintf("%s|%s", r->kernel_version, r->patches);
	return 1;
}

/* A --kernel-git revision's runs say which commit they ran
 * (<version>+g<commit>) and where its repository is, on the revision's
 * patch layer, even when the build was cached from another commit with the
 * same diff (its manifest names that commit's file): what KCIDB's
 * git_commit_hash and git_repository_url read. */
static void a_revision_s_runs_name_its_commit_and_repository(void **state)
{
	(void)state;
	char *earlier = path_join(dir, "base..earlier.patch");
	char *other = path_join(dir, "other.patch");
	struct git_revision gr = { .url = "https://git.example.org/lab/linux.git" };
	gr.patch = path_join(dir, "base..rev.patch");
	snprintf(gr.commit, sizeof(gr.commit), "0123456789abcdef0123456789abcdef01234567");
	static const char diff[] = "+++ b/driver.c\n+int y;\n";
	assert_int_equal(write_file_atomic(earlier, diff, strlen(diff)), 0);
	assert_int_equal(write_file_atomic(gr.patch, diff, strlen(diff)), 0);
	assert_int_equal(sha256_file_hex(gr.patch, gr.patch_sha256), 0);	/* as prepare does */
	assert_int_equal(write_file_atomic(other, "+++ b/x.c\n", 10), 0);
	struct exec_opts o = { .revision = &gr };
	strlist_push(&o.user_patches, other);
	strlist_push(&o.user_patches, earlier);	/* the double's manifest names it */
	char session[40];
	assert_int_equal(execute(&o, session), 0);
	char *row = NULL;
	struct selection sel = { .session = session };
	assert_int_equal(store_foreach(st, &sel, first_row, &row), 1);
	char *bar = strchr(row, '|');
	*bar = 0;
	assert_string_equal(row, "6.1.0+g0123456789ab");
	cJSON *p = cJSON_Parse(bar + 1);
	assert_int_equal(cJSON_GetArraySize(p), 2);
	cJSON *user = cJSON_GetArrayItem(p, 0), *layer = cJSON_GetArrayItem(p, 1);
	assert_string_equal(cJSON_GetObjectItem(user, "path")->valuestring, other);
	assert_null(cJSON_GetObjectItem(user, "git_repository_url"));
	assert_string_equal(cJSON_GetObjectItem(layer, "path")->valuestring, gr.patch);
	assert_string_equal(cJSON_GetObjectItem(layer, "git_repository_url")->valuestring, gr.url);
	cJSON_Delete(p);
	free(row);
	strlist_free(&o.user_patches);
	free(gr.patch);
	free(other);
	free(earlier);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(every_run_of_a_cell_on_one_boot, setup, teardown),
		cmocka_unit_test_setup_teardown(only_a_plan_that_profiles_with_perf_boots_perf, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_boot_per_repetition, setup, teardown),
		cmocka_unit_test_setup_teardown(host_paced_repetitions_start_from_the_first_boot,
						setup, teardown),
		cmocka_unit_test_setup_teardown(an_infrastructure_error_is_retried_on_a_fresh_boot,
						setup, teardown),
		cmocka_unit_test_setup_teardown(retries_stop_when_the_attempts_run_out, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_dut_failure_ends_the_boot_and_is_not_retried, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_panic_at_boot_fails_the_runs_it_held_up, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_boot_that_never_starts_is_retried, setup, teardown),
		cmocka_unit_test_setup_teardown(a_dut_running_another_kernel_gives_no_numbers, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_lab_that_takes_no_boots_stops_the_plan, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_build_failure_is_stored_and_never_retried, setup,
						teardown),
		cmocka_unit_test_setup_teardown(resume_runs_only_what_has_no_pass_run, setup, teardown),
		cmocka_unit_test_setup_teardown(resume_of_another_plan_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(a_revision_s_runs_name_its_commit_and_repository,
						setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
