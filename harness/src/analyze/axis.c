#include "analyze/axis.h"

#include <math.h>
#include <string.h>

#include "analyze/report.h"

struct axis_limits axis_limits_for(const char *unit, double data_min, double data_max)
{
	/* every metric of store/metrics.c is >= 0; data below 0 is shown, not cut */
	struct axis_limits l = { data_min < 0 ? -INFINITY : 0, INFINITY };
	if (unit && !strcmp(unit, "%") && data_max <= 100)
		l.max = 100;
	return l;
}

/* 1, 2 or 5 times a power of ten, the smallest at least raw. */
static double nice_step(double raw)
{
	double p = pow(10, floor(log10(raw))), f = raw / p;
	const double slack = 1 + 1e-9;	/* 0.2 / 0.1 may come out a hair above 2 */
	return (f <= slack ? 1 : f <= 2 * slack ? 2 : f <= 5 * slack ? 5 : 10) * p;
}

void axis_fit(struct axis *a, double dmin, double dmax, struct axis_limits lim, int ticks,
	      const char *unit)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->unit, sizeof(a->unit), "%s", unit ? unit : "");
	if (!isfinite(dmin) || !isfinite(dmax)) {
		dmin = 0;
		dmax = 1;
	}
	if (dmin > dmax) {
		double t = dmin;
		dmin = dmax;
		dmax = t;
	}
	if (dmin >= 0 && dmin <= dmax * 2 / 3)
		dmin = 0;	/* zero is near: start there, no break */
	if (dmax == dmin) {
		/* one value: a range of one step around it (from 0 for 0) */
		double w = dmin ? fabs(dmin) * 0.1 : 1;
		dmax += w;
		dmin = dmin - w < lim.min ? lim.min : dmin - w;
	}
	if (ticks < 2)
		ticks = 2;
	a->step = nice_step((dmax - dmin) / ticks);
	a->lo = floor(dmin / a->step) * a->step;
	a->hi = ceil(dmax / a->step) * a->step;
	if (a->lo < lim.min)
		a->lo = lim.min;
	if (a->hi > lim.max)
		a->hi = lim.max;
	a->broken = a->lo > 0 && lim.min == 0;
	a->decimals = a->step >= 1 ? 0 : (int)ceil(-log10(a->step) - 1e-9);
	/* lo + i * step, not a running sum: 0.1 added six times is not 0.6 */
	for (int i = 0; i < AXIS_MAX_TICKS; i++) {
		double v = a->lo + i * a->step;
		if (v > a->hi + a->step * 1e-6)
			break;
		a->tick[a->nticks++] = fabs(v) < a->step * 1e-9 ? 0 : v;
	}
	a->p0 = 0;
	a->p1 = 1;
}

void axis_place(struct axis *a, double p0, double p1)
{
	a->p0 = p0;
	a->p1 = p1;
}

int axis_holds(const struct axis *a, double v)
{
	return v >= a->lo && v <= a->hi;
}

double axis_px(const struct axis *a, double v)
{
	if (!(v >= a->lo))	/* NaN too */
		v = a->lo;
	if (v > a->hi)
		v = a->hi;
	return a->p0 + (v - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

void axis_label(const struct axis *a, double v, char *buf, size_t len)
{
	snprintf(buf, len, "%.*f", a->decimals, v);
}

static void unit_text(FILE *out, const struct axis *a)
{
	html_escape(out, a->unit);
}

/* A break mark: two short slanted strokes across the axis line at (x, y),
 * along the axis' direction (horizontal: vertical strokes). */
static void break_mark(FILE *out, double x, double y, int horizontal)
{
	for (int k = 0; k < 2; k++) {
		double o = k * 4.0;
		if (horizontal)
			fprintf(out, "<line class=\"axis-break\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				"y2=\"%.1f\"/>", x + 4 + o, y + 5, x + 8 + o, y - 5);
		else
			fprintf(out, "<line class=\"axis-break\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				"y2=\"%.1f\"/>", x - 5, y - 4 - o, x + 5, y - 8 - o);
	}
}

/* The x axis' labels sit 20 px below it, clear of the y axis' lowest
 * label (whose baseline is 4 px below the corner): they would overlap in
 * the corner the two axes share. */
void axis_svg_x(FILE *out, const struct axis *a, double y, double y_top)
{
	char l[32];
	fprintf(out, "<g class=\"axis-x\"><line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
		"y2=\"%.1f\"/>", a->p0, a->p1, y, y);
	for (int i = 0; i < a->nticks; i++) {
		double x = axis_px(a, a->tick[i]);
		if (y_top < y)
			fprintf(out, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
				"y2=\"%.1f\"/>", x, x, y_top, y);
		axis_label(a, a->tick[i], l, sizeof(l));
		fprintf(out, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>",
			x, x, y, y + 4, x, y + 20, l);
	}
	if (a->broken)
		break_mark(out, a->p0, y, 1);
	if (a->unit[0]) {
		fprintf(out, "<text class=\"unit\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
			(a->p0 + a->p1) / 2, y + 35);
		unit_text(out, a);
		fputs("</text>", out);
	}
	fputs("</g>\n", out);
}

void axis_svg_y(FILE *out, const struct axis *a, double x, double x_right)
{
	char l[32];
	fprintf(out, "<g class=\"axis-y\"><line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
		"y2=\"%.1f\"/>", x, x, a->p0, a->p1);
	size_t widest = 0;
	for (int i = 0; i < a->nticks; i++) {
		double y = axis_px(a, a->tick[i]);
		if (x_right > x)
			fprintf(out, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
				"y2=\"%.1f\"/>", x, x_right, y, y);
		axis_label(a, a->tick[i], l, sizeof(l));
		widest = strlen(l) > widest ? strlen(l) : widest;
		fprintf(out, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
			x - 4, x, y, y, x - 6, y + 4, l);
	}
	if (a->broken)
		break_mark(out, x, a->p0, 0);
	if (a->unit[0]) {
		/* rotated, left of the widest label (about 7 px a character) */
		double ux = x - 12 - 7.0 * (double)widest, uy = (a->p0 + a->p1) / 2;
		fprintf(out, "<text class=\"unit\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
			"transform=\"rotate(-90 %.1f %.1f)\">", ux, uy, ux, uy);
		unit_text(out, a);
		fputs("</text>", out);
	}
	fputs("</g>\n", out);
}

double legend_entry(FILE *out, double x, double y, enum legend_mark m, const char *colour,
		    const char *text)
{
	const char *c = colour ? colour : "#222";
	switch (m) {
	case LEGEND_DOT:
		fprintf(out, "<circle class=\"dot\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>",
			x + 5, y - 4, c);
		break;
	case LEGEND_RING:
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" fill-opacity=\"0.3\" "
			"stroke=\"%s\" stroke-width=\"2\"/>", x + 5, y - 4, c, c);
		break;
	case LEGEND_TICK:
		fprintf(out, "<line class=\"mean\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
			x + 5, x + 5, y - 11, y + 3);
		break;
	case LEGEND_BAR:
		fprintf(out, "<rect class=\"ci\" x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"8\"/>",
			x, y - 8);
		break;
	case LEGEND_LINE:
		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"2\"/>", x, x + 14, y - 4, y - 4, c);
		break;
	case LEGEND_BREAK:
		fprintf(out, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
			x, x + 16, y - 4, y - 4);
		break_mark(out, x, y - 4, 1);
		break;
	case LEGEND_WHISKER:
		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"1.5\"/>", x + 5, x + 5, y - 12, y + 3, c);
		break;
	case LEGEND_DASH:
		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-dasharray=\"4 3\"/>", x + 5, x + 5, y - 12, y + 3, c);
		break;
	}
	fprintf(out, "<text class=\"legend\" x=\"%.1f\" y=\"%.1f\">", x + 18, y);
	html_escape(out, text);
	fputs("</text>", out);
	return x + legend_width(text);
}

double legend_width(const char *text)
{
	return 18 + 7.2 * (double)strlen(text) + 14;
}
