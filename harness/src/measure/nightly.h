/*
 * nightly: what makes `hilbench nightly` safe to run from cron: a lock so
 * two nights never overlap on one store, and a record per (plan, kernel
 * revision) so a second invocation for the same ones finds the stored
 * session instead of measuring again.
 *
 * Layout: <store>/nightly.lock (flock), <store>/nightly/<key>.json with
 * {key, plan, revision, session, finished}. The key is a SHA-256 over the
 * plan file's bytes and the revision string (a git commit, or Debian's
 * linux-source package versions), so editing the plan also reruns.
 *
 * Contract: functions return 0 / -1 (message printed) unless noted. A
 * record is written only for a night whose runs all finished (pass or a
 * measured failure); a night cut short by infrastructure is run again.
 */
#ifndef HB_NIGHTLY_H
#define HB_NIGHTLY_H

#include <stddef.h>

#include "store/store.h"

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
