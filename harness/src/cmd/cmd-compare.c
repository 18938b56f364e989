#include <stdio.h>
#include <stdlib.h>

#include "analyze/report.h"
#include "cmd/builtin.h"
#include "cmd/options.h"
#include "util/util.h"

static const char usage[] =
	"usage: hilbench compare [PLAN] [--strategies a,b] [--workloads a,b] [--repeat N]\n"
	"                        [--timing realtime|virtual] [--patch FILE]...\n"
	"                        [--attempts N] [--resume SESSION|latest] [--kernel-src PATH]\n"
	"The main job: runs PLAN (default: plans/default.yaml), prints the strategy\n"
	"table for the runs it made and writes it as HTML to <store>/report.html.\n"
	"Runs are stored like `hilbench run`'s.\n";

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
	struct selection sel = { .session = session };
	char *html = path_join(hb_store_dir(), "report.html");
	if (report_write(s, &sel, NULL, REPORT_TEXT, stdout) < 0 ||
	    report_write_file(s, &sel, NULL, REPORT_HTML, html) < 0)
		rc = HB_EXIT_INFRA;
	else
		printf("\nreport: %s\n", html);
	free(html);
	store_close(s);
	return rc;
}
