#include "build/gitsource.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build/source.h"
#include "util/proc.h"
#include "util/util.h"

/* More changed files than this is not "a few commits on Debian's source". */
#define MAX_CHANGED_FILES 2000

static int resolve(const char *repo, const char *rev, char out[41])
{
	char *spec = xasprintf("%s^{commit}", rev);
	char *argv[] = { "git", "-C", (char *)repo, "rev-parse", "--verify", "--quiet", spec, NULL };
	char *sha = proc_output(argv);
	int ok = sha && strlen(sha) == 40;
	if (ok)
		memcpy(out, sha, 41);
	else
		hb_err("--kernel-git %s: '%s' is not a commit there (`git -C %s log --oneline` "
		       "lists them)", repo, rev, repo);
	free(sha);
	free(spec);
	return ok ? 0 : -1;
}

/* Lines of proc_output() text (trailing newlines already trimmed). */
static size_t count_lines(const char *s)
{
	if (!*s)
		return 0;
	size_t n = 1;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

int git_revision_prepare(const char *repo, const char *rev, const char *base,
			 struct git_revision *out)
{
	memset(out, 0, sizeof(*out));
	if (resolve(repo, rev, out->commit) < 0)
		return -1;
	if (base) {
		if (resolve(repo, base, out->base) < 0)
			return -1;
	} else {
		char *argv[] = { "git", "-C", (char *)repo, "rev-list", "--max-parents=0",
				 out->commit, NULL };
		char *roots = proc_output(argv);
		/* with several roots (merged histories) the user must say which */
		if (!roots || strlen(roots) != 40) {
			hb_err("--kernel-git %s: %s has %s root commit; name the commit whose tree is "
			       "Debian's linux-source with --kernel-base", repo, rev,
			       roots ? "more than one" : "no");
			free(roots);
			return -1;
		}
		memcpy(out->base, roots, 41);
		free(roots);
	}
	char *subj[] = { "git", "-C", (char *)repo, "log", "-1", "--format=%s", out->commit, NULL };
	out->subject = proc_output(subj);
	if (!out->subject)
		out->subject = xstrdup("");
	source_git_origin(repo, &out->url, NULL);
	char *names[] = { "git", "-C", (char *)repo, "diff", "--name-only", out->base,
			  out->commit, NULL };
	char *changed = proc_output(names);
	if (!changed) {
		hb_err("--kernel-git %s: `git diff %s %s` failed; is %.12s an ancestor of %s?",
		       repo, out->base, out->commit, out->base, rev);
		return -1;
	}
	size_t n = count_lines(changed);
	free(changed);
	if (n > MAX_CHANGED_FILES) {
		hb_err("--kernel-git %s: %s changes %zu files after the base %.12s; hilbench builds "
		       "Debian's linux-source plus a tree's commits on top of it. Name the commit "
		       "whose tree is Debian's linux-source with --kernel-base", repo, rev, n,
		       out->base);
		return -1;
	}
	if (n == 0)
		return 0;	/* the base itself: Debian's source as is */
	char *dir = path_join(hb_cache_dir(), "git");
	char *name = xasprintf("%s..%s.patch", out->base, out->commit);
	out->patch = path_join(dir, name);
	free(name);
	int rc = 0;
	if (!path_exists(out->patch)) {
		char *tmp = NULL;
		int fd = mkdir_p(dir, 0755) == 0 ? create_unique(out->patch, &tmp) : -1;
		char *diff[] = { "git", "-C", (char *)repo, "diff", "--no-color", "--no-ext-diff",
				 out->base, out->commit, NULL };
		struct proc_opts o = PROC_OPTS_DEFAULT;
		o.stdout_fd = fd;
		rc = fd >= 0 && proc_run(diff, &o) == 0 && fsync(fd) == 0 &&
		     rename(tmp, out->patch) == 0 ? 0 : -1;
		if (fd >= 0)
			close(fd);
		if (rc < 0) {
			hb_err("cannot write %s: %s", out->patch, strerror(errno));
			if (tmp)
				unlink(tmp);
		}
		free(tmp);
	}
	free(dir);
	if (rc == 0 && sha256_file_hex(out->patch, out->patch_sha256) < 0) {
		hb_err("cannot read %s: %s", out->patch, strerror(errno));
		rc = -1;
	}
	return rc;
}

void git_revision_tag(const struct git_revision *r, char out[16])
{
	snprintf(out, 16, "g%.12s", r->commit);
}

void git_revision_free(struct git_revision *r)
{
	free(r->subject);
	free(r->patch);
	free(r->url);
	memset(r, 0, sizeof(*r));
}
