/* progress: the ETA is the runs left times the measured mean of a run
 * plus the builds left times the measured mean of a build, unknown (-1)
 * until what is left has been measured once; totals never fall below what
 * is done; runs stored as not run count as done but not in the mean. The
 * times are set by hand: nothing here waits on a clock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "run/progress.h"

static void the_eta_is_unknown_until_measured(void **state)
{
	(void)state;
	struct progress p;
	progress_start(&p);
	progress_expect(&p, 10, 2);
	assert_true(progress_eta_s(&p) < 0);
	p.builds_done = 2;
	p.build_s = 100;
	assert_true(progress_eta_s(&p) < 0);	/* no run measured yet */
}

static void the_eta_is_what_is_left_at_the_measured_means(void **state)
{
	(void)state;
	struct progress p;
	progress_start(&p);
	progress_expect(&p, 10, 4);
	p.builds_done = 1;
	p.build_s = 60;
	p.runs_done = p.runs_timed = 2;
	p.run_s = 30;
	/* 8 runs at 15 s, 3 builds at 60 s */
	assert_float_equal(progress_eta_s(&p), 8 * 15 + 3 * 60, 1e-3);
	/* a run stored as not run counts as done, not in the mean */
	progress_run_end(&p, 0);
	assert_int_equal(p.runs_done, 3);
	assert_int_equal(p.runs_timed, 2);
	assert_float_equal(progress_eta_s(&p), 7 * 15 + 3 * 60, 1e-3);
}

static void totals_never_fall_below_what_is_done(void **state)
{
	(void)state;
	struct progress p;
	progress_start(&p);
	progress_expect(&p, 1, 0);
	progress_run_end(&p, 1);
	progress_run_end(&p, 1);
	assert_int_equal(p.runs_total, 2);
	progress_expect(&p, 1, 0);
	assert_int_equal(p.runs_total, 2);
	assert_float_equal(progress_eta_s(&p), 0, 1e-3);
	progress_build_begin(&p);
	progress_build_end(&p);
	assert_int_equal(p.builds_total, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_eta_is_unknown_until_measured),
		cmocka_unit_test(the_eta_is_what_is_left_at_the_measured_means),
		cmocka_unit_test(totals_never_fall_below_what_is_done),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
