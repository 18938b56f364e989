/* gate_sim.h: a gate simulated on generated runs (a seeded PRNG, not
 * measurements), for test_gate and test_gate_sim: the product's look and
 * run-placement steps (analyze/gate.h) at a plan's defaults, fed by a
 * source of values. Needs cmocka's headers first (it asserts). */
#ifndef HB_TEST_GATE_SIM_H
#define HB_TEST_GATE_SIM_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "analyze/gate.h"
#include "config/plan.h"
#include "config/workload.h"
#include "util/util.h"

/* xorshift64* and Box-Muller: generated noise, reproducible from the seed */
static inline double gauss(uint64_t *s)
{
	double u[2];
	for (int i = 0; i < 2; i++) {
		*s ^= *s >> 12;
		*s ^= *s << 25;
		*s ^= *s >> 27;
		u[i] = ((double)((*s * 2685821657736338717ULL) >> 11) + 0.5) / 9007199254740992.0;
	}
	return sqrt(-2 * log(u[0])) * cos(2 * M_PI * u[1]);
}

/* Where the runs of a simulated gate come from. */
struct source {
	double (*value)(struct source *src, bool reference);
	double ref_mean, cand_mean, sd_pct;
	uint64_t seed;
};

/* mean * (1 + N(0, sd_pct %)): generated noise, reproducible from the seed */
static inline double noisy(struct source *src, bool reference)
{
	double mean = reference ? src->ref_mean : src->cand_mean;
	return mean * (1 + src->sd_pct / 100 * gauss(&src->seed));
}

/*
 * cmd-gate.c's loop for one workload, on the product's decision step: a look
 * at every metric of the plan that applies (gate_look()), then the next runs
 * where gate_next_run() puts them, until it puts none. r[] and c[] may come
 * with runs already (reused or stored ones); one value per run stands for
 * every metric, as a UDP run's pps and mbps count the same datagrams. The
 * verdict per metric goes to d[], one per applicable metric; returns how
 * many, and the looks made at the first in *looks.
 */
static inline size_t simulated_gate(const struct plan *p, const struct workload *w, enum timing_mode t,
			     struct source *src, double *r, size_t nr, double *c, size_t nc,
			     struct gate_decision *d, int *looks)
{
	const struct gate_policy *g = &p->gate;
	const struct gate_metric *gm = g->metrics.v;
	struct gate_seq seq[8] = { 0 };
	assert_true(g->metrics.n <= HB_ARRAY_SIZE(seq));
	for (;;) {
		size_t n = 0;
		bool open = false;
		for (size_t m = 0; m < g->metrics.n; m++) {
			/* the one value stands for the rates; a lower-is-better
			 * metric of the plan (insn_rx_driver_per_pkt) is measured by
			 * DUT-RX runs only, which the real gate skips elsewhere */
			if (!gate_metric_applies(&gm[m], w) || gate_metric_better(&gm[m]) != BETTER_HIGHER)
				continue;
			/* not judged in this timing mode: plan_gate_for_timing()
			 * drops it from the product's plan */
			if (gm[m].threshold_pct[t] < 0)
				continue;
			struct gate_rule rule = gate_metric_rule(&gm[m], t);
			gate_look(g, p->repetitions, &seq[m], r, nr, c, nc, gate_metric_better(&gm[m]),
				  &rule, &d[n]);
			if (n++ == 0)
				*looks = seq[m].looks;
			open |= d[n - 1].outcome == GATE_OPEN;
		}
		int reps;
		enum gate_next next = gate_next_run(g, p->repetitions, nr, nc, open, &reps);
		if (next == GATE_NEXT_NONE) {
			for (size_t i = 0; i < n; i++)
				if (d[i].outcome == GATE_OPEN)
					d[i].outcome = GATE_INCONCLUSIVE;	/* as cmd-gate.c */
			return n;
		}
		for (int i = 0; i < reps; i++) {
			bool ref = next == GATE_NEXT_REFERENCE;
			double v = src->value(src, ref);
			if (ref)
				r[nr++] = v;
			else
				c[nc++] = v;
		}
	}
}

#endif
