/*
 * source: the pristine kernel tree a build starts from, and what
 * identifies it.
 *
 * Kinds:
 *   debian   Debian's linux-source-<series> (/usr/src/linux-source-<series>.tar.xz)
 *   dir      a user's tree (git checkout or unpacked release), --kernel-src DIR
 *   tarball  a user's release tarball (.tar, .tar.gz/.tgz, .tar.xz, .tar.bz2)
 *
 * Every kind becomes a pristine copy under $HILBENCH_CACHE/src/<id>/ that
 * builds hard-link from; neither the copy nor the user's tree is ever
 * modified. The version comes from the tree's Makefile (VERSION,
 * PATCHLEVEL, SUBLEVEL, EXTRAVERSION), the series is VERSION.PATCHLEVEL.
 *
 * Identity (what a build key and manifest say): for debian the package
 * version and the tarball's SHA-256; for a tarball its SHA-256; for a git
 * checkout the commit, HEAD's tree and a hash of `git diff HEAD` and of the
 * untracked files, so uncommitted edits make a new identity; for a plain
 * directory a hash over every file's path and content.
 *
 * Contract: source_prepare() returns 0 with *s filled, or HB_FAIL_INPUT
 * (no such path, not a kernel tree, a tree with in-tree build output, a
 * series other than the one asked for) / HB_FAIL (package missing,
 * disk) with the message printed.
 */
#ifndef HB_SOURCE_H
#define HB_SOURCE_H

enum source_kind { SOURCE_DEBIAN, SOURCE_DIR, SOURCE_TARBALL };

struct source_spec {
	const char *path;	/* --kernel-src DIR or tarball; NULL = Debian's package */
	const char *series;	/* the series asked for; NULL = the tree's own
				 * (then required for the Debian package) */
};

struct source {
	enum source_kind kind;
	char *series;		/* 6.1 */
	char *kernel_version;	/* 6.1.192 (with EXTRAVERSION: 6.12.0-rc3) */
	char *origin;		/* the package name, or the user's path */
	char *identity;		/* kind-specific, content-based; see above */
	char *tree;		/* the pristine copy in the cache */
	/* a git checkout only, NULL when unknown; not part of the identity:
	 * where the commit can be fetched from (the upstream remote of HEAD's
	 * branch, else "origin") as an https:// URL without credentials, and
	 * the branch checked out */
	char *git_url;
	char *git_branch;
	/* debian only: as the 6.1 cache keys always had them */
	char *deb_version;
	char *tarball_sha256;
};

int source_prepare(const struct source_spec *spec, struct source *s);
void source_free(struct source *s);

/* "debian", "dir", "tarball". */
const char *source_kind_name(enum source_kind kind);
/* The source part of a build key's text: same inputs, same line. */
char *source_key_line(const struct source *s);
/* A remote's URL as others can fetch it: https:// only (what KCIDB's
 * git_repository_url takes), without the user:token@ part a lab's remote
 * may carry, which must never leave the machine; NULL for any other URL
 * (a local path, ssh, git@host:path) or one with spaces or controls. */
char *source_public_git_url(const char *remote_url);
/* Where the commits of the git checkout or repository dir can be fetched
 * from: the upstream remote of HEAD's branch, else "origin", as
 * source_public_git_url() gives it; and the branch checked out (branch may
 * be NULL: not wanted). Each NULL when git does not say. */
void source_git_origin(const char *dir, char **url, char **branch);
/* VERSION.PATCHLEVEL.SUBLEVEL[EXTRAVERSION] of a tree's Makefile text, and
 * its series; -1 when it is not a kernel Makefile. */
int source_makefile_version(const char *makefile_text, char **version, char **series);

#endif
