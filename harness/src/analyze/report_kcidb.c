/*
 * KCIDB v5 export: what KernelCI's common database takes from a CI system
 * (kernelci/kcidb-io, schema v5.3, vendored in tests/kcidb with the version
 * it came from). The mapping:
 *   checkout  the patched source: the tree (a git commit: git_commit_hash
 *             and, when its repository is public, git_repository_url;
 *             Debian's linux-source: tree_name debian-<package version>)
 *             + the strategy's and the user's patches (patchset_hash as
 *             KCIDB defines it: sha256 over the newline-terminated sha256
 *             of each patch, in order). What the store does not know (the
 *             source of a build that failed) is left out, not guessed.
 *   build     one hilbench kernel build: PASS per cache key; a build that
 *             failed is one FAIL build per (session, board, strategy),
 *             however many runs it cost
 *   test      one run and metric: path hilbench.<workload>.<metric>,
 *             status DONE with number {value, unit}; a run that is not a
 *             measurement is one test hilbench.<workload> with FAIL, ERROR
 *             or MISS (never ran: also every run of a failed build) and its
 *             reason as the log excerpt.
 * IDs are "hilbench:<our id>", so resubmitting the same runs updates, never
 * duplicates. KCIDB has no nulls: absent facts are left out; so are host
 * paths (a patch is named by its file name and sha256).
 */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report.h"
#include "util/util.h"

#define ORIGIN "hilbench"

struct kcidb_ctx {
	cJSON *checkouts, *builds, *tests;
	struct strlist seen;	/* checkout and build ids already emitted */
};

static int seen(struct strlist *l, const char *id)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], id))
			return 1;
	strlist_push(l, id);
	return 0;
}

/* A test path component: KCIDB allows [a-zA-Z0-9_-] between the dots. */
static void path_part(char *out, size_t len, const char *s)
{
	size_t i = 0;
	for (; s && s[i] && i + 1 < len; i++)
		out[i] = isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '-' ? s[i] : '_';
	if (!i && len > 1)
		out[i++] = '_';
	out[i] = 0;
}

static int is_sha256(const char *s)
{
	size_t i = 0;
	for (; s[i]; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return 0;
	return i == 64;
}

/* The commit of a --kernel-git layer (build/gitsource.h names its patch
 * <base>..<commit>.patch): the checked-out tree is that commit's. */
static int git_layer(const cJSON *file, char commit[41])
{
	if (!cJSON_IsString(file))
		return 0;
	const char *name = strrchr(file->valuestring, '/');
	name = name ? name + 1 : file->valuestring;
	if (strlen(name) != 40 + 2 + 40 + 6 || strncmp(name + 40, "..", 2) ||
	    strcmp(name + 82, ".patch"))
		return 0;
	for (int i = 0; i < 40; i++)
		if (!isxdigit((unsigned char)name[i]) || !isxdigit((unsigned char)name[42 + i]))
			return 0;
	snprintf(commit, 41, "%.40s", name + 42);
	return 1;
}

/* KCIDB's patchset_hash from our patches JSON, without the git layer (that
 * is the checkout's commit); NULL when a patch has no usable sha256 (then
 * the field is left out rather than wrong). */
static char *patchset_hash(const cJSON *patches)
{
	struct strlist lines = { 0 };
	const cJSON *p;
	int ok = 1;
	cJSON_ArrayForEach(p, patches) {
		char commit[41];
		if (git_layer(cJSON_GetObjectItemCaseSensitive(p, "name"), commit))
			continue;
		const cJSON *sha = cJSON_GetObjectItemCaseSensitive(p, "sha256");
		ok = ok && cJSON_IsString(sha) && is_sha256(sha->valuestring);
		if (ok)
			strlist_pushf(&lines, "%s\n", sha->valuestring);
	}
	char *out = NULL;
	if (ok) {
		char *joined = argv_join(&lines, "");
		out = xmalloc(65);
		if (lines.n)
			sha256_hex(joined, strlen(joined), out);
		else
			out[0] = 0;	/* KCIDB: empty when no patches were applied */
		free(joined);
	}
	strlist_free(&lines);
	return out;
}

/* A recorded git_repository_url as KCIDB may take it: https, and short
 * enough to keep whole (a longer one is left out rather than cut into
 * another URL); NULL otherwise. */
static const char *public_url(const cJSON *url)
{
	return cJSON_IsString(url) && !strncmp(url->valuestring, "https://", 8) &&
	       strlen(url->valuestring) < 512 ? url->valuestring : NULL;
}

/* Our patches JSON without host paths: {layer, name, sha256} each, and a
 * --kernel-git layer's git_repository_url. */
static cJSON *patches_for_export(const char *json)
{
	cJSON *in = cJSON_Parse(json ? json : "[]"), *out = cJSON_CreateArray();
	const cJSON *p;
	cJSON_ArrayForEach(p, in) {
		cJSON *q = cJSON_CreateObject();
		const cJSON *layer = cJSON_GetObjectItemCaseSensitive(p, "layer");
		const cJSON *path = cJSON_GetObjectItemCaseSensitive(p, "path");
		const cJSON *sha = cJSON_GetObjectItemCaseSensitive(p, "sha256");
		if (cJSON_IsString(layer))
			cJSON_AddStringToObject(q, "layer", layer->valuestring);
		if (cJSON_IsString(path)) {
			const char *name = strrchr(path->valuestring, '/');
			cJSON_AddStringToObject(q, "name", name ? name + 1 : path->valuestring);
		}
		if (cJSON_IsString(sha))
			cJSON_AddStringToObject(q, "sha256", sha->valuestring);
		const char *url = public_url(cJSON_GetObjectItemCaseSensitive(p, "git_repository_url"));
		if (url)
			cJSON_AddStringToObject(q, "git_repository_url", url);
		cJSON_AddItemToArray(out, q);
	}
	cJSON_Delete(in);
	return out;
}

/* The facts of a build's source its manifest recorded (build/kernel.c):
 * the Debian package version, or the commit of a user's git checkout and
 * whether it had uncommitted changes. All empty when the manifest is gone. */
struct source_facts {
	char deb_version[64], commit[41];
	char git_url[512], git_branch[256];	/* of the commit; empty: unknown */
	int uncommitted;
	double build_seconds;
	char toolchain[128];
};

static void read_source_facts(const char *manifest, struct source_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->build_seconds = -1;
	char *text = manifest ? read_file(manifest, NULL) : NULL;
	cJSON *m = text ? cJSON_Parse(text) : NULL;
	free(text);
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(m, "source");
	const cJSON *deb = cJSON_GetObjectItemCaseSensitive(src, "deb_version");
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(src, "identity");
	const cJSON *url = cJSON_GetObjectItemCaseSensitive(src, "git_repository_url");
	const cJSON *branch = cJSON_GetObjectItemCaseSensitive(src, "git_repository_branch");
	const cJSON *secs = cJSON_GetObjectItemCaseSensitive(m, "build_seconds");
	const cJSON *tc = cJSON_GetObjectItemCaseSensitive(m, "toolchain");
	if (cJSON_IsString(deb))
		snprintf(f->deb_version, sizeof(f->deb_version), "%s", deb->valuestring);
	/* a git checkout's identity: "git <commit> <tree> clean|changes <sha>" */
	if (cJSON_IsString(id) && !strncmp(id->valuestring, "git ", 4) &&
	    strlen(id->valuestring) > 4 + 40 && id->valuestring[44] == ' ') {
		int hex = 1;
		for (int i = 0; i < 40; i++)
			hex = hex && isxdigit((unsigned char)id->valuestring[4 + i]);
		if (hex)
			snprintf(f->commit, sizeof(f->commit), "%.40s", id->valuestring + 4);
		f->uncommitted = strstr(id->valuestring, " changes ") != NULL;
		if (hex && public_url(url))
			snprintf(f->git_url, sizeof(f->git_url), "%s", url->valuestring);
		if (hex && cJSON_IsString(branch) && strlen(branch->valuestring) < sizeof(f->git_branch))
			snprintf(f->git_branch, sizeof(f->git_branch), "%s", branch->valuestring);
	}
	if (cJSON_IsNumber(secs))
		f->build_seconds = secs->valuedouble;
	if (cJSON_IsString(tc))
		snprintf(f->toolchain, sizeof(f->toolchain), "%s", tc->valuestring);
	cJSON_Delete(m);
}

static void add_checkout(struct kcidb_ctx *k, const struct run_row *r, const char *id,
			 const struct source_facts *f, cJSON *patches)
{
	if (seen(&k->seen, id))
		return;
	cJSON *c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "id", id);
	cJSON_AddStringToObject(c, "origin", ORIGIN);
	const cJSON *p;
	char commit[41] = "";
	const char *url = NULL;	/* of the commit's repository */
	cJSON_ArrayForEach(p, patches) {
		if (git_layer(cJSON_GetObjectItemCaseSensitive(p, "name"), commit))
			url = public_url(cJSON_GetObjectItemCaseSensitive(p, "git_repository_url"));
	}
	int from_checkout = !commit[0] && f->commit[0];
	if (from_checkout) {
		snprintf(commit, sizeof(commit), "%s", f->commit);
		url = f->git_url[0] ? f->git_url : NULL;
	}
	if (commit[0])
		cJSON_AddStringToObject(c, "git_commit_hash", commit);
	else if (f->deb_version[0]) {
		char *tree = xasprintf("debian-%s", f->deb_version);
		cJSON_AddStringToObject(c, "tree_name", tree);
		free(tree);
	}
	if (url)
		cJSON_AddStringToObject(c, "git_repository_url", url);
	if (from_checkout && f->git_branch[0])
		cJSON_AddStringToObject(c, "git_repository_branch", f->git_branch);
	/* Only a built kernel recorded its patches; a checkout with uncommitted
	 * changes has more than its patch list says. Either way the patchset
	 * is not known, and an empty hash would claim there was none. */
	int known = r->build_key && r->patches && !f->uncommitted;
	char *hash = known ? patchset_hash(patches) : NULL;
	if (hash)
		cJSON_AddStringToObject(c, "patchset_hash", hash);
	free(hash);
	char *comment = r->kernel_version
		? xasprintf("Linux %s with hilbench strategy %s", r->kernel_version, r->strategy)
		: xasprintf("hilbench strategy %s; the source was not recorded (no kernel was built)",
			    r->strategy);
	cJSON_AddStringToObject(c, "comment", comment);
	free(comment);
	cJSON_AddStringToObject(c, "start_time", r->started);
	if (r->build_key)
		cJSON_AddBoolToObject(c, "valid", 1);	/* it built, so its patches applied */
	cJSON *misc = cJSON_AddObjectToObject(c, "misc");
	if (r->kernel_version)
		cJSON_AddStringToObject(misc, "kernel_version", r->kernel_version);
	cJSON_AddStringToObject(misc, "strategy", r->strategy);
	if (f->uncommitted)
		cJSON_AddBoolToObject(misc, "uncommitted_changes", 1);
	if (r->patches)
		cJSON_AddItemToObject(misc, "patches", cJSON_Duplicate(patches, 1));
	cJSON_AddItemToArray(k->checkouts, c);
}

/* A run without a build key never got a kernel: the build failed (its
 * reason says so, run/executor.c) or the run never got that far. */
static int build_failed(const struct run_row *r)
{
	return !r->build_key && r->reason && !strncmp(r->reason, "build failed", 12);
}

static void add_build(struct kcidb_ctx *k, const struct run_row *r, const char *id,
		      const char *checkout, const struct source_facts *f)
{
	if (seen(&k->seen, id))
		return;
	cJSON *b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "id", id);
	cJSON_AddStringToObject(b, "checkout_id", checkout);
	cJSON_AddStringToObject(b, "origin", ORIGIN);
	cJSON_AddStringToObject(b, "architecture", "arm");
	cJSON_AddStringToObject(b, "config_name", r->board);
	if (f->toolchain[0])
		cJSON_AddStringToObject(b, "compiler", f->toolchain);
	if (f->build_seconds >= 0)
		cJSON_AddNumberToObject(b, "duration", f->build_seconds);
	if (!r->build_key)
		cJSON_AddStringToObject(b, "start_time", r->started);
	cJSON_AddStringToObject(b, "status", r->build_key ? "PASS" : build_failed(r) ? "FAIL"
										     : "MISS");
	if (build_failed(r))
		cJSON_AddStringToObject(b, "log_excerpt", r->reason);
	cJSON *misc = cJSON_AddObjectToObject(b, "misc");
	if (r->build_key)
		cJSON_AddStringToObject(misc, "build_key", r->build_key);
	if (r->kernel_release)
		cJSON_AddStringToObject(misc, "kernel_release", r->kernel_release);
	cJSON_AddItemToArray(k->builds, b);
}

static const char *kcidb_status(const struct run_row *r)
{
	const char *cls = r->cls;
	if (!r->build_key)
		return "MISS";	/* no kernel, so the test never ran */
	return !strcmp(cls, "pass") ? "DONE" : !strcmp(cls, "fail") ? "FAIL" :
	       !strcmp(cls, "error") ? "ERROR" : "MISS";
}

static int take_row(const struct run_row *r, void *ctx)
{
	struct kcidb_ctx *k = ctx;
	struct source_facts f;
	read_source_facts(r->build_key ? r->build_manifest : NULL, &f);
	cJSON *patches = patches_for_export(r->patches);
	char *plist = cJSON_PrintUnformatted(patches);
	char sha[65];
	char *src = xasprintf("%s\n%s\n%s\n%s", r->kernel_version ? r->kernel_version : "",
			      r->strategy, plist, f.commit);
	sha256_hex(src, strlen(src), sha);
	free(src);
	free(plist);
	char *checkout = xasprintf(ORIGIN ":checkout-%s", sha);
	char *build;
	if (r->build_key) {
		build = xasprintf(ORIGIN ":build-%s", r->build_key);
	} else {
		/* one build was tried per cell of a session: its runs share it */
		char *cell = xasprintf("%s\n%s\n%s", r->session ? r->session : "", r->board,
				       r->strategy);
		sha256_hex(cell, strlen(cell), sha);
		free(cell);
		build = xasprintf(ORIGIN ":unbuilt-%s", sha);
	}
	add_checkout(k, r, checkout, &f, patches);
	cJSON_Delete(patches);
	add_build(k, r, build, checkout, &f);

	char workload[96], metric[96];
	path_part(workload, sizeof(workload), r->workload);
	path_part(metric, sizeof(metric), r->metric);
	cJSON *t = cJSON_CreateObject();
	char *id = r->metric ? xasprintf(ORIGIN ":%s:%s", r->id, r->metric)
			     : xasprintf(ORIGIN ":%s", r->id);
	char *path = r->metric ? xasprintf("hilbench.%s.%s", workload, metric)
			       : xasprintf("hilbench.%s", workload);
	cJSON_AddStringToObject(t, "id", id);
	cJSON_AddStringToObject(t, "build_id", build);
	cJSON_AddStringToObject(t, "origin", ORIGIN);
	cJSON_AddStringToObject(t, "path", path);
	cJSON_AddStringToObject(t, "status", kcidb_status(r));
	cJSON_AddStringToObject(t, "start_time", r->started);
	cJSON *env = cJSON_AddObjectToObject(t, "environment");
	cJSON_AddStringToObject(env, "comment", r->board);
	if (r->metric) {
		cJSON *num = cJSON_AddObjectToObject(t, "number");
		cJSON_AddNumberToObject(num, "value", r->value);
		cJSON_AddStringToObject(num, "unit", r->unit);
	}
	if (r->reason) {
		char excerpt[16384];	/* KCIDB's maxLength */
		snprintf(excerpt, sizeof(excerpt), "%s", r->reason);
		cJSON_AddStringToObject(t, "log_excerpt", excerpt);
	}
	cJSON *misc = cJSON_AddObjectToObject(t, "misc");
	cJSON_AddStringToObject(misc, "run", r->id);
	if (r->session)
		cJSON_AddStringToObject(misc, "session", r->session);
	cJSON_AddStringToObject(misc, "strategy", r->strategy);
	cJSON_AddStringToObject(misc, "workload", r->workload);
	cJSON_AddNumberToObject(misc, "repetition", r->repetition);
	cJSON_AddStringToObject(misc, "timing", r->timing);
	if (r->metric) {
		cJSON_AddStringToObject(misc, "metric", r->metric);
		cJSON_AddStringToObject(misc, "source", r->source);
	}
	cJSON_AddItemToArray(k->tests, t);
	free(id);
	free(path);
	free(checkout);
	free(build);
	return 0;
}

int report_emit_kcidb(const struct report_input *in, FILE *out)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *version = cJSON_AddObjectToObject(root, "version");
	cJSON_AddNumberToObject(version, "major", 5);
	cJSON_AddNumberToObject(version, "minor", 3);
	struct kcidb_ctx k = {
		.checkouts = cJSON_AddArrayToObject(root, "checkouts"),
		.builds = cJSON_AddArrayToObject(root, "builds"),
		.tests = cJSON_AddArrayToObject(root, "tests"),
	};
	struct selection all = *in->sel;
	all.all_classes = 1;
	int rc = store_foreach(in->st, &all, take_row, &k);
	char *text = cJSON_Print(root);
	cJSON_Delete(root);
	strlist_free(&k.seen);
	if (rc == 0 && (fputs(text, out) < 0 || fputc('\n', out) < 0))
		rc = -1;
	free(text);
	return rc;
}
