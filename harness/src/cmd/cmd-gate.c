#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/dataset.h"
#include "analyze/gate.h"
#include "cmd/builtin.h"
#include "cmd/options.h"
#include "config/catalog.h"
#include "deploy/dut.h"
#include "measure/bench.h"
#include "util/util.h"

static const char usage[] =
	"usage: hilbench gate [--reference S] [--candidate S] [--patch F]... [--series F]\n"
	"                     [--board B] [--workloads W,..] [--repeat N] [--timing MODE]\n"
	"                     [--threshold-pct P] [--alpha A] [--junit FILE]\n"
	"Does the candidate (strategy S, default the reference, plus your patches)\n"
	"make things worse than the reference strategy (default baseline)? Per\n"
	"workload and metric, a regression is a significant change (Welch, alpha\n"
	"0.05) in the bad direction of at least the metric's noise-based threshold\n"
	"(docs/metrics.md). Stored reference runs of the same kernel, initramfs,\n"
	"board, workload and timing mode are reused. Defaults: qemu-orangepi-pc,\n"
	"udp64-dut-tx, 3 repetitions, virtual time.\n"
	"Exit: 0 pass, 1 regression, 125 inconclusive or infrastructure, 2 usage.\n";

/* Throughput decides; the timer and CPU metrics explain. */
static const struct metric_info gated[] = { { "pps", true }, { "mbps", true } };

struct gate_opts {
	const char *board, *reference, *candidate, *junit;
	struct strlist workloads;
	struct bench_opts bench;	/* the candidate's patches */
	int repeat;
	enum timing_mode timing;
	double threshold_pct, alpha;
};

static int run_cell(const struct gate_opts *g, const char *strategy, const struct bench_opts *bo,
		    struct store *s, char session[40])
{
	/* Every repetition gets its own boot: in virtual time the first run
	 * after a boot and the ones after it differ (docs/gate.md), and between
	 * boots is where real-time noise lives; both call for like with like. */
	struct plan p = { .name = "gate", .repetitions = g->repeat, .timing = g->timing,
			  .boots = BOOTS_PER_REPETITION };
	strlist_push(&p.boards, g->board);
	strlist_push(&p.strategies, strategy);
	for (size_t i = 0; i < g->workloads.n; i++)
		strlist_push(&p.workloads, g->workloads.v[i]);
	int rc = bench_run_plan(&p, s, bo, session);
	strlist_free(&p.boards);
	strlist_free(&p.strategies);
	strlist_free(&p.workloads);
	return rc;
}

/* Enough stored pass runs of exactly this reference kernel and userland,
 * measured the way this gate measures? */
static int reusable(struct store *s, const struct gate_opts *g, const struct board *b,
		    const struct workload *wls, struct dataset *ref)
{
	struct build_result k;
	struct userland_result u;
	struct bench_opts none = { 0 };
	if (bench_prepare(b, b->series.v[0], g->reference, &none, &k, &u) != 0)
		return 0;
	/* only earlier gates' runs: they too had a boot per repetition */
	struct selection sel = { .plan = "gate", .board = g->board, .strategy = g->reference,
				 .timing = timing_mode_name(g->timing), .build_key = k.key,
				 .initramfs = u.sha256 };
	int ok = dataset_load(s, &sel, ref) == 0;
	for (size_t i = 0; ok && i < g->workloads.n; i++) {
		const struct series *mbps = dataset_find(ref, wls[i].name, g->reference, "mbps");
		ok = mbps && mbps->n >= (size_t)g->repeat;
	}
	build_result_free(&k);
	userland_result_free(&u);
	if (!ok)
		dataset_free(ref);
	return ok;
}

static int parse(int argc, char **argv, struct gate_opts *g)
{
	static const struct option opts[] = {
		{ "board", required_argument, NULL, 'b' },
		{ "reference", required_argument, NULL, 'r' },
		{ "candidate", required_argument, NULL, 'c' },
		{ "patch", required_argument, NULL, 'p' },
		{ "series", required_argument, NULL, 'q' },
		{ "workloads", required_argument, NULL, 'w' },
		{ "workload", required_argument, NULL, 'w' },
		{ "repeat", required_argument, NULL, 'n' },
		{ "timing", required_argument, NULL, 't' },
		{ "threshold-pct", required_argument, NULL, 'T' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "junit", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "b:r:c:p:q:w:n:t:T:a:j:h", opts, NULL)) != -1) {
		char *end = NULL;
		switch (c) {
		case 'b': g->board = optarg; break;
		case 'r': g->reference = optarg; break;
		case 'c': g->candidate = optarg; break;
		case 'j': g->junit = optarg; break;
		case 'p':
		case 'q':
			if (add_user_patches(&g->bench, c == 'q', optarg) < 0)
				return HB_EXIT_USAGE;
			break;
		case 'w': strlist_split(&g->workloads, optarg, ","); break;
		case 'n':
			g->repeat = (int)strtol(optarg, &end, 10);
			if (*end || g->repeat < 3 || g->repeat > 100) {
				hb_err("--repeat %s: give 3 to 100 (fewer cannot be significant)", optarg);
				return HB_EXIT_USAGE;
			}
			break;
		case 't':
			if (timing_mode_parse(optarg, &g->timing) < 0) {
				hb_err("--timing %s: choose realtime or virtual", optarg);
				return HB_EXIT_USAGE;
			}
			break;
		case 'T':
			g->threshold_pct = strtod(optarg, &end);
			if (*end || !(g->threshold_pct >= 0)) {
				hb_err("--threshold-pct %s: give a percentage >= 0", optarg);
				return HB_EXIT_USAGE;
			}
			break;
		case 'a':
			g->alpha = strtod(optarg, &end);
			if (*end || !(g->alpha > 0 && g->alpha < 1)) {
				hb_err("--alpha %s: give a level between 0 and 1, e.g. 0.05", optarg);
				return HB_EXIT_USAGE;
			}
			break;
		default:
			fputs(usage, c == 'h' ? stdout : stderr);
			return c == 'h' ? HB_EXIT_OK : HB_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		hb_err("unexpected argument '%s'; see `hilbench gate --help`", argv[optind]);
		return HB_EXIT_USAGE;
	}
	if (!g->candidate)
		g->candidate = g->reference;
	if (!strcmp(g->candidate, g->reference) && !g->bench.user_patches.n) {
		hb_err("the candidate is the reference; give --candidate S or --patch/--series");
		return HB_EXIT_USAGE;
	}
	if (!g->workloads.n)
		strlist_push(&g->workloads, "udp64-dut-tx");
	return -1;
}

int cmd_gate(int argc, char **argv)
{
	struct gate_opts g = { .board = "qemu-orangepi-pc", .reference = "baseline", .repeat = 3,
			       .timing = TIMING_VIRTUAL, .threshold_pct = NAN,
			       .alpha = STATS_DEFAULT_ALPHA };
	struct dataset ref = { 0 }, cand = { 0 };
	struct decisions { struct gate_decision *v; size_t n; } out = { 0 };
	struct workload *wls = NULL;
	struct board b = { 0 };
	struct store *s = NULL;
	int rc = parse(argc, argv, &g), loaded = 0;
	if (rc != -1)
		goto out;
	rc = HB_EXIT_USAGE;
	if (catalog_board(g.board, &b) < 0)
		goto out;
	wls = xcalloc(g.workloads.n, sizeof(*wls));
	for (; (size_t)loaded < g.workloads.n; loaded++)
		if (catalog_workload(g.workloads.v[loaded], &wls[loaded]) < 0)
			goto out;
	rc = HB_EXIT_INFRA;
	if (!(s = store_open(hb_store_dir())))
		goto out;
	hb_install_interrupt_handlers();

	char session[40];
	int missing = 0;
	struct bench_opts none = { 0 };
	if (reusable(s, &g, &b, wls, &ref)) {
		hb_info("gate: reusing stored runs of reference %s (same kernel, initramfs, board, "
			"workloads, %s time)", g.reference, timing_mode_name(g.timing));
	} else {
		missing |= run_cell(&g, g.reference, &none, s, session) != HB_EXIT_OK;
		struct selection sel = { .session = session };
		dataset_load(s, &sel, &ref);
	}
	if (!hb_interrupted) {
		missing |= run_cell(&g, g.candidate, &g.bench, s, session) != HB_EXIT_OK;
		struct selection sel = { .session = session };
		dataset_load(s, &sel, &cand);
	}
	out.v = xcalloc(g.workloads.n * HB_ARRAY_SIZE(gated), sizeof(*out.v));
	for (size_t w = 0; w < g.workloads.n && !hb_interrupted; w++) {
		for (size_t m = 0; m < HB_ARRAY_SIZE(gated); m++) {
			const struct series *r = dataset_find(&ref, wls[w].name, g.reference, gated[m].name);
			const struct series *c = dataset_find(&cand, wls[w].name, g.candidate, gated[m].name);
			if (!r && !c)
				continue;	/* not a metric of this workload (pps of TCP) */
			struct gate_decision *d = &out.v[out.n++];
			snprintf(d->workload, sizeof(d->workload), "%s", wls[w].name);
			snprintf(d->metric, sizeof(d->metric), "%s", gated[m].name);
			snprintf(d->unit, sizeof(d->unit), "%s", (r ? r : c)->unit);
			double thr = isnan(g.threshold_pct)
				     ? gate_threshold_pct(wls[w].proto, g.timing == TIMING_VIRTUAL)
				     : g.threshold_pct;
			static const double none_v[1];
			gate_decide(r ? r->v : none_v, r ? r->n : 0, c ? c->v : none_v, c ? c->n : 0,
				    gated[m].higher_is_better, g.alpha, thr, d);
			printf("%-16s %-5s %10.6g -> %-10.6g %-10s %+7.2f %% (threshold %.2f %%, p %.3g): %s\n",
			       d->workload, d->metric, d->cmp.ref.mean, d->cmp.cand.mean, d->unit,
			       d->cmp.delta_pct, thr, d->cmp.welch.p, gate_outcome_name(d->outcome));
		}
	}
	rc = hb_interrupted ? HB_EXIT_INFRA : gate_exit_code(out.v, out.n, missing);
	printf("gate: %s\n", rc == HB_EXIT_OK ? "pass" : rc == HB_EXIT_FAIL ? "REGRESSION" :
		"inconclusive (runs missing or too noisy; see above)");
	if (g.junit) {
		char *buf = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&buf, &len);
		gate_write_junit(mem, "hilbench gate", out.v, out.n);
		fclose(mem);
		if (write_file_atomic(g.junit, buf, len) < 0)
			hb_err("cannot write %s", g.junit);
		free(buf);
	}
out:
	free(out.v);
	dataset_free(&ref);
	dataset_free(&cand);
	store_close(s);
	for (int i = 0; i < loaded; i++)
		workload_free(&wls[i]);
	free(wls);
	board_free(&b);
	strlist_free(&g.workloads);
	strlist_free(&g.bench.user_patches);
	return rc;
}
