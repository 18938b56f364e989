#include <stdio.h>
#include <string.h>

#include "cmd/builtin.h"
#include "store/store.h"
#include "util/util.h"

static const char usage[] =
	"usage: hilbench show [RUN-ID]\n"
	"Without an id, lists every stored run (class, and pps/Mbit/s for pass\n"
	"runs); with one, prints the run's provenance and all its metrics.\n";

static int list_row(const struct run_row *r, void *ctx)
{
	const char **last = ctx;
	if (r->metric && strcmp(r->metric, "pps") && strcmp(r->metric, "mbps"))
		return 0;
	if (!*last || strcmp(*last, r->id)) {
		printf("\n%-24s %-18s %-14s %-14s %2d %-5s %-8s", r->id, r->board, r->strategy,
		       r->workload, r->repetition, r->cls, r->timing);
		if (r->reason)
			printf(" %s", r->reason);
	}
	if (r->metric)
		printf(" %s=%.1f", r->metric, r->value);
	*last = r->id;
	return 0;
}

int cmd_show(int argc, char **argv)
{
	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		int help = argc == 2 && !strcmp(argv[1], "--help");
		fputs(usage, help ? stdout : stderr);
		return help ? HB_EXIT_OK : HB_EXIT_USAGE;
	}
	struct store *s = store_open(hb_store_dir());
	if (!s)
		return HB_EXIT_INFRA;
	int rc;
	if (argc == 2) {
		rc = store_show_run(s, argv[1]) == 0 ? HB_EXIT_OK : HB_EXIT_USAGE;
	} else {
		const char *last = NULL;
		printf("%-24s %-18s %-14s %-14s %2s %-5s %-8s", "run", "board", "strategy",
		       "workload", "#", "class", "timing");
		struct selection all = { .all_classes = 1 };
		rc = store_foreach(s, &all, list_row, &last) == 0 ? HB_EXIT_OK : HB_EXIT_INFRA;
		printf("\n");
	}
	store_close(s);
	return rc;
}
