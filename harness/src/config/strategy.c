#include "config/strategy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/catalog.h"
#include "config/setting.h"
#include "config/yamldoc.h"

/* The first data directory's driver-patches/<series>/<name>/ that has a
 * series file; the default directory's when none has (the error names it). */
static char *series_dir(const char *series, const char *name)
{
	char *rel = xasprintf("driver-patches/%s/%s/series", series, name);
	char *found = hb_data_find(rel);
	free(rel);
	char *dir = found ? path_dirname(found)
			  : xasprintf("%s/driver-patches/%s/%s", hb_home(), series, name);
	free(found);
	return dir;
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	char *e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* "setting: <name> <value>": a known setting, a value it accepts, once. */
static int setting_line(const char *file, int lineno, const char *what,
			struct strlist *settings, char *err, size_t errlen)
{
	char name[128], value[128], extra[2];
	if (!settings) {
		snprintf(err, errlen, "%s:%d: 'setting:' is only for strategies in "
			 "driver-patches/<series>/; put runtime settings in a strategy", file, lineno);
		return -1;
	}
	if (sscanf(what, "%127s %127s %1s", name, value, extra) != 2) {
		snprintf(err, errlen, "%s:%d: write 'setting: <name> <value>', e.g. "
			 "'setting: tx-usecs 5000'", file, lineno);
		return -1;
	}
	struct setting_def def;
	char why[1024];
	if (setting_find(name, &def, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "%s:%d: %s", file, lineno, why);
		return -1;
	}
	int rc = setting_check_value(&def, value, why, sizeof(why));
	setting_free(&def);
	if (rc < 0) {
		snprintf(err, errlen, "%s:%d: %s", file, lineno, why);
		return -1;
	}
	size_t n = strlen(name);
	for (size_t i = 0; i < settings->n; i++) {
		if (!strncmp(settings->v[i], name, n) && settings->v[i][n] == '=') {
			snprintf(err, errlen, "%s:%d: %s is set twice; keep one line", file,
				 lineno, name);
			return -1;
		}
	}
	strlist_pushf(settings, "%s=%s", name, value);
	return 0;
}

/* "driver: <name>": once, a file of drivers/. */
static int driver_line(const char *file, int lineno, const char *what, char **driver,
		       char *err, size_t errlen)
{
	if (!driver) {
		snprintf(err, errlen, "%s:%d: 'driver:' is only for strategies in "
			 "driver-patches/<series>/ (the driver is the strategy's); remove the line",
			 file, lineno);
		return -1;
	}
	if (*driver) {
		snprintf(err, errlen, "%s:%d: a second 'driver:' line; a strategy changes one "
			 "driver, keep one line", file, lineno);
		return -1;
	}
	char *path = ydoc_name_ok(what) ? catalog_path("driver", what) : NULL;
	int ok = path && path_exists(path);
	if (!ok) {
		struct strlist known = { 0 };
		catalog_names("driver", &known);
		char *list = known.n ? argv_join(&known, ", ") : xstrdup("(none)");
		snprintf(err, errlen, "%s:%d: no driver '%s' (drivers/<name>.yaml); "
			 "known drivers: %s", file, lineno, what, list);
		free(list);
		strlist_free(&known);
	} else {
		*driver = xstrdup(what);
	}
	free(path);
	return ok ? 0 : -1;
}

int series_file_load(const char *file, struct strlist *patches, char **description,
		     struct strlist *upstream, struct strlist *settings, char **driver,
		     char *err, size_t errlen)
{
	FILE *f = fopen(file, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		return -1;
	}
	char *dir = path_dirname(file);
	int rc = -1;
	char line[1024];
	for (int lineno = 1; fgets(line, sizeof(line), f); lineno++) {
		char *t = trim(line);
		if (*t == '#') {
			if (description && !*description && *trim(t + 1))
				*description = xstrdup(trim(t + 1));
			continue;
		}
		if (!*t)
			continue;
		if (!strncmp(t, "upstream:", 9)) {
			const char *what = trim(t + 9);
			if (!upstream) {
				snprintf(err, errlen, "%s:%d: 'upstream:' is only for strategies in "
					 "driver-patches/<series>/; remove the line", file, lineno);
				goto out;
			}
			if (!*what) {
				snprintf(err, errlen, "%s:%d: 'upstream:' names nothing; write the "
					 "upstream commit's subject (and tag) after it", file, lineno);
				goto out;
			}
			strlist_push(upstream, what);
			continue;
		}
		if (!strncmp(t, "setting:", 8)) {
			if (setting_line(file, lineno, trim(t + 8), settings, err, errlen) < 0)
				goto out;
			continue;
		}
		if (!strncmp(t, "driver:", 7)) {
			if (driver_line(file, lineno, trim(t + 7), driver, err, errlen) < 0)
				goto out;
			continue;
		}
		/* quilt allows "-pN" after the name; hilbench patches are all -p1 */
		if (strpbrk(t, " \t")) {
			snprintf(err, errlen, "%s:%d: '%s' has options after the patch name; "
				 "hilbench applies every patch with -p1, list only the file name",
				 file, lineno, t);
			goto out;
		}
		if (strstr(t, "..") || t[0] == '/') {
			snprintf(err, errlen, "%s:%d: '%s' points outside the series file's directory; "
				 "put the patch file next to the series file", file, lineno, t);
			goto out;
		}
		char *patch = path_join(dir, t);
		if (!path_exists(patch)) {
			snprintf(err, errlen, "%s:%d: patch file '%s' does not exist; "
				 "add it to %s or remove the line", file, lineno, t, dir);
			free(patch);
			goto out;
		}
		strlist_push(patches, patch);
		free(patch);
	}
	rc = 0;
out:
	fclose(f);
	free(dir);
	return rc;
}

int strategy_load(const char *series, const char *name, struct strategy *s,
		  char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	s->name = xstrdup(name);
	s->series = xstrdup(series);
	s->dir = series_dir(series, name);
	char *file = path_join(s->dir, "series");
	int rc = -1, is_base = !strcmp(name, "base");
	if (!path_exists(file)) {
		struct strlist known = { 0 };
		strategy_list(series, &known);
		char *list = known.n ? argv_join(&known, ", ") : xstrdup("(none)");
		snprintf(err, errlen, "%s: no such strategy '%s' for kernel series %s; "
			 "known strategies: %s", file, name, series, list);
		free(list);
		strlist_free(&known);
	} else if (series_file_load(file, &s->patches, &s->description, &s->upstream,
				    &s->settings, is_base ? NULL : &s->driver, err, errlen) < 0) {
		/* err says why */
	} else if (!is_base && !s->driver) {
		snprintf(err, errlen, "%s: names no driver under test; add a line 'driver: <name>' "
			 "naming the drivers/<name>.yaml its patches change", file);
	} else {
		if (!s->description)
			s->description = xstrdup("(no description: add a '# ...' first line to the series file)");
		rc = 0;
	}
	free(file);
	if (rc < 0)
		strategy_free(s);
	return rc;
}

void strategy_free(struct strategy *s)
{
	free(s->name);
	free(s->series);
	free(s->dir);
	free(s->description);
	free(s->driver);
	strlist_free(&s->patches);
	strlist_free(&s->upstream);
	strlist_free(&s->settings);
	memset(s, 0, sizeof(*s));
}

int strategy_list(const char *series, struct strlist *names)
{
	const struct strlist *dirs = hb_data_dirs();
	int found = 0;
	for (size_t d = 0; d < dirs->n; d++) {
		struct strlist here = { 0 };
		if (strategy_dir_list(dirs->v[d], series, &here) == 0)
			found = 1;
		for (size_t i = 0; i < here.n; i++) {
			size_t j = 0;
			while (j < names->n && strcmp(names->v[j], here.v[i]))
				j++;
			if (j == names->n)
				strlist_push(names, here.v[i]);
		}
		strlist_free(&here);
	}
	strlist_sort(names);
	return found ? 0 : -1;
}

int strategy_dir_list(const char *data_dir, const char *series, struct strlist *names)
{
	char *dir = xasprintf("%s/driver-patches/%s", data_dir, series);
	struct strlist all = { 0 };
	int rc = list_dir(dir, &all);
	for (size_t i = 0; i < all.n; i++) {
		char *sf = xasprintf("%s/%s/series", dir, all.v[i]);
		if (strcmp(all.v[i], "base") && path_exists(sf))
			strlist_push(names, all.v[i]);
		free(sf);
	}
	strlist_free(&all);
	free(dir);
	return rc;
}
