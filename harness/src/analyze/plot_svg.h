/*
 * plot_svg: the HTML report's plots of measurements (docs/plots.md): a dot
 * plot of one metric (a row per strategy: a dot per repetition, the mean
 * as a tick, its 95 % CI as a bar) and a line plot of values over a run's
 * time (Mbit/s per iperf3 interval). Both draw their axes with analyze/axis
 * and carry a legend drawn in the SVG, not only in the prose around it.
 *
 * The scale of a metric is the page's: plot_page_range() spans every
 * strategy's values of a (workload, metric) in the dataset, and the dot
 * plot, the sweeps and the trends over time of that pair all fit their
 * axes to it, so one value sits at one height on every plot of a page.
 *
 * Contract: writes one <svg> element per call, every mark inside its
 * viewBox (CI bars are clipped to the axis); strings are HTML-escaped; no
 * scripts, nothing fetched.
 */
#ifndef HB_PLOT_SVG_H
#define HB_PLOT_SVG_H

#include <stdio.h>

#include "analyze/dataset.h"

/* The style every page with these plots carries (report_html, history). */
#define PLOT_CSS                                                                             \
	"svg text{font-size:12px;font-family:sans-serif}.grid{stroke:#eee}.axis{stroke:#888}"  \
	".axis-break{stroke:#333;stroke-width:1.5}.dot{fill:#1f5fa8;fill-opacity:.7}"           \
	".mean{stroke:#000;stroke-width:2}.ci{fill:#f4a340;fill-opacity:.5}"                   \
	"svg.plot,svg.trend{max-width:100%;height:auto}"

/* The ticks every value axis of the report asks for. */
#define PLOT_TICKS 5

/* The min and max over the values of every strategy of (workload, metric)
 * in d; NaN and NaN when there are none. */
void plot_page_range(const struct dataset *d, const char *workload, const char *metric,
		     double *lo, double *hi);

struct dot_row {
	const char *label;
	const double *v;
	size_t n;
	double mean, ci95;	/* ci95 NaN: not known (n < 2) */
};
/* id: the element id's number; lo..hi: the page range to fit (see above). */
void dotplot_svg(FILE *out, int id, const char *title, const char *unit,
		 const struct dot_row *rows, size_t n, double lo, double hi);

struct line_series {
	const char *label;
	const double *t, *v;	/* seconds since the start, values */
	size_t n;
};
void lineplot_svg(FILE *out, int id, const char *title, const char *unit,
		  const struct line_series *s, size_t n);

/* The colour of the k-th line of a plot. */
const char *plot_colour(size_t k);

#endif
