#include <stdio.h>
#include <string.h>

#include "cmd/builtin.h"
#include "store/store.h"
#include "util/util.h"

static const char usage[] =
	"usage: hilbench show [RUN-ID]\n"
	"Without an id, lists every stored run (class, and pps/Mbit/s for pass\n"
	"runs); with one, prints the run's provenance and all its metrics.\n";

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
	int rc = argc == 2 ? (store_show_run(s, argv[1]) == 0 ? HB_EXIT_OK : HB_EXIT_USAGE)
			   : (store_list_runs(s, stdout) == 0 ? HB_EXIT_OK : HB_EXIT_INFRA);
	store_close(s);
	return rc;
}
