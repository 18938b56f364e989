/*
 * estimate: what the runs a compare plan has not made yet will cost, from
 * what the store holds (run/planner.h's ETA, run/progress.h's lanes):
 *
 * - a boot and a run of each workload, from the reference's runs in the
 *   session (measured or reused: store_reuse_runs()), which made one run
 *   of every workload a boot. A run costs from the end of the run before
 *   it in its boot (its start, for a boot's first) to its end; a boot,
 *   from its id's stamp (store_id_seconds(): the executor makes the id as
 *   it starts the emulator) to its first run's start: starting the
 *   emulator, the kernel's boot, the agent. Boots on boards at once
 *   interleave their runs in the store; each is timed by its own, and a
 *   run from no earlier than the last run it waited for. So a
 *   candidate's boot of workloads W costs boot_s + the sum of W's run_s.
 *   The times are the store's, to the second; six boots average that out.
 * - how many runs a candidate took of each workload in a session of the
 *   plan with decisions (a workload's runs serve all its metrics: the
 *   most any of them took), which the planner averages over the plan's
 *   recent sessions;
 * - or, with no such session, how many a candidate would take that
 *   measures like the reference: its mean, and its spread between boots.
 *
 * Contract: nothing fails; what the store cannot tell is -1 (costs) or 0
 * (runs taken). estimate_costs_free() after estimate_costs().
 */
#ifndef HB_ESTIMATE_H
#define HB_ESTIMATE_H

#include "config/plan.h"
#include "store/store.h"
#include "util/util.h"

struct run_costs {
	double boot_s;		/* -1: no two boots one after the other */
	double *run_s;		/* per workload of the list given; -1: none stored */
	size_t n;
};

/* The costs of strategy's pass runs in session, for workloads. */
void estimate_costs(struct store *s, const char *session, const char *strategy,
		    const struct strlist *workloads, struct run_costs *out);
/* A boot of these workloads (a subset of the list given): -1 when one of
 * them, or the boot, has no cost known. */
double estimate_boot_s(const struct run_costs *c, const struct strlist *all,
		       const struct strlist *these);
/* A boot of one run of one of these workloads, the mean over them: what a
 * candidate's run costs past its first boot, which ran all of them, each
 * a share of one boot (a TCP DUT-TX one about 3.8 board-seconds where a
 * share of a boot of two cost 2.7, docs/measurements.md, "A look past the
 * first boot"); -1 as estimate_boot_s(). */
double estimate_one_run_boot_s(const struct run_costs *c, const struct strlist *all,
			       const struct strlist *these);
void estimate_costs_free(struct run_costs *c);

/* The runs strategy took of these workloads in session: the sum over
 * the workloads of the most any of its decisions took, and for a
 * workload no metric judged (the profiler's) its runs stored there; 0
 * when the session decided none of them. */
int estimate_runs_taken(struct store *s, const char *session, const char *strategy,
			const struct strlist *workloads);

/* The runs a candidate would take of these workloads (of plan p, whose
 * gate section judges them) if its runs were the reference's mean moved
 * by `off` of each metric's threshold (0: alike the reference; 0.5: half
 * a threshold, a change the runs must tell from both no change and one
 * that matters), with the reference's spread: per workload, the fewest runs from
 * first_repetitions on at which gate_decide() rules out a change of each
 * metric's threshold against reference's pass runs in session, or the
 * plan's futility rule ends it (analyze/gate.h), else the cap; summed over the workloads. A workload no metric judges takes
 * first_repetitions. The reference's runs are taken as they are now (the
 * reference gets more only when it has fewer than the candidate). */
int estimate_runs_alike(struct store *s, const char *session, const char *reference,
			const struct plan *p, const struct strlist *workloads, double off);
/* The runs a candidate being judged is expected to take of these
 * workloads, from its pass runs in session so far: per workload and
 * metric, as many as it has where gate_decide() decides on them now (or
 * the futility rule ends it, or they are at the cap); else the fewest from
 * one more on that would, were its next runs like these (their mean and
 * spread; the reference's spread while it has one run), else the cap; a
 * workload it has no run of yet, as estimate_runs_alike() at off 0. Summed
 * as there; -1 when it has no run of any of them yet. A bench's cells in
 * two modes or near a threshold took 4-6 runs where the alike count said
 * 1 (docs/measurements.md, "The ETA of a cell still open"). */
int estimate_runs_open(struct store *s, const char *session, const char *reference,
		       const char *candidate, const struct plan *p, const struct strlist *workloads);

#endif
