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
#include "run/executor.h"
#include "run/images.h"
#include "util/util.h"

static const char usage[] =
	"usage: hilbench gate [--plan P] [--reference S] [--candidate S] [--patch F]...\n"
	"                     [--series F] [--board B] [--workloads W,..] [--repeat N]\n"
	"                     [--max-repeat N] [--timing MODE] [--threshold-pct P]\n"
	"                     [--alpha A] [--junit FILE]\n"
	"Does the candidate (strategy S, default the reference, plus your patches)\n"
	"make things worse than the reference (default: the plan's strategy)?\n"
	"Either side may instead be stored runs, S = key=value[,key=value...] with\n"
	"keys session, plan, board, strategy, since, build (a kernel build key) and\n"
	"timing: those runs are judged as they are, nothing is built or run for them.\n"
	"The plan (default plans/gate.yaml) names the board, workloads, timing mode,\n"
	"reference repetitions and, in its gate section, each metric's better\n"
	"direction and threshold. The candidate gets runs until every metric is\n"
	"decided or the cap is reached; stored runs of the same kernel, initramfs,\n"
	"board, workload and mode are reused on both sides (docs/gate.md).\n"
	"Exit: 0 pass, 1 regression, 125 inconclusive or infrastructure, 2 usage.\n";

struct gate_opts {
	struct plan plan;		/* board, workloads, timing, repetitions, gate */
	const char *reference, *candidate, *junit;
	struct exec_opts exec;	/* the candidate's patches */
	double threshold_pct;		/* NaN: the plan's, per metric */
};

/* One side of the comparison: a kernel + userland and the runs of it, or
 * stored runs named by a selection. */
struct side {
	const char *strategy;
	int stored;
	struct selection sel;	/* stored: the runs; strategy set once loaded */
	const char *spec;	/* stored: the option as given */
	char *sel_text;		/* stored: sel's strings point into it */
	const struct exec_opts *bo;
	struct build_result k;
	struct userland_result u;
	struct dataset ds;
	int attempts;		/* runs started, passed or not */
};

static const char *board_name(const struct gate_opts *g)
{
	return g->plan.boards.v[0];
}

/* Every stored pass run of exactly this kernel and userland that a gate of
 * this plan measured (so with a boot per repetition), in this mode. */
static int load_side(struct store *s, const struct gate_opts *g, struct side *sd)
{
	dataset_free(&sd->ds);
	struct strlist metrics = { 0 };
	const struct gate_metric *gm = g->plan.gate.metrics.v;
	strlist_push(&metrics, "mbps");	/* every workload has it: runs_of() counts it */
	for (size_t i = 0; i < g->plan.gate.metrics.n; i++)
		strlist_push(&metrics, gm[i].metric);
	struct selection sel = { .plan = g->plan.name, .board = board_name(g),
				 .strategy = sd->strategy,
				 .timing = timing_mode_name(g->plan.timing), .build_key = sd->k.key,
				 .initramfs = sd->u.sha256 };
	if (sd->stored)
		sel = sd->sel;
	sel.metrics = &metrics;
	int rc = dataset_load(s, &sel, &sd->ds);
	strlist_free(&metrics);
	if (rc == 0 && sd->stored) {
		if (!sd->ds.runs) {
			hb_err("gate: no stored pass runs match '%s'; see `hilbench report` for "
			       "what the store holds", sd->spec);
			return -1;
		}
		if (sd->ds.strategies.n != 1) {
			hb_err("gate: '%s' matches runs of %zu strategies; name one with strategy=S",
			       sd->spec, sd->ds.strategies.n);
			return -1;
		}
		sd->strategy = sd->ds.strategies.v[0];
		if (strcmp(sd->ds.timing, timing_mode_name(g->plan.timing))) {
			hb_err("gate: the runs of '%s' were measured in %s time; give --timing %s "
			       "(thresholds differ by mode)", sd->spec, sd->ds.timing, sd->ds.timing);
			return -1;
		}
	}
	return rc;
}

/* "session=X,strategy=Y": stored runs. A plain name is a strategy to build. */
static int parse_side(const char *arg, struct side *sd)
{
	if (!strchr(arg, '=')) {
		sd->strategy = arg;
		return 0;
	}
	static const struct { const char *key; size_t off; } keys[] = {
		{ "session", offsetof(struct selection, session) },
		{ "plan", offsetof(struct selection, plan) },
		{ "board", offsetof(struct selection, board) },
		{ "strategy", offsetof(struct selection, strategy) },
		{ "since", offsetof(struct selection, since) },
		{ "build", offsetof(struct selection, build_key) },
		{ "timing", offsetof(struct selection, timing) },
	};
	sd->stored = 1;
	sd->spec = arg;
	sd->sel_text = xstrdup(arg);
	char *save = NULL;
	int rc = 0;
	for (char *kv = strtok_r(sd->sel_text, ",", &save); kv && !rc;
	     kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		size_t i = 0;
		while (eq && i < HB_ARRAY_SIZE(keys) &&
		       (strlen(keys[i].key) != (size_t)(eq - kv) || strncmp(kv, keys[i].key, eq - kv)))
			i++;
		if (!eq || i == HB_ARRAY_SIZE(keys) || !eq[1]) {
			hb_err("'%s' in '%s': give key=value with a key among session, plan, board, "
			       "strategy, since, build, timing", kv, arg);
			rc = -1;
			break;
		}
		*(const char **)((char *)&sd->sel + keys[i].off) = eq + 1;
	}
	return rc;
}

static size_t runs_of(const struct side *sd, const char *workload)
{
	const struct series *m = dataset_find(&sd->ds, workload, sd->strategy, "mbps");
	return m ? m->n : 0;
}

/* `reps` more runs of one workload on one side, a boot each. */
static int run_more(const struct gate_opts *g, struct side *sd, struct store *s,
		    const char *workload, int reps)
{
	struct plan p = { .name = g->plan.name, .repetitions = reps, .timing = g->plan.timing,
			  .boots = BOOTS_PER_REPETITION };
	strlist_push(&p.boards, board_name(g));
	strlist_push(&p.strategies, sd->strategy);
	strlist_push(&p.workloads, workload);
	char session[40];
	sd->attempts += reps;
	int rc = executor_run_plan(&p, s, sd->bo, session);
	strlist_free(&p.boards);
	strlist_free(&p.strategies);
	strlist_free(&p.workloads);
	return rc;
}

struct looks {
	struct gate_decision *v;
	size_t n;
	struct gate_seq *seq;	/* per (workload, metric of the plan): its looks so far */
};

/* Decides every (workload, metric) the runs so far allow. */
static void look(const struct gate_opts *g, const struct workload *wls, const struct side *ref,
		 const struct side *cand, struct looks *out)
{
	const struct gate_policy *pol = &g->plan.gate;
	const struct gate_metric *gm = pol->metrics.v;
	out->n = 0;
	for (size_t w = 0; w < g->plan.workloads.n; w++) {
		for (size_t m = 0; m < pol->metrics.n; m++) {
			if (!gate_metric_applies(&gm[m], wls[w].proto))
				continue;
			const char *name = gm[m].metric;
			const struct series *r = dataset_find(&ref->ds, wls[w].name, ref->strategy, name);
			const struct series *c = dataset_find(&cand->ds, wls[w].name, cand->strategy, name);
			if (!r && !c && runs_of(ref, wls[w].name) && runs_of(cand, wls[w].name))
				continue;	/* runs exist, but do not measure it (pps of TCP) */
			struct gate_decision *d = &out->v[out->n++];
			snprintf(d->workload, sizeof(d->workload), "%s", wls[w].name);
			snprintf(d->metric, sizeof(d->metric), "%s", name);
			snprintf(d->unit, sizeof(d->unit), "%s", r ? r->unit : c ? c->unit : "");
			double thr = isnan(g->threshold_pct) ? gm[m].threshold_pct[g->plan.timing]
							     : g->threshold_pct;
			static const double none[1];
			gate_look(pol, g->plan.repetitions, &out->seq[w * pol->metrics.n + m],
				  r ? r->v : none, r ? r->n : 0, c ? c->v : none, c ? c->n : 0,
				  gm[m].better, thr, d);
		}
	}
}

/* Runs what the next look needs; returns 0 when nothing more can be run
 * (all decided, the cap, or too many failed attempts). */
static int extend(const struct gate_opts *g, const struct workload *wls, struct side *ref,
		  struct side *cand, const struct looks *l, struct store *s, int *missing)
{
	const struct gate_policy *pol = &g->plan.gate;
	int ran = 0;
	for (size_t w = 0; w < g->plan.workloads.n && !hb_interrupted; w++) {
		const char *wl = wls[w].name;
		size_t nr = runs_of(ref, wl), nc = runs_of(cand, wl);
		bool open = false;
		for (size_t i = 0; i < l->n; i++)
			open |= !strcmp(l->v[i].workload, wl) && l->v[i].outcome == GATE_OPEN;
		int reps;
		enum gate_next next = gate_next_run(pol, g->plan.repetitions, nr, nc, open, &reps);
		if (next == GATE_NEXT_NONE)
			continue;
		struct side *sd = next == GATE_NEXT_REFERENCE ? ref : cand;
		if (sd->stored)
			continue;	/* judged as they are */
		/* a side that keeps failing is not measured by trying forever */
		if (sd->attempts + reps > pol->max_repetitions + g->plan.repetitions) {
			*missing = 1;
			continue;
		}
		hb_info("gate: %s: %d more run(s) of %s%s (reference %zu, candidate %zu so far)", wl,
			reps, sd == ref ? "the reference " : "the candidate ", sd->strategy, nr, nc);
		/* a run that failed is in the store with its class: it counts
		 * against the attempts here and is judged by dut_failures() */
		run_more(g, sd, s, g->plan.workloads.v[w], reps);
		ran = 1;
	}
	return ran && !hb_interrupted;
}

/* Runs where the DUT itself misbehaved (class fail: oops, watchdog, lost
 * link): on the candidate's kernel that is the patch's doing. */
static size_t dut_failures(const struct side *sd, int quiet)
{
	size_t n = 0;
	for (size_t i = 0; i < sd->ds.problems.n; i++)
		if (strstr(sd->ds.problems.v[i], ": fail: ")) {
			if (!quiet)
				hb_err("gate: %s: %s", sd->strategy, sd->ds.problems.v[i]);
			n++;
		}
	return n;
}

static int parse_double(const char *opt, const char *arg, double lo, double hi, double *out)
{
	char *end;
	double v = strtod(arg, &end);
	if (*end || end == arg || !(v >= lo && v <= hi)) {
		hb_err("%s %s: give a number from %g to %g", opt, arg, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse(int argc, char **argv, struct gate_opts *g)
{
	static const struct option opts[] = {
		{ "plan", required_argument, NULL, 'P' },
		{ "board", required_argument, NULL, 'b' },
		{ "reference", required_argument, NULL, 'r' },
		{ "candidate", required_argument, NULL, 'c' },
		{ "patch", required_argument, NULL, 'p' },
		{ "series", required_argument, NULL, 'q' },
		{ "workloads", required_argument, NULL, 'w' },
		{ "workload", required_argument, NULL, 'w' },
		{ "repeat", required_argument, NULL, 'n' },
		{ "max-repeat", required_argument, NULL, 'm' },
		{ "timing", required_argument, NULL, 't' },
		{ "threshold-pct", required_argument, NULL, 'T' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "junit", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *plan = "gate", *board = NULL, *workloads = NULL, *timing = NULL;
	double repeat = 0, max_repeat = 0, alpha = 0;
	int c;
	/* the plan first: every other option overrides it */
	while ((c = getopt_long(argc, argv, "P:b:r:c:p:q:w:n:m:t:T:a:j:h", opts, NULL)) != -1) {
		switch (c) {
		case 'P': plan = optarg; break;
		case 'b': board = optarg; break;
		case 'r': g->reference = optarg; break;
		case 'c': g->candidate = optarg; break;
		case 'j': g->junit = optarg; break;
		case 'w': workloads = optarg; break;
		case 't': timing = optarg; break;
		case 'p':
		case 'q':
			if (add_user_patches(&g->exec, c == 'q', optarg) < 0)
				return HB_EXIT_USAGE;
			break;
		case 'n':
			if (parse_double("--repeat", optarg, 2, 100, &repeat) < 0)
				return HB_EXIT_USAGE;
			break;
		case 'm':
			if (parse_double("--max-repeat", optarg, 2, 100, &max_repeat) < 0)
				return HB_EXIT_USAGE;
			break;
		case 'T':
			if (parse_double("--threshold-pct", optarg, 0, 1000, &g->threshold_pct) < 0)
				return HB_EXIT_USAGE;
			break;
		case 'a':
			if (parse_double("--alpha", optarg, 1e-6, 0.5, &alpha) < 0)
				return HB_EXIT_USAGE;
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
	struct plan *p = &g->plan;
	if (catalog_plan(plan, p) < 0)
		return HB_EXIT_USAGE;
	if (!p->gate.present) {
		hb_err("%s has no gate section (which metrics, which direction, what threshold); "
		       "copy the one in plans/gate.yaml", p->path);
		return HB_EXIT_USAGE;
	}
	if (board) {
		strlist_free(&p->boards);
		strlist_push(&p->boards, board);
	}
	if (workloads) {
		strlist_free(&p->workloads);
		strlist_split(&p->workloads, workloads, ",");
	}
	if (timing && timing_mode_parse(timing, &p->timing) < 0) {
		hb_err("--timing %s: choose realtime or virtual", timing);
		return HB_EXIT_USAGE;
	}
	if (repeat)
		p->repetitions = (int)repeat;
	if (max_repeat)
		p->gate.max_repetitions = (int)max_repeat;
	if (alpha)
		p->gate.alpha = alpha;
	if (p->gate.max_repetitions < p->repetitions ||
	    p->gate.max_repetitions < p->gate.first_repetitions) {
		hb_err("the cap (%d runs, --max-repeat or %s gate.max_repetitions) is below the "
		       "reference's %d repetitions or the candidate's first %d; raise it",
		       p->gate.max_repetitions, p->path, p->repetitions, p->gate.first_repetitions);
		return HB_EXIT_USAGE;
	}
	if (p->boards.n != 1) {
		hb_err("%s names %zu boards; a gate judges one: give --board B", p->path,
		       p->boards.n);
		return HB_EXIT_USAGE;
	}
	if (!g->reference)
		g->reference = p->strategies.v[0];
	if (!g->candidate)
		g->candidate = g->reference;
	if (!strcmp(g->candidate, g->reference) && !g->exec.user_patches.n) {
		hb_err("the candidate is the reference; give --candidate S or --patch/--series");
		return HB_EXIT_USAGE;
	}
	return -1;
}

static void print_decisions(const struct looks *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct gate_decision *d = &l->v[i];
		printf("%-16s %-24s %10.6g -> %-10.6g %-10s %+8.3f %% (CI %+.3f..%+.3f %%, "
		       "threshold %.2f %%, runs %zu/%zu): %s\n",
		       d->workload, d->metric, d->ref.mean, d->cand.mean, d->unit, d->delta_pct,
		       d->lo_pct, d->hi_pct, d->threshold_pct, d->ref.n, d->cand.n,
		       gate_outcome_name(d->outcome));
	}
}

int cmd_gate(int argc, char **argv)
{
	struct gate_opts g = { .threshold_pct = NAN };
	struct side ref = { 0 }, cand = { 0 };
	struct looks l = { 0 };
	struct workload *wls = NULL;
	struct board b = { 0 };
	struct store *s = NULL;
	size_t loaded = 0;
	int rc = parse(argc, argv, &g), missing = 0;
	if (rc != -1)
		goto out;
	rc = HB_EXIT_USAGE;
	if (parse_side(g.reference, &ref) < 0 || parse_side(g.candidate, &cand) < 0)
		goto out;
	if (cand.stored && g.exec.user_patches.n) {
		hb_err("--patch/--series need a candidate strategy to build, not stored runs (%s)",
		       cand.spec);
		goto out;
	}
	if (catalog_board(board_name(&g), &b) < 0)
		goto out;
	wls = xcalloc(g.plan.workloads.n, sizeof(*wls));
	for (; loaded < g.plan.workloads.n; loaded++)
		if (catalog_workload(g.plan.workloads.v[loaded], &wls[loaded]) < 0)
			goto out;
	if (!(s = store_open(hb_store_dir()))) {
		rc = HB_EXIT_INFRA;
		goto out;
	}
	hb_install_interrupt_handlers();

	static const struct exec_opts none;
	ref.bo = &none;
	cand.bo = &g.exec;
	const char *series = b.series.v[0];
	if ((!ref.stored &&
	     (rc = images_prepare(&b, series, ref.strategy, ref.bo, &ref.k, &ref.u, NULL)) != 0) ||
	    (!cand.stored &&
	     (rc = images_prepare(&b, series, cand.strategy, cand.bo, &cand.k, &cand.u, NULL)) != 0))
		goto out;
	l.v = xcalloc(g.plan.workloads.n * g.plan.gate.metrics.n, sizeof(*l.v));
	l.seq = xcalloc(g.plan.workloads.n * g.plan.gate.metrics.n, sizeof(*l.seq));
	for (int first = 1;; first = 0) {
		if (load_side(s, &g, &ref) < 0 || load_side(s, &g, &cand) < 0) {
			rc = HB_EXIT_USAGE;
			goto out;
		}
		look(&g, wls, &ref, &cand, &l);
		for (size_t w = 0; first && !ref.stored && w < loaded; w++)
			if (runs_of(&ref, wls[w].name))
				hb_info("gate: %s: reusing %zu stored runs of the reference %s (same "
					"kernel, initramfs, board, workload, %s time)", wls[w].name,
					runs_of(&ref, wls[w].name), ref.strategy,
					timing_mode_name(g.plan.timing));
		if (dut_failures(&cand, 1) || !extend(&g, wls, &ref, &cand, &l, s, &missing))
			break;
	}
	for (size_t i = 0; i < l.n; i++)
		if (l.v[i].outcome == GATE_OPEN)
			l.v[i].outcome = GATE_INCONCLUSIVE;
	print_decisions(&l);
	rc = hb_interrupted ? HB_EXIT_INFRA : gate_exit_code(l.v, l.n, missing);
	if (dut_failures(&cand, 0) && !hb_interrupted)
		rc = HB_EXIT_FAIL;
	printf("gate: %s\n", rc == HB_EXIT_OK ? "pass" : rc == HB_EXIT_FAIL ? "REGRESSION" :
		"inconclusive (runs missing or too noisy at the cap; see above)");
	if (g.junit) {
		char *buf = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&buf, &len);
		gate_write_junit(mem, "hilbench gate", l.v, l.n);
		fclose(mem);
		if (write_file_atomic(g.junit, buf, len) < 0)
			hb_err("cannot write %s", g.junit);
		free(buf);
	}
out:
	free(l.v);
	free(l.seq);
	free(ref.sel_text);
	free(cand.sel_text);
	dataset_free(&ref.ds);
	dataset_free(&cand.ds);
	build_result_free(&ref.k);
	build_result_free(&cand.k);
	userland_result_free(&ref.u);
	userland_result_free(&cand.u);
	store_close(s);
	for (size_t i = 0; i < loaded; i++)
		workload_free(&wls[i]);
	free(wls);
	board_free(&b);
	plan_free(&g.plan);
	strlist_free(&g.exec.user_patches);
	return rc;
}
