/*
 * KCIDB v5 export: what KernelCI's common database takes from a CI system
 * (kernelci/kcidb-io, schema v5.0; the checks in tests/kcidb follow its
 * published description). The mapping:
 *   checkout  the patched source: kernel version + the strategy's and the
 *             user's patches (patchset_hash as KCIDB defines it: sha256
 *             over the newline-terminated sha256 of each patch, in order)
 *   build     one hilbench kernel build (its cache key)
 *   test      one run and metric: path hilbench.<workload>.<metric>,
 *             status DONE with number {value, unit}; a run that is not a
 *             measurement is one test hilbench.<workload> with FAIL, ERROR
 *             or MISS and its reason as the log excerpt.
 * IDs are "hilbench:<our id>", so resubmitting the same runs updates, never
 * duplicates. KCIDB has no nulls: absent facts are left out.
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
static int git_layer(const cJSON *patch, char commit[41])
{
	const cJSON *path = cJSON_GetObjectItemCaseSensitive(patch, "path");
	if (!cJSON_IsString(path))
		return 0;
	const char *name = strrchr(path->valuestring, '/');
	name = name ? name + 1 : path->valuestring;
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
		if (git_layer(p, commit))
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

static void add_checkout(struct kcidb_ctx *k, const struct run_row *r, const char *id)
{
	if (seen(&k->seen, id))
		return;
	cJSON *c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "id", id);
	cJSON_AddStringToObject(c, "origin", ORIGIN);
	cJSON *patches = cJSON_Parse(r->patches ? r->patches : "[]");
	const cJSON *p;
	char commit[41];
	cJSON_ArrayForEach(p, patches)
		if (git_layer(p, commit))
			cJSON_AddStringToObject(c, "git_commit_hash", commit);
	char *hash = patchset_hash(patches);
	if (hash)
		cJSON_AddStringToObject(c, "patchset_hash", hash);
	free(hash);
	char *comment = xasprintf("Linux %s with hilbench strategy %s",
				  r->kernel_version ? r->kernel_version : "(unknown version)",
				  r->strategy);
	cJSON_AddStringToObject(c, "comment", comment);
	free(comment);
	cJSON_AddStringToObject(c, "start_time", r->started);
	cJSON_AddBoolToObject(c, "valid", 1);
	cJSON *misc = cJSON_AddObjectToObject(c, "misc");
	if (r->kernel_version)
		cJSON_AddStringToObject(misc, "kernel_version", r->kernel_version);
	cJSON_AddStringToObject(misc, "strategy", r->strategy);
	if (cJSON_IsArray(patches))
		cJSON_AddItemToObject(misc, "patches", cJSON_Duplicate(patches, 1));
	cJSON_Delete(patches);
	cJSON_AddItemToArray(k->checkouts, c);
}

static void add_build(struct kcidb_ctx *k, const struct run_row *r, const char *id,
		      const char *checkout)
{
	if (seen(&k->seen, id))
		return;
	cJSON *b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "id", id);
	cJSON_AddStringToObject(b, "checkout_id", checkout);
	cJSON_AddStringToObject(b, "origin", ORIGIN);
	cJSON_AddStringToObject(b, "architecture", "arm");
	cJSON_AddStringToObject(b, "config_name", r->board);
	cJSON_AddStringToObject(b, "start_time", r->started);
	/* a run with a build key ran on that build; a run without one never
	 * got a kernel (its own status says why) */
	cJSON_AddStringToObject(b, "status", r->build_key ? "PASS" : "ERROR");
	cJSON *misc = cJSON_AddObjectToObject(b, "misc");
	if (r->build_key)
		cJSON_AddStringToObject(misc, "build_key", r->build_key);
	if (r->kernel_release)
		cJSON_AddStringToObject(misc, "kernel_release", r->kernel_release);
	cJSON_AddItemToArray(k->builds, b);
}

static const char *kcidb_status(const char *cls)
{
	return !strcmp(cls, "pass") ? "DONE" : !strcmp(cls, "fail") ? "FAIL" :
	       !strcmp(cls, "error") ? "ERROR" : "MISS";
}

static int take_row(const struct run_row *r, void *ctx)
{
	struct kcidb_ctx *k = ctx;
	char sha[65];
	char *src = xasprintf("%s\n%s\n%s", r->kernel_version ? r->kernel_version : "",
			      r->strategy, r->patches ? r->patches : "[]");
	sha256_hex(src, strlen(src), sha);
	free(src);
	char *checkout = xasprintf(ORIGIN ":checkout-%s", sha);
	char *build = r->build_key ? xasprintf(ORIGIN ":build-%s", r->build_key)
				   : xasprintf(ORIGIN ":unbuilt-%s", r->id);
	add_checkout(k, r, checkout);
	add_build(k, r, build, checkout);

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
	cJSON_AddStringToObject(t, "status", kcidb_status(r->cls));
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
	cJSON_AddNumberToObject(version, "minor", 0);
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
