#include "run/gate_loop.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config/catalog.h"
#include "deploy/dut.h"
#include "analyze/movers.h"
#include "store/metrics.h"
#include "util/util.h"

/* The board as the plan names it (a name or a path: what the executor
 * looks up); stored runs carry its name, g->board.name. */
static const char *board_name(const struct gate_loop *g)
{
	return g->plan->boards.v[0];
}

/* The selection of one side's runs: its kernel and userland in the plan's
 * board and mode, or the stored runs named. */
static struct selection side_selection(const struct gate_loop *g, const struct gate_side *sd)
{
	struct selection sel = { .plan = g->plan->name, .board = g->board.name,
				 .strategy = sd->strategy,
				 .timing = timing_mode_name(g->plan->timing), .build_key = sd->k.key,
				 .initramfs = sd->u.sha256, .emulator_provenance = sd->e.provenance,
				 .workload_sha256s = &g->digests, .session = g->session };
	return sd->stored ? sd->sel : sel;
}

/* Every stored pass run of exactly this kernel, userland, emulator and
 * workloads (as a boot per repetition runs them) that a gate of this plan
 * measured, in this mode. */
static int load_side(struct store *s, const struct gate_loop *g, struct gate_side *sd)
{
	dataset_free(&sd->ds);
	struct strlist metrics = { 0 };
	const struct gate_metric *gm = g->plan->gate.metrics.v;
	strlist_push(&metrics, METRIC_MBPS);	/* every workload has it: runs_of() counts it */
	for (size_t i = 0; i < g->plan->gate.metrics.n; i++)
		strlist_push(&metrics, gm[i].metric);
	struct selection sel = side_selection(g, sd);
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
		if (strcmp(sd->ds.timing, timing_mode_name(g->plan->timing))) {
			hb_err("gate: the runs of '%s' were measured in %s time; give --timing %s "
			       "(thresholds differ by mode)", sd->spec, sd->ds.timing, sd->ds.timing);
			return -1;
		}
	}
	return rc;
}

static size_t runs_of(const struct gate_side *sd, const char *workload)
{
	/* a side's dataset is one build (its build key): any label is it */
	const struct series *m = dataset_find(&sd->ds, workload, NULL, NULL, METRIC_MBPS);
	return m ? m->n : 0;
}

/* The reference's runs before the first look at workload w: the plan's
 * repetitions, fewer where its metrics need fewer, one where none judges
 * it (gate_reference_runs()). */
static int reference_runs_of(const struct gate_loop *g, size_t w)
{
	int reps = g->plan->repetitions;
	return reps < 1 ? reps : gate_reference_runs(&g->plan->gate, reps, &g->wls[w],
						     g->plan->timing);
}

int gate_loop_reference_runs(const struct gate_loop *g)
{
	int n = 0;
	for (size_t w = 0; w < g->nwls; w++)
		n += reference_runs_of(g, w);
	return n;
}

/* `reps` more runs of each workload of `workloads` on one side, a boot per
 * repetition, the first numbered `first`; workload i in the first
 * runs_of[i] of these boots only (NULL: in each). In a session of its own,
 * or in g->session. */
static int run_more(const struct gate_loop *g, struct gate_side *sd, struct store *s,
		    const struct strlist *workloads, const int *runs_of, int reps, int first,
		    int boards)
{
	struct plan p = { .name = g->plan->name, .repetitions = reps, .timing = g->plan->timing,
			  .boots = BOOTS_PER_REPETITION };
	strlist_push(&p.boards, board_name(g));
	strlist_push(&p.strategies, sd->strategy);
	for (size_t i = 0; i < workloads->n; i++)
		strlist_push(&p.workloads, workloads->v[i]);
	struct exec_opts o = *sd->opts;
	o.session = g->session;
	o.first_repetition = first;
	o.runs_of = runs_of;
	if (boards)
		o.jobs = boards;
	char session[40];
	sd->attempts += reps;
	int rc = executor_run_plan(&p, s, &o, session);
	strlist_free(&p.boards);
	strlist_free(&p.strategies);
	strlist_free(&p.workloads);
	return rc;
}

/* Decides every (workload, metric) the runs so far allow. */
static void look(struct gate_loop *g)
{
	const struct gate_policy *pol = &g->plan->gate;
	const struct gate_metric *gm = pol->metrics.v;
	g->n = 0;
	for (size_t w = 0; w < g->plan->workloads.n; w++) {
		for (size_t m = 0; m < pol->metrics.n; m++) {
			if (!gate_metric_applies(&gm[m], &g->wls[w]))
				continue;
			const char *name = gm[m].metric;
			const struct series *r = dataset_find(&g->ref.ds, g->wls[w].name, NULL, NULL, name);
			const struct series *c = dataset_find(&g->cand.ds, g->wls[w].name, NULL, NULL, name);
			if (!r && !c && runs_of(&g->ref, g->wls[w].name) && runs_of(&g->cand, g->wls[w].name))
				continue;	/* runs exist, but do not measure it (pps of TCP) */
			struct gate_decision *d = &g->v[g->n++];
			snprintf(d->workload, sizeof(d->workload), "%s", g->wls[w].name);
			snprintf(d->metric, sizeof(d->metric), "%s", name);
			snprintf(d->unit, sizeof(d->unit), "%s", r ? r->unit : c ? c->unit : "");
			struct gate_rule rule = gate_metric_rule(&gm[m], g->plan->timing);
			if (!isnan(g->threshold_pct))
				rule.threshold_pct = g->threshold_pct;
			static const double none[1];
			gate_look(pol, reference_runs_of(g, w), &g->seq[w * pol->metrics.n + m],
				  r ? r->v : none, r ? r->n : 0, c ? c->v : none, c ? c->n : 0,
				  gate_metric_better(&gm[m]), &rule, d);
		}
	}
}

/* Where the next runs of workload w go; GATE_NEXT_NONE when none can. */
static enum gate_next next_of(struct gate_loop *g, size_t w, int *reps)
{
	const struct gate_policy *pol = &g->plan->gate;
	const char *wl = g->wls[w].name;
	size_t nr = runs_of(&g->ref, wl), nc = runs_of(&g->cand, wl);
	bool open = false;
	for (size_t i = 0; i < g->n; i++)
		open |= !strcmp(g->v[i].workload, wl) && g->v[i].outcome == GATE_OPEN;
	enum gate_next next = gate_next_run(pol, reference_runs_of(g, w), nr, nc, open, reps);
	if (next == GATE_NEXT_NONE)
		return next;
	struct gate_side *sd = next == GATE_NEXT_REFERENCE ? &g->ref : &g->cand;
	if (sd->stored)
		return GATE_NEXT_NONE;	/* judged as they are */
	/* a side that keeps failing is not measured by trying forever */
	if (sd->attempts + *reps > pol->max_repetitions + g->plan->repetitions) {
		g->missing = 1;
		return GATE_NEXT_NONE;
	}
	hb_info("gate: %s: %d more run(s) of %s%s (reference %zu, candidate %zu so far)", wl,
		*reps, sd == &g->ref ? "the reference " : "the candidate ", sd->strategy, nr, nc);
	return next;
}

/* The boards lent (g->spare) to run more of the batch's runs at once than
 * the look needs, as many as the cap leaves room for: the runs a side may
 * still take go on boards that would stand idle. */
static int borrow(const struct gate_loop *g, const struct gate_side *sd,
		  const struct strlist *batch, int reps)
{
	int cap = g->plan->gate.max_repetitions, room = cap;
	for (size_t i = 0; i < batch->n; i++) {
		int left = cap - (int)runs_of(sd, batch->v[i]) - reps;
		room = left < room ? left : room;
	}
	int lent = pool_spare_borrow(g->spare, room);
	if (lent)
		hb_info("gate: %d board(s) free: %d run(s) of %s at once", lent, reps + lent,
			sd->strategy);
	return lent;
}

/* Runs what the next look needs, the workloads that want the same side and
 * count on the same boots; returns 0 when nothing more can be run (all
 * decided, the cap, or too many failed attempts). */
static int extend(struct gate_loop *g, struct store *s)
{
	size_t nw = g->plan->workloads.n;
	enum gate_next *next = xcalloc(nw, sizeof(*next));
	int *reps = xcalloc(nw, sizeof(*reps));
	for (size_t w = 0; w < nw; w++)
		next[w] = next_of(g, w, &reps[w]);
	int ran = 0;
	for (size_t w = 0; w < nw && !hb_interrupted; w++) {
		if (next[w] == GATE_NEXT_NONE)
			continue;
		struct strlist batch = { 0 };
		for (size_t v = w; v < nw; v++)
			if (next[v] == next[w] && reps[v] == reps[w]) {
				strlist_push(&batch, g->plan->workloads.v[v]);
				if (v > w)
					next[v] = GATE_NEXT_NONE;	/* in this batch */
			}
		/* a run that failed is in the store with its class: it counts
		 * against the attempts here and is judged by dut_failures() */
		struct gate_side *sd = next[w] == GATE_NEXT_REFERENCE ? &g->ref : &g->cand;
		int lent = borrow(g, sd, &batch, reps[w]);
		run_more(g, sd, s, &batch, NULL, reps[w] + lent, (int)runs_of(sd, g->wls[w].name) + 1,
			 lent ? 1 + lent : 0);
		pool_spare_return(g->spare, lent);
		strlist_free(&batch);
		ran = 1;
	}
	free(next);
	free(reps);
	return ran && !hb_interrupted;
}

/* Runs where the DUT itself misbehaved (class fail: oops, watchdog, lost
 * link): on the candidate's kernel that is the patch's doing. */
static size_t dut_failures(const struct gate_side *sd, int quiet)
{
	size_t n = 0;
	for (size_t i = 0; i < sd->ds.n_problems; i++)
		if (problem_failed(&sd->ds.problems[i])) {
			if (!quiet) {
				char *line = problem_line(&sd->ds.problems[i]);
				hb_err("gate: %s: %s", sd->strategy, line);
				free(line);
			}
			n++;
		}
	return n;
}

int gate_loop_load(struct gate_loop *g)
{
	char err[1024];
	if (gate_check_metrics(&g->plan->gate, err, sizeof(err)) < 0) {
		hb_err("%s", err);
		return HB_FAIL_INPUT;
	}
	if (catalog_board(g->plan->boards.v[0], &g->board) < 0)
		return HB_FAIL_INPUT;
	g->wls = xcalloc(g->plan->workloads.n, sizeof(*g->wls));
	for (; g->nwls < g->plan->workloads.n; g->nwls++)
		if (catalog_workload(g->plan->workloads.v[g->nwls], &g->wls[g->nwls]) < 0)
			return HB_FAIL_INPUT;
	/* the runs run_more() makes: a boot per repetition */
	for (size_t i = 0; i < g->nwls; i++) {
		char digest[65];
		workload_as_run(&g->wls[i], g->plan->timing == TIMING_VIRTUAL);
		workload_digest(&g->wls[i], digest);
		strlist_push(&g->digests, digest);
	}
	return 0;
}

/* A built side's kernel and userland (the reference's usually cached). */
static int build_side(const struct gate_loop *g, struct gate_side *sd)
{
	if (sd->stored)
		return 0;
	struct exec_opts o = *sd->opts;
	o.perf_userland |= workloads_profile_perf(g->wls, g->nwls);
	return exec_stages_of(&o)->prepare(&g->board, g->board.series.v[0], sd->strategy, &o,
					   &sd->k, &sd->u, &sd->e);
}

/* The stored runs of the reference a first look reuses, said once. */
static void say_reused(const struct gate_loop *g)
{
	for (size_t w = 0; !g->ref.stored && w < g->nwls; w++)
		if (runs_of(&g->ref, g->wls[w].name))
			hb_info("gate: %s: reusing %zu stored runs of the reference %s (same kernel, "
				"initramfs, emulator, board, workload, %s time)", g->wls[w].name,
				runs_of(&g->ref, g->wls[w].name), g->ref.strategy,
				timing_mode_name(g->plan->timing));
}

/* Where the instructions went (analyze/movers.h), into each decision of
 * its workload; nothing for runs without the emulator's counts. */
static int where_moved(struct gate_loop *g, struct store *s)
{
	struct selection rs = side_selection(g, &g->ref), cs = side_selection(g, &g->cand);
	int rc = 0;
	for (size_t w = 0; rc == 0 && w < g->nwls; w++) {
		char where[sizeof(g->v[0].where)] = "";	/* copied whole: no stale bytes */
		rc = movers_between(s, &rs, 1, &cs, 1, g->wls[w].name, where, sizeof(where));
		for (size_t i = 0; rc == 0 && i < g->n; i++)
			if (!strcmp(g->v[i].workload, g->wls[w].name))
				memcpy(g->v[i].where, where, sizeof(where));
	}
	return rc;
}

static int regressed(const struct gate_loop *g)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->v[i].outcome == GATE_REGRESSED)
			return 1;
	return 0;
}

int gate_loop_judge(struct gate_loop *g, struct store *s)
{
	int rc = build_side(g, &g->ref);
	if (rc || (rc = build_side(g, &g->cand)) != 0)
		return rc;
	size_t cells = g->plan->workloads.n * g->plan->gate.metrics.n;
	g->v = xcalloc(cells, sizeof(*g->v));
	g->seq = xcalloc(cells, sizeof(*g->seq));
	for (int first = 1;; first = 0) {
		if (load_side(s, g, &g->ref) < 0 || load_side(s, g, &g->cand) < 0)
			return HB_FAIL_INPUT;
		look(g);
		if (first)
			say_reused(g);
		if (dut_failures(&g->cand, 1) || (g->stop_at_regression && regressed(g)) ||
		    !extend(g, s))
			break;
	}
	for (size_t i = 0; i < g->n; i++)
		if (g->v[i].outcome == GATE_OPEN)
			g->v[i].outcome = GATE_INCONCLUSIVE;
	return where_moved(g, s) < 0 ? HB_FAIL : 0;
}

/* Does a run on g's board record the metric (store/metrics.h's needs)? */
static bool board_records(const struct gate_loop *g, const char *metric)
{
	const struct metric_def *m = metric_find(metric);
	const struct deploy_ops *ops = deploy_backend(g->board.backend);
	switch (m ? m->needs : NEEDS_RUN) {
	case NEEDS_INSN_COUNTS:
		return g->board.qemu.insn_profile;
	case NEEDS_LINK_RECORD:
		return ops && ops->records_link;
	case NEEDS_RUN:
		break;
	}
	return true;
}

/* The reference's stored runs of other sessions that g->session counts as
 * its own, up to the runs each workload is given (store_reuse_runs()). */
static int reuse_reference(struct gate_loop *g, struct store *s)
{
	if (!g->ref.e.provenance) {
		/* the board's installed emulator: which one measured a stored
		 * run is not known well enough to stand for this one */
		hb_info("compare: the reference's stored runs are not reused: board %s runs the "
			"installed emulator, not one hilbench built", g->board.name);
		return 0;
	}
	for (size_t w = 0; w < g->nwls; w++) {
		size_t have = runs_of(&g->ref, g->wls[w].name);
		int want = reference_runs_of(g, w);
		if (have >= (size_t)want)
			continue;
		struct strlist digest = { 0 }, judged = { 0 };
		strlist_push(&digest, g->digests.v[w]);
		/* what the gate judges of the workload and the board records */
		const struct gate_metric *gm = g->plan->gate.metrics.v;
		for (size_t m = 0; m < g->plan->gate.metrics.n; m++)
			if (gate_metric_applies(&gm[m], &g->wls[w]) &&
			    board_records(g, gm[m].metric))
				strlist_push(&judged, gm[m].metric);
		struct selection sel = side_selection(g, &g->ref);
		sel.workload = g->wls[w].name;
		sel.workload_sha256s = &digest;
		sel.metrics = &judged;
		int n = store_reuse_runs(s, g->session, &sel, want - (int)have);
		strlist_free(&digest);
		strlist_free(&judged);
		if (n < 0)
			return -1;
		if (n)
			hb_info("compare: %s: %d stored run(s) of the reference %s from earlier "
				"sessions count (same kernel, initramfs, emulator, board, workload, "
				"%s time, a boot each; --fresh-reference measures them anew)",
				g->wls[w].name, n, g->ref.strategy, timing_mode_name(g->plan->timing));
	}
	return load_side(s, g, &g->ref);
}

int gate_loop_reference(struct gate_loop *g, struct store *s)
{
	int rc = build_side(g, &g->ref);
	if (rc || load_side(s, g, &g->ref) < 0)
		return rc ? rc : HB_FAIL;
	if (g->reuse_reference && reuse_reference(g, s) < 0)
		return HB_FAIL;
	for (size_t w = 0; w < g->nwls && !hb_interrupted; w++) {
		size_t have = runs_of(&g->ref, g->wls[w].name);
		if (have >= (size_t)reference_runs_of(g, w))
			continue;
		/* the workloads that have as many runs share their boots, each
		 * in the first of them as many as it wants (an unjudged one in
		 * the first only), so that boots running at once stay alike */
		struct strlist batch = { 0 };
		int *more = xcalloc(g->nwls, sizeof(*more));
		int reps = 0;
		for (size_t v = w; v < g->nwls; v++) {
			int want = reference_runs_of(g, v) - (int)have;
			if (runs_of(&g->ref, g->wls[v].name) != have || want <= 0)
				continue;
			more[batch.n] = want;
			strlist_push(&batch, g->plan->workloads.v[v]);
			reps = want > reps ? want : reps;
		}
		hb_info("gate: %zu workload(s): up to %d more run(s) of the reference %s",
			batch.n, reps, g->ref.strategy);
		run_more(g, &g->ref, s, &batch, more, reps, (int)have + 1, 0);
		strlist_free(&batch);
		free(more);
		if (load_side(s, g, &g->ref) < 0)
			return HB_FAIL;
	}
	return 0;
}

int gate_loop_verdict(const struct gate_loop *g)
{
	static const int exit_of[] = { [GATE_PASS] = HB_EXIT_OK, [GATE_REGRESSED] = HB_EXIT_FAIL,
				       [GATE_INCONCLUSIVE] = HB_EXIT_INFRA };
	int rc = hb_interrupted ? HB_EXIT_INFRA : exit_of[gate_overall(g->v, g->n, g->missing)];
	if (dut_failures(&g->cand, 0) && !hb_interrupted)
		rc = HB_EXIT_FAIL;
	return rc;
}

static void side_free(struct gate_side *sd)
{
	free(sd->sel_text);
	dataset_free(&sd->ds);
	build_result_free(&sd->k);
	userland_result_free(&sd->u);
	emulator_result_free(&sd->e);
}

void gate_loop_free(struct gate_loop *g)
{
	free(g->v);
	free(g->seq);
	side_free(&g->ref);
	side_free(&g->cand);
	for (size_t i = 0; i < g->nwls; i++)
		workload_free(&g->wls[i]);
	free(g->wls);
	strlist_free(&g->digests);
	board_free(&g->board);
}
