/* nightly: the lock keeps a second nightly out, the record makes a second
 * invocation for the same plan and revision find the stored session, and
 * a change of plan file or revision makes a new key. Uses a real store in
 * a temp dir; the one run in it is written by the test, not measured.
 * Then the driver over the doubles of run_double.h (a test double of the
 * board's deploy backend; builds and runs that only pretend) with
 * plans/gate.yaml: a night runs the plan once and is recorded, a second
 * finds it; a night whose runs failed is not recorded; a nightly while
 * another holds the lock runs nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/catalog.h"
#include "run/nightly.h"
#include "run_double.h"
#include "store/store.h"
#include "util/util.h"

static char dir[64];
static struct store *st;
static struct plan gate;

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hb-test-nightly-XXXXXX");
	st = double_setup(dir);
	if (!st || catalog_plan("gate", &gate) < 0)
		return -1;
	plan_gate_for_timing(&gate);	/* as cmd-nightly.c does */
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	deploy_substitute(NULL);
	plan_free(&gate);
	store_close(st);
	return rm_rf(dir);
}

static void two_nights_never_overlap(void **state)
{
	(void)state;
	int busy = 0;
	int first = nightly_lock(st, &busy);
	assert_true(first >= 0);
	assert_int_equal(busy, 0);
	/* flock belongs to the open file: a second open is a second nightly */
	int second = nightly_lock(st, &busy);
	assert_int_equal(second, -1);
	assert_int_equal(busy, 1);
	nightly_unlock(first);
	int third = nightly_lock(st, &busy);
	assert_true(third >= 0);
	nightly_unlock(third);
}

static void key_follows_plan_contents_and_revision(void **state)
{
	(void)state;
	char *plan = path_join(dir, "plan.yaml");
	assert_int_equal(write_file_atomic(plan, "name: p\n", 8), 0);
	char a[65], b[65], c[65], d[65];
	nightly_key(plan, "linux-source-6.1=6.1.158-1", a);
	nightly_key(plan, "linux-source-6.1=6.1.158-1", b);
	nightly_key(plan, "linux-source-6.1=6.1.159-1", c);
	assert_string_equal(a, b);
	assert_string_not_equal(a, c);
	assert_int_equal(write_file_atomic(plan, "name: p\nrepetitions: 5\n", 23), 0);
	nightly_key(plan, "linux-source-6.1=6.1.158-1", d);
	assert_string_not_equal(a, d);
	free(plan);
}

static void a_recorded_night_is_found_while_its_runs_exist(void **state)
{
	(void)state;
	char key[65], session[64];
	nightly_key("/nonexistent", "rev-1", key);
	assert_int_equal(nightly_find(st, key, session, sizeof(session)), 0);
	assert_int_equal(nightly_record(st, key, "p", "rev-1", "night-1"), 0);
	/* recorded, but no run of that session in the store: run again */
	assert_int_equal(nightly_find(st, key, session, sizeof(session)), 0);
	struct run_record r = {
		.session = "night-1", .plan = "p", .board = "b", .strategy = "s", .workload = "w",
		.cls = RUN_ERROR, .reason = "written by test_nightly", .timing = "virtual",
		.started = "2026-11-30T02:00:00Z", .ended = "2026-11-30T02:00:01Z",
	};
	snprintf(r.id, sizeof(r.id), "run-1");
	assert_int_equal(store_add_run(st, &r), 0);
	assert_int_equal(nightly_find(st, key, session, sizeof(session)), 1);
	assert_string_equal(session, "night-1");
}

/* One night of plans/gate.yaml against Debian's source; its code. A boot
 * per repetition and kind of workload: its UDP one, then its TCP one. */
#define KINDS 2

static int night(struct nightly *n)
{
	*n = (struct nightly){ .plan = &gate, .stages = &double_stages };
	return nightly_run(n, st);
}

static void a_night_runs_once_per_revision(void **state)
{
	(void)state;
	struct nightly n;
	assert_int_equal(night(&n), 0);
	assert_int_equal(n.found, 0);
	assert_int_equal(n.run_rc, 0);
	assert_int_equal(n.classes[RUN_PASS], (size_t)gate.repetitions * gate.workloads.n);
	assert_int_equal(dbl.started, (size_t)gate.repetitions * KINDS);
	assert_non_null(strstr(n.revision, "linux-source-6.1="));
	char session[64];
	snprintf(session, sizeof(session), "%s", n.session);
	nightly_free(&n);

	assert_int_equal(night(&n), 0);
	assert_int_equal(n.found, 1);
	assert_string_equal(n.session, session);
	assert_int_equal(n.classes[RUN_PASS], (size_t)gate.repetitions * gate.workloads.n);
	assert_int_equal(dbl.started, (size_t)gate.repetitions * KINDS);	/* nothing ran */
	nightly_free(&n);
}

static void a_night_whose_runs_failed_is_run_again(void **state)
{
	(void)state;
	char *records = path_join(store_dir(st), "nightly");
	assert_int_equal(rm_rf(records), 0);	/* the night before */
	free(records);
	double_reset(dir);
	dbl.nruns = DOUBLE_MAX;
	for (size_t i = 0; i < DOUBLE_MAX; i++)
		dbl.runs[i] = RUN_ERROR;	/* the infrastructure's: retried, then stored */
	struct nightly n;
	assert_int_equal(night(&n), 0);
	assert_int_equal(n.found, 0);
	assert_int_equal(n.run_rc, HB_FAIL);
	assert_int_equal(n.classes[RUN_PASS], 0);
	assert_true(n.classes[RUN_ERROR] >= (size_t)gate.repetitions);
	nightly_free(&n);

	double_reset(dir);
	assert_int_equal(night(&n), 0);
	assert_int_equal(n.found, 0);	/* not recorded: measured again */
	assert_int_equal(n.run_rc, 0);
	assert_int_equal(dbl.started, (size_t)gate.repetitions * KINDS);
	nightly_free(&n);
}

static void a_nightly_while_one_runs_runs_nothing(void **state)
{
	(void)state;
	int busy = 0;
	int held = nightly_lock(st, &busy);
	assert_true(held >= 0);
	double_reset(dir);
	struct nightly n;
	assert_int_equal(night(&n), HB_FAIL);
	assert_int_equal(dbl.started, 0);
	assert_int_equal(dbl.prepared, 0);
	nightly_free(&n);
	nightly_unlock(held);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(two_nights_never_overlap),
		cmocka_unit_test(key_follows_plan_contents_and_revision),
		cmocka_unit_test(a_recorded_night_is_found_while_its_runs_exist),
		cmocka_unit_test(a_night_runs_once_per_revision),
		cmocka_unit_test(a_night_whose_runs_failed_is_run_again),
		cmocka_unit_test(a_nightly_while_one_runs_runs_nothing),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
