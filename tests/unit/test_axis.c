/*
 * analyze/axis: ticks at 1-2-5 steps, a zero or a break, the physical range
 * of a unit, marks clipped to the axis. The data ranges are those of the
 * defects found rendering the default plan's report (issue 20): pps of
 * 3647..4344, Mbit/s per interval padded below zero, a CPU share padded past
 * 100 %, a series of zeros given a +-1e-09 axis.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/axis.h"

static void fit(struct axis *a, double lo, double hi, const char *unit)
{
	axis_fit(a, lo, hi, axis_limits_for(unit, lo, hi), 5, unit);
}

static void assert_ticks(const struct axis *a, const double *want, int n)
{
	assert_int_equal(a->nticks, n);
	for (int i = 0; i < n; i++)
		assert_true(fabs(a->tick[i] - want[i]) < 1e-9 * fmax(1, fabs(want[i])));
}

/* pps of 3647..4344: zero is far, so the axis is broken; ticks at 200 */
static void far_from_zero_breaks_the_axis(void **state)
{
	(void)state;
	struct axis a;
	fit(&a, 3647, 4344, "packets/s");
	static const double want[] = { 3600, 3800, 4000, 4200, 4400 };
	assert_ticks(&a, want, 5);
	assert_true(a.broken);
	assert_int_equal(a.decimals, 0);
	char l[32];
	axis_label(&a, a.tick[2], l, sizeof(l));
	assert_string_equal(l, "4000");
	assert_string_equal(a.unit, "packets/s");
}

/* Mbit/s of 40..81 (an interval plot's slow start): zero is near, so it
 * is the start; nothing below it, where padding used to put -5.4 */
static void near_zero_starts_at_zero(void **state)
{
	(void)state;
	struct axis a;
	fit(&a, 40.2, 80.9, "Mbit/s");
	assert_true(a.lo == 0);
	assert_false(a.broken);
	assert_true(a.hi >= 80.9 && a.hi <= 100);
	assert_true(fmod(a.step, 1) == 0 && a.step == 20);
}

/* a share of 92..99.6 %: at most 100 */
static void a_share_stops_at_100(void **state)
{
	(void)state;
	struct axis a;
	fit(&a, 92, 99.6, "%");
	assert_true(a.hi == 100);
	assert_true(a.lo >= 0 && a.lo <= 92);
	for (int i = 0; i < a.nticks; i++)
		assert_true(a.tick[i] <= 100);
	/* a rate is not a share: 99.6 Mbit/s may go on past 100 */
	fit(&a, 92, 99.6, "Mbit/s");
	assert_true(a.hi >= 99.6);
}

/* zeros, one value, nothing: a readable range, never +-1e-09 */
static void degenerate_ranges(void **state)
{
	(void)state;
	struct axis a;
	fit(&a, 0, 0, "ratio");
	assert_true(a.lo == 0 && a.hi == 1);
	static const double want[] = { 0, 0.2, 0.4, 0.6, 0.8, 1 };
	assert_ticks(&a, want, 6);
	assert_int_equal(a.decimals, 1);
	char l[32];
	axis_label(&a, a.tick[3], l, sizeof(l));
	assert_string_equal(l, "0.6");
	fit(&a, 3647, 3647, "packets/s");
	assert_true(a.lo < 3647 && a.hi > 3647 && a.hi - a.lo <= 1000);
	fit(&a, NAN, NAN, NULL);
	assert_true(a.lo == 0 && a.hi == 1);
	assert_string_equal(a.unit, "");
	/* small values get the decimals their step needs */
	fit(&a, 0.000123, 0.000161, "ms");
	assert_true(a.decimals >= 5);
}

/* marks outside the range are drawn at its edge, never beyond */
static void marks_are_clipped_to_the_axis(void **state)
{
	(void)state;
	struct axis a;
	fit(&a, 3647, 4344, "packets/s");
	axis_place(&a, 130, 630);
	assert_true(axis_px(&a, 3600) == 130);
	assert_true(axis_px(&a, 4400) == 630);
	assert_true(axis_px(&a, -1e6) == 130);	/* a CI bar of n = 2 reaching far below */
	assert_true(axis_px(&a, 1e6) == 630);
	assert_true(axis_px(&a, NAN) == 130);
	assert_false(axis_holds(&a, 1e6));
	assert_true(axis_holds(&a, 4000));
	/* a y axis runs upwards */
	axis_place(&a, 190, 10);
	assert_true(axis_px(&a, 4400) == 10);
	assert_true(axis_px(&a, 4000) == 100);
}

/* the SVG names the unit and escapes it; a broken axis draws its mark */
static void svg_has_ticks_unit_and_break(void **state)
{
	(void)state;
	struct axis a;
	fit(&a, 3647, 4344, "<pps>");
	axis_place(&a, 130, 630);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	axis_svg_x(f, &a, 100, 10);
	fclose(f);
	assert_non_null(strstr(buf, ">3600</text>"));
	assert_non_null(strstr(buf, ">4400</text>"));
	assert_non_null(strstr(buf, "&lt;pps&gt;"));
	assert_non_null(strstr(buf, "axis-break"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(far_from_zero_breaks_the_axis),
		cmocka_unit_test(near_zero_starts_at_zero),
		cmocka_unit_test(a_share_stops_at_100),
		cmocka_unit_test(degenerate_ranges),
		cmocka_unit_test(marks_are_clipped_to_the_axis),
		cmocka_unit_test(svg_has_ticks_unit_and_break),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
