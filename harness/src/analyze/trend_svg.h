/*
 * trend_svg: one series over time as an inline SVG plot: the points spaced
 * by their start time (a time axis with date or clock ticks), the mean of
 * every segment between change points, and each change marked with a
 * dashed line between the two runs it splits (red for a regression, green
 * for an improvement, blue for a shift), a legend; each point's and each
 * change's hover names its run, date and kernel. The value axis is
 * analyze/axis's, fitted to the series and to lo..hi, the range the page's
 * other plots of the metric use (plot_svg.h), so a value sits at the same
 * height here as in the plots above it.
 *
 * Contract: writes one <svg> element; every string from the store (run ids,
 * dates, units) is HTML-escaped; no scripts, nothing fetched.
 */
#ifndef HB_TREND_SVG_H
#define HB_TREND_SVG_H

#include <stdio.h>

#include "analyze/history.h"

/* lo, hi: a range the axis must hold as well (NaN, NaN: the series' own). */
void trend_svg(FILE *out, const struct hist_series *s, double lo, double hi);

#endif
