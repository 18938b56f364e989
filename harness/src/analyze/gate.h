/*
 * gate: does a candidate (a strategy, plus a user's patches) make things
 * worse than a reference? Per workload and metric, a regression needs both:
 * a significant change in the bad direction (Welch, alpha) and an effect
 * at least the metric's threshold, which follows that metric's measured
 * noise in that timing mode (docs/metrics.md), so identical driver code is
 * never called different while a real 0.5 % loss of UDP pps is.
 *
 * Contract: gate_decide() is pure; gate_exit_code() maps the decisions to
 * 0 pass, 1 regression, 125 inconclusive (HB_EXIT_*); gate_write_junit()
 * escapes every string.
 */
#ifndef HB_GATE_H
#define HB_GATE_H

#include <stdbool.h>
#include <stdio.h>

#include "analyze/stats.h"
#include "config/workload.h"

/* Default minimum effect in % for a workload's protocol in a timing mode. */
double gate_threshold_pct(enum wl_proto proto, bool virtual_time);

enum gate_outcome { GATE_PASS, GATE_IMPROVED, GATE_REGRESSED, GATE_INCONCLUSIVE };

struct gate_decision {
	char workload[64], metric[64], unit[32];
	double threshold_pct;
	struct comparison cmp;
	enum gate_outcome outcome;
};

void gate_decide(const double *ref, size_t nref, const double *cand, size_t ncand,
		 bool higher_is_better, double alpha, double threshold_pct,
		 struct gate_decision *d);
const char *gate_outcome_name(enum gate_outcome o);
int gate_exit_code(const struct gate_decision *d, size_t n, int runs_missing);
void gate_write_junit(FILE *out, const char *name, const struct gate_decision *d, size_t n);

#endif
