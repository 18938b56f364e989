#include "build/symbols.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/proc.h"

/* Every *.o under dir, depth first (a module's too: its names match
 * nothing in System.map, so they count nothing). */
static void find_objects(const char *dir, struct strlist *out)
{
	struct strlist names = { 0 };
	if (list_dir(dir, &names) < 0)
		return;
	for (size_t i = 0; i < names.n; i++) {
		char *p = path_join(dir, names.v[i]);
		struct stat st;
		size_t len = strlen(names.v[i]);
		int found = lstat(p, &st) == 0;
		if (found && S_ISDIR(st.st_mode))
			find_objects(p, out);
		else if (found && S_ISREG(st.st_mode) && len > 2 &&
			 !strcmp(names.v[i] + len - 2, ".o"))
			strlist_push(out, p);
		free(p);
	}
	strlist_free(&names);
}

/* nm's "ADDR TYPE NAME" lines of text symbols, each name once, sorted;
 * ARM's mapping symbols ($a, $t, $d), which System.map leaves out too,
 * are no functions. */
static char *text_symbols(const char *nm_output)
{
	struct strlist lines = { 0 }, names = { 0 };
	strlist_split(&lines, nm_output, "\n");
	for (size_t i = 0; i < lines.n; i++) {
		char addr[32], type, name[128];
		if (sscanf(lines.v[i], "%31s %c %127s", addr, &type, name) == 3 && type &&
		    strchr("tTwW", type) && name[0] != '$')
			strlist_push(&names, name);
	}
	strlist_sort(&names);
	size_t len = 0;
	for (size_t i = 0; i < names.n; i++)
		len += strlen(names.v[i]) + 1;
	char *text = xcalloc(1, len + 1), *o = text;
	for (size_t i = 0; i < names.n; i++)
		if (!i || strcmp(names.v[i], names.v[i - 1]))
			o += sprintf(o, "%s\n", names.v[i]);
	strlist_free(&lines);
	strlist_free(&names);
	return text;
}

int kernel_dir_functions(const struct build_result *k, const struct board *b, const char *dir,
			 char **path)
{
	char *flat = xstrdup(dir);
	for (char *c = flat; *c; c++)
		if (*c == '/')
			*c = '-';
	*path = xasprintf("%s/functions-%s.txt", k->dir, flat);
	free(flat);
	if (path_exists(*path))
		return 0;
	char *objdir = xasprintf("%s/src/hb-out/%s", k->dir, dir);
	struct strlist argv = { 0 };
	strlist_pushf(&argv, "%snm", b->cross_compile ? b->cross_compile : "");
	strlist_push(&argv, "--defined-only");
	size_t fixed = argv.n;
	find_objects(objdir, &argv);
	int rc = -1;
	if (argv.n == fixed) {
		hb_err("%s has no objects: the build made nothing of the driver's 'source' "
		       "directory; check `source:` in the driver file against the kernel tree",
		       objdir);
	} else {
		char *out = proc_output(strlist_argv(&argv));
		char *text = out ? text_symbols(out) : NULL;
		if (!out)
			hb_err("%s failed on the objects of %s", argv.v[0], objdir);
		else if (!*text)
			hb_err("the objects of %s define no function", objdir);
		else if (write_file_atomic(*path, text, strlen(text)) < 0)
			hb_err("cannot write %s: %s", *path, strerror(errno));
		else
			rc = 0;
		free(text);
		free(out);
	}
	strlist_free(&argv);
	free(objdir);
	if (rc) {
		free(*path);
		*path = NULL;
	}
	return rc;
}
