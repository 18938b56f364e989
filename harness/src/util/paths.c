#include "util/paths.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/proc.h"
#include "util/util.h"

static struct {
	int known;
	enum hb_layout layout;
	char home[PATH_MAX];  /* the default data directory */
	char lib[PATH_MAX];   /* program files */
} where;

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* $HILBENCH_HOME is a tree (the tests point it at a clone or a copy of
 * one). Else the binary's directory says: <P>/bin beside <P>/share/hilbench
 * is an installation, anything else (build/) the clone above it. */
static void locate(void)
{
	if (where.known)
		return;
	where.known = 1;
	where.layout = HB_LAYOUT_TREE;
	const char *env = getenv("HILBENCH_HOME");
	if (env && *env) {
		snprintf(where.home, sizeof(where.home), "%s", env);
		snprintf(where.lib, sizeof(where.lib), "%s", env);
		return;
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		snprintf(where.home, sizeof(where.home), ".");
		snprintf(where.lib, sizeof(where.lib), ".");
		return;
	}
	exe[n] = '\0';
	char *bindir = path_dirname(exe), *top = path_dirname(bindir);
	const char *base = strrchr(bindir, '/');
	/* "/" as a prefix: /share/hilbench, not //share/hilbench */
	const char *prefix = strcmp(top, "/") ? top : "";
	char *share = xasprintf("%s/share/hilbench", prefix);
	if (base && !strcmp(base, "/bin") && is_dir(share)) {
		where.layout = HB_LAYOUT_INSTALLED;
		snprintf(where.home, sizeof(where.home), "%s", share);
		snprintf(where.lib, sizeof(where.lib), "%s/lib/hilbench", prefix);
	} else {
		/* build/hilbench: the clone above it */
		snprintf(where.home, sizeof(where.home), "%s", top);
		snprintf(where.lib, sizeof(where.lib), "%s", top);
	}
	free(share);
	free(top);
	free(bindir);
}

enum hb_layout hb_layout(void)
{
	locate();
	return where.layout;
}

const char *hb_home(void)
{
	locate();
	return where.home;
}

static struct strlist search;

/* The command line's directories go into $HILBENCH_DATA, before what it
 * had, so the children that call hilbench back (git bisect run) search
 * the same path. */
int hb_data_dir_add(const char *dir, char *err, size_t errlen)
{
	static struct strlist given;
	static char *before;
	static int saved;
	char *abs = realpath(dir, NULL);
	if (!abs || !is_dir(abs)) {
		snprintf(err, errlen, "--data-dir %s: no such directory; give a directory of "
			 "your own boards/, plans/, workloads/, ... (hilbench-files(5))", dir);
		free(abs);
		return -1;
	}
	if (!saved) {
		const char *env = getenv("HILBENCH_DATA");
		before = env && *env ? xstrdup(env) : NULL;
		saved = 1;
	}
	strlist_push(&given, abs);
	free(abs);
	char *joined = argv_join(&given, ":");
	char *value = before ? xasprintf("%s:%s", joined, before) : xstrdup(joined);
	setenv("HILBENCH_DATA", value, 1);
	free(value);
	free(joined);
	strlist_free(&search);
	return 0;
}

const struct strlist *hb_data_dirs(void)
{
	if (search.n)
		return &search;
	const char *env = getenv("HILBENCH_DATA");
	if (env)
		strlist_split(&search, env, ":");
	strlist_push(&search, hb_home());
	return &search;
}

char *hb_data_find(const char *rel)
{
	const struct strlist *dirs = hb_data_dirs();
	for (size_t i = 0; i < dirs->n; i++) {
		char *p = path_join(dirs->v[i], rel);
		if (path_exists(p))
			return p;
		free(p);
	}
	return NULL;
}

/* A program file: in the clone under harness/<dir>/, installed under
 * <lib>/<dir>/. */
static char *program_file(const char *dir, const char *name)
{
	locate();
	return xasprintf("%s/%s%s/%s", where.lib,
			 where.layout == HB_LAYOUT_TREE ? "harness/" : "", dir, name);
}

char *hb_script(const char *name)
{
	return program_file("scripts", name);
}

char *hb_agent_file(const char *name)
{
	return program_file("agent", name);
}

char *hb_plugin_source(const char *name)
{
	return program_file("plugin", name);
}

char *hb_agent_binary(const char *debian_arch)
{
	locate();
	return xasprintf("%s/%s/%s/hb-agent", where.lib,
			 where.layout == HB_LAYOUT_TREE ? "build" : "agent", debian_arch);
}

char *hb_version(void)
{
	if (hb_layout() == HB_LAYOUT_INSTALLED) {
		char *file = path_join(where.lib, "VERSION");
		char *text = read_file(file, NULL);
		free(file);
		if (text)
			text[strcspn(text, "\n")] = '\0';
		if (text && *text)
			return text;
		free(text);
		return xstrdup("unknown");
	}
	char *rev[] = { "git", "-C", (char *)hb_home(), "rev-parse", "--short=12", "HEAD", NULL };
	char *dirty[] = { "git", "-C", (char *)hb_home(), "status", "--porcelain",
			  "--untracked-files=no", NULL };
	char *r = proc_output(rev), *d = proc_output(dirty);
	char *v = xasprintf("%s%s", r ? r : "unknown", d && *d ? "-dirty" : "");
	free(r);
	free(d);
	return v;
}

const char *hb_store_dir(void)
{
	static char *dir;
	if (dir)
		return dir;
	const char *env = getenv("HILBENCH_STORE");
	const char *xdg = getenv("XDG_DATA_HOME");
	const char *home = getenv("HOME");
	if (env && *env)
		dir = xstrdup(env);
	else if (hb_layout() == HB_LAYOUT_TREE)
		dir = path_join(hb_home(), "results");
	else if (xdg && *xdg)
		dir = xasprintf("%s/hilbench/results", xdg);
	else
		dir = xasprintf("%s/.local/share/hilbench/results", home && *home ? home : "/root");
	return dir;
}
