#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "cmd/options.h"
#include "run/executor.h"
#include "util/util.h"

static const char usage[] =
	"usage: hilbench run PLAN [options]\n"
	"       hilbench run --board B --strategy S --workload W [options]\n"
	"options:\n"
	"  --repeat N          repetitions, a fixed number (default: the plan's, or 1)\n"
	"  --fixed             the plan's repetitions also when it says `repeat:\n"
	"                      until-decided` (runs added until each metric is decided)\n"
	"  --jobs N            until-decided: boards at once, a TCP run or one of UDP the\n"
	"                      host sends alone\n"
	"                      (default: one per free core; real time: always 1)\n"
	"  --max-jobs N        LAVA boards: runs at once, each its own job (default: the\n"
	"                      idle devices with a peer each in lava.peers, else 1)\n"
	"  --timing MODE       realtime or virtual (QEMU -icount; deterministic)\n"
	"  --patch FILE        add a patch (or an mbox of patches) on top of every\n"
	"                      strategy (repeatable)\n"
	"  --series FILE       add the patches a quilt series file lists\n"
	"  --kernel-src PATH   build from your kernel tree (git checkout) or release\n"
	"                      tarball instead of Debian's linux-source; its series\n"
	"                      picks driver-patches/<series>/ (docs/boards.md)\n"
	"  --strategies a,b    --workloads a,b   override the plan's lists\n"
	"  --attempts N        tries per run after infrastructure errors (boot timeout,\n"
	"                      emulator gone, host iperf failed); default 3, 1 = no retry\n"
	"  --resume SESSION    continue an interrupted session (or `latest`) with the\n"
	"                      same plan: runs it has as pass are skipped, the rest run\n"
	"Every run is stored with its provenance in $HILBENCH_STORE (default\n"
	"results/); `hilbench show` lists them. Exit 0 if all runs passed, 125 if\n"
	"some could not be measured (each is stored with its reason), 2 bad input.\n"
	"Faults, retries and --resume: docs/faults.md.\n";

int cmd_run(int argc, char **argv)
{
	struct run_options ro;
	int rc = run_options_parse(argc, argv, usage, "adhoc", &ro);
	if (rc)
		return hb_exit_of(rc);
	rc = hb_exit_of(run_options_execute(&ro, NULL, NULL));
	run_options_free(&ro);
	return rc;
}
