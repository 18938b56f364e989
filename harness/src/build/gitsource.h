/*
 * gitsource: a kernel revision from a local git tree, built as Debian's
 * linux-source plus the tree's commits after a base commit.
 *
 * The base is the commit whose tree is Debian's linux-source (default: the
 * root commit of the revision): a lab that keeps its driver work as commits
 * on top of the distribution's kernel. The revision becomes one more patch
 * layer, `git diff BASE REV`, written once to
 * $HILBENCH_CACHE/git/<base>..<commit>.patch, so the build key, the manifest
 * (path + sha256) and the incremental build from the nearest cached build
 * (kernel.c) all work unchanged: a bisect step recompiles a few objects.
 * A tree that is not Debian's source plus a few commits (mainline, net-next)
 * is refused with the reason; building any tree is issue 4's --kernel-src.
 *
 * Its public URL goes with the patch layer into stored runs, for KCIDB's
 * git_repository_url (analyze/report_kcidb.c).
 *
 * Contract: returns 0, or -1 with a message naming the repository, the
 * revision and the fix. Runs git with argv (never a shell) and never
 * changes the repository or its work tree.
 */
#ifndef HB_GITSOURCE_H
#define HB_GITSOURCE_H

struct git_revision {
	char commit[41];
	char base[41];
	char *subject;		/* the commit's subject line */
	char *patch;		/* the diff file; NULL when REV's tree is BASE's */
	char patch_sha256[65];	/* of its bytes: the build's layer of it */
	char *url;		/* where the repository's commits can be fetched
				 * (source_git_origin(), https only); NULL: not said */
};

/* base NULL: the root commit of rev. */
int git_revision_prepare(const char *repo, const char *rev, const char *base,
			 struct git_revision *out);
/* "g<12 hex>", for kernel_version in stored runs. */
void git_revision_tag(const struct git_revision *r, char out[16]);
void git_revision_free(struct git_revision *r);

#endif
