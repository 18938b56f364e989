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

/* The runs below last the offsets the test gives their marks plus the real
 * clock's time between the calls: under valgrind beside another test a
 * tenth of a second, five times over in an ETA of five runs (53.65 s for
 * 53.6 in a CI, 2026-12-08). A second is far below what the assertions
 * tell apart (4 s a run against 6, 20 against 10). */
#define CLOCK_SLACK 1.0

/* Lanes of unalike runs: each lane's runs left at its own mean, a lane
 * with none measured at its guess, and without a guess at the mean of all;
 * the one mean of every run would mix them. A lane's mean scaled by the
 * mix of what is left, where it is said. */
static void each_lane_at_its_own_mean(void **state)
{
	(void)state;
	struct progress p;
	progress_start(&p);
	progress_expect(&p, 12, 0);
	progress_lane_expect(&p, 0, 4, -1);
	progress_lane(&p, 0);
	for (int i = 0; i < 4; i++) {
		p.mark -= 20;	/* each reference run: 20 s */
		progress_run_end(&p, 1);
	}
	assert_int_equal(p.lanes[0].left, 0);
	assert_float_equal(progress_lane_mean_s(&p, 0), 20, CLOCK_SLACK);
	assert_true(progress_lane_mean_s(&p, 1) < 0);
	/* 6 runs two boards at once, guessed at half a reference run; 2 alone,
	 * no guess: at the mean of every run so far */
	progress_lane_expect(&p, 1, 6, 10);
	progress_lane_expect(&p, 2, 2, -1);
	assert_float_equal(progress_eta_s(&p), 6 * 10 + 2 * 20, CLOCK_SLACK);
	progress_lane(&p, 1);
	p.mark -= 4;
	progress_run_end(&p, 1);
	/* lane 1 measured 4 s a run: its 5 left at that; the mean of all is 16.8 s */
	assert_int_equal(p.lanes[1].left, 5);
	assert_float_equal(progress_eta_s(&p), 5 * 4 + 2 * (84.0 / 5), CLOCK_SLACK);
	/* the runs left of lane 1 cost 1.5 times its measured ones (kinds
	 * that cost unalike, the cheap first): at 6 s each */
	progress_lane_mix(&p, 1, 1.5);
	assert_float_equal(progress_eta_s(&p), 5 * 6 + 2 * (84.0 / 5), CLOCK_SLACK);
	progress_lane_mix(&p, 1, -1);
	assert_float_equal(progress_eta_s(&p), 5 * 4 + 2 * (84.0 / 5), CLOCK_SLACK);
	/* lanes out of range count in the nearest */
	progress_lane(&p, 99);
	assert_int_equal(p.lane, PROGRESS_LANES - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_eta_is_unknown_until_measured),
		cmocka_unit_test(the_eta_is_what_is_left_at_the_measured_means),
		cmocka_unit_test(totals_never_fall_below_what_is_done),
		cmocka_unit_test(each_lane_at_its_own_mean),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
