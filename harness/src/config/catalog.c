#include "config/catalog.h"

#include <stdlib.h>
#include <string.h>

char *catalog_path(const char *kind, const char *name)
{
	size_t n = strlen(name);
	if (strchr(name, '/') || (n > 5 && !strcmp(name + n - 5, ".yaml")))
		return xstrdup(name);
	char *rel = xasprintf("%ss/%s.yaml", kind, name);
	char *found = hb_data_find(rel);
	/* none: the default directory's, so the loader's error names a path */
	char *path = found ? found : path_join(hb_home(), rel);
	free(rel);
	return path;
}

int catalog_dir_names(const char *kind, const char *dir, struct strlist *names)
{
	char *sub = xasprintf("%s/%ss", dir, kind);
	struct strlist all = { 0 };
	int rc = list_dir(sub, &all);
	for (size_t i = 0; i < all.n; i++) {
		size_t n = strlen(all.v[i]);
		if (n > 5 && !strcmp(all.v[i] + n - 5, ".yaml"))
			strlist_pushf(names, "%.*s", (int)(n - 5), all.v[i]);
	}
	strlist_free(&all);
	free(sub);
	return rc;
}

int catalog_names(const char *kind, struct strlist *names)
{
	const struct strlist *dirs = hb_data_dirs();
	int found = 0;
	for (size_t d = 0; d < dirs->n; d++) {
		struct strlist here = { 0 };
		if (catalog_dir_names(kind, dirs->v[d], &here) == 0)
			found = 1;
		for (size_t i = 0; i < here.n; i++)
			if (!strlist_has(names, here.v[i]))
				strlist_push(names, here.v[i]);
		strlist_free(&here);
	}
	strlist_sort(names);
	return found ? 0 : -1;
}

#define CATALOG_LOADER(fn, kind, type, loader)                       \
	int fn(const char *name, struct type *x)                      \
	{                                                             \
		char err[2048];                                       \
		char *path = catalog_path(kind, name);                \
		int rc = loader(path, x, err, sizeof(err));           \
		if (rc < 0)                                           \
			hb_err("%s", err);                            \
		free(path);                                           \
		return rc;                                            \
	}

CATALOG_LOADER(catalog_board, "board", board, board_load)
CATALOG_LOADER(catalog_workload, "workload", workload, workload_load)
CATALOG_LOADER(catalog_plan, "plan", plan, plan_load)
CATALOG_LOADER(catalog_driver, "driver", driver, driver_load)
