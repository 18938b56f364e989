#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build/emulator.h"
#include "cmd/builtin.h"
#include "config/catalog.h"
#include "config/emulator.h"
#include "util/util.h"

static const char usage[] =
	"usage: hilbench emulator [NAME...]\n"
	"Builds the emulators hilbench makes from Debian's source (emulators/NAME.yaml;\n"
	"default: every one in the data directories), once per cache, and prints each\n"
	"one's binary and provenance: the source version, the hash of its .dsc and of\n"
	"every patch.\n"
	"`make deps` runs it; `hilbench run` builds what a board needs on first use.\n";

static int build_one(const char *name)
{
	char *path = catalog_path("emulator", name);
	struct emulator e;
	struct emulator_result res;
	char err[1024];
	int rc = HB_EXIT_USAGE;
	if (emulator_load(path, &e, err, sizeof(err)) < 0) {
		hb_err("%s", err);
	} else {
		rc = HB_EXIT_INFRA;
		if (emulator_build(&e, &res) == 0) {
			printf("%s %s (%s)\n  %s\n", e.name, res.binary,
			       res.cached ? "cached" : "built", res.provenance);
			emulator_result_free(&res);
			rc = HB_EXIT_OK;
		}
		emulator_free(&e);
	}
	free(path);
	return rc;
}

int cmd_emulator(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (argv[i][0] == '-') {
			int help = !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
			fputs(usage, help ? stdout : stderr);
			return help ? HB_EXIT_OK : HB_EXIT_USAGE;
		}
	struct strlist names = { 0 };
	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			strlist_push(&names, argv[i]);
	} else if (catalog_names("emulator", &names) < 0) {
		char *dirs = argv_join(hb_data_dirs(), ", ");
		hb_err("no emulators/ in %s", dirs);
		free(dirs);
		return HB_EXIT_INFRA;
	}
	int rc = HB_EXIT_OK;
	for (size_t i = 0; i < names.n && rc == HB_EXIT_OK; i++)
		rc = build_one(names.v[i]);
	strlist_free(&names);
	return rc;
}
