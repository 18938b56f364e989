/*
 * crosscheck: do independent counts of the same frames agree?
 *
 * The counts come from different vantage points and windows (the DUT's
 * interface counters over the agent's window, the host tap's netlink
 * counters and the host's pcap count over the host's window), so they may
 * differ by a few frames at the window edges and by what one counts and
 * another does not (ARP). docs/metrics.md, "Cross-checks", says why and how
 * the tolerance below was measured.
 *
 * Contract: crosscheck_counts() looks at the counts that are >= 0 (a
 * negative count is "not measured"); with fewer than two it returns -1 and
 * leaves *out alone, else fills *out and returns 0. Pure; prints nothing.
 */
#ifndef HB_CROSSCHECK_H
#define HB_CROSSCHECK_H

#include <stddef.h>

/* A pair disagrees when it differs by more than both of these. The frames
 * absorb ARP, which the pcap count excludes (measured: 2 frames in a 4 s
 * run); the percentage is 4x the largest disagreement measured and 5x below
 * the 0.5 % two virtual-time runs of one kernel must agree within. */
#define CROSSCHECK_TOL_PCT 0.1
#define CROSSCHECK_TOL_FRAMES 16

struct crosscheck {
	double max_pct;		/* largest pairwise |a - b| / max(a, b), in % */
	size_t worst_a, worst_b;	/* the indexes of that pair */
	int inconsistent;	/* some pair is beyond the tolerance */
};

int crosscheck_counts(const long long *counts, size_t n, struct crosscheck *out);

#endif
