#include <stdio.h>
#include <string.h>

#include "cmd/builtin.h"
#include "deploy/lava_client.h"
#include "util/util.h"

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *summary;
} commands[] = {
	{ "list", cmd_list, "list boards, strategies, workloads, plans or metrics" },
	{ "check", cmd_check, "validate board, workload and plan files" },
	{ "build", cmd_build, "build a patched kernel (cached) and the DUT initramfs" },
	{ "boot", cmd_boot, "boot a board and wait until its agent is ready" },
	{ "run", cmd_run, "run a plan, or one board/strategy/workload cell" },
	{ "compare", cmd_compare, "run the default plan and print the strategy table" },
	{ "show", cmd_show, "show stored runs with their provenance" },
	{ "report", cmd_report, "summarize stored runs in a report format (see its --help)" },
	{ "gate", cmd_gate, "does a patch make things worse? exit 0 / 1 / 125 for CI" },
	{ "history", cmd_history, "series over time, change points and the run that moved" },
	{ "nightly", cmd_nightly, "cron: run a plan once per kernel revision, then detect" },
	{ "bisect", cmd_bisect, "find the kernel commit that made a metric worse" },
	{ "lava", cmd_lava, "print the LAVA job for one board/strategy/workload cell" },
	{ "emulator", cmd_emulator, "build the emulators hilbench makes from Debian source" },
};

static void usage(FILE *to)
{
	fputs("usage: hilbench <command> [options]\n\ncommands:\n", to);
	for (size_t i = 0; i < HB_ARRAY_SIZE(commands); i++)
		fprintf(to, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fputs("\n`hilbench <command> --help` for a command's options.\n"
	      "Exit codes: 0 ok, 1 check failed/regression, 2 bad input, 125 infrastructure.\n",
	      to);
}

int main(int argc, char **argv)
{
	/* before any child is started: none of them may inherit it */
	lava_token_take_env();
	if (argc < 2) {
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return HB_EXIT_OK;
	}
	for (size_t i = 0; i < HB_ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	hb_err("'%s' is not a hilbench command; see `hilbench --help`", argv[1]);
	return HB_EXIT_USAGE;
}
