#include "run/revision.h"

#include "build/patchset.h"
#include "util/util.h"

int exec_opts_use_revision(struct exec_opts *b, const char *repo, const char *rev,
			    const char *base, struct git_revision *gr)
{
	char err[1024];
	if (git_revision_prepare(repo, rev, base, gr) < 0)
		return -1;
	if (gr->patch && patchset_add_patch(&b->user_patches, gr->patch, err, sizeof(err)) < 0) {
		hb_err("%s", err);
		return -1;
	}
	b->revision = gr;
	return 0;
}
