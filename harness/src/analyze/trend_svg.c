#include "analyze/trend_svg.h"

#include <math.h>

#include "analyze/report.h"

enum { W = 720, H = 240, LEFT = 70, RIGHT = 10, TOP = 10, BOTTOM = 30 };

struct frame {
	double lo, hi;
	size_t n;
};

static double px(const struct frame *f, double i)
{
	return LEFT + (f->n > 1 ? i / (double)(f->n - 1) : 0.5) * (W - LEFT - RIGHT);
}

static double py(const struct frame *f, double v)
{
	return TOP + (f->hi - v) / (f->hi - f->lo) * (H - TOP - BOTTOM);
}

static void segment_mean(FILE *out, const struct frame *f, const struct hist_series *s,
			 size_t lo, size_t hi)
{
	double sum = 0;
	for (size_t i = lo; i < hi; i++)
		sum += s->p[i].value;
	double y = py(f, sum / (double)(hi - lo));
	fprintf(out, "<line class=\"mean\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"#888\" stroke-width=\"2\"/>\n", px(f, lo), y, px(f, hi - 1), y);
}

void trend_svg(FILE *out, const struct hist_series *s)
{
	fprintf(out, "<svg class=\"trend\" xmlns=\"http://www.w3.org/2000/svg\" "
		"viewBox=\"0 0 %d %d\" role=\"img\">\n", W, H);
	if (!s->n) {
		fputs("<text x=\"10\" y=\"20\">no points</text></svg>\n", out);
		return;
	}
	struct frame f = { s->p[0].value, s->p[0].value, s->n };
	for (size_t i = 1; i < s->n; i++) {
		f.lo = fmin(f.lo, s->p[i].value);
		f.hi = fmax(f.hi, s->p[i].value);
	}
	double pad = (f.hi - f.lo) * 0.1;
	if (pad == 0)
		pad = fabs(f.hi) * 0.01 + 1e-9;	/* a flat series still gets a scale */
	f.lo -= pad;
	f.hi += pad;
	fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
		"stroke=\"#ccc\"/>\n", LEFT, TOP, W - LEFT - RIGHT, H - TOP - BOTTOM);
	fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">%.6g</text>\n",
		LEFT - 4, TOP + 10, f.hi);
	fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">%.6g</text>\n",
		LEFT - 4, H - BOTTOM, f.lo);
	fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\" "
		"transform=\"rotate(-90 12 %d)\">", 12, H / 2, H / 2);
	html_escape(out, s->unit);
	fputs("</text>\n", out);
	const char *ends[2] = { s->p[0].started, s->p[s->n - 1].started };
	for (int e = 0; e < 2; e++) {
		fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"%s\">",
			e ? W - RIGHT : LEFT, H - 8, e ? "end" : "start");
		html_escape(out, ends[e]);
		fputs("</text>\n", out);
	}
	/* segment means, then the change markers */
	size_t lo = 0;
	for (size_t c = 0; c <= s->cp.n; c++) {
		size_t hi = c < s->cp.n ? s->cp.v[c].index : s->n;
		segment_mean(out, &f, s, lo, hi);
		lo = hi;
	}
	for (size_t c = 0; c < s->cp.n; c++) {
		const struct cp_change *ch = &s->cp.v[c];
		enum change_kind k = history_change_kind(s, ch);
		double x = px(&f, (double)ch->index - 0.5);
		fprintf(out, "<line class=\"change\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"stroke=\"%s\" stroke-dasharray=\"4 3\"><title>%s %+.2f %% (p %.3g) at ",
			x, TOP, x, H - BOTTOM,
			k == CHANGE_REGRESSION ? "#c00" : k == CHANGE_IMPROVEMENT ? "#080" : "#00c",
			change_kind_name(k), ch->delta_pct, ch->p);
		html_escape(out, s->p[ch->index].run);
		fputs("</title></line>\n", out);
	}
	fputs("<polyline fill=\"none\" stroke=\"#36c\" points=\"", out);
	for (size_t i = 0; i < s->n; i++)
		fprintf(out, "%s%.1f,%.1f", i ? " " : "", px(&f, (double)i), py(&f, s->p[i].value));
	fputs("\"/>\n", out);
	for (size_t i = 0; i < s->n; i++) {
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#36c\"><title>#%zu ",
			px(&f, (double)i), py(&f, s->p[i].value), i);
		html_escape(out, s->p[i].run);
		fprintf(out, " %.6g ", s->p[i].value);
		html_escape(out, s->unit);
		fputs("</title></circle>\n", out);
	}
	fputs("</svg>\n", out);
}
