/* nightly: the lock keeps a second nightly out, the record makes a second
 * invocation for the same plan and revision find the stored session, and
 * a change of plan file or revision makes a new key. Uses a real store in
 * a temp dir; the one run in it is written by the test, not measured. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/nightly.h"
#include "store/store.h"
#include "util/util.h"

static char dir[64];
static struct store *st;

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hb-test-nightly-XXXXXX");
	if (!mkdtemp(dir) || !(st = store_open(dir)))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(two_nights_never_overlap),
		cmocka_unit_test(key_follows_plan_contents_and_revision),
		cmocka_unit_test(a_recorded_night_is_found_while_its_runs_exist),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
