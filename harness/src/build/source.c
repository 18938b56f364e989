#include "build/source.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/lock.h"
#include "util/proc.h"
#include "util/tree.h"
#include "util/util.h"

const char *source_kind_name(enum source_kind kind)
{
	static const char *const names[] = { "debian", "dir", "tarball" };
	return names[kind];
}

/* The value of "KEY = value" at the start of a line, or NULL. */
static char *makefile_var(const char *text, const char *key)
{
	size_t kl = strlen(key);
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, key, kl))
			continue;
		const char *p = l + kl;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '=')
			continue;
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		size_t n = strcspn(p, "\n");
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
			n--;
		return xasprintf("%.*s", (int)n, p);
	}
	return NULL;
}

static int all_digits(const char *s)
{
	return s && *s && strspn(s, "0123456789") == strlen(s) && strlen(s) < 6;
}

int source_makefile_version(const char *text, char **version, char **series)
{
	char *v = makefile_var(text, "VERSION"), *p = makefile_var(text, "PATCHLEVEL");
	char *s = makefile_var(text, "SUBLEVEL"), *e = makefile_var(text, "EXTRAVERSION");
	int rc = -1;
	/* EXTRAVERSION ends up in the release string: keep it to what kbuild
	 * itself would put in a file name. */
	if (all_digits(v) && all_digits(p) && all_digits(s) &&
	    (!e || strspn(e, "abcdefghijklmnopqrstuvwxyz0123456789.-_+") == strlen(e))) {
		*version = xasprintf("%s.%s.%s%s", v, p, s, e ? e : "");
		*series = xasprintf("%s.%s", v, p);
		rc = 0;
	}
	free(v);
	free(p);
	free(s);
	free(e);
	return rc;
}

static int read_version(const char *tree, struct source *s)
{
	char *mk = path_join(tree, "Makefile");
	char *text = read_file(mk, NULL);
	free(mk);
	int rc = text ? source_makefile_version(text, &s->kernel_version, &s->series) : -1;
	free(text);
	return rc;
}

/*
 * Fills the cache entry base once for every hilbench process sharing the
 * cache: fill() writes the entry into <base>.tmp, marker (a file in it)
 * last, and the whole directory is renamed into place. All of it happens
 * under a flock on <base>.lock, and marker is looked for again once the
 * lock is held: another process may have filled base while this one
 * waited. Under the lock a <base>.tmp is one a dead process left. what
 * ("extracting X") goes into the messages. 0, or -1 with the message
 * printed and nothing kept.
 */
static int cache_fill(const char *base, const char *marker, const char *what,
		      int (*fill)(const char *tmp, void *ctx), void *ctx)
{
	char *info = path_join(base, marker), *lockpath = xasprintf("%s.lock", base);
	char *tmp = xasprintf("%s.tmp", base), *parent = path_dirname(base), *waiting = NULL;
	int fd = -1, rc = -1;
	if (path_exists(info)) {
		rc = 0;
		goto out;
	}
	if (mkdir_p(parent, 0755) < 0) {
		hb_err("cannot create %s: %s", parent, strerror(errno));
		goto out;
	}
	waiting = xasprintf("another hilbench %s into %s", what, base);
	if ((fd = lock_wait(lockpath, waiting)) < 0)
		goto out;
	if (path_exists(info)) {
		rc = 0;
		goto out;
	}
	hb_info("%s into %s (once)", what, base);
	rm_rf(tmp);
	if (mkdir_p(tmp, 0755) == 0 && fill(tmp, ctx) == 0 && rm_rf(base) == 0 &&
	    rename(tmp, base) == 0) {
		rc = 0;
	} else {
		hb_err("%s into %s failed (disk full? a file unreadable?); nothing was kept", what,
		       base);
		rm_rf(tmp);
	}
out:
	if (fd >= 0)
		close(fd);	/* releases the flock */
	free(info);
	free(lockpath);
	free(tmp);
	free(parent);
	free(waiting);
	return rc;
}

/* Debian's tarball into tmp, its SHA-256 (the marker) last. */
static int fill_debian(const char *tmp, void *ctx)
{
	const char *tarball = ctx;
	char sha[65];
	char *tar[] = { "tar", "-xJf", (char *)tarball, "-C", (char *)tmp, NULL };
	struct proc_opts tree = PROC_OPTS_TREE;
	char *shafile = path_join(tmp, "tarball.sha256");
	int rc = sha256_file_hex(tarball, sha) == 0 && proc_run(tar, &tree) == 0 &&
		 write_file_atomic(shafile, sha, strlen(sha)) == 0 ? 0 : -1;
	free(shafile);
	return rc;
}

/* Debian's linux-source-<series>, extracted once under the cache. */
static int prepare_debian(const char *series, struct source *s)
{
	s->kind = SOURCE_DEBIAN;
	char *tarball = xasprintf("/usr/src/linux-source-%s.tar.xz", series);
	s->origin = xasprintf("linux-source-%s", series);
	char *q[] = { "dpkg-query", "-W", "-f", "${Version}", s->origin, NULL };
	s->deb_version = proc_output(q);
	char *base = NULL, *info = NULL, *what = NULL;
	int rc = HB_FAIL;
	if (!s->deb_version || !*s->deb_version || !path_exists(tarball)) {
		hb_err("%s is not installed (%s missing); run `make deps`, or `apt-get install "
		       "%s` if Debian has that series, or give a tree with --kernel-src DIR",
		       s->origin, tarball, s->origin);
		goto out;
	}
	base = xasprintf("%s/src/%s", hb_cache_dir(), s->deb_version);
	s->tree = xasprintf("%s/linux-source-%s", base, series);
	info = path_join(base, "tarball.sha256");
	what = xasprintf("extracting %s", tarball);
	if (cache_fill(base, "tarball.sha256", what, fill_debian, tarball) < 0)
		goto out;
	s->tarball_sha256 = read_file(info, NULL);
	if (!s->tarball_sha256 || read_version(s->tree, s) < 0) {
		hb_err("%s is damaged; delete %s and run again", s->tree, base);
		goto out;
	}
	s->identity = xasprintf("debian %s %s tarball-sha256 %s", s->origin, s->deb_version,
				s->tarball_sha256);
	rc = 0;
out:
	free(what);
	free(info);
	free(base);
	free(tarball);
	return rc;
}

/* ---- a user's directory ---- */

static struct strlist walk_lines;	/* nftw has no context pointer */
static const char *walk_root;
static int walk_failed;

static int walk_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	const char *rel = path + strlen(walk_root);
	if (type == FTW_D && !strcmp(path + ftw->base, ".git"))
		return FTW_SKIP_SUBTREE;
	if (type == FTW_F) {
		char sha[65];
		if (sha256_file_hex(path, sha) < 0) {
			walk_failed = 1;
			return FTW_STOP;
		}
		strlist_pushf(&walk_lines, "%s %s", sha, rel);
	} else if (type == FTW_SL) {
		char target[4096];
		ssize_t n = readlink(path, target, sizeof(target) - 1);
		if (n < 0) {
			walk_failed = 1;
			return FTW_STOP;
		}
		target[n] = '\0';
		strlist_pushf(&walk_lines, "link %s -> %s", rel, target);
	}
	return 0;
}

/* SHA-256 over every file's path and content (and symlinks' targets). */
static char *tree_content_hash(const char *dir)
{
	walk_root = dir;
	walk_failed = 0;
	memset(&walk_lines, 0, sizeof(walk_lines));
	int rc = nftw(dir, walk_one, 64, FTW_PHYS | FTW_ACTIONRETVAL);
	char *out = NULL;
	if (rc == 0 && !walk_failed) {
		strlist_sort(&walk_lines);
		char *all = argv_join(&walk_lines, "\n");
		char sha[65];
		sha256_hex(all, strlen(all), sha);
		free(all);
		out = xstrdup(sha);
	}
	strlist_free(&walk_lines);
	return out;
}

/* For a git checkout: commit, tree, and what differs from HEAD. */
static char *git_identity(const char *dir)
{
	char *top_argv[] = { "git", "-C", (char *)dir, "rev-parse", "--show-toplevel", NULL };
	char *top = proc_output(top_argv);
	int is_root = top && !strcmp(top, dir);
	free(top);
	if (!is_root)
		return NULL;
	char *head_argv[] = { "git", "-C", (char *)dir, "rev-parse", "HEAD", "HEAD^{tree}", NULL };
	char *diff_argv[] = { "git", "-C", (char *)dir, "diff", "HEAD", "--binary", NULL };
	char *untracked_argv[] = { "git", "-C", (char *)dir, "ls-files", "--others",
				   "--exclude-standard", NULL };
	char *head = proc_output(head_argv);
	char *diff = proc_output(diff_argv);
	char *untracked = proc_output(untracked_argv);
	char *id = NULL;
	if (head && diff && untracked) {
		/* The untracked files' names and contents join the diff. */
		struct strlist names = { 0 };
		strlist_split(&names, untracked, "\n");
		char *changes = xstrdup(diff);
		for (size_t i = 0; i < names.n; i++) {
			char sha[65] = "unreadable";
			char *f = path_join(dir, names.v[i]);
			sha256_file_hex(f, sha);
			free(f);
			char *more = xasprintf("%s\nuntracked %s %s", changes, sha, names.v[i]);
			free(changes);
			changes = more;
		}
		strlist_free(&names);
		char sha[65];
		sha256_hex(changes, strlen(changes), sha);
		char *nl = strchr(head, '\n');
		if (nl)
			*nl = ' ';
		id = *changes ? xasprintf("git %s changes %s", head, sha)
			      : xasprintf("git %s clean", head);
		free(changes);
	}
	free(head);
	free(diff);
	free(untracked);
	return id;
}

char *source_public_git_url(const char *url)
{
	static const char scheme[] = "https://";
	size_t n = strlen(scheme);
	if (!url || strncmp(url, scheme, n))
		return NULL;
	for (const char *c = url; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			return NULL;
	const char *host = url + n;
	const char *end = host + strcspn(host, "/?#");
	const char *at = memchr(host, '@', (size_t)(end - host));
	if (at)
		host = at + 1;
	if (host == end)
		return NULL;
	return xasprintf("%s%s", scheme, host);
}

void source_git_origin(const char *dir, char **url, char **branch)
{
	char *branch_argv[] = { "git", "-C", (char *)dir, "symbolic-ref", "-q", "--short", "HEAD",
				NULL };
	char *up_argv[] = { "git", "-C", (char *)dir, "rev-parse", "--abbrev-ref",
			    "--symbolic-full-name", "@{upstream}", NULL };
	char *b = proc_output(branch_argv);
	char *upstream = b ? proc_output(up_argv) : NULL;
	char *slash = upstream ? strchr(upstream, '/') : NULL;
	if (slash)
		*slash = 0;
	char *url_argv[] = { "git", "-C", (char *)dir, "remote", "get-url", "--",
			     slash ? upstream : "origin", NULL };
	char *remote = proc_output(url_argv);
	*url = source_public_git_url(remote);
	free(remote);
	free(upstream);
	if (b && !*b) {
		free(b);
		b = NULL;
	}
	if (branch)
		*branch = b;
	else
		free(b);
}

/* A user's tree as it is, for the cache (util/tree.h leaves out .git). */
static int copy_user_tree(const char *from, const char *to)
{
	return copy_tree(from, to, TREE_COPY, NULL);
}

struct copy_job {
	int (*fill)(const char *from, const char *tree);
	const char *from, *identity;
};

/* The copy as <tmp>/tree, its identity (the marker) last. */
static int fill_copy(const char *tmp, void *ctx)
{
	const struct copy_job *job = ctx;
	char *tree = path_join(tmp, "tree"), *info = path_join(tmp, "identity");
	int rc = job->fill(job->from, tree) == 0 &&
		 write_file_atomic(info, job->identity, strlen(job->identity)) == 0 ? 0 : -1;
	free(tree);
	free(info);
	return rc;
}

/* A finished copy in the cache as $cache/src/<name>/tree, made once. */
static int cache_copy(const char *name, const char *identity, int (*fill)(const char *from, const char *tmp),
		      const char *from, char **tree)
{
	char *base = xasprintf("%s/src/%s", hb_cache_dir(), name);
	char *what = xasprintf("copying %s", from);
	struct copy_job job = { fill, from, identity };
	*tree = path_join(base, "tree");
	int rc = cache_fill(base, "identity", what, fill_copy, &job);
	free(what);
	free(base);
	return rc;
}

static int prepare_dir(const char *path, struct source *s)
{
	s->kind = SOURCE_DIR;
	char *mk = path_join(path, "Makefile");
	char *cfg = path_join(path, ".config");
	char *inc = path_join(path, "include/config");
	char *text = read_file(mk, NULL);
	int rc = HB_FAIL_INPUT;
	if (!text || source_makefile_version(text, &s->kernel_version, &s->series) < 0) {
		hb_err("--kernel-src %s is not a kernel tree (its Makefile has no VERSION, "
		       "PATCHLEVEL, SUBLEVEL); give the top directory of a Linux checkout", path);
		goto out;
	}
	if (path_exists(cfg) || path_exists(inc)) {
		hb_err("--kernel-src %s has in-tree build output (.config or include/config); "
		       "hilbench builds out of tree and kbuild refuses a dirty source: run "
		       "`make mrproper` there, or give a clean checkout", path);
		goto out;
	}
	rc = HB_FAIL;
	hb_info("identifying %s (kernel %s)", path, s->kernel_version);
	char *git = git_identity(path);
	if (git) {
		s->identity = git;
		source_git_origin(path, &s->git_url, &s->git_branch);
	} else {
		char *hash = tree_content_hash(path);
		if (!hash) {
			hb_err("cannot read every file of %s: %s", path, strerror(errno));
			goto out;
		}
		s->identity = xasprintf("files %s", hash);
		free(hash);
	}
	char key[65];
	sha256_hex(s->identity, strlen(s->identity), key);
	char *name = xasprintf("dir-%.16s", key);
	int c = cache_copy(name, s->identity, copy_user_tree, path, &s->tree);
	free(name);
	if (c < 0)
		goto out;
	rc = 0;
out:
	free(text);
	free(mk);
	free(cfg);
	free(inc);
	return rc;
}

/* ---- a user's tarball ---- */

static int extract_tarball(const char *tarball, const char *to)
{
	if (mkdir_p(to, 0755) < 0)
		return -1;
	/* GNU tar recognizes gzip, xz, bzip2 and zstd when extracting. */
	char *tar[] = { "tar", "-xf", (char *)tarball, "-C", (char *)to, NULL };
	struct proc_opts tree = PROC_OPTS_TREE;
	return proc_run(tar, &tree) == 0 ? 0 : -1;
}

static int prepare_tarball(const char *path, struct source *s)
{
	s->kind = SOURCE_TARBALL;
	char sha[65];
	if (sha256_file_hex(path, sha) < 0) {
		hb_err("cannot read --kernel-src %s: %s", path, strerror(errno));
		return HB_FAIL_INPUT;
	}
	s->identity = xasprintf("tarball-sha256 %s", sha);
	char *name = xasprintf("tar-%.16s", sha);
	char *top = NULL;
	int rc = HB_FAIL;
	if (cache_copy(name, s->identity, extract_tarball, path, &top) < 0)
		goto out;
	/* A release tarball holds one directory, linux-<version>/. */
	struct strlist names = { 0 };
	list_dir(top, &names);
	rc = HB_FAIL_INPUT;
	if (names.n == 1) {
		s->tree = path_join(top, names.v[0]);
		if (read_version(s->tree, s) == 0)
			rc = 0;
	}
	if (rc)
		hb_err("--kernel-src %s does not hold one kernel tree (found %zu top-level "
		       "entries in %s); give a release tarball like linux-6.12.tar.xz", path,
		       names.n, top);
	strlist_free(&names);
out:
	free(top);
	free(name);
	return rc;
}

int source_prepare(const struct source_spec *spec, struct source *s)
{
	memset(s, 0, sizeof(*s));
	int rc;
	if (!spec->path) {
		if (!spec->series) {
			hb_err("no kernel series given and no --kernel-src; name one");
			return HB_FAIL_INPUT;
		}
		rc = prepare_debian(spec->series, s);
	} else {
		struct stat st;
		char *abs = realpath(spec->path, NULL);
		if (!abs || stat(abs, &st) < 0) {
			hb_err("--kernel-src %s: %s; give a kernel tree (directory) or a release "
			       "tarball", spec->path, strerror(errno));
			free(abs);
			return HB_FAIL_INPUT;
		}
		s->origin = abs;
		rc = S_ISDIR(st.st_mode) ? prepare_dir(abs, s) : prepare_tarball(abs, s);
	}
	if (rc == 0 && spec->series && strcmp(spec->series, s->series)) {
		hb_err("%s is kernel %s (series %s), not series %s; drop --kernel-series or "
		       "give a %s tree", s->origin, s->kernel_version, s->series, spec->series,
		       spec->series);
		rc = HB_FAIL_INPUT;
	}
	if (rc)
		source_free(s);
	return rc;
}

char *source_key_line(const struct source *s)
{
	/* The Debian line is the one every 6.1 cache key was made with, so
	 * those builds stay valid. */
	if (s->kind == SOURCE_DEBIAN)
		return xasprintf("%s %s %s", s->deb_version, s->kernel_version, s->tarball_sha256);
	return xasprintf("%s %s %s", source_kind_name(s->kind), s->kernel_version, s->identity);
}

void source_free(struct source *s)
{
	free(s->series);
	free(s->kernel_version);
	free(s->origin);
	free(s->identity);
	free(s->tree);
	free(s->git_url);
	free(s->git_branch);
	free(s->deb_version);
	free(s->tarball_sha256);
	memset(s, 0, sizeof(*s));
}
