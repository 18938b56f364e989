#include "build/insn_plugin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/lock.h"
#include "util/proc.h"
#include "util/util.h"

#define PLUGIN_CC "cc"
static const char *const plugin_flags[] = {
	"-std=c11", "-O2", "-g", "-shared", "-fPIC", "-pthread", "-Wall", "-Wextra", "-Werror", "-Wshadow",
};

char *insn_plugin_build(const struct emulator_result *e)
{
	char *src = hb_plugin_source("hb-insn.c");
	char *incdir = path_dirname(e->plugin_header);
	char *cc_argv[] = { PLUGIN_CC, "--version", NULL };
	char *cc_version = proc_output(cc_argv);
	char src_sha[65], key[65];
	char *out = NULL, *dir = NULL, *lockpath = NULL, *tmp = NULL, *log = NULL;
	int lockfd = -1;
	if (!cc_version) {
		hb_err("cannot run %s --version: the emulator's plugin needs a C compiler "
		       "(make deps)", PLUGIN_CC);
		goto out;
	}
	if (sha256_file_hex(src, src_sha) < 0) {
		hb_err("cannot read %s", src);
		goto out;
	}
	if (!path_exists(e->plugin_header)) {
		hb_err("%s is missing: the emulator build %s is damaged; delete it and run again",
		       e->plugin_header, e->dir);
		goto out;
	}
	struct strlist flags = { 0 };
	for (size_t i = 0; i < HB_ARRAY_SIZE(plugin_flags); i++)
		strlist_push(&flags, plugin_flags[i]);
	char *flag_text = argv_join(&flags, " ");
	strlist_free(&flags);
	char *text = xasprintf("hilbench-insn-plugin 1\nemulator %s\nsource %s\ncc %.*s\nflags %s\n",
			       e->key, src_sha, (int)strcspn(cc_version, "\n"), cc_version,
			       flag_text);
	free(flag_text);
	sha256_hex(text, strlen(text), key);
	free(text);
	char *cache = path_join(hb_cache_dir(), "plugins");
	dir = path_join(cache, key);
	free(cache);
	char *so = path_join(dir, "hb-insn.so");
	if (path_exists(so)) {
		out = so;
		goto out;
	}
	if (mkdir_p(dir, 0755) < 0) {
		hb_err("cannot create %s", dir);
		free(so);
		goto out;
	}
	lockpath = xasprintf("%s.lock", dir);
	if ((lockfd = lock_wait(lockpath, "another hilbench building the emulator's plugin")) < 0) {
		free(so);
		goto out;
	}
	if (path_exists(so)) {
		out = so;
		goto out;
	}
	tmp = xasprintf("%s.tmp.%ld", so, (long)getpid());
	log = path_join(dir, "build.log");
	struct strlist a = { 0 };
	strlist_push(&a, PLUGIN_CC);
	for (size_t i = 0; i < HB_ARRAY_SIZE(plugin_flags); i++)
		strlist_push(&a, plugin_flags[i]);
	strlist_pushf(&a, "-I%s", incdir);
	strlist_push(&a, "-o");
	strlist_push(&a, tmp);
	strlist_push(&a, src);
	struct proc_opts o = PROC_OPTS_DEFAULT;
	o.log = log;
	int st = proc_run(strlist_argv(&a), &o);
	strlist_free(&a);
	if (st != 0 || rename(tmp, so) != 0) {
		hb_err("building the emulator's plugin %s failed (exit %d); see %s", src, st, log);
		unlink(tmp);
		free(so);
		goto out;
	}
	hb_info("built the emulator's instruction-count plugin: %s", so);
	out = so;
out:
	if (lockfd >= 0)
		close(lockfd);
	free(src);
	free(incdir);
	free(cc_version);
	free(dir);
	free(lockpath);
	free(tmp);
	free(log);
	return out;
}
