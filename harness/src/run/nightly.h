/*
 * nightly: `hilbench nightly`'s driver, safe to run from cron: a lock so
 * two nights never overlap on one store, and a record per (plan, kernel
 * revision) so a second invocation for the same ones finds the stored
 * session instead of measuring again; else the plan runs through the
 * executor and, when all its runs finished, is recorded.
 *
 * Layout: <store>/nightly.lock (flock), <store>/nightly/<key>.json with
 * {key, plan, revision, session, finished}. The key is a SHA-256 over the
 * plan file's bytes and the revision string (a git commit, or Debian's
 * linux-source package versions), so editing the plan also reruns.
 *
 * Contract (docs/design.md, "Errors"): nightly_run() returns 0 with the
 * night's session and its runs counted (n->run_rc the executor's result,
 * 0 or HB_FAIL_*; 0 for a session found), -1 when another nightly holds
 * the lock or the store fails, HB_FAIL_INPUT when the revision cannot be
 * prepared or a board of the plan does not load (all said); it holds the
 * lock until nightly_free(), which frees what it filled, also after a
 * failure (call it after nightly_run() only). The other functions return
 * 0 / -1 (message printed) unless noted. A record is written only for a
 * night whose runs all finished (pass or a measured failure); a night cut
 * short by infrastructure or Ctrl-C is run again.
 */
#ifndef HB_NIGHTLY_H
#define HB_NIGHTLY_H

#include <stddef.h>

#include "build/gitsource.h"
#include "config/plan.h"
#include "run/executor.h"
#include "store/store.h"

struct nightly {
	const struct plan *plan;
	const char *repo, *rev, *base;	/* --kernel-git; repo NULL: Debian's source */
	const struct exec_stages *stages;	/* NULL: exec_pipeline */
	/* nightly_run() */
	char *revision;		/* what the kernel source is tonight */
	char session[64];
	int found;		/* the session was stored by an earlier night: not rerun */
	int run_rc;		/* executor_run_plan()'s result: 0 or HB_FAIL_* */
	size_t classes[RUN_CLASSES];	/* the session's runs, by enum run_class */
	int lock;
	struct git_revision gr;
};

int nightly_run(struct nightly *n, struct store *s);
void nightly_free(struct nightly *n);

/* The lock fd (>= 0), or -1 with *busy = 1 when another nightly holds it
 * (nothing printed then: the caller says what it means), or -1 on error. */
int nightly_lock(struct store *s, int *busy);
void nightly_unlock(int fd);

void nightly_key(const char *plan_path, const char *revision, char key[65]);
/* The session recorded for key whose runs are still in the store, into
 * session; 1 found, 0 not (no record, or its runs are gone), -1 error. */
int nightly_find(struct store *s, const char *key, char *session, size_t len);
int nightly_record(struct store *s, const char *key, const char *plan, const char *revision,
		   const char *session);

#endif
