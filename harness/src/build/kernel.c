#include "build/kernel.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build/patchset.h"
#include "build/source.h"
#include "config/strategy.h"
#include "util/lock.h"
#include "util/proc.h"
#include "util/tree.h"

struct layer_patch {
	const char *layer;	/* base | strategy | user */
	const char *path;
	char sha256[65];
};

/* Every input, in order, so that any change makes a new key. */
static void compute_key(const struct build_request *req, const struct source *src,
			const char *toolchain, const char *fragment_sha,
			struct layer_patch *patches, size_t n, char key[65])
{
	const struct board *b = req->board;
	char *source = source_key_line(src);
	char *text = xasprintf("hilbench-kernel-build 1\nsource %s\narch %s\n"
			       "toolchain %s\ndefconfig %s\nfragment %s\nimage %s\ndtb %s\n",
			       source, b->arch, toolchain, b->defconfig, fragment_sha, b->image,
			       b->dtb);
	free(source);
	if (req->objects_dir) {
		char *more = xasprintf("%sobjects %s\n", text, req->objects_dir);
		free(text);
		text = more;
	}
	for (size_t i = 0; i < n; i++) {
		char *more = xasprintf("%spatch %s %s\n", text, patches[i].layer, patches[i].sha256);
		free(text);
		text = more;
	}
	sha256_hex(text, strlen(text), key);
	free(text);
}

/* Fold `patch` output into "file: Hunk #2 FAILED at 2994; ..." */
static char *patch_failure(const char *log)
{
	char *text = read_file(log, NULL);
	if (!text)
		return xstrdup("(no output)");
	char *out = xstrdup("");
	const char *file = "?";
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		const char *what = NULL;
		if (!strncmp(line, "patching file ", 14))
			file = line + 14;
		else if (strstr(line, "FAILED at") || strstr(line, "can't find file") ||
			 strstr(line, "previously applied") || strstr(line, "malformed") ||
			 strstr(line, "Only garbage"))
			what = line;
		if (what) {
			char *more = xasprintf("%s%s%s: %s", out, *out ? "; " : "", file, what);
			free(out);
			out = more;
		}
	}
	free(text);
	if (!*out) {
		free(out);
		out = xstrdup("patch gave no reason; see the log");
	}
	return out;
}

static int apply_patches(const char *tree, const char *logdir, const struct source *src,
			 struct layer_patch *patches, size_t first, size_t n)
{
	for (size_t i = first; i < n; i++) {
		char *log = xasprintf("%s/patch-%02zu.log", logdir, i + 1);
		unlink(log);
		char *argv[] = { "patch", "-p1", "--batch", "--forward", "--no-backup-if-mismatch",
				 "-r", "-", "-d", (char *)tree, "-i", (char *)patches[i].path, NULL };
		struct proc_opts o = PROC_OPTS_DEFAULT;
		o.log = log;
		int st = proc_run(argv, &o);
		if (st != 0) {
			char *why = patch_failure(log);
			hb_err("%s (%s layer) does not apply to kernel %s (%s): %s; "
			       "rebase it on %s, or drop it (full output: %s)",
			       patches[i].path, patches[i].layer, src->kernel_version,
			       src->origin, why, src->kernel_version, log);
			free(why);
			free(log);
			return -1;
		}
		free(log);
	}
	return 0;
}

void kernel_make_env(const char *srcdir, struct strlist *env)
{
	strlist_pushf(env, "CCACHE_DIR=%s/ccache", hb_cache_dir());
	strlist_pushf(env, "CCACHE_BASEDIR=%s", srcdir);
	strlist_push(env, "CCACHE_NOHASHDIR=1");
	/* Fixed build identity: the same inputs give the same image, and
	 * init/version.c stays a ccache hit. */
	strlist_push(env, "KBUILD_BUILD_TIMESTAMP=Thu Jan  1 00:00:00 UTC 1970");
	strlist_push(env, "KBUILD_BUILD_USER=hilbench");
	strlist_push(env, "KBUILD_BUILD_HOST=hilbench");
	strlist_push(env, "KBUILD_BUILD_VERSION=1");
}

static int run_make(const struct build_request *req, const char *srcdir, const char *log,
		    const char *target1, const char *target2)
{
	const struct board *b = req->board;
	struct strlist a = { 0 };
	strlist_push(&a, "make");
	strlist_pushf(&a, "-j%ld", sysconf(_SC_NPROCESSORS_ONLN));
	strlist_push(&a, "O=hb-out");
	strlist_pushf(&a, "ARCH=%s", b->arch);
	strlist_pushf(&a, "CROSS_COMPILE=%s", b->cross_compile);
	strlist_pushf(&a, "CC=ccache %sgcc", b->cross_compile);
	strlist_push(&a, "HOSTCC=ccache gcc");
	strlist_push(&a, target1);
	if (target2)
		strlist_push(&a, target2);
	struct strlist env = { 0 };
	kernel_make_env(srcdir, &env);
	struct proc_opts o = PROC_OPTS_TREE;
	o.cwd = srcdir;
	o.log = log;
	o.env_add = strlist_argv(&env);
	int st = proc_run(strlist_argv(&a), &o);
	strlist_free(&a);
	strlist_free(&env);
	return st;
}

/* "CONFIG_X=y" -> X and y; "# CONFIG_X is not set" -> X and n. */
static int config_line(const char *line, char *sym, size_t symlen, const char **val)
{
	const char *p;
	if (!strncmp(line, "CONFIG_", 7) && (p = strchr(line, '='))) {
		snprintf(sym, symlen, "%.*s", (int)(p - line), line);
		*val = p + 1;
		return 1;
	}
	if (!strncmp(line, "# CONFIG_", 9) && (p = strstr(line, " is not set"))) {
		snprintf(sym, symlen, "%.*s", (int)(p - line - 2), line + 2);
		*val = "n";
		return 1;
	}
	return 0;
}

static const char *config_value(const char *config, const char *sym)
{
	static char val[256];
	size_t sl = strlen(sym);
	for (const char *l = config; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char s[128];
		const char *v;
		if (config_line(l, s, sizeof(s), &v) && strlen(s) == sl && !strcmp(s, sym)) {
			snprintf(val, sizeof(val), "%.*s", (int)strcspn(v, "\n"), v);
			return val;
		}
	}
	return "n";
}

/* defconfig, then the board's fragment, then olddefconfig; then check that
 * every symbol of the fragment survived (a missing dependency silently drops
 * it otherwise, and a build would measure something else). */
static int configure(const struct build_request *req, const char *srcdir, const char *log)
{
	const struct board *b = req->board;
	if (run_make(req, srcdir, log, b->defconfig, NULL) != 0) {
		hb_err("make %s failed; see %s", b->defconfig, log);
		return HB_FAIL;
	}
	char *cfgpath = xasprintf("%s/hb-out/.config", srcdir);
	char *config = read_file(cfgpath, NULL);
	char *frag = read_file(b->config_fragment, NULL);
	int rc = HB_FAIL;
	if (!config || !frag) {
		hb_err("cannot read %s or %s: %s", cfgpath, b->config_fragment, strerror(errno));
		goto out;
	}
	FILE *f = fopen(cfgpath, "a");
	if (!f || fprintf(f, "\n# hilbench: %s\n%s", b->config_fragment, frag) < 0 || fclose(f) != 0) {
		hb_err("cannot write %s: %s", cfgpath, strerror(errno));
		goto out;
	}
	if (run_make(req, srcdir, log, "olddefconfig", NULL) != 0) {
		hb_err("make olddefconfig failed; see %s", log);
		goto out;
	}
	free(config);
	config = read_file(cfgpath, NULL);
	rc = 0;
	int lineno = 0;
	for (char *l = frag; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		lineno++;
		char sym[128];
		const char *want;
		if (!config_line(l, sym, sizeof(sym), &want))
			continue;
		char wantv[256];
		snprintf(wantv, sizeof(wantv), "%.*s", (int)strcspn(want, "\n"), want);
		const char *got = config_value(config, sym);
		if (strcmp(got, wantv)) {
			hb_err("%s:%d: %s=%s was asked for, but the kernel config has %s=%s "
			       "(a dependency is missing or it is not valid for %s); fix the fragment",
			       b->config_fragment, lineno, sym, wantv, sym, got, b->arch);
			rc = HB_FAIL_INPUT;
		}
	}
out:
	free(config);
	free(frag);
	free(cfgpath);
	return rc;
}

static void add_file(cJSON *obj, const char *name, const char *path)
{
	char sha[65] = "";
	sha256_file_hex(path, sha);
	cJSON *f = cJSON_AddObjectToObject(obj, name);
	cJSON_AddStringToObject(f, "path", path);
	cJSON_AddStringToObject(f, "sha256", sha);
}

/* Every object of an objects-only build, with its SHA-256. */
static void add_objects(cJSON *obj, const char *dir)
{
	struct strlist names = { 0 };
	list_dir(dir, &names);
	cJSON *a = cJSON_AddArrayToObject(obj, "objects");
	for (size_t i = 0; i < names.n; i++) {
		char *path = path_join(dir, names.v[i]);
		char sha[65] = "";
		sha256_file_hex(path, sha);
		cJSON *f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "path", path);
		cJSON_AddStringToObject(f, "sha256", sha);
		cJSON_AddItemToArray(a, f);
		free(path);
	}
	strlist_free(&names);
}

static int write_manifest(const struct build_request *req, const struct source *src,
			  const char *toolchain, const char *fragment_sha,
			  const struct layer_patch *patches, size_t n,
			  const struct strlist *upstream, const char *from, int verified,
			  struct build_result *res, double seconds)
{
	char now[32];
	utc_now(now);
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "schema", "hilbench-kernel-build/1");
	cJSON_AddStringToObject(m, "key", res->key);
	cJSON_AddStringToObject(m, "board", req->board->name);
	cJSON_AddStringToObject(m, "arch", req->board->arch);
	cJSON_AddStringToObject(m, "series", src->series);
	cJSON_AddStringToObject(m, "strategy", req->strategy);
	cJSON *s = cJSON_AddObjectToObject(m, "source");
	cJSON_AddStringToObject(s, "kind", source_kind_name(src->kind));
	cJSON_AddStringToObject(s, "origin", src->origin);
	cJSON_AddStringToObject(s, "kernel_version", src->kernel_version);
	cJSON_AddStringToObject(s, "identity", src->identity);
	if (src->git_url)
		cJSON_AddStringToObject(s, "git_repository_url", src->git_url);
	if (src->git_branch)
		cJSON_AddStringToObject(s, "git_repository_branch", src->git_branch);
	if (src->kind == SOURCE_DEBIAN) {
		cJSON_AddStringToObject(s, "package", "linux-source");
		cJSON_AddStringToObject(s, "deb_version", src->deb_version);
		cJSON_AddStringToObject(s, "tarball_sha256", src->tarball_sha256);
		cJSON_AddBoolToObject(s, "source_verified", verified);
	}
	cJSON_AddStringToObject(m, "toolchain", toolchain);
	cJSON_AddStringToObject(m, "defconfig", req->board->defconfig);
	cJSON *fr = cJSON_AddObjectToObject(m, "config_fragment");
	cJSON_AddStringToObject(fr, "path", req->board->config_fragment);
	cJSON_AddStringToObject(fr, "sha256", fragment_sha);
	cJSON_AddStringToObject(m, "config_sha256", res->config_sha256);
	cJSON *pa = cJSON_AddArrayToObject(m, "patches");
	for (size_t i = 0; i < n; i++) {
		cJSON *p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, "layer", patches[i].layer);
		cJSON_AddStringToObject(p, "path", patches[i].path);
		cJSON_AddStringToObject(p, "sha256", patches[i].sha256);
		cJSON_AddItemToArray(pa, p);
	}
	/* What the strategy did not need to patch: the baseline has it. */
	cJSON *up = cJSON_AddArrayToObject(m, "upstream");
	for (size_t i = 0; i < upstream->n; i++)
		cJSON_AddItemToArray(up, cJSON_CreateString(upstream->v[i]));
	cJSON_AddStringToObject(m, "kernel_release", res->kernel_release);
	if (*from)	/* objects reused from that build; the inputs above decide the key */
		cJSON_AddStringToObject(m, "incremental_from", from);
	cJSON *art = cJSON_AddObjectToObject(m, "artifacts");
	if (req->objects_dir) {
		cJSON_AddStringToObject(m, "objects_only", req->objects_dir);
		add_objects(art, res->image);
	} else {
		add_file(art, "image", res->image);
	}
	if (res->dtb)
		add_file(art, "dtb", res->dtb);
	cJSON_AddNumberToObject(m, "build_seconds", seconds);
	cJSON_AddStringToObject(m, "built_at", now);
	cJSON_AddStringToObject(m, "host", host);
	char *text = cJSON_Print(m);
	cJSON_Delete(m);
	int rc = write_file_atomic(res->manifest, text, strlen(text));
	free(text);
	return rc;
}

static int read_manifest(struct build_result *res)
{
	char *text = read_file(res->manifest, NULL);
	cJSON *m = text ? cJSON_Parse(text) : NULL;
	free(text);
	const cJSON *rel = cJSON_GetObjectItemCaseSensitive(m, "kernel_release");
	const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(m, "config_sha256");
	int ok = cJSON_IsString(rel) && cJSON_IsString(cfg);
	if (ok) {
		res->kernel_release = xstrdup(rel->valuestring);
		snprintf(res->config_sha256, sizeof(res->config_sha256), "%s", cfg->valuestring);
		/* the note an unverified source got when it was built, again */
		const cJSON *src = cJSON_GetObjectItemCaseSensitive(m, "source");
		const cJSON *ver = cJSON_GetObjectItemCaseSensitive(src, "deb_version");
		if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(src, "source_verified")))
			hb_info("NOTE: the cached build %.12s was made from linux-source %s, which "
				"is not a version its series was verified on (%s, \"source_verified\": "
				"false)", res->key, cJSON_IsString(ver) ? ver->valuestring : "?",
				res->manifest);
	}
	cJSON_Delete(m);
	return ok && path_exists(res->image) && (!res->dtb || path_exists(res->dtb)) ? 0 : -1;
}

static int gather_patches(const struct build_request *req, const char *series,
			  struct strategy *base, struct strategy *strat, struct layer_patch **out,
			  size_t *n);

/*
 * driver-patches/<series>/verified lists the Debian linux-source versions
 * the series' stacks were made and measured on, one a line ('#' comments).
 * Another version (a mirror that moved on, a fresh root that missed the
 * security suite) is built only after base and every strategy of the
 * series are checked to apply to it, each on a scratch hard-linked copy of
 * the pristine tree, and then with a note; *verified says which. Sources
 * other than Debian's are the user's choice and are not checked.
 */
static int check_source_version(const struct source *src, int *verified)
{
	*verified = 1;
	if (src->kind != SOURCE_DEBIAN)
		return 0;
	char *rel = xasprintf("driver-patches/%s/verified", src->series);
	char *found = hb_data_find(rel);
	char *list = found ? found : path_join(hb_home(), rel);
	char *text = read_file(list, NULL);
	free(rel);
	struct strlist versions = { 0 }, names = { 0 };
	int rc = 0;
	for (char *line = text ? strtok(text, "\n") : NULL; line; line = strtok(NULL, "\n")) {
		line[strcspn(line, "#")] = '\0';
		strlist_split(&versions, line, " \t");
	}
	for (size_t i = 0; i < versions.n; i++)
		if (!strcmp(versions.v[i], src->deb_version))
			goto out;
	*verified = 0;
	char *known = versions.n ? argv_join(&versions, ", ") : xstrdup("none listed");
	hb_info("NOTE: %s %s is not a version driver-patches/%s/ was verified on (%s, in %s): "
		"checking that base and every strategy apply to it first", src->origin,
		src->deb_version, src->series, known, list);
	free(known);
	strategy_list(src->series, &names);
	char *scratch = xasprintf("%s/kernels/verify.%d", hb_cache_dir(), (int)getpid());
	for (size_t i = 0; i < names.n && rc == 0; i++) {
		struct strategy base = { 0 }, st = { 0 };
		struct layer_patch *patches = NULL;
		size_t n = 0;
		struct build_request probe = { .strategy = names.v[i] };
		if (gather_patches(&probe, src->series, &base, &st, &patches, &n) < 0) {
			rc = HB_FAIL_INPUT;
		} else if (n) {
			char *tree = path_join(scratch, "src");
			char *cp[] = { "cp", "-al", src->tree, tree, NULL };
			rm_rf(scratch);
			mkdir_p(scratch, 0755);
			if (proc_run(cp, NULL) != 0) {
				hb_err("cannot copy %s to %s (disk full?)", src->tree, tree);
				rc = HB_FAIL;
			} else if (apply_patches(tree, scratch, src, patches, 0, n) < 0) {
				hb_err("strategy %s does not apply to %s %s: nothing was built; rebase "
				       "its stack, or install a verified version", names.v[i],
				       src->origin, src->deb_version);
				rc = HB_FAIL_INPUT;
			}
			free(tree);
		}
		free(patches);
		strategy_free(&base);
		strategy_free(&st);
	}
	rm_rf(scratch);
	free(scratch);
	if (rc == 0)
		hb_info("every strategy of series %s applies to %s %s; its builds say "
			"\"source_verified\": false", src->series, src->origin, src->deb_version);
out:
	strlist_free(&versions);
	strlist_free(&names);
	free(text);
	free(list);
	return rc;
}

static int gather_patches(const struct build_request *req, const char *series,
			  struct strategy *base, struct strategy *strat, struct layer_patch **out,
			  size_t *n)
{
	char err[2048];
	char *rel = xasprintf("driver-patches/%s", series);
	char *dir = hb_data_find(rel);
	int known = dir != NULL;
	free(dir);
	free(rel);
	if (!known && !strcmp(req->strategy, "baseline")) {
		/* A user's tree of a series hilbench has no stacks for is
		 * still worth measuring as it is. */
		hb_info("no strategy stacks for kernel series %s (driver-patches/%s/): building "
			"the tree as it is", series, series);
	} else if (!known) {
		hb_err("no strategy stacks for kernel series %s: driver-patches/%s/ does not "
		       "exist; build --strategy baseline, or add driver-patches/%s/{base,%s}/series "
		       "(docs/strategies.md)", series, series, series, req->strategy);
		return -1;
	} else if (strategy_load(series, "base", base, err, sizeof(err)) < 0 ||
		   strategy_load(series, req->strategy, strat, err, sizeof(err)) < 0) {
		hb_err("%s", err);
		return -1;
	}
	*n = base->patches.n + strat->patches.n + req->user_patches.n;
	struct layer_patch *p = xcalloc(*n ? *n : 1, sizeof(*p));
	size_t k = 0;
	for (size_t i = 0; i < base->patches.n; i++)
		p[k++] = (struct layer_patch){ .layer = "base", .path = base->patches.v[i] };
	for (size_t i = 0; i < strat->patches.n; i++)
		p[k++] = (struct layer_patch){ .layer = "strategy", .path = strat->patches.v[i] };
	for (size_t i = 0; i < req->user_patches.n; i++)
		p[k++] = (struct layer_patch){ .layer = "user", .path = req->user_patches.v[i] };
	for (size_t i = 0; i < k; i++) {
		if (sha256_file_hex(p[i].path, p[i].sha256) < 0) {
			hb_err("cannot read patch %s: %s; check the path", p[i].path, strerror(errno));
			free(p);
			return -1;
		}
	}
	*out = p;
	return 0;
}

/* The objects make built in hb-out/<dir>/ (not in its subdirectories),
 * copied into a new directory `to`. */
static int copy_objects(const char *srcdir, const char *dir, const char *to)
{
	char *built = xasprintf("%s/hb-out/%s", srcdir, dir);
	struct strlist names = { 0 };
	int rc = list_dir(built, &names) < 0 ? -1 : 0;
	rm_rf(to);
	if (rc == 0)
		rc = mkdir_p(to, 0755);
	size_t copied = 0;
	for (size_t i = 0; i < names.n && rc == 0; i++) {
		size_t len = strlen(names.v[i]);
		if (len < 3 || strcmp(names.v[i] + len - 2, ".o"))
			continue;
		char *from = path_join(built, names.v[i]);
		char *dst = path_join(to, names.v[i]);
		rc = copy_file(from, dst);
		copied++;
		free(from);
		free(dst);
	}
	strlist_free(&names);
	free(built);
	/* No object means the fragment did not enable anything there. */
	return rc == 0 && copied ? 0 : -1;
}

/* The cached build whose patch stack is the longest proper prefix of ours,
 * all other inputs equal: its tree and objects are ours minus the patches
 * after `*prefix`. NULL when there is none. */
static char *nearest_build(const struct build_request *req, const struct source *src,
			   const char *toolchain, const char *fragment_sha,
			   struct layer_patch *patches, size_t n, size_t *prefix)
{
	for (size_t k = n; k-- > 0;) {
		char key[65];
		compute_key(req, src, toolchain, fragment_sha, patches, k, key);
		char *dir = xasprintf("%s/kernels/%s", hb_cache_dir(), key);
		char *manifest = path_join(dir, "manifest.json");
		char *objs = path_join(dir, "src/hb-out/.config");
		int usable = path_exists(manifest) && path_exists(objs);
		free(manifest);
		free(objs);
		if (usable) {
			*prefix = k;
			return dir;
		}
		free(dir);
	}
	return NULL;
}

int kernel_config_input(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	return !strncmp(base, "Kconfig", 7) || !strncmp(path, "scripts/", 8) ||
	       !strcmp(path, "Makefile") || (!strncmp(path, "arch/", 5) && strstr(path, "/configs/"));
}

/* Whether none of patches[first..n) changes a configuration input: the
 * cached build's .config is then the one configure() would make again. */
static int config_unchanged(const struct layer_patch *patches, size_t first, size_t n)
{
	int unchanged = 1;
	for (size_t i = first; i < n && unchanged; i++) {
		struct strlist files = { 0 };
		unchanged = patchset_files(patches[i].path, &files) == 0;
		for (size_t k = 0; k < files.n && unchanged; k++)
			unchanged = !kernel_config_input(files.v[k]);
		strlist_free(&files);
	}
	return unchanged;
}

/* A patched tree for this key: from the nearest cached build when there is
 * one (a one-patch change then rebuilds a handful of objects), else from the
 * pristine source. Returns the key it started from in *from ("" if none),
 * and in *configured whether the tree's .config is already this build's
 * (copied from a build whose configuration no later patch can change). */
static int prepare_tree(const struct build_request *req, const struct source *src,
			const char *toolchain, const char *fragment_sha,
			struct layer_patch *patches, size_t n, const char *srcdir,
			const char *logdir, char **from, int *configured)
{
	size_t done = 0;
	char *near = req->from_scratch ? NULL
				       : nearest_build(req, src, toolchain, fragment_sha, patches, n,
						       &done);
	rm_rf(srcdir);
	if (near) {
		char *nsrc = path_join(near, "src");
		/* the objects copied, their timestamps kept: make rebuilds only
		 * what the remaining patches touch */
		int ok = copy_tree(nsrc, srcdir, TREE_HARD_LINK, "hb-out") == 0;
		free(nsrc);
		if (ok) {
			*from = xstrdup(strrchr(near, '/') + 1);
			*configured = config_unchanged(patches, done, n);
			hb_info("starting from the cached build %.12s (%zu of %zu patches applied%s)",
				*from, done, n, *configured ? ", its configuration kept" : "");
		} else {
			hb_info("cannot copy the cached build %s; building from the source", near);
			rm_rf(srcdir);
			done = 0;
		}
		free(near);
	}
	if (!*from) {
		*from = xstrdup("");
		char *cp[] = { "cp", "-al", src->tree, (char *)srcdir, NULL };
		if (proc_run(cp, NULL) != 0) {
			hb_err("cannot copy %s to %s (disk full?)", src->tree, srcdir);
			return HB_FAIL;
		}
	}
	if (apply_patches(srcdir, logdir, src, patches, done, n) < 0) {
		rm_rf(srcdir);
		return HB_FAIL_INPUT;
	}
	return 0;
}

/* The source suits the request: the board's DTS is in its series (else,
 * for an objects-only build, *with_dtb = 0) and --objects-only names a
 * directory of the tree. 0, or HB_FAIL_INPUT with the message printed. */
static int check_request(const struct build_request *req, const struct source *src,
			 int *with_dtb)
{
	const struct board *b = req->board;
	char err[1024];
	/* min_series is where the board's DTS appeared: an objects-only build
	 * of an older series is still a build of its driver, without the DTB. */
	*with_dtb = 1;
	if (board_series_check(b, src->series, err, sizeof(err)) < 0) {
		if (!req->objects_dir) {
			hb_err("%s", err);
			return HB_FAIL_INPUT;
		}
		*with_dtb = 0;
		hb_info("kernel %s predates %s's DTS (kernel.min_series %s): objects only, no DTB",
			src->kernel_version, b->name, b->min_series);
	}
	if (req->objects_dir) {
		char *od = path_join(src->tree, req->objects_dir);
		int ok = req->objects_dir[0] != '/' && !strstr(req->objects_dir, "..") &&
			 path_exists(od);
		free(od);
		if (!ok) {
			hb_err("--objects-only %s is not a directory of kernel %s; give one relative "
			       "to the tree's top, like drivers/net/ethernet/stmicro/stmmac",
			       req->objects_dir, src->kernel_version);
			return HB_FAIL_INPUT;
		}
	}
	return 0;
}

/* The cross compiler's version line, part of the key; NULL (printed) when
 * it is not installed. */
static char *toolchain_version(const struct board *b)
{
	char *gcc = xasprintf("%sgcc", b->cross_compile);
	char *ver[] = { gcc, "--version", NULL };
	char *toolchain = proc_output(ver);
	free(gcc);
	if (!toolchain) {
		hb_err("%sgcc is not installed; run `make deps`", b->cross_compile);
		return NULL;
	}
	toolchain[strcspn(toolchain, "\n")] = '\0';
	return toolchain;
}

/* Where the build of res->key keeps what it makes. */
static void result_paths(const struct build_request *req, int with_dtb, struct build_result *res)
{
	const struct board *b = req->board;
	res->dir = xasprintf("%s/kernels/%s", hb_cache_dir(), res->key);
	res->image = path_join(res->dir, req->objects_dir ? "objects" : b->image);
	const char *dtb_base = strrchr(b->dtb, '/') ? strrchr(b->dtb, '/') + 1 : b->dtb;
	res->dtb = with_dtb ? path_join(res->dir, dtb_base) : NULL;
	res->manifest = path_join(res->dir, "manifest.json");
	res->system_map = path_join(res->dir, "src/hb-out/System.map");
}

/* configure (unless the tree is configured already), then make the image
 * and DTB (or the objects directory) in the patched tree; a failed make
 * shows the log's last lines. */
static int compile(const struct build_request *req, const char *srcdir, const char *log,
		   int with_dtb, int configured)
{
	const struct board *b = req->board;
	int rc = configured ? 0 : configure(req, srcdir, log);
	if (rc != 0)
		return rc;
	char *objects_target = req->objects_dir ? xasprintf("%s/", req->objects_dir) : NULL;
	int st = run_make(req, srcdir, log, objects_target ? objects_target : b->image,
			  with_dtb ? b->dtb : NULL);
	free(objects_target);
	if (st != 0) {
		hb_err("kernel build failed; the last lines of %s:", log);
		char *tail[] = { "tail", "-n", "15", (char *)log, NULL };
		proc_run(tail, NULL);
		return HB_FAIL;
	}
	return 0;
}

/* The build's image (or objects), DTB and config into the key's directory,
 * the config's hash and the kernel release into res. */
static int keep_artifacts(const struct build_request *req, const char *srcdir,
			  struct build_result *res)
{
	const struct board *b = req->board;
	char *built_image = xasprintf("%s/hb-out/arch/%s/boot/%s", srcdir, b->arch, b->image);
	char *built_dtb = xasprintf("%s/hb-out/arch/%s/boot/dts/%s", srcdir, b->arch, b->dtb);
	char *built_cfg = xasprintf("%s/hb-out/.config", srcdir);
	char *built_rel = xasprintf("%s/hb-out/include/config/kernel.release", srcdir);
	char *cfg_copy = path_join(res->dir, "config");
	int ok = (req->objects_dir ? copy_objects(srcdir, req->objects_dir, res->image)
				   : copy_file(built_image, res->image)) == 0 &&
		 (!res->dtb || copy_file(built_dtb, res->dtb) == 0) &&
		 copy_file(built_cfg, cfg_copy) == 0 &&
		 sha256_file_hex(cfg_copy, res->config_sha256) == 0 &&
		 (res->kernel_release = read_file(built_rel, NULL)) != NULL;
	free(built_image);
	free(built_dtb);
	free(built_cfg);
	free(built_rel);
	free(cfg_copy);
	if (!ok) {
		hb_err("build finished but its artifacts are missing in %s/hb-out", srcdir);
		return -1;
	}
	res->kernel_release[strcspn(res->kernel_release, "\n")] = '\0';
	return 0;
}

/* What a kernel build is made of (its key's inputs) and where it goes. */
struct kernel_inputs {
	struct source src;
	struct strategy base, strat;
	struct layer_patch *patches;
	size_t npatches;
	char *toolchain;	/* the cross compiler's version line */
	char fragment_sha[65];	/* the board's config fragment */
	int with_dtb;
	char *srcdir, *log, *marker;	/* in the key's directory */
};

static void kernel_inputs_free(struct kernel_inputs *in)
{
	free(in->marker);
	free(in->log);
	free(in->srcdir);
	free(in->toolchain);
	free(in->patches);
	strategy_free(&in->base);
	strategy_free(&in->strat);
	source_free(&in->src);
}

/* The source (checked against the request), the patch stack, the
 * toolchain and the config fragment; from them the key and the paths of
 * its directory in res. 0, or HB_FAIL / HB_FAIL_INPUT (said). */
static int gather_inputs(const struct build_request *req, struct kernel_inputs *in,
			 struct build_result *res)
{
	const struct board *b = req->board;
	struct source_spec spec = { .path = req->kernel_src, .series = req->series };
	int rc = source_prepare(&spec, &in->src);
	if (rc == 0)
		rc = check_request(req, &in->src, &in->with_dtb);
	if (rc != 0)
		return rc;
	res->series = xstrdup(in->src.series);
	if (gather_patches(req, in->src.series, &in->base, &in->strat, &in->patches,
			   &in->npatches) < 0)
		return HB_FAIL_INPUT;
	if (!(in->toolchain = toolchain_version(b)))
		return HB_FAIL;
	if (sha256_file_hex(b->config_fragment, in->fragment_sha) < 0) {
		hb_err("cannot read %s: %s", b->config_fragment, strerror(errno));
		return HB_FAIL;
	}
	compute_key(req, &in->src, in->toolchain, in->fragment_sha, in->patches, in->npatches,
		    res->key);
	result_paths(req, in->with_dtb, res);
	in->srcdir = path_join(res->dir, "src");
	in->log = path_join(res->dir, "build.log");
	in->marker = path_join(res->dir, "patched");
	return 0;
}

/* The key's patched tree. An interrupted build resumes in its patched
 * tree (the marker names the build it started from; it configures again,
 * not knowing how far the first try got); anything less is redone. *from:
 * that build's key, "" for none (NULL if the marker cannot be read);
 * *configured as prepare_tree() says. */
static int patched_tree(const struct build_request *req, const struct kernel_inputs *in,
			const struct build_result *res, char **from, int *configured)
{
	*configured = 0;
	if (path_exists(in->marker)) {
		*from = read_file(in->marker, NULL);
		return 0;
	}
	int rc = prepare_tree(req, &in->src, in->toolchain, in->fragment_sha, in->patches,
			      in->npatches, in->srcdir, res->dir, from, configured);
	if (rc != 0)
		return rc;
	return write_file_atomic(in->marker, *from, strlen(*from)) < 0 ? HB_FAIL : 0;
}

/* Builds the key's kernel, its lock held and nothing cached: the source
 * verified, the tree patched, compiled, its artifacts kept, the manifest
 * written last. t0: when kernel_build() began (build_seconds). */
static int build_key(const struct build_request *req, const struct kernel_inputs *in,
		     struct build_result *res, double t0)
{
	int verified = 1, buildlock = -1, configured = 0;
	char *from = NULL;	/* key of the cached build this one started from */
	int rc = check_source_version(&in->src, &verified);
	if (rc != 0)
		return rc;
	hb_info("building kernel %s + %s for %s (key %.12s, log %s)", in->src.kernel_version,
		req->strategy, req->board->name, res->key, in->log);
	rc = patched_tree(req, in, res, &from, &configured);
	/* One full compile at a time per cache: make already uses every core,
	 * and two at once only thrash. An incremental build (a few objects and a
	 * link) and an objects-only one (kbuild's prepare and one directory) do
	 * not wait behind a half-hour cold build; patching above needs no CPU,
	 * so a patch that does not apply never waits either. */
	if (rc == 0 && (!from || !*from) && !req->objects_dir) {
		buildlock = lock_compile();
		rc = buildlock < 0 ? HB_FAIL : 0;
		t0 = monotonic_s();	/* build_seconds: the build, not the wait for the lock */
	}
	if (rc == 0) {
		unlink(in->log);
		rc = compile(req, in->srcdir, in->log, in->with_dtb, configured);
	}
	if (rc == 0 && keep_artifacts(req, in->srcdir, res) < 0)
		rc = HB_FAIL;
	if (rc == 0 && write_manifest(req, &in->src, in->toolchain, in->fragment_sha, in->patches,
				      in->npatches, &in->strat.upstream, from ? from : "",
				      verified, res, monotonic_s() - t0) < 0) {
		hb_err("cannot write %s: %s", res->manifest, strerror(errno));
		rc = HB_FAIL;
	}
	if (rc == 0)
		hb_info("built %s in %.0f s", res->kernel_release, monotonic_s() - t0);
	if (buildlock >= 0)
		close(buildlock);
	free(from);
	return rc;
}

int kernel_build(const struct build_request *req, struct build_result *res)
{
	memset(res, 0, sizeof(*res));
	struct kernel_inputs in = { 0 };
	double t0 = monotonic_s();
	char *lockpath = NULL;
	int lockfd = -1;
	const char *holder = "another hilbench building this kernel";
	int rc = gather_inputs(req, &in, res);
	if (rc == 0) {
		lockpath = xasprintf("%s.lock", res->dir);
		if (mkdir_p(res->dir, 0755) < 0) {
			hb_err("cannot create %s: %s", res->dir, strerror(errno));
			rc = HB_FAIL;
		} else if ((lockfd = lock_wait(lockpath, holder)) < 0) {
			rc = HB_FAIL;
		} else if (read_manifest(res) == 0) {
			res->cached = 1;
		} else {
			rc = build_key(req, &in, res, t0);
		}
	}
	if (lockfd >= 0)
		close(lockfd);
	free(lockpath);
	kernel_inputs_free(&in);
	return rc;
}

void build_result_free(struct build_result *res)
{
	free(res->series);
	free(res->dir);
	free(res->image);
	free(res->dtb);
	free(res->manifest);
	free(res->system_map);
	free(res->kernel_release);
	memset(res, 0, sizeof(*res));
}
