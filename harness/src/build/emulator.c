#include "build/emulator.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build/patchset.h"
#include "util/lock.h"
#include "util/proc.h"
#include "util/util.h"

/* Everything that decides what the build makes, one item a line. */
static char *key_text(const struct emulator *e, const struct strlist *patches,
		      const char *script_sha)
{
	char *devices = argv_join(&e->devices, " ");
	char *configure = argv_join(&e->configure, " ");
	char *text = xasprintf("hilbench-emulator 1\nname %s\npackage %s\nversion %s\n"
			       "target %s\nbinary %s\ndevices %s\nconfigure %s\nscript %s\n",
			       e->name, e->package, e->version, e->target, e->binary, devices,
			       configure, script_sha);
	free(devices);
	free(configure);
	for (size_t i = 0; i < patches->n; i++) {
		char sha[65];
		if (sha256_file_hex(patches->v[i], sha) < 0) {
			hb_err("cannot read %s", patches->v[i]);
			free(text);
			return NULL;
		}
		char *more = xasprintf("%spatch %s\n", text, sha);
		free(text);
		text = more;
	}
	return text;
}

/* The manifest's "word value" lines folded into one provenance line. */
static char *provenance(const char *manifest_path, const char *key)
{
	char *m = read_file(manifest_path, NULL);
	if (!m)
		return NULL;
	char *out = xasprintf("key %.12s", key);
	for (char *line = strtok(m, "\n"); line; line = strtok(NULL, "\n")) {
		static const char *const kept[] = { "name ", "package ", "version ", "verified ",
						    "dsc_sha256 ", "patch " };
		for (size_t i = 0; i < HB_ARRAY_SIZE(kept); i++)
			if (!strncmp(line, kept[i], strlen(kept[i]))) {
				char *more = xasprintf("%s; %s", out, line);
				free(out);
				out = more;
			}
	}
	free(m);
	return out;
}

static int run_script(const struct emulator *e, const struct strlist *patches,
		      const char *script, const char *dir)
{
	struct strlist a = { 0 };
	strlist_push(&a, "bash");
	strlist_push(&a, script);
	char *cache = path_join(hb_cache_dir(), "emulators");
	const char *pairs[][2] = {
		{ "--name", e->name },	   { "--package", e->package }, { "--version", e->version },
		{ "--target", e->target }, { "--binary", e->binary },	{ "--out", dir },
		{ "--cache", cache },
	};
	for (size_t i = 0; i < HB_ARRAY_SIZE(pairs); i++) {
		strlist_push(&a, pairs[i][0]);
		strlist_push(&a, pairs[i][1]);
	}
	for (size_t i = 0; i < e->devices.n; i++) {
		strlist_push(&a, "--device");
		strlist_push(&a, e->devices.v[i]);
	}
	for (size_t i = 0; i < e->configure.n; i++) {
		strlist_push(&a, "--configure");
		strlist_push(&a, e->configure.v[i]);
	}
	for (size_t i = 0; i < patches->n; i++) {
		strlist_push(&a, "--patch");
		strlist_push(&a, patches->v[i]);
	}
	struct proc_opts tree = PROC_OPTS_TREE;
	int st = proc_run(strlist_argv(&a), &tree);
	strlist_free(&a);
	free(cache);
	return st;
}

int emulator_build(const struct emulator *e, struct emulator_result *res)
{
	memset(res, 0, sizeof(*res));
	struct strlist patches = { 0 };
	char err[1024], script_sha[65];
	char *script = hb_script("build-emulator.sh");
	char *series = path_join(e->patches, "series");
	char *text = NULL, *manifest = NULL, *lockpath = NULL;
	int rc = -1, lockfd = -1, compilefd = -1;
	if (patchset_add_series(&patches, series, err, sizeof(err)) < 0) {
		hb_err("%s", err);
		goto out;
	}
	if (sha256_file_hex(script, script_sha) < 0) {
		hb_err("cannot read %s", script);
		goto out;
	}
	if (!(text = key_text(e, &patches, script_sha)))
		goto out;
	sha256_hex(text, strlen(text), res->key);
	char *cache = path_join(hb_cache_dir(), "emulators");
	res->dir = path_join(cache, res->key);
	mkdir_p(cache, 0755);
	free(cache);
	res->binary = xasprintf("%s/bin/%s", res->dir, e->binary);
	res->plugin_header = xasprintf("%s/include/qemu-plugin.h", res->dir);
	manifest = path_join(res->dir, "manifest");
	lockpath = xasprintf("%s.lock", res->dir);
	if (!path_exists(manifest)) {
		if ((lockfd = lock_wait(lockpath, "another hilbench building this emulator")) < 0)
			goto out;
	}
	if (!path_exists(manifest)) {
		if ((compilefd = lock_compile()) < 0)
			goto out;
		hb_info("building emulator %s from Debian's %s %s + %zu patches (key %.12s, once "
			"per cache; a few minutes)", e->name, e->package, e->version, patches.n,
			res->key);
		double t0 = monotonic_s();
		int st = run_script(e, &patches, script, res->dir);
		if (st != 0 || !path_exists(manifest)) {
			hb_err("building emulator %s failed (exit %d); see the messages above",
			       e->name, st);
			goto out;
		}
		hb_info("emulator %s built in %.0f s: %s", e->name, monotonic_s() - t0,
			res->binary);
	} else {
		res->cached = 1;
	}
	if (!path_exists(res->binary) || !(res->provenance = provenance(manifest, res->key))) {
		hb_err("the emulator build %s is damaged; delete it and run again", res->dir);
		goto out;
	}
	rc = 0;
out:
	if (compilefd >= 0)
		close(compilefd);
	if (lockfd >= 0)
		close(lockfd);
	strlist_free(&patches);
	free(script);
	free(series);
	free(text);
	free(manifest);
	free(lockpath);
	if (rc)
		emulator_result_free(res);
	return rc;
}

void emulator_result_free(struct emulator_result *res)
{
	free(res->dir);
	free(res->binary);
	free(res->plugin_header);
	free(res->provenance);
	free(res->insn_plugin);
	res->dir = res->binary = res->plugin_header = res->provenance = res->insn_plugin = NULL;
}
