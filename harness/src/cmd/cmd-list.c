#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "config/catalog.h"
#include "config/strategy.h"
#include "store/metrics.h"
#include "util/util.h"

static const char usage[] =
	"usage: hilbench list boards|strategies|workloads|plans [--series S]\n"
	"       hilbench list metrics [--md]\n"
	"Each data directory's entries follow a '# DIR' line: the lab's own\n"
	"(--data-dir, $HILBENCH_DATA) first, then the default one; a name an\n"
	"earlier directory has too is marked not used.\n"
	"  --series S   kernel series for strategies (default 6.1)\n"
	"  --md         the metric table as docs/metrics.md has it\n";

/* The metric table (store/metrics.h): a family's name has a <placeholder>. */
static void list_metrics(void)
{
	printf("%-32s %-10s %-6s %-8s %-11s %s\n", "metric", "unit", "better", "shown", "needs",
	       "what");
	for (size_t i = 0; i < n_metric_defs; i++) {
		const struct metric_def *m = &metric_defs[i];
		printf("%-32s %-10s %-6s %-8s %-11s %s\n", m->name, m->unit,
		       metric_better_name(m->better), metric_shown_name(m->shown),
		       metric_needs_name(m->needs), m->what);
	}
}

static void describe(const char *kind, const char *path)
{
	char err[2048];
	const char *desc = "";
	struct board b;
	struct workload w;
	struct plan p;
	int ok = -1;
	if (!strcmp(kind, "board") && (ok = board_load(path, &b, err, sizeof(err))) == 0)
		desc = b.description;
	else if (!strcmp(kind, "workload") && (ok = workload_load(path, &w, err, sizeof(err))) == 0)
		desc = w.description;
	else if (!strcmp(kind, "plan") && (ok = plan_load(path, &p, err, sizeof(err))) == 0)
		desc = p.description;
	fputs(ok == 0 ? desc : "(invalid: run `hilbench check`)", stdout);
	if (ok == 0 && !strcmp(kind, "board"))
		board_free(&b);
	else if (ok == 0 && !strcmp(kind, "workload"))
		workload_free(&w);
	else if (ok == 0)
		plan_free(&p);
}

/* The data directory a name comes from, among dirs[0..upto): its index, or
 * -1. The first directory that has it is the one hilbench loads. */
static int first_with(const struct strlist *dirs, size_t upto, const char *kind, const char *name)
{
	for (size_t d = 0; d < upto; d++) {
		char *path = xasprintf("%s/%ss/%s.yaml", dirs->v[d], kind, name);
		int here = path_exists(path);
		free(path);
		if (here)
			return (int)d;
	}
	return -1;
}

/* Each data directory's files under a heading that names it, lab
 * directories first; a name an earlier directory also has is not used. */
static void list_kind(const char *kind)
{
	const struct strlist *dirs = hb_data_dirs();
	for (size_t d = 0; d < dirs->n; d++) {
		struct strlist names = { 0 };
		if (catalog_dir_names(kind, dirs->v[d], &names) < 0 || !names.n) {
			strlist_free(&names);
			continue;
		}
		printf("# %s/%ss\n", dirs->v[d], kind);
		for (size_t i = 0; i < names.n; i++) {
			printf("%-20s ", names.v[i]);
			int before = first_with(dirs, d, kind, names.v[i]);
			if (before >= 0) {
				printf("(not used: %s/%ss has it)", dirs->v[before], kind);
			} else {
				char *path = xasprintf("%s/%ss/%s.yaml", dirs->v[d], kind, names.v[i]);
				describe(kind, path);
				free(path);
			}
			putchar('\n');
		}
		strlist_free(&names);
	}
}

static void list_strategies(const char *series)
{
	const struct strlist *dirs = hb_data_dirs();
	for (size_t d = 0; d < dirs->n; d++) {
		struct strlist names = { 0 };
		if (strategy_dir_list(dirs->v[d], series, &names) < 0 || !names.n) {
			strlist_free(&names);
			continue;
		}
		printf("# %s/driver-patches/%s\n", dirs->v[d], series);
		for (size_t i = 0; i < names.n; i++) {
			struct strategy s;
			char err[2048];
			int ok = strategy_load(series, names.v[i], &s, err, sizeof(err)) == 0;
			char *here = xasprintf("%s/driver-patches/%s/%s", dirs->v[d], series, names.v[i]);
			if (ok && strcmp(s.dir, here))
				printf("%-16s (not used: %s has it)\n", names.v[i], s.dir);
			else
				printf("%-16s %s\n", names.v[i], ok ? s.description : err);
			free(here);
			if (ok)
				strategy_free(&s);
		}
		strlist_free(&names);
	}
}

int cmd_list(int argc, char **argv)
{
	const char *series = "6.1";
	if (argc == 3 && !strcmp(argv[1], "metrics") && !strcmp(argv[2], "--md")) {
		metrics_write_markdown(stdout);
		return HB_EXIT_OK;
	}
	if (argc == 2 && !strcmp(argv[1], "--help")) {
		fputs(usage, stdout);
		return HB_EXIT_OK;
	}
	if (argc >= 4 && !strcmp(argv[2], "--series"))
		series = argv[3];
	else if (argc != 2) {
		fputs(usage, argc >= 2 && !strcmp(argv[1], "--help") ? stdout : stderr);
		return argc >= 2 && !strcmp(argv[1], "--help") ? HB_EXIT_OK : HB_EXIT_USAGE;
	}
	const char *what = argv[1];
	if (!strcmp(what, "metrics")) {
		list_metrics();
		return HB_EXIT_OK;
	}
	if (!strcmp(what, "strategies")) {
		struct strlist names = { 0 };
		int rc = strategy_list(series, &names);
		strlist_free(&names);
		if (rc < 0) {
			char *dirs = argv_join(hb_data_dirs(), ", ");
			hb_err("no strategies for kernel series %s: no driver-patches/%s/ in %s",
			       series, series, dirs);
			free(dirs);
			return HB_EXIT_USAGE;
		}
		list_strategies(series);
		return HB_EXIT_OK;
	}
	static const char *const kinds[][2] = {
		{ "boards", "board" }, { "workloads", "workload" }, { "plans", "plan" },
	};
	for (size_t i = 0; i < HB_ARRAY_SIZE(kinds); i++)
		if (!strcmp(what, kinds[i][0])) {
			list_kind(kinds[i][1]);
			return HB_EXIT_OK;
		}
	hb_err("cannot list '%s'; choose boards, strategies, workloads, plans or metrics", what);
	return HB_EXIT_USAGE;
}
