/*
 * Sweep curves for the HTML report (analyze/sweep.h): per workload, metric
 * and setting, one inline SVG with a line per strategy through the means,
 * the 95 % CI of each mean as a vertical bar, and the best point ringed.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze/report.h"
#include "analyze/sweep.h"
#include "util/util.h"

static const char *const colours[] = { "#1f5fa8", "#d1495b", "#2a9d3f", "#edae49",
				       "#7b4fa0", "#00798c", "#8c564b", "#555555" };

struct frame {
	int left, right, top, bottom, width, height;
	double xlo, xhi, ylo, yhi;
	int logx;
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

static double py(const struct frame *f, double y)
{
	return f->top + (f->yhi - y) / (f->yhi - f->ylo) * (f->height - f->top - f->bottom);
}

static double half_ci(const struct summary *s)
{
	return s->n >= 2 && isfinite(s->ci95) ? s->ci95 : 0;
}

/* The value range of the plot: x over the points, y over mean +- CI. A log
 * x axis when the positive values span more than a factor of 20 (a timer
 * swept 250..40000 us would crowd its low end on a linear one); a 0 among
 * them (a knob switched off) then sits a decade below the smallest. */
static void fit(const struct sweep_plot *p, struct frame *f)
{
	double minpos = INFINITY;
	f->xlo = f->ylo = INFINITY;
	f->xhi = f->yhi = -INFINITY;
	for (size_t k = 0; k < p->n; k++)
		for (size_t j = 0; j < p->c[k].n; j++) {
			const struct sweep_point *pt = &p->c[k].p[j];
			f->xlo = fmin(f->xlo, pt->x);
			f->xhi = fmax(f->xhi, pt->x);
			if (pt->x > 0)
				minpos = fmin(minpos, pt->x);
			f->ylo = fmin(f->ylo, pt->sum.mean - half_ci(&pt->sum));
			f->yhi = fmax(f->yhi, pt->sum.mean + half_ci(&pt->sum));
		}
	f->logx = f->xlo >= 0 && isfinite(minpos) && f->xhi / minpos > 20;
	if (f->logx)
		f->xlo = f->xlo > 0 ? minpos : minpos / 10;
	double pad = f->yhi > f->ylo ? (f->yhi - f->ylo) * 0.1 : fmax(fabs(f->yhi) * 0.01, 1e-9);
	f->ylo -= pad;
	f->yhi += pad;
}

static void plot_one(const struct sweep_plot *p, FILE *out, int id)
{
	struct frame f = { .left = 70, .right = 170, .top = 12, .bottom = 40, .width = 720,
			   .height = 260 };
	fit(p, &f);
	fputs("<section class=\"metric sweep\"><h3>", out);
	html_escape(out, p->workload);
	fputs(": ", out);
	html_escape(out, p->metric);
	fputs(" over ", out);
	html_escape(out, p->setting);
	fprintf(out, " <small>(%s is better; bars: 95 %% CI of the mean; ringed: the best "
		"point%s)</small></h3>\n", p->higher_is_better ? "higher" : "lower",
		f.logx ? "; log scale" : "");
	fprintf(out, "<svg class=\"plot sweep\" id=\"plot-%d\" role=\"img\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\"><title>",
		id, f.width, f.height, f.width, f.height);
	html_escape(out, p->metric);
	fputs(" over ", out);
	html_escape(out, p->setting);
	fputs("</title>\n", out);
	int x0 = f.left, x1 = f.width - f.right, y1 = f.height - f.bottom;
	fprintf(out, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>"
		"<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>\n",
		x0, x1, y1, y1, x0, x0, f.top, y1);
	fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.5g</text>"
		"<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.5g</text>\n",
		x0 - 4, py(&f, f.yhi) + 10, f.yhi, x0 - 4, py(&f, f.ylo), f.ylo);
	/* x ticks at the swept values of the first curve (all curves share them
	 * unless a point failed) */
	const struct sweep_curve *first = &p->c[0];
	for (size_t j = 0; j < first->n; j++)
		fprintf(out, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>"
			"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.6g</text>\n",
			px(&f, first->p[j].x), px(&f, first->p[j].x), f.top, y1,
			px(&f, first->p[j].x), y1 + 14, first->p[j].x);
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (x0 + x1) / 2, y1 + 32);
	html_escape(out, p->setting);
	fputs("</text>\n", out);
	for (size_t k = 0; k < p->n; k++) {
		const struct sweep_curve *c = &p->c[k];
		const char *col = colours[k % HB_ARRAY_SIZE(colours)];
		fprintf(out, "<g class=\"curve\" stroke=\"%s\" fill=\"%s\"><polyline fill=\"none\" "
			"stroke-width=\"2\" points=\"", col, col);
		for (size_t j = 0; j < c->n; j++)
			fprintf(out, "%s%.1f,%.1f", j ? " " : "", px(&f, c->p[j].x),
				py(&f, c->p[j].sum.mean));
		fputs("\"/>\n", out);
		for (size_t j = 0; j < c->n; j++) {
			const struct sweep_point *pt = &c->p[j];
			double x = px(&f, pt->x), h = half_ci(&pt->sum);
			if (h > 0)
				fprintf(out, "<line class=\"ci-bar\" stroke-width=\"1.5\" x1=\"%.1f\" "
					"x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", x, x,
					py(&f, pt->sum.mean - h), py(&f, pt->sum.mean + h));
			fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\"%s><title>", x,
				py(&f, pt->sum.mean), j == c->best ? 6 : 3,
				j == c->best ? " fill-opacity=\"0.3\" stroke-width=\"2\"" : "");
			html_escape(out, pt->label);
			fprintf(out, ": mean %.6g", pt->sum.mean);
			if (h > 0)
				fprintf(out, " ± %.4g", h);
			fprintf(out, " (n=%zu)</title></circle>\n", pt->sum.n);
		}
		fprintf(out, "<text stroke=\"none\" x=\"%d\" y=\"%d\">", x1 + 10,
			f.top + 14 + (int)k * 16);
		html_escape(out, c->strategy);
		fputs("</text></g>\n", out);
	}
	fputs("</svg>\n</section>\n", out);
}

void sweep_write_svg(const struct sweep_set *ss, FILE *out, int *plot_id)
{
	if (!ss->n)
		return;
	fputs("<h2>Sweeps</h2>\n<p>Each curve is one strategy's kernel with one runtime "
	      "setting swept (cells <code>strategy@setting=value</code> in the tables "
	      "above).</p>\n", out);
	for (size_t i = 0; i < ss->n; i++)
		plot_one(&ss->plots[i], out, ++*plot_id);
}
