#include "analyze/trend_svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/axis.h"
#include "analyze/plot_svg.h"
#include "analyze/report.h"

/* RIGHT: half of a date-and-time tick label centred on the last tick */
enum { W = 720, LEFT = 90, RIGHT = 48, TOP = 10, PLOT_H = 180 };

/* The time axis: ticks at a step of the list below, about five of them. */
struct time_axis {
	double t0, t1, step;	/* seconds; t0 and t1 on steps */
	double p0, p1;
	int days;		/* the step is a day or more: label dates only */
};

static void time_fit(struct time_axis *a, double lo, double hi)
{
	static const double steps[] = { 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800,
					3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800,
					1209600, 2592000, 7776000, 31536000 };
	if (!(hi > lo)) {	/* one time (or none): an hour around it */
		lo = isfinite(lo) ? lo - 1800 : 0;
		hi = lo + 3600;
	}
	size_t i = 0;
	while (i + 1 < sizeof(steps) / sizeof(steps[0]) && (hi - lo) / steps[i] > 5)
		i++;
	a->step = steps[i];
	a->t0 = floor(lo / a->step) * a->step;
	a->t1 = ceil(hi / a->step) * a->step;
	a->days = a->step >= 86400;
}

static double tx(const struct time_axis *a, double t)
{
	return a->p0 + (t - a->t0) / (a->t1 - a->t0) * (a->p1 - a->p0);
}

static void time_label(const struct time_axis *a, double t, char *buf, size_t len)
{
	time_t s = (time_t)t;
	struct tm tm;
	gmtime_r(&s, &tm);
	strftime(buf, len, a->days ? "%Y-%m-%d" : a->step >= 60 ? "%m-%d %H:%M" : "%H:%M:%S", &tm);
}

static void time_svg(FILE *out, const struct time_axis *a, double y, double y_top)
{
	char l[32];
	fprintf(out, "<g class=\"axis-x\"><line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
		"y2=\"%.1f\"/>", a->p0, a->p1, y, y);
	for (double t = a->t0; t <= a->t1 + a->step * 1e-6; t += a->step) {
		double x = tx(a, t);
		time_label(a, t, l, sizeof(l));
		fprintf(out, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
			"<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>",
			x, x, y_top, y, x, x, y, y + 4, x, y + 20, l);
	}
	fprintf(out, "<text class=\"unit\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
		"start of the run (UTC)</text></g>\n", (a->p0 + a->p1) / 2, y + 35);
}

static void point_title(FILE *out, const struct hist_series *s, size_t i)
{
	const struct hist_point *p = &s->p[i];
	fprintf(out, "<title>%.6g ", p->value);
	html_escape(out, s->unit);
	fputs(" at ", out);
	html_escape(out, p->started);
	fputs(": run ", out);
	html_escape(out, p->run);
	if (p->runs > 1)
		fprintf(out, " and %zu more (the median)", p->runs - 1);
	fputs(", kernel ", out);
	html_escape(out, p->kernel_version);
	fputs(" build ", out);
	fprintf(out, "%.12s</title>", p->build_key);
}

void trend_svg(FILE *out, const struct hist_series *s, double lo, double hi)
{
	int axis_y = TOP + PLOT_H, legend_y = axis_y + 56, height = legend_y + 10;
	fprintf(out, "<svg class=\"trend\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\"><title>", W, height, W, height);
	html_escape(out, s->metric);
	fputs(" over time</title>\n", out);
	if (!s->n) {
		fputs("<text x=\"10\" y=\"20\">no points</text></svg>\n", out);
		return;
	}
	double *t = malloc(s->n * sizeof(*t)), tlo = INFINITY, thi = -INFINITY;
	for (size_t i = 0; i < s->n; i++) {
		t[i] = utc_seconds(s->p[i].started);
		if (!isfinite(t[i]))	/* not a time: keep the order, a second apart */
			t[i] = i ? t[i - 1] + 1 : 0;
		tlo = fmin(tlo, t[i]);
		thi = fmax(thi, t[i]);
		if (isfinite(s->p[i].value)) {
			lo = isfinite(lo) ? fmin(lo, s->p[i].value) : s->p[i].value;
			hi = isfinite(hi) ? fmax(hi, s->p[i].value) : s->p[i].value;
		}
	}
	struct axis y;
	axis_fit(&y, lo, hi, axis_limits_for(s->unit, lo, hi), PLOT_TICKS, s->unit);
	axis_place(&y, axis_y, TOP);
	struct time_axis x;
	time_fit(&x, tlo, thi);
	x.p0 = LEFT;
	x.p1 = W - RIGHT;
	axis_svg_y(out, &y, LEFT, W - RIGHT);
	time_svg(out, &x, axis_y, TOP);
	/* segment means, then the change markers between the two runs they split */
	size_t from = 0;
	for (size_t c = 0; c <= s->cp.n; c++) {
		size_t to = c < s->cp.n ? s->cp.v[c].index : s->n;
		double sum = 0;
		for (size_t i = from; i < to; i++)
			sum += s->p[i].value;
		double m = axis_px(&y, sum / (double)(to - from));
		fprintf(out, "<line class=\"segment-mean\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\" stroke=\"#888\" stroke-width=\"2\"><title>mean of runs %zu to %zu: "
			"%.6g</title></line>\n", tx(&x, t[from]), m, tx(&x, t[to - 1]), m, from + 1, to,
			sum / (double)(to - from));
		from = to;
	}
	for (size_t c = 0; c < s->cp.n; c++) {
		const struct cp_change *ch = &s->cp.v[c];
		enum change_kind k = history_change_kind(s, ch);
		double cx = ch->index ? (tx(&x, t[ch->index - 1]) + tx(&x, t[ch->index])) / 2
				      : tx(&x, t[0]);
		fprintf(out, "<line class=\"change\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"stroke=\"%s\" stroke-dasharray=\"4 3\"><title>%s %+.2f %% (p %.3g) from ",
			cx, TOP, cx, axis_y,
			k == CHANGE_REGRESSION ? "#c00" : k == CHANGE_IMPROVEMENT ? "#080" : "#00c",
			change_kind_name(k), ch->delta_pct, ch->p);
		html_escape(out, s->p[ch->index].started);
		fputs(": run ", out);
		html_escape(out, s->p[ch->index].run);
		fputs(", kernel ", out);
		html_escape(out, s->p[ch->index].kernel_version);
		fputs("</title></line>\n", out);
	}
	fputs("<polyline fill=\"none\" stroke=\"#36c\" points=\"", out);
	for (size_t i = 0; i < s->n; i++)
		fprintf(out, "%s%.1f,%.1f", i ? " " : "", tx(&x, t[i]), axis_px(&y, s->p[i].value));
	fputs("\"/>\n", out);
	for (size_t i = 0; i < s->n; i++) {
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#36c\">", tx(&x, t[i]),
			axis_px(&y, s->p[i].value));
		point_title(out, s, i);
		fputs("</circle>\n", out);
	}
	double lx = LEFT;
	lx = legend_entry(out, lx, legend_y, LEGEND_DOT, "#36c", "a point");
	lx = legend_entry(out, lx, legend_y, LEGEND_LINE, "#888", "segment mean");
	lx = legend_entry(out, lx, legend_y, LEGEND_DASH, "#c00", "regression");
	lx = legend_entry(out, lx, legend_y, LEGEND_DASH, "#080", "improvement");
	legend_entry(out, lx, legend_y, LEGEND_DASH, "#00c", "shift");
	fputs("</svg>\n", out);
	free(t);
}
