#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/gate.h"
#include "cmd/builtin.h"
#include "config/catalog.h"
#include "config/driver.h"
#include "config/emulator.h"
#include "config/setting.h"
#include "config/strategy.h"
#include "util/util.h"

static const char usage[] =
	"usage: hilbench check [--kind board|workload|plan|setting|emulator|driver] FILE...\n"
	"Validates config files; errors are printed as FILE:LINE:COL: problem; fix.\n"
	"The kind is taken from the directory (boards/, workloads/, plans/,\n"
	"settings/, emulators/, drivers/) unless\n"
	"given. A strategy's series file (driver-patches/<series>/<name>/series) is\n"
	"checked too. Exit 0 when all are valid, 2 otherwise.\n";

/* boards/x.yaml -> board; driver-patches/6.1/x/series -> series */
static const char *kind_of(const char *path)
{
	static const char *const dirs[][2] = {
		{ "boards/", "board" }, { "workloads/", "workload" }, { "plans/", "plan" },
		{ "settings/", "setting" }, { "emulators/", "emulator" },
		{ "drivers/", "driver" },
	};
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (!strcmp(base, "series"))
		return "series";
	for (size_t i = 0; i < HB_ARRAY_SIZE(dirs); i++) {
		const char *p = strstr(path, dirs[i][0]);
		if (p && (p == path || p[-1] == '/') && !strchr(p + strlen(dirs[i][0]), '/'))
			return dirs[i][1];
	}
	return NULL;
}

/* The emulator a board names loads (it is built on first use). */
static int check_board_emulator(const struct board *b, char *err, size_t errlen)
{
	if (!b->qemu.emulator)
		return 0;
	char *path = catalog_path("emulator", b->qemu.emulator);
	struct emulator e;
	char eerr[1024];
	int rc = emulator_load(path, &e, eerr, sizeof(eerr));
	if (rc == 0)
		emulator_free(&e);
	else
		snprintf(err, errlen, "%s: deploy.qemu.emulator '%s': %s", b->path,
			 b->qemu.emulator, eerr);
	free(path);
	return rc;
}

/* What a plan names exists: each board, each workload, and each strategy
 * (the plan's and its sweeps') for every board's kernel series; errors
 * point at the list item. A sweep's setting is checked by plan_load(). */
static int check_plan_names(const struct plan *p, char *err, size_t errlen)
{
	char where[512];
	for (size_t i = 0; i < p->workloads.n; i++) {
		char *w = catalog_path("workload", p->workloads.v[i]);
		int ok = w && path_exists(w);
		free(w);
		if (!ok) {
			snprintf(err, errlen, "%sno workload '%s'; `hilbench list workloads` names them",
				 plan_where(p, "workloads", i, where, sizeof(where)), p->workloads.v[i]);
			return -1;
		}
	}
	for (size_t bi = 0; bi < p->boards.n; bi++) {
		char *path = catalog_path("board", p->boards.v[bi]);
		struct board b;
		char berr[1024];
		int ok = path && board_load(path, &b, berr, sizeof(berr)) == 0;
		free(path);
		if (!ok) {
			snprintf(err, errlen, "%sboard '%s' does not load; `hilbench list boards` names "
				 "them, `hilbench check boards/%s.yaml` says why",
				 plan_where(p, "boards", bi, where, sizeof(where)), p->boards.v[bi],
				 p->boards.v[bi]);
			return -1;
		}
		int bad = plan_check_strategies(p, b.series.v[0], b.name, err, errlen) < 0;
		board_free(&b);
		if (bad)
			return -1;
	}
	return 0;
}

/* driver-patches/<series>/<name>/series, as strategy_load() wants it. */
static int check_series(const char *path, char *err, size_t errlen)
{
	char *copy = xstrdup(path);
	char *slash = strrchr(copy, '/');
	int rc = -1;
	if (slash) {
		*slash = '\0';
		char *name = strrchr(copy, '/');
		if (name) {
			*name++ = '\0';
			char *series = strrchr(copy, '/');
			series = series ? series + 1 : copy;
			struct strategy s;
			rc = strategy_load(series, name, &s, err, errlen);
			if (rc == 0)
				strategy_free(&s);
		}
	}
	if (!slash || rc < 0) {
		if (!slash || !*err)
			snprintf(err, errlen, "%s: a series file must be driver-patches/<series>/<strategy>/series",
				 path);
	}
	free(copy);
	return rc;
}

int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kind", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *forced = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "k:h", opts, NULL)) != -1) {
		if (c == 'k')
			forced = optarg;
		else {
			fputs(usage, c == 'h' ? stdout : stderr);
			return c == 'h' ? HB_EXIT_OK : HB_EXIT_USAGE;
		}
	}
	if (optind == argc) {
		fputs(usage, stderr);
		return HB_EXIT_USAGE;
	}
	int bad = 0;
	for (int i = optind; i < argc; i++)
		if (!path_exists(argv[i])) {
			fprintf(stderr, "%s: no such file; check the path\n", argv[i]);
			bad = 1;
		}
	for (int i = optind; i < argc && !bad; i++) {
		const char *path = argv[i];
		const char *kind = forced ? forced : kind_of(path);
		char err[2048] = "";
		int rc = -1;
		if (!kind) {
			snprintf(err, sizeof(err), "%s: cannot tell what kind of file this is; "
				 "use --kind board|workload|plan|setting|emulator|driver", path);
		} else if (!strcmp(kind, "board")) {
			struct board b;
			if ((rc = board_load(path, &b, err, sizeof(err))) == 0) {
				rc = check_board_emulator(&b, err, sizeof(err));
				board_free(&b);
			}
		} else if (!strcmp(kind, "emulator")) {
			struct emulator e;
			if ((rc = emulator_load(path, &e, err, sizeof(err))) == 0)
				emulator_free(&e);
		} else if (!strcmp(kind, "driver")) {
			struct driver dr;
			if ((rc = driver_load(path, &dr, err, sizeof(err))) == 0)
				driver_free(&dr);
		} else if (!strcmp(kind, "workload")) {
			struct workload w;
			if ((rc = workload_load(path, &w, err, sizeof(err))) == 0)
				workload_free(&w);
		} else if (!strcmp(kind, "plan")) {
			struct plan p;
			if ((rc = plan_load(path, &p, err, sizeof(err))) == 0) {
				rc = check_plan_names(&p, err, sizeof(err));
				if (!rc && p.gate.present)
					rc = gate_check_metrics(&p.gate, err, sizeof(err));
				plan_free(&p);
			}
		} else if (!strcmp(kind, "setting")) {
			struct setting_def sd;
			if ((rc = setting_load(path, &sd, err, sizeof(err))) == 0)
				setting_free(&sd);
		} else if (!strcmp(kind, "series")) {
			rc = check_series(path, err, sizeof(err));
		} else {
			snprintf(err, sizeof(err), "--kind %s: choose board, workload, plan, setting, emulator or driver", kind);
		}
		if (rc == 0)
			printf("%s: ok (%s)\n", path, kind);
		else {
			fprintf(stderr, "%s\n", err);
			bad = 1;
		}
	}
	return bad ? HB_EXIT_USAGE : HB_EXIT_OK;
}
