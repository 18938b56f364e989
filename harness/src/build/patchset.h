/*
 * patchset: a user's patches as they come: a patch file, a quilt series
 * file, or an mbox of one or more mails as `git am` takes them (what
 * `git format-patch --stdout` or a mailing-list archive gives).
 *
 * Contract: appends patch file paths, in application order, to out. An mbox
 * (recognised by its first line, "From <id> <date>") is split into one file
 * per mail under $HILBENCH_CACHE/mbox/<sha256-of-mbox>/, named after each
 * Subject, so a build manifest names and hashes every patch. Returns 0, or
 * -1 with "FILE[:LINE]: problem; what to do" in err.
 */
#ifndef HB_PATCHSET_H
#define HB_PATCHSET_H

#include <stddef.h>

#include "util/util.h"

int patchset_add_patch(struct strlist *out, const char *path, char *err, size_t errlen);
int patchset_add_series(struct strlist *out, const char *path, char *err, size_t errlen);

/* The paths (relative to the tree's top, as `patch -p1` takes them) a patch
 * file changes, each once, appended to out: both sides of every file header
 * ("--- a/X" then "+++ b/Y", "diff --git a/X b/Y", "rename from/to"),
 * /dev/null left out. A path may be one too many (a removed line reading
 * "-- x" just before an added one reading "++ y"), never one too few.
 * -1 (errno) if the file cannot be read. */
int patchset_files(const char *patch, struct strlist *out);

#endif
