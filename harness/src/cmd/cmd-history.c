#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/history.h"
#include "cmd/builtin.h"
#include "cmd/options.h"
#include "util/util.h"

static const char usage[] =
	"usage: hilbench history [--format text|json|html] [--out FILE] [--metric M]\n"
	"                        [--points run|session] [--detect [--min-segment N]\n"
	"                        [--alpha A] [--permutations N] [--seed S]] [selection]\n"
	"selection (all given must match; default: every stored pass run):\n"
	"  --session ID  --plan P  --board B  --strategy S  --workload W\n"
	"  --since DATE  (ISO 8601: 2026-11-30 or 2026-11-30T06:00:00Z)\n"
	"One series per board, strategy, workload, metric and timing mode, in time\n"
	"order, each point with its run, session, date, kernel and build key.\n"
	"--metric: only that metric (default: the metrics reports show).\n"
	"--points session: one point per session (its median) instead of per run.\n"
	"A segment whose points fell in two modes is named (docs/history.md).\n"
	"--detect: change points (E-divisive means, docs/history.md); defaults\n"
	"  --min-segment 3 --alpha 0.05 --permutations 199.\n"
	"Exit: 0, or 1 with --detect when some series' newest change is a regression.\n";

int cmd_history(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "out", required_argument, NULL, 'o' },
		{ "metric", required_argument, NULL, 'm' },
		{ "points", required_argument, NULL, 'p' },
		{ "detect", no_argument, NULL, 'D' },
		CP_OPTION_MIN_SEGMENT,
		CP_OPTION_ALPHA,
		CP_OPTION_PERMUTATIONS,
		CP_OPTION_SEED,
		SELECTION_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct selection sel = { 0 };
	struct cp_params cp;
	cp_params_default(&cp);
	const char *format = "text", *out = NULL, *metric = NULL;
	enum hist_points points = HIST_PER_RUN;
	int detect = 0, c;
	while ((c = getopt_long(argc, argv, "f:o:m:p:Dn:A:R:x:S:P:b:s:w:d:h", opts, NULL)) != -1) {
		int taken = changepoint_option(c, optarg, &cp);
		if (!taken)
			taken = selection_option(c, optarg, &sel);
		if (taken < 0)
			return HB_EXIT_USAGE;
		if (taken)
			continue;
		switch (c) {
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "json") && strcmp(optarg, "html")) {
				hb_err("--format %s: choose text, json or html", optarg);
				return HB_EXIT_USAGE;
			}
			format = optarg;
			break;
		case 'o': out = optarg; break;
		case 'm': metric = optarg; break;
		case 'p':
			if (strcmp(optarg, "run") && strcmp(optarg, "session")) {
				hb_err("--points %s: choose run or session", optarg);
				return HB_EXIT_USAGE;
			}
			points = strcmp(optarg, "run") ? HIST_PER_SESSION : HIST_PER_RUN;
			break;
		case 'D': detect = 1; break;
		default:
			fputs(usage, c == 'h' ? stdout : stderr);
			return c == 'h' ? HB_EXIT_OK : HB_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		hb_err("unexpected argument '%s'; see `hilbench history --help`", argv[optind]);
		return HB_EXIT_USAGE;
	}
	struct store *s = store_open(hb_store_dir());
	if (!s)
		return HB_EXIT_INFRA;
	struct history h;
	int rc = history_load(s, &sel, metric, points, &h) == 0 ? HB_EXIT_OK : HB_EXIT_INFRA;
	if (rc == HB_EXIT_OK && detect) {
		history_detect(&h, &cp);	/* parameters were checked above */
		rc = history_movers(&h, s) < 0 ? HB_EXIT_INFRA :
		     history_newest_is_regression(&h) ? HB_EXIT_FAIL : HB_EXIT_OK;
	}
	if (rc != HB_EXIT_INFRA && history_modes(&h, s) < 0)
		rc = HB_EXIT_INFRA;
	store_close(s);
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	if (!strcmp(format, "json"))
		history_write_json(&h, mem);
	else if (!strcmp(format, "html"))
		history_write_html(&h, mem);
	else
		history_write_text(&h, mem);
	fclose(mem);
	if (out ? write_file_atomic(out, buf, len) < 0 : fwrite(buf, 1, len, stdout) != len) {
		hb_err("cannot write %s", out ? out : "stdout");
		rc = HB_EXIT_INFRA;
	}
	free(buf);
	history_free(&h);
	return rc;
}
