#include "config/emulator.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config/yamldoc.h"

#define E(f) offsetof(struct emulator, f)

static const struct yfield emulator_fields[] = {
	{ .key = "name", .type = YF_STRING, .required = 1, .off = E(name), .is_name = 1 },
	{ .key = "description", .type = YF_STRING, .required = 1, .off = E(description) },
	{ .key = "package", .type = YF_STRING, .required = 1, .off = E(package), .is_name = 1 },
	{ .key = "version", .type = YF_STRING, .required = 1, .off = E(version) },
	{ .key = "patches", .type = YF_STRING, .required = 1, .off = E(patches) },
	{ .key = "target", .type = YF_STRING, .required = 1, .off = E(target), .is_name = 1 },
	{ .key = "binary", .type = YF_STRING, .required = 1, .off = E(binary), .is_name = 1 },
	{ .key = "devices", .type = YF_STRLIST, .required = 1, .off = E(devices), .min = 1 },
	{ .key = "configure", .type = YF_STRLIST, .off = E(configure) },
	{ 0 }
};

/* Debian versions: [epoch:]upstream[-revision], from policy 5.6.12. */
static int is_debian_version(const char *v)
{
	return *v && strspn(v, "0123456789abcdefghijklmnopqrstuvwxyz"
			       "ABCDEFGHIJKLMNOPQRSTUVWXYZ.+-~:") == strlen(v);
}

static int check(const struct ydoc *d, struct emulator *e, char *err, size_t errlen)
{
	if (ydoc_check_basename(d, e->name, err, errlen))
		return -1;
	if (!is_debian_version(e->version))
		return ydoc_err(d, ynode_get(d->root, "version"), err, errlen,
				"'%s' is not a Debian version; write it as "
				"`apt-cache showsrc %s` prints it", e->version, e->package);
	/* Kconfig symbols: they become lines of the device config file. */
	for (size_t i = 0; i < e->devices.n; i++)
		if (strspn(e->devices.v[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
		    strlen(e->devices.v[i]))
			return ydoc_err(d, ynode_get(d->root, "devices"), err, errlen,
					"device '%s' is not a Kconfig symbol; give QEMU's "
					"CONFIG_ names without CONFIG_ (e.g. ALLWINNER_H3)",
					e->devices.v[i]);
	for (size_t i = 0; i < e->configure.n; i++)
		if (strncmp(e->configure.v[i], "--", 2))
			return ydoc_err(d, ynode_get(d->root, "configure"), err, errlen,
					"configure option '%s' does not start with --; "
					"give configure's options one per item",
					e->configure.v[i]);
	char *dir = path_dirname(d->path);
	char *rel = path_join(dir, e->patches);
	free(dir);
	char *abs = realpath(rel, NULL);
	char *series = abs ? path_join(abs, "series") : NULL;
	struct stat st;
	int ok = series && stat(series, &st) == 0 && S_ISREG(st.st_mode);
	free(series);
	if (!ok) {
		ydoc_err(d, ynode_get(d->root, "patches"), err, errlen,
			 "'%s' is no directory with a series file (looked for %s/series); "
			 "paths are relative to the emulator file's directory",
			 e->patches, rel);
		free(rel);
		free(abs);
		return -1;
	}
	free(rel);
	free(e->patches);
	e->patches = abs;
	return 0;
}

int emulator_load(const char *path, struct emulator *e, char *err, size_t errlen)
{
	struct ydoc *d = ydoc_load(path, err, errlen);

	memset(e, 0, sizeof *e);
	if (!d)
		return -1;
	int rc = ydoc_apply(d, emulator_fields, e, err, errlen);
	if (!rc)
		rc = check(d, e, err, errlen);
	ydoc_free(d);
	if (rc) {
		emulator_free(e);
		return -1;
	}
	e->path = xstrdup(path);
	return 0;
}

void emulator_free(struct emulator *e)
{
	char **s[] = { &e->path, &e->name, &e->description, &e->package, &e->version,
		       &e->patches, &e->target, &e->binary };
	for (size_t i = 0; i < HB_ARRAY_SIZE(s); i++) {
		free(*s[i]);
		*s[i] = NULL;
	}
	strlist_free(&e->devices);
	strlist_free(&e->configure);
}
