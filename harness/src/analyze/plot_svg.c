#include "analyze/plot_svg.h"

#include <math.h>
#include <string.h>

#include "analyze/axis.h"
#include "analyze/report.h"
#include "util/util.h"

static const char *const colours[] = { "#1f5fa8", "#d1495b", "#2a9d3f", "#edae49",
				       "#7b4fa0", "#00798c", "#8c564b", "#555555" };

const char *plot_colour(size_t k)
{
	return colours[k % HB_ARRAY_SIZE(colours)];
}

void plot_page_range(const struct dataset *d, const char *workload, const char *metric,
		     double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < d->n; i++) {
		const struct series *s = &d->s[i];
		if (strcmp(s->workload, workload) || strcmp(s->metric, metric))
			continue;
		for (size_t j = 0; j < s->n; j++)
			if (isfinite(s->v[j])) {
				*lo = fmin(*lo, s->v[j]);
				*hi = fmax(*hi, s->v[j]);
			}
	}
	if (!isfinite(*lo))
		*lo = *hi = NAN;
}

static void svg_open(FILE *out, const char *cls, int id, int w, int h, const char *title)
{
	fprintf(out, "<svg class=\"%s\" id=\"plot-%d\" role=\"img\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\"><title>", cls, id, w,
		h, w, h);
	html_escape(out, title);
	fputs("</title>\n", out);
}

enum { WIDTH = 720, ROW_H = 26 };

void dotplot_svg(FILE *out, int id, const char *title, const char *unit,
		 const struct dot_row *rows, size_t n, double lo, double hi)
{
	size_t widest = 0;
	for (size_t r = 0; r < n; r++)
		widest = strlen(rows[r].label) > widest ? strlen(rows[r].label) : widest;
	/* room for the widest label (at most 40 characters) at 12 px: 7.6 px a
	 * character covers the widest of DejaVu Sans' lower case */
	int left = 24 + (int)(7.6 * (double)(widest < 12 ? 12 : widest > 40 ? 40 : widest));
	int right = 32, top = 10;
	int axis_y = top + (int)n * ROW_H + 4, legend_y = axis_y + 54;
	int height = legend_y + 10;
	struct axis a;
	axis_fit(&a, lo, hi, axis_limits_for(unit, lo, hi), PLOT_TICKS, unit);
	axis_place(&a, left, WIDTH - right);
	svg_open(out, "plot", id, WIDTH, height, title);
	axis_svg_x(out, &a, axis_y, top);
	for (size_t r = 0; r < n; r++) {
		const struct dot_row *row = &rows[r];
		int y = top + (int)r * ROW_H + ROW_H / 2;
		fprintf(out, "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 8,
			y + 4);
		/* a label longer than the margin is cut: its row's hover has it whole */
		char cut[41];
		snprintf(cut, sizeof(cut), "%s", row->label);
		html_escape(out, cut);
		fprintf(out, "<title>");
		html_escape(out, row->label);
		fputs("</title></text>", out);
		if (isfinite(row->ci95) && isfinite(row->mean)) {
			double x0 = axis_px(&a, row->mean - row->ci95),
			       x1 = axis_px(&a, row->mean + row->ci95);
			fprintf(out, "<rect class=\"ci\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
				"height=\"8\"><title>95 %% CI of the mean: %.6g to %.6g%s</title></rect>",
				x0, y - 4, fmax(1, x1 - x0), row->mean - row->ci95,
				row->mean + row->ci95,
				axis_holds(&a, row->mean - row->ci95) &&
				axis_holds(&a, row->mean + row->ci95) ? "" : " (cut at the axis)");
		}
		if (isfinite(row->mean)) {
			double x = axis_px(&a, row->mean);
			fprintf(out, "<line class=\"mean\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\">"
				"<title>mean %.6g (n=%zu)</title></line>", x, x, y - 9, y + 9,
				row->mean, row->n);
		}
		for (size_t i = 0; i < row->n; i++) {
			fprintf(out, "<circle class=\"dot\" cx=\"%.1f\" cy=\"%d\" r=\"3.5\"><title>"
				"repetition %zu: %.6g ", axis_px(&a, row->v[i]), y, i + 1, row->v[i]);
			html_escape(out, unit);
			fputs("</title></circle>", out);
		}
		fputc('\n', out);
	}
	static const char *const names[] = { "a repetition", "mean", "95 % CI of the mean",
					     "axis starts above 0" };
	double width = 0;
	for (size_t i = 0; i < (a.broken ? 4u : 3u); i++)
		width += legend_width(names[i]);
	/* under the axis; further left when long labels pushed the axis right */
	double x = fmax(10, fmin(left, WIDTH - right - width));
	x = legend_entry(out, x, legend_y, LEGEND_DOT, NULL, names[0]);
	x = legend_entry(out, x, legend_y, LEGEND_TICK, NULL, names[1]);
	x = legend_entry(out, x, legend_y, LEGEND_BAR, NULL, names[2]);
	if (a.broken)
		legend_entry(out, x, legend_y, LEGEND_BREAK, NULL, names[3]);
	fputs("</svg>\n", out);
}

void lineplot_svg(FILE *out, int id, const char *title, const char *unit,
		  const struct line_series *s, size_t n)
{
	double tmax = 0, vlo = INFINITY, vhi = -INFINITY;
	for (size_t l = 0; l < n; l++)
		for (size_t i = 0; i < s[l].n; i++) {
			tmax = fmax(tmax, s[l].t[i]);
			if (isfinite(s[l].v[i])) {
				vlo = fmin(vlo, s[l].v[i]);
				vhi = fmax(vhi, s[l].v[i]);
			}
		}
	/* the legend: as many entries a line as fit, a line 18 px */
	int left = 80, right = 32, top = 10, plot_h = 180;
	int axis_y = top + plot_h, legend_top = axis_y + 56, lines = 1;
	double lx = left;
	for (size_t l = 0; l < n; l++) {
		double w = legend_width(s[l].label);
		if (lx + w > WIDTH - right && lx > left) {
			lines++;
			lx = left;
		}
		lx += w;
	}
	int height = legend_top + 18 * (lines - 1) + 10;
	struct axis y, x;
	axis_fit(&y, vlo, vhi, axis_limits_for(unit, vlo, vhi), PLOT_TICKS, unit);
	axis_place(&y, axis_y, top);
	axis_fit(&x, 0, tmax, axis_limits_for("s", 0, tmax), 8, "time in the run (s)");
	axis_place(&x, left, WIDTH - right);
	svg_open(out, "plot intervals", id, WIDTH, height, title);
	axis_svg_y(out, &y, left, WIDTH - right);
	axis_svg_x(out, &x, axis_y, axis_y);
	for (size_t l = 0; l < n; l++) {
		if (!s[l].n)
			continue;
		fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
			plot_colour(l));
		for (size_t i = 0; i < s[l].n; i++)
			fprintf(out, "%s%.1f,%.1f", i ? " " : "", axis_px(&x, s[l].t[i]),
				axis_px(&y, s[l].v[i]));
		fputs("\"><title>", out);
		html_escape(out, s[l].label);
		fputs("</title></polyline>\n", out);
	}
	lx = left;
	int ly = legend_top;
	for (size_t l = 0; l < n; l++) {
		double w = legend_width(s[l].label);
		if (lx + w > WIDTH - right && lx > left) {
			ly += 18;
			lx = left;
		}
		lx = legend_entry(out, lx, ly, LEGEND_LINE, plot_colour(l), s[l].label);
	}
	fputs("</svg>\n", out);
}
