#include <stdio.h>
#include <stdlib.h>

#include "analyze/report.h"
#include "cmd/builtin.h"
#include "cmd/options.h"
#include "util/util.h"

static const char usage[] =
	"usage: hilbench compare [PLAN] [--strategies a,b] [--workloads a,b] [--repeat N]\n"
	"                        [--fixed] [--fresh-reference] [--jobs N] [--max-jobs N]\n"
	"                        [--timing realtime|virtual]\n"
	"                        [--patch FILE]...\n"
	"                        [--attempts N] [--resume SESSION|latest] [--kernel-src PATH]\n"
	"The main job: runs PLAN (default: plans/default.yaml), prints the strategy\n"
	"table for the runs it made and writes it as HTML to <store>/report.html.\n"
	"With `repeat: until-decided` (the default plan's) every strategy gets runs\n"
	"one at a time until each metric of the plan's gate section is decided\n"
	"against the reference, or the cap; the report (text and HTML) says per\n"
	"strategy, workload and metric how many runs it took and why it stopped.\n"
	"In virtual time the reference's stored runs of earlier sessions count where\n"
	"they are of the same kernel, userland, emulator, board and workload, each\n"
	"its boot's only run of its workload; --fresh-reference measures it anew.\n"
	"Up to --jobs candidates are judged at once (default: one per free core), each\n"
	"on its UDP workloads and its TCP ones, each kind in boots of its own; a TCP run\n"
	"or one of UDP the host sends has the host alone while the other boards wait,\n"
	"held (docs/measurements.md, \"A slower machine\").\n"
	"--repeat N or --fixed: the same number of runs for every strategy instead.\n"
	"A LAVA board's runs go to its server as jobs, --max-jobs N at once (default:\n"
	"its idle devices with a traffic peer each, else 1; docs/lava.md, \"Fan-out\").\n"
	"Runs are stored like `hilbench run`'s.\n";

int cmd_compare(int argc, char **argv)
{
	struct run_options ro;
	int rc = run_options_parse(argc, argv, usage, "default", &ro);
	if (rc)
		return hb_exit_of(rc);
	char session[40] = "";
	struct planner pl = { 0 };
	int planned = ro.plan.repeat == REPEAT_UNTIL_DECIDED;
	rc = hb_exit_of(run_options_execute(&ro, session, &pl));
	struct store *s = session[0] ? store_open(hb_store_dir()) : NULL;
	if (!s) {
		/* the plan (pl's decisions point into it) goes last */
		planner_free(&pl);
		run_options_free(&ro);
		return session[0] ? HB_EXIT_INFRA : rc;
	}
	printf("hilbench compare: session %s (store %s)\n", session, hb_store_dir());
	struct selection sel = { .session = session };
	char *html = path_join(hb_store_dir(), "report.html");
	if (report_write(s, &sel, NULL, REPORT_TEXT, stdout) < 0 ||
	    report_write_file(s, &sel, NULL, REPORT_HTML, html) < 0)
		rc = HB_EXIT_INFRA;
	else
		printf("\nreport: %s\n", html);
	if (planned)
		planner_print(&pl, stdout);
	planner_free(&pl);
	run_options_free(&ro);
	free(html);
	store_close(s);
	return rc;
}
