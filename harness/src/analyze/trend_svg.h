/*
 * trend_svg: one series over time as an inline SVG plot: the points, the
 * mean of every segment between change points, and each change marked
 * with a dashed line (red for a regression, green for an improvement).
 *
 * Contract: writes one <svg> element; every string from the store (run ids,
 * dates, units) is HTML-escaped; no scripts, nothing fetched.
 */
#ifndef HB_TREND_SVG_H
#define HB_TREND_SVG_H

#include <stdio.h>

#include "analyze/history.h"

void trend_svg(FILE *out, const struct hist_series *s);

#endif
