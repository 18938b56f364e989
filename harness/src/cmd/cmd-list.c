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
	"  --series S   kernel series for strategies (default 6.1)\n"
	"  --md         the metric table as docs/metrics.md has it\n";

/* The metric table (store/metrics.h): a family's name has a <placeholder>. */
static void list_metrics(void)
{
	printf("%-32s %-10s %-6s %-8s %s\n", "metric", "unit", "better", "shown", "what");
	for (size_t i = 0; i < n_metric_defs; i++) {
		const struct metric_def *m = &metric_defs[i];
		printf("%-32s %-10s %-6s %-8s %s\n", m->name, m->unit, metric_better_name(m->better),
		       metric_shown_name(m->shown), m->what);
	}
}

static void list_kind(const char *kind)
{
	struct strlist names = { 0 };
	catalog_names(kind, &names);
	for (size_t i = 0; i < names.n; i++) {
		char err[2048];
		char *path = catalog_path(kind, names.v[i]);
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
		printf("%-20s %s\n", names.v[i], ok == 0 ? desc : "(invalid: run `hilbench check`)");
		if (ok == 0 && !strcmp(kind, "board"))
			board_free(&b);
		else if (ok == 0 && !strcmp(kind, "workload"))
			workload_free(&w);
		else if (ok == 0)
			plan_free(&p);
		free(path);
	}
	strlist_free(&names);
}

int cmd_list(int argc, char **argv)
{
	const char *series = "6.1";
	if (argc == 3 && !strcmp(argv[1], "metrics") && !strcmp(argv[2], "--md")) {
		metrics_write_markdown(stdout);
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
		if (strategy_list(series, &names) < 0) {
			hb_err("no strategies for kernel series %s under %s/driver-patches", series,
			       hb_home());
			return HB_EXIT_USAGE;
		}
		for (size_t i = 0; i < names.n; i++) {
			struct strategy s;
			char err[2048];
			int ok = strategy_load(series, names.v[i], &s, err, sizeof(err)) == 0;
			printf("%-16s %s\n", names.v[i], ok ? s.description : err);
			if (ok)
				strategy_free(&s);
		}
		strlist_free(&names);
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
