#include "config/catalog.h"

#include <stdlib.h>
#include <string.h>

char *catalog_path(const char *kind, const char *name)
{
	size_t n = strlen(name);
	if (strchr(name, '/') || (n > 5 && !strcmp(name + n - 5, ".yaml")))
		return xstrdup(name);
	return xasprintf("%s/%ss/%s.yaml", hb_home(), kind, name);
}

int catalog_names(const char *kind, struct strlist *names)
{
	char *dir = xasprintf("%s/%ss", hb_home(), kind);
	struct strlist all = { 0 };
	int rc = list_dir(dir, &all);
	for (size_t i = 0; i < all.n; i++) {
		size_t n = strlen(all.v[i]);
		if (n > 5 && !strcmp(all.v[i] + n - 5, ".yaml"))
			strlist_pushf(names, "%.*s", (int)(n - 5), all.v[i]);
	}
	strlist_free(&all);
	free(dir);
	return rc;
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
