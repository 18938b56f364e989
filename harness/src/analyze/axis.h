/*
 * axis: one value axis of a plot, drawn as a paper draws it (docs/plots.md):
 * ticks at 1, 2 or 5 times a power of ten with labels of as many decimals
 * as the step needs (4200, not 4277.67), the unit named, the range inside
 * what the quantity can be (no -5 Mbit/s, no 106 % of a share), and either
 * a zero or an explicit break: when zero would squeeze the data into a
 * sliver, the axis starts at a tick above it and says so with a break mark.
 *
 * Also the SVG pieces every plot of the report shares (the axis line, its
 * ticks and labels, the break mark, a legend entry), so the plots look
 * alike and a change to the convention is one change.
 *
 * Contract: axis_fit() never fails: an empty or non-finite range gets a
 * unit range around 0 (or the one value), so nothing divides by zero.
 * Pixel mapping clamps to the axis, so a mark outside the range (a CI
 * bar wider than the data) is cut at the plot's edge, never drawn beyond.
 * Strings written into SVG are HTML-escaped.
 */
#ifndef HB_AXIS_H
#define HB_AXIS_H

#include <stdio.h>

#define AXIS_MAX_TICKS 12

struct axis {
	double lo, hi;		/* the drawn range, both ends on ticks */
	double step;		/* between ticks */
	int decimals;		/* of every tick label */
	int broken;		/* lo > 0 although the data is >= 0: a break mark at lo */
	double tick[AXIS_MAX_TICKS];
	int nticks;
	double p0, p1;		/* pixels of lo and hi (p1 < p0 for a y axis) */
	char unit[32];
};

/* The physical range of a unit (store/metrics.c): rates, counts, ratios and
 * times are >= 0 (unless the data is not); a percentage (unit "%") is also
 * <= 100 when the data is. */
struct axis_limits {
	double min, max;	/* -INFINITY / INFINITY: no limit */
};
struct axis_limits axis_limits_for(const char *unit, double data_min, double data_max);

/* Fits lo, hi and the ticks around [dmin, dmax] (extend it first to share a
 * scale between plots), about `ticks` of them, inside lim; unit is copied
 * for the label (NULL: none). Zero is the start when the data is >= 0 and
 * zero is less than the data's own span away from it (dmin <= 2/3 dmax),
 * else the axis is broken. */
void axis_fit(struct axis *a, double dmin, double dmax, struct axis_limits lim, int ticks,
	      const char *unit);
/* Where p0 and p1 are on the page. */
void axis_place(struct axis *a, double p0, double p1);
/* v's pixel, clamped to [lo, hi]. */
double axis_px(const struct axis *a, double v);
/* Is v inside the drawn range (a mark at it is not clipped)? */
int axis_holds(const struct axis *a, double v);
/* A tick's label: the value with as many decimals as the step has. */
void axis_label(const struct axis *a, double v, char *buf, size_t len);

/* The SVG of a horizontal axis at y (ticks below, labels, the unit centred
 * under them, grid lines up to y_top when y_top < y) and of a vertical one
 * at x (labels left of it, the unit rotated beside them, grid lines to
 * x_right when x_right > x). */
void axis_svg_x(FILE *out, const struct axis *a, double y, double y_top);
void axis_svg_y(FILE *out, const struct axis *a, double x, double x_right);

/* A legend entry at (x, y): a swatch of the given kind and its text;
 * returns the x after it, for the next entry on the same line. */
enum legend_mark {
	LEGEND_DOT, LEGEND_TICK, LEGEND_BAR, LEGEND_LINE, LEGEND_DASH, LEGEND_RING, LEGEND_BREAK,
	LEGEND_WHISKER
};
double legend_entry(FILE *out, double x, double y, enum legend_mark m, const char *colour,
		    const char *text);
/* How far legend_entry() advances for text (an estimate: 12 px text is laid
 * out by the browser; the geometry check, tests/report/geometry.sh, measures it). */
double legend_width(const char *text);

#endif
