#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report.h"
#include "cmd/builtin.h"
#include "cmd/options.h"
#include "util/util.h"

static const char options_usage[] =
	"                       [--out FILE]\n"
	"                       [--reference STRATEGY] [selection]\n"
	"selection (all given must match; default: the newest session):\n"
	"  --session ID  --plan P  --board B  --strategy S  --workload W\n"
	"  --since DATE  (ISO 8601: 2026-11-30 or 2026-11-30T06:00:00Z)\n"
	"  --run ID (repeatable)   --all\n"
	"Summaries compare every strategy with a reference: --reference S, else\n"
	"baseline when the selection has it, else the first strategy run; the\n"
	"report says which, and never substitutes another where it has no runs.\n"
	"Runs of different boards or kernel builds are never pooled (docs/report.md).\n"
	"--out writes the file atomically; without it the report goes to stdout.\n";

/* The formats' names and help come from analyze/report_formats.h. */
static void usage(FILE *to)
{
	char *names = report_format_names("|", "|");
	fprintf(to, "usage: hilbench report [--format %s]\n", names);
	free(names);
	fputs(options_usage, to);
	fputs("formats:\n", to);
	for (size_t i = 0; i < REPORT_FORMATS; i++)
		fprintf(to, "  %-7s %s\n", report_formats[i].name, report_formats[i].help);
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "out", required_argument, NULL, 'o' },
		SELECTION_OPTIONS,
		{ "all", no_argument, NULL, 'a' },
		{ "run", required_argument, NULL, 'R' },
		{ "reference", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	enum report_format f = REPORT_TEXT;
	struct selection sel = { 0 };
	const char *out = NULL, *reference = NULL;
	struct strlist runs = { 0 };
	int all = 0, c, rc = HB_EXIT_USAGE;
	while ((c = getopt_long(argc, argv, "f:o:S:P:b:s:w:d:aR:r:h", opts, NULL)) != -1) {
		int taken = selection_option(c, optarg, &sel);
		if (taken < 0)
			goto out;
		if (taken)
			continue;
		switch (c) {
		case 'f':
			if (report_format_parse(optarg, &f) < 0) {
				char *names = report_format_names(", ", " or ");
				hb_err("--format %s: choose %s", optarg, names);
				free(names);
				return HB_EXIT_USAGE;
			}
			break;
		case 'o': out = optarg; break;
		case 'a': all = 1; break;
		case 'R': strlist_push(&runs, optarg); break;
		case 'r': reference = optarg; break;
		default:
			usage(c == 'h' ? stdout : stderr);
			rc = c == 'h' ? HB_EXIT_OK : HB_EXIT_USAGE;
			goto out;
		}
	}
	if (optind < argc) {
		hb_err("unexpected argument '%s'; see `hilbench report --help`", argv[optind]);
		goto out;
	}
	struct store *s = store_open(hb_store_dir());
	rc = HB_EXIT_INFRA;
	if (!s)
		goto out;
	if (runs.n)
		sel.runs = &runs;
	char latest[64];
	int narrowed = sel.session || sel.plan || sel.board || sel.strategy || sel.workload ||
		       sel.since || sel.runs || all;
	if (!narrowed && store_latest_session(s, latest, sizeof(latest)) == 0)
		sel.session = latest;
	int written = out ? report_write_file(s, &sel, reference, f, out)
			  : report_write(s, &sel, reference, f, stdout);
	rc = hb_exit_of(written);
	store_close(s);
out:
	strlist_free(&runs);
	return rc;
}
