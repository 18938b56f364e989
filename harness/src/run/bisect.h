/*
 * bisect: which commit between GOOD and BAD made a metric worse, as a
 * driver: GOOD and BAD are measured with the plan's reference strategy,
 * first workload, repetitions and timing and judged by its gate
 * (analyze/gate.h), one more run at a time on the side with fewer while
 * the verdict is open; when BAD regressed, `git bisect run` narrows the
 * range in a temporary worktree of the repository (its HEAD, index and
 * work tree are never touched), calling this very binary back as
 * `hilbench bisect --step` for each revision, which measures it against
 * GOOD's stored runs the same way.
 *
 * Contract (docs/design.md, "Errors"): bisect_load() returns 0, or
 * HB_FAIL_INPUT when the plan does not load, has no gate section, or
 * gates no such metric for its first workload (said). bisect_ends()
 * returns 0 with b->ends decided (any outcome, GATE_OPEN only when
 * interrupted or at the cap), HB_FAIL_INPUT when GOOD or BAD is no
 * revision of the repository, -1 when either could not be measured
 * (said). bisect_narrow(), after a GATE_REGRESSED b->ends, returns 0 with
 * b->culprit set (and b->where: the movers from its parent's runs to its
 * own), or -1 when git named none (every step skipped; said) or the
 * bisection could not run. bisect_step() is a step's verdict for `git
 * bisect run` (enum bisect_verdict, an outcome) and never anything else:
 * good (pass or improved), bad (regressed), skip (not built, booted,
 * measured or decided); it judges against GOOD's runs as the log's last
 * line of GOOD names them (bisect_log_ends() wrote the first), says the
 * verdict with its movers against GOOD and logs the revision's sessions
 * for the culprit's where, and GOOD's anew when it added runs to GOOD. bisect_free()
 * frees what the others filled, also after a failure.
 */
#ifndef HB_BISECT_H
#define HB_BISECT_H

#include <stddef.h>

#include "analyze/gate.h"
#include "build/gitsource.h"
#include "config/plan.h"
#include "config/workload.h"
#include "run/executor.h"
#include "store/store.h"

/* A revision's values of the metric, over one or more sessions. */
struct bisect_values {
	double *v;
	size_t n;
};

struct bisect {
	/* what to bisect */
	const char *good, *bad;		/* revisions of repo */
	const char *repo, *base;	/* the kernel git tree; base NULL: the root commit */
	const char *metric, *plan_name;
	const struct exec_stages *stages;	/* NULL: exec_pipeline */
	const char *step_program;	/* what `git bisect run` calls; NULL: this binary */
	/* GOOD's sessions: bisect_ends() adds them, a step reads them from
	 * the log (and adds to them) */
	struct strlist good_sessions;
	const char *log;		/* a step's: the steps' means and sessions */
	/* bisect_load(): the plan with its reference strategy only */
	struct plan plan;
	struct workload wl;
	const struct gate_metric *gm;
	double threshold_pct;
	/* bisect_ends() */
	struct git_revision good_rev, bad_rev;
	struct bisect_values good_values, bad_values;
	struct strlist bad_sessions;
	struct gate_decision ends;
	/* bisect_narrow(): the first bad commit, its parent and their means */
	char *culprit, *subject, *parent;	/* subject, parent NULL: git did not say */
	double before, after;
	char where[256];	/* the movers from parent to culprit; "" for none */
};

/* A step's verdict as the exit code `git bisect run` reads (git-bisect(1)). */
enum bisect_verdict { BISECT_GOOD = 0, BISECT_BAD = 1, BISECT_SKIP = 125 };

int bisect_load(struct bisect *b);
int bisect_ends(struct bisect *b, struct store *s);
/* GOOD's and BAD's lines of a steps' log, as bisect_narrow() starts it. */
void bisect_log_ends(const struct bisect *b, const char *log);
int bisect_narrow(struct bisect *b, struct store *s);
int bisect_step(struct bisect *b, struct store *s);
void bisect_free(struct bisect *b);

/* The values' mean; NaN when there are none. */
double bisect_mean(const struct bisect_values *x);

#endif
