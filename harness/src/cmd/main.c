#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	fputs("usage: hilbench [--data-dir DIR]... <command> [options]\n\ncommands:\n", to);
	for (size_t i = 0; i < HB_ARRAY_SIZE(commands); i++)
		fprintf(to, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fputs("  help      the manual page of a command (hilbench help gate), or of the\n"
	      "            file formats (hilbench help files)\n"
	      "\n  --data-dir DIR  a lab's own boards/, plans/, workloads/, ... searched\n"
	      "                  before $HILBENCH_DATA's and the installed ones\n"
	      "  --version       what built this hilbench\n"
	      "\n`hilbench <command> --help` for a command's options.\n"
	      "Exit codes: 0 ok, 1 check failed/regression, 2 bad input, 125 infrastructure.\n",
	      to);
}

/* `hilbench help CMD`: man hilbench-CMD(1), as `git help` does; `help
 * files`: hilbench-files(5). In a clone, the page make man built. */
static int help(const char *topic)
{
	int known = !strcmp(topic, "files");
	for (size_t i = 0; i < HB_ARRAY_SIZE(commands) && !known; i++)
		known = !strcmp(topic, commands[i].name);
	if (!known) {
		hb_err("no manual page for '%s'; see `hilbench --help` for the commands", topic);
		return HB_EXIT_USAGE;
	}
	const char *section = strcmp(topic, "files") ? "1" : "5";
	char *page = xasprintf("hilbench-%s", topic);
	char *argv[] = { "man", page, NULL, NULL };
	if (hb_layout() == HB_LAYOUT_TREE) {
		char *built = xasprintf("%s/build/man/%s.%s", hb_home(), page, section);
		if (!path_exists(built)) {
			hb_err("%s is not built; run `make man` (scdoc), or `hilbench %s --help`",
			       built, topic);
			free(built);
			free(page);
			return HB_EXIT_USAGE;
		}
		argv[1] = "-l";
		argv[2] = built;
	}
	fflush(stdout);
	execvp("man", argv);
	hb_err("cannot run man: %s (apt-get install man-db)", strerror(errno));
	return HB_EXIT_INFRA;
}

int main(int argc, char **argv)
{
	/* before any child is started: none of them may inherit it */
	lava_token_take_env();
	int first = 1;
	while (first < argc) {
		if (!strcmp(argv[first], "--data-dir") && first + 1 < argc) {
			char err[PATH_MAX + 256];
			if (hb_data_dir_add(argv[first + 1], err, sizeof(err)) < 0) {
				hb_err("%s", err);
				return HB_EXIT_USAGE;
			}
			first += 2;
		} else if (!strncmp(argv[first], "--data-dir=", 11)) {
			char err[PATH_MAX + 256];
			if (hb_data_dir_add(argv[first] + 11, err, sizeof(err)) < 0) {
				hb_err("%s", err);
				return HB_EXIT_USAGE;
			}
			first++;
		} else {
			break;
		}
	}
	argc -= first - 1;
	argv += first - 1;
	if (argc < 2) {
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version")) {
		char *v = hb_version();
		printf("hilbench %s (%s, %s)\n", v,
		       hb_layout() == HB_LAYOUT_TREE ? "source tree" : "installed", hb_home());
		free(v);
		return HB_EXIT_OK;
	}
	if (!strcmp(argv[1], "help") && argc == 3)
		return help(argv[2]);
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
