/*
 * Sweep curves for the HTML report (analyze/sweep.h): per workload, metric
 * and setting, one inline SVG with a line per strategy through the means,
 * the 95 % CI of each mean as a vertical bar, and the best point ringed.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze/axis.h"
#include "analyze/plot_svg.h"
#include "analyze/report.h"
#include "analyze/sweep.h"
#include "util/util.h"

struct frame {
	int left, right, top, bottom, width, height;
	double xlo, xhi;
	int logx;
	struct axis y;
};

static double px(const struct frame *f, double x)
{
	if (f->logx && x < f->xlo)	/* 0 (off) sits at the left edge */
		x = f->xlo;
	double a = f->logx ? log10(x) : x, lo = f->logx ? log10(f->xlo) : f->xlo,
	       hi = f->logx ? log10(f->xhi) : f->xhi;
	double span = hi > lo ? hi - lo : 1;
	return f->left + (a - lo) / span * (f->width - f->left - f->right);
}

static double half_ci(const struct summary *s)
{
	return s->n >= 2 && isfinite(s->ci95) ? s->ci95 : 0;
}

/* The value range of the plot: x over the points, y over the means and
 * the page's range of the metric (lo, hi; plot_svg.h), CIs clipped to it.
 * A log x axis when the positive values span more than a factor of 20 (a
 * timer swept 250..40000 us would crowd its low end on a linear one); a 0
 * among them (a knob switched off) then sits a decade below the smallest. */
static void fit(const struct sweep_plot *p, struct frame *f, double lo, double hi)
{
	double minpos = INFINITY;
	f->xlo = INFINITY;
	f->xhi = -INFINITY;
	for (size_t k = 0; k < p->n; k++)
		for (size_t j = 0; j < p->c[k].n; j++) {
			const struct sweep_point *pt = &p->c[k].p[j];
			f->xlo = fmin(f->xlo, pt->x);
			f->xhi = fmax(f->xhi, pt->x);
			if (pt->x > 0)
				minpos = fmin(minpos, pt->x);
			if (isfinite(pt->sum.mean)) {
				lo = isfinite(lo) ? fmin(lo, pt->sum.mean) : pt->sum.mean;
				hi = isfinite(hi) ? fmax(hi, pt->sum.mean) : pt->sum.mean;
			}
		}
	f->logx = f->xlo >= 0 && isfinite(minpos) && f->xhi / minpos > 20;
	if (f->logx)
		f->xlo = f->xlo > 0 ? minpos : minpos / 10;
	axis_fit(&f->y, lo, hi, axis_limits_for(p->unit, lo, hi), PLOT_TICKS, p->unit);
	axis_place(&f->y, f->height - f->bottom, f->top);
}

static void plot_one(const struct sweep_plot *p, const struct dataset *d, FILE *out, int id)
{
	struct frame f = { .left = 90, .right = 170, .top = 12, .bottom = 72, .width = 720,
			   .height = 290 };
	double lo, hi;
	plot_page_range(d, p->workload, p->metric, &lo, &hi);
	fit(p, &f, lo, hi);
	fputs("<section class=\"metric sweep\"><h3>", out);
	html_escape(out, p->workload);
	fputs(": ", out);
	html_escape(out, p->metric);
	fputs(" over ", out);
	html_escape(out, p->setting);
	fprintf(out, " <small>(%s is better%s)</small></h3>\n", p->higher_is_better ? "higher" : "lower",
		f.logx ? "; log scale" : "");
	fprintf(out, "<svg class=\"plot sweep\" id=\"plot-%d\" role=\"img\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\"><title>",
		id, f.width, f.height, f.width, f.height);
	html_escape(out, p->metric);
	fputs(" over ", out);
	html_escape(out, p->setting);
	fputs("</title>\n", out);
	int x0 = f.left, x1 = f.width - f.right, y1 = f.height - f.bottom;
	axis_svg_y(out, &f.y, x0, x1);
	fprintf(out, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>\n", x0, x1, y1,
		y1);
	/* x ticks at the swept values of the first curve (all curves share them
	 * unless a point failed); a label too close to the last one drawn is
	 * left out (its point's hover has the value) */
	const struct sweep_curve *first = &p->c[0];
	double last_end = -INFINITY;
	for (size_t j = 0; j < first->n; j++) {
		char l[32];
		snprintf(l, sizeof(l), "%.6g", first->p[j].x);
		double x = px(&f, first->p[j].x), half = 3.7 * (double)strlen(l);
		fprintf(out, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>", x, x,
			f.top, y1);
		if (x - half > last_end + 4) {
			fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">"
				"%s</text>", x, y1 + 20, l);
			last_end = x + half;
		}
		fputc('\n', out);
	}
	fprintf(out, "<text class=\"unit\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (x0 + x1) / 2,
		y1 + 35);
	html_escape(out, p->setting);
	fputs("</text>\n", out);
	for (size_t k = 0; k < p->n; k++) {
		const struct sweep_curve *c = &p->c[k];
		const char *col = plot_colour(k);
		fprintf(out, "<g class=\"curve\" stroke=\"%s\" fill=\"%s\"><polyline fill=\"none\" "
			"stroke-width=\"2\" points=\"", col, col);
		for (size_t j = 0; j < c->n; j++)
			fprintf(out, "%s%.1f,%.1f", j ? " " : "", px(&f, c->p[j].x),
				axis_px(&f.y, c->p[j].sum.mean));
		fputs("\"/>\n", out);
		for (size_t j = 0; j < c->n; j++) {
			const struct sweep_point *pt = &c->p[j];
			double x = px(&f, pt->x), h = half_ci(&pt->sum);
			if (h > 0)	/* clipped to the axis by axis_px */
				fprintf(out, "<line class=\"ci-bar\" stroke-width=\"1.5\" x1=\"%.1f\" "
					"x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", x, x,
					axis_px(&f.y, pt->sum.mean - h), axis_px(&f.y, pt->sum.mean + h));
			fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\"%s><title>", x,
				axis_px(&f.y, pt->sum.mean), j == c->best ? 6 : 3,
				j == c->best ? " fill-opacity=\"0.3\" stroke-width=\"2\"" : "");
			html_escape(out, pt->label);
			fprintf(out, ": mean %.6g", pt->sum.mean);
			if (h > 0)
				fprintf(out, " ± %.4g", h);
			fprintf(out, " (n=%zu)</title></circle>\n", pt->sum.n);
		}
		/* the strategy's name right of the plot, cut to the margin */
		char name[21];
		snprintf(name, sizeof(name), "%s", c->strategy);
		fprintf(out, "<text stroke=\"none\" x=\"%d\" y=\"%d\">", x1 + 10,
			f.top + 14 + (int)k * 16);
		html_escape(out, name);
		fputs("<title>", out);
		html_escape(out, c->strategy);
		fputs("</title></text></g>\n", out);
	}
	double lx = x0;
	int ly = f.height - 10;
	lx = legend_entry(out, lx, ly, LEGEND_LINE, "#555", "a strategy's means");
	lx = legend_entry(out, lx, ly, LEGEND_WHISKER, "#555", "95 % CI of the mean");
	legend_entry(out, lx, ly, LEGEND_RING, "#555", "the best point");
	fputs("</svg>\n</section>\n", out);
}

void sweep_write_svg(const struct sweep_set *ss, const struct dataset *d, FILE *out,
		     int *plot_id)
{
	if (!ss->n)
		return;
	fputs("<h2>Sweeps</h2>\n<p>Each curve is one strategy's kernel with one runtime "
	      "setting swept (cells <code>strategy@setting=value</code> in the tables "
	      "above).</p>\n", out);
	for (size_t i = 0; i < ss->n; i++)
		plot_one(&ss->plots[i], d, out, ++*plot_id);
}
