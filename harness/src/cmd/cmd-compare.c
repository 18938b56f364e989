#include <stdio.h>

#include "analyze/table.h"
#include "cmd/builtin.h"
#include "cmd/options.h"
#include "util/util.h"

static const char usage[] =
	"usage: hilbench compare [PLAN] [--strategies a,b] [--workloads a,b] [--repeat N]\n"
	"                        [--timing realtime|virtual] [--patch FILE]...\n"
	"The main job: runs PLAN (default: plans/default.yaml) and prints the\n"
	"strategy table for the runs it made. Runs are stored like `hilbench run`'s.\n";

int cmd_compare(int argc, char **argv)
{
	struct run_options ro;
	int rc = run_options_parse(argc, argv, usage, "default", &ro);
	if (rc != -1)
		return rc;
	char session[40] = "";
	rc = run_options_execute(&ro, session);
	run_options_free(&ro);
	if (!session[0])
		return rc;
	struct store *s = store_open(hb_store_dir());
	if (!s)
		return HB_EXIT_INFRA;
	printf("hilbench compare: session %s (store %s)\n", session, hb_store_dir());
	table_print(s, session, stdout);
	store_close(s);
	return rc;
}
