/*
 * revision: a kernel git revision as what the executor measures, for the
 * drivers that measure revisions (bisect, nightly --kernel-git).
 *
 * Contract: exec_opts_use_revision() makes b measure revision rev of the
 * kernel git repository repo (base NULL: rev's root commit;
 * docs/history.md): rev is prepared into gr, its diff joins
 * b->user_patches and b->revision points to gr, which the caller keeps
 * while b is used. -1 (error printed) on bad input.
 */
#ifndef HB_REVISION_H
#define HB_REVISION_H

#include "build/gitsource.h"
#include "run/executor.h"

int exec_opts_use_revision(struct exec_opts *b, const char *repo, const char *rev,
			    const char *base, struct git_revision *gr);

#endif
