#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/gate.h"
#include "cmd/builtin.h"
#include "cmd/options.h"
#include "config/catalog.h"
#include "deploy/dut.h"
#include "run/gate_loop.h"
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
	struct exec_opts exec;		/* the candidate's patches */
	double threshold_pct;		/* NaN: the plan's, per metric */
};

/* "session=X,strategy=Y": stored runs. A plain name is a strategy to build. */
static int parse_side(const char *arg, struct gate_side *sd)
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

/* What the options change in the plan; 0 / NULL: the plan's own. */
struct overrides {
	const char *plan, *board, *workloads, *timing;
	double repeat, max_repeat, alpha;
};

/* The plan named, with the options' overrides, checked as a gate needs it:
 * -1 to go on, else the exit code (the message printed). */
static int apply(const struct overrides *o, struct gate_opts *g)
{
	struct plan *p = &g->plan;
	if (catalog_plan(o->plan, p) < 0)
		return HB_EXIT_USAGE;
	if (!p->gate.present) {
		hb_err("%s has no gate section (which metrics, which direction, what threshold); "
		       "copy the one in plans/gate.yaml", p->path);
		return HB_EXIT_USAGE;
	}
	if (o->board) {
		strlist_free(&p->boards);
		strlist_push(&p->boards, o->board);
	}
	if (o->workloads) {
		strlist_free(&p->workloads);
		strlist_split(&p->workloads, o->workloads, ",");
	}
	if (o->timing && timing_mode_parse(o->timing, &p->timing) < 0) {
		hb_err("--timing %s: choose realtime or virtual", o->timing);
		return HB_EXIT_USAGE;
	}
	if (!plan_gate_for_timing(p)) {
		hb_err("%s gates no metric in %s time (no gate metric's threshold_pct names "
		       "it); add one there or choose --timing %s", p->path,
		       timing_mode_name(p->timing),
		       timing_mode_name(p->timing == TIMING_VIRTUAL ? TIMING_REALTIME :
								TIMING_VIRTUAL));
		return HB_EXIT_USAGE;
	}
	p->repetitions = o->repeat ? (int)o->repeat : p->gate.reference_repetitions;
	if (o->max_repeat)
		p->gate.max_repetitions = (int)o->max_repeat;
	if (o->alpha)
		p->gate.alpha = o->alpha;
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
	struct overrides o = { .plan = PLAN_GATE };
	int c;
	/* the plan first: every other option overrides it */
	while ((c = getopt_long(argc, argv, "P:b:r:c:p:q:w:n:m:t:T:a:j:h", opts, NULL)) != -1) {
		switch (c) {
		case 'P': o.plan = optarg; break;
		case 'b': o.board = optarg; break;
		case 'r': g->reference = optarg; break;
		case 'c': g->candidate = optarg; break;
		case 'j': g->junit = optarg; break;
		case 'w': o.workloads = optarg; break;
		case 't': o.timing = optarg; break;
		case 'p':
		case 'q':
			if (add_user_patches(&g->exec, c == 'q', optarg) < 0)
				return HB_EXIT_USAGE;
			break;
		case 'n':
			if (parse_double("--repeat", optarg, 2, 100, &o.repeat) < 0)
				return HB_EXIT_USAGE;
			break;
		case 'm':
			if (parse_double("--max-repeat", optarg, 2, 100, &o.max_repeat) < 0)
				return HB_EXIT_USAGE;
			break;
		case 'T':
			if (parse_double("--threshold-pct", optarg, 0, 1000, &g->threshold_pct) < 0)
				return HB_EXIT_USAGE;
			break;
		case 'a':
			if (parse_double("--alpha", optarg, 1e-6, 0.5, &o.alpha) < 0)
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
	return apply(&o, g);
}

static void print_decisions(const struct gate_loop *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct gate_decision *d = &l->v[i];
		char change[200];
		printf("%-16s %-24s %s (threshold %.2f %%, runs %zu/%zu): %s\n", d->workload,
		       d->metric, gate_change_text(d, change, sizeof(change)), d->threshold_pct,
		       d->ref.n, d->cand.n, gate_outcome_name(d->outcome));
		if (d->futile)
			printf("%-16s %-24s stopped early: %.0f %% chance that %d runs a side "
			       "decide it (the plan's futility: %g)\n", d->workload, d->metric,
			       100 * d->decide_chance, l->plan->gate.max_repetitions,
			       l->plan->gate.futility);
		/* once per workload: its decisions are next to one another */
		if (d->where[0] && (i + 1 == l->n || strcmp(l->v[i + 1].workload, d->workload)))
			printf("%-16s where: %s\n", d->workload, d->where);
	}
}

int cmd_gate(int argc, char **argv)
{
	struct gate_opts g = { .threshold_pct = NAN };
	struct gate_loop l = { .plan = &g.plan, .stop_at_regression = 1 };
	struct store *s = NULL;
	int rc = parse(argc, argv, &g);
	if (rc != -1)
		goto out;
	rc = HB_EXIT_USAGE;
	if (parse_side(g.reference, &l.ref) < 0 || parse_side(g.candidate, &l.cand) < 0)
		goto out;
	if (l.cand.stored && g.exec.user_patches.n) {
		hb_err("--patch/--series need a candidate strategy to build, not stored runs (%s)",
		       l.cand.spec);
		goto out;
	}
	if ((rc = hb_exit_of(gate_loop_load(&l))) != 0)
		goto out;
	if (!(s = store_open(hb_store_dir()))) {
		rc = HB_EXIT_INFRA;
		goto out;
	}
	hb_install_interrupt_handlers();

	static const struct exec_opts none;
	l.ref.opts = &none;
	l.cand.opts = &g.exec;
	l.threshold_pct = g.threshold_pct;
	if ((rc = hb_exit_of(gate_loop_judge(&l, s))) != 0)
		goto out;
	print_decisions(&l);
	rc = gate_loop_verdict(&l);
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
	gate_loop_free(&l);
	store_close(s);
	plan_free(&g.plan);
	strlist_free(&g.exec.user_patches);
	return rc;
}
