#include "run/planner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/catalog.h"
#include "deploy/dut.h"
#include "measure/crosscheck.h"
#include "run/estimate.h"
#include "run/pool.h"
#include "store/store.h"
#include "util/util.h"

/* The two kinds of workload, in the order they run: UDP the DUT sends at
 * an unlimited rate, then the others (TCP, what the host sends; a UDP run
 * after TCP in a boot spread wider, run/planner.h). */
enum phase { PHASE_DUT_PACED, PHASE_OTHERS, NPHASES };

/* The plan's decided sessions a candidate's expected runs are the mean of
 * (struct expectation). */
enum { RECENT_SESSIONS = 5 };

/* Threads runnable now besides the caller, from /proc/loadavg's
 * "running/total" field, the mean of ten looks 50 ms apart: what the
 * host is doing now, where the 1-minute load average still counts the
 * kernel builds that just ended (1 board on 2 idle cores, measured). */
static double busy_threads(void)
{
	double sum = 0;
	int looks = 0;
	for (int i = 0; i < 10; i++) {
		FILE *f = fopen("/proc/loadavg", "r");
		int running = 0;
		if (f && fscanf(f, "%*s %*s %*s %d/", &running) == 1 && running >= 1) {
			sum += running - 1;
			looks++;
		}
		if (f)
			fclose(f);
		if (i < 9)
			usleep(50000);
	}
	return looks ? sum / looks : 0;
}

int planner_jobs(const struct plan *p, int want)
{
	if (p->timing == TIMING_REALTIME)
		return 1;
	if (want > 0)
		return want;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int jobs = (int)(cores - (long)(busy_threads() + 0.5));
	return jobs < 1 ? 1 : jobs;
}

/* baseline if the plan has it, else its first strategy: the reports' rule. */
static const char *reference_of(const struct plan *p)
{
	for (size_t i = 0; i < p->strategies.n; i++)
		if (!strcmp(p->strategies.v[i], "baseline"))
			return p->strategies.v[i];
	return p->strategies.v[0];
}

/* --resume: the session to go on with, which must have run this plan. */
static int resume_session(struct store *s, const struct plan *p, const char *want,
			  char session[40])
{
	char plan[256];
	if (strcmp(want, "latest"))
		snprintf(session, 40, "%s", want);
	else if (store_latest_session(s, session, 40) < 0) {
		hb_err("--resume latest: the store %s has no runs yet", store_dir(s));
		return -1;
	}
	if (store_session_plan(s, session, plan, sizeof(plan)) < 0 || strcmp(plan, p->name)) {
		hb_err("--resume %s: no session of plan '%s' in %s; `hilbench show` lists the "
		       "sessions", session, p->name, store_dir(s));
		return -1;
	}
	return 0;
}

/* The plan's workloads of one phase, in its order; 1 when every one of
 * them keeps its numbers beside another board in the plan's timing
 * on board b (measure/crosscheck.h, crosscheck_shares_host()), else 0. */
static int phase_workloads(const struct plan *p, const struct board *b, enum phase ph,
			   struct strlist *out)
{
	int shared = p->timing == TIMING_VIRTUAL;
	for (size_t i = 0; i < p->workloads.n; i++) {
		struct workload w;
		if (catalog_workload(p->workloads.v[i], &w) < 0)
			continue;	/* gate_loop_load() said so already */
		if ((crosscheck_pacing(&w) == PACED_BY_DUT) == (ph == PHASE_DUT_PACED)) {
			strlist_push(out, p->workloads.v[i]);
			shared &= crosscheck_shares_host(&w, board_peer_held(b));
		}
		workload_free(&w);
	}
	return shared;
}

/* Runs the rest is expected to take: each (candidate, phase) not judged
 * yet as many as it took on average the plan's last RECENT_SESSIONS times
 * it was decided (a strategy in two modes took one TCP DUT-TX run in one
 * session and five in the next, bench39 in docs/measurements.md, so one
 * session's count alone was 5x off); never run before, as many
 * as a candidate alike the reference would take until a candidate of the
 * phase is judged, then as many as the judged ones took (the strategies
 * differ: with the futility rule a candidate alike the reference ends its
 * TCP DUT-TX in a run or two where one 5-20 % off took up to the cap, and
 * the alike count said 52 runs of 63, docs/measurements.md); without
 * either, the least a candidate can take. */
struct expectation {
	size_t judged[NPHASES];
	int runs[NPHASES];	/* the judged ones' */
	unsigned char *unit_done;	/* [cell * NPHASES + phase]: judged */
	size_t workloads[NPHASES];
	int reference_left;	/* the reference's runs not made yet */
	double *last_runs;	/* [cell * NPHASES + phase]: the plan's last times, or a
				 * candidate alike the reference; 0: unknown */
	int alike;		/* last_runs are the alike ones (no last time) */
	/* [cell * NPHASES + phase]: a unit being judged, from its own runs so
	 * far (estimate_runs_open()); 0: none made yet */
	double *open_runs;
	/* with no last time, the order of the units: per phase the runs a
	 * candidate changed by half its metrics' thresholds would take, as
	 * unsure a count as the phase's noise makes it (plan_units()) */
	double order_runs[NPHASES];
	int beside;		/* phases [0, beside) are judged beside each other */
	int shared[NPHASES];	/* a phase's runs share the host (phase_workloads()) */
	int done[NPHASES];	/* the candidates' runs of each phase so far (follow()) */
	double guess_s[NPHASES];	/* a phase's run (run/estimate.h); <= 0: not known */
	/* a run past a unit's first boot: a boot of one run
	 * (estimate_one_run_boot_s()); <= 0: not known */
	double extra_s[NPHASES];
};

/* The bar's lanes (run/progress.h): the reference's runs; the
 * candidates' of each phase. A lane a phase where the phases' runs cost
 * unalike: judged beside each other on a board whose TCP runs need the
 * host alone, the DUT-paced runs come first and end two at a time, the
 * TCP runs after them one at a time, so a lane's mean over both was the
 * DUT-paced runs' at the middle of the plan, and the ETA there 18-32 %
 * short with a stored reference (docs/measurements.md, "Boots beside a
 * TCP run, and the ETA's lanes"). Where every phase's runs share the
 * host, all go two at a time and one lane holds them: a look's runs
 * land together, and a lane each gave the first of them the look's
 * time and the other lane's none (the ETA 69 % short, "An idle DUT's
 * clock held for the host"). */
enum { LANE_REFERENCE, LANE_FIRST_PHASE };

static int lane_of(const struct expectation *e, enum phase ph)
{
	int one_lane = e->beside == NPHASES && e->shared[PHASE_DUT_PACED] &&
		       e->shared[PHASE_OTHERS];
	return LANE_FIRST_PHASE + (one_lane ? 0 : (int)ph);
}

/* The runs candidate i's workloads of phase ph are expected to take (the
 * rule of struct expectation): being judged, what its own runs say; else
 * the plan's recent sessions' mean, or a candidate's alike the reference's
 * until one of the phase is judged; else the mean of the judged ones, or
 * with none the fewest a candidate can take. */
static double unit_runs(const struct planner *pl, const struct expectation *e, size_t i,
			enum phase ph)
{
	double open = e->open_runs ? e->open_runs[i * NPHASES + (size_t)ph] : 0;
	if (open > 0)
		return open;
	double last = e->last_runs && !(e->alike && e->judged[ph])
			      ? e->last_runs[i * NPHASES + (size_t)ph] : 0;
	if (last > 0)
		return last;
	return e->judged[ph] ? (double)e->runs[ph] / (double)e->judged[ph]
			     : (double)(pl->plan->gate.first_repetitions * (int)e->workloads[ph]);
}

/* A phase's runs by their price, what is left and what was done: a
 * unit's first boot runs each of the phase's workloads once, those runs
 * sharing the boot (first); a run past them is a boot of one run (extra).
 * Priced alike, the extras a lane made first (a candidate in two modes
 * goes on while the others start) made the runs left, mostly first
 * boots, 22-23 % dearer than they came (bench69, bench71:
 * docs/measurements.md, "A look past the first boot"). */
struct phase_runs {
	double want;			/* all the units not judged yet will take */
	double left_first, left_extra;
	double done_first, done_extra;
};

static struct phase_runs phase_runs(const struct planner *pl, const struct expectation *e,
				    enum phase ph)
{
	struct phase_runs r = { 0 };
	double nw = (double)e->workloads[ph], first = 0;
	int with_runs = 0;
	for (size_t i = 0; i < pl->ncells; i++) {
		size_t at = i * NPHASES + (size_t)ph;
		if (e->unit_done[at])
			continue;
		double runs = unit_runs(pl, e, i, ph);
		r.want += runs;
		first += fmin(runs, nw);
		with_runs += e->open_runs && e->open_runs[at] > 0;
	}
	/* the judged units' runs, then those of the units still open */
	double judged_first = fmin((double)e->runs[ph], (double)e->judged[ph] * nw);
	double open_done = fmax(0, (double)(e->done[ph] - e->runs[ph]));
	double open_first = fmin(open_done, with_runs * nw);
	r.done_first = judged_first + open_first;
	r.done_extra = (double)e->runs[ph] - judged_first + open_done - open_first;
	r.left_first = fmax(0, first - open_first);
	r.left_extra = fmax(0, r.want - first - (open_done - open_first));
	return r;
}

/* Until a lane has measured its own runs, one of them is taken to cost
 * what the reference's runs say a boot and its workloads cost
 * (price_phases()), else a reference run's wall time; one of a phase
 * whose runs share the host divided among the boards beside each other
 * (a run of UDP the host sends has the host alone: run/executor.h). Once
 * it has, the runs left cost its mean times what they are priced at
 * against what its runs so far were (progress_lane_mix()). */
static void expect(struct planner *pl, const struct expectation *e)
{
	struct progress *g = &pl->prog;
	double ref_s = progress_lane_mean_s(g, LANE_REFERENCE);
	int left = e->reference_left;
	if (!g->laned || !e->reference_left)
		progress_lane_expect(g, LANE_REFERENCE, e->reference_left, -1);
	else
		left = g->lanes[LANE_REFERENCE].left;
	double want[PROGRESS_LANES] = { 0 }, cost[PROGRESS_LANES] = { 0 };
	double left_n[PROGRESS_LANES] = { 0 }, had[PROGRESS_LANES] = { 0 };
	double had_cost[PROGRESS_LANES] = { 0 };
	int made[PROGRESS_LANES] = { 0 };
	for (int ph = 0; ph < NPHASES; ph++) {
		int lane = lane_of(e, (enum phase)ph);
		struct phase_runs r = phase_runs(pl, e, (enum phase)ph);
		double first = e->guess_s[ph] > 0 ? e->guess_s[ph] : ref_s;
		double extra = e->extra_s[ph] > 0 && e->guess_s[ph] > 0 ? e->extra_s[ph] : first;
		if (ph < e->beside && e->shared[ph]) {
			first /= pl->jobs;
			extra /= pl->jobs;
		}
		int priced = cost[lane] >= 0 && first > 0;
		cost[lane] = priced ? cost[lane] + r.left_first * first + r.left_extra * extra : -1;
		had_cost[lane] = priced && had_cost[lane] >= 0
					 ? had_cost[lane] + r.done_first * first + r.done_extra * extra
					 : -1;
		left_n[lane] += r.left_first + r.left_extra;
		had[lane] += r.done_first + r.done_extra;
		want[lane] += r.want;
		made[lane] += e->runs[ph];
	}
	for (int lane = LANE_FIRST_PHASE; lane < LANE_FIRST_PHASE + NPHASES; lane++) {
		/* less the runs the candidates being judged have made already */
		int n = (int)(want[lane] + 0.5) - (g->lanes[lane].done - made[lane]);
		double per = cost[lane] > 0 && left_n[lane] > 0 ? cost[lane] / left_n[lane] : -1;
		progress_lane_expect(g, lane, n, per);
		/* where phases share a lane, what is left is priced at the
		 * lane's mean scaled by the mix: TCP's runs cost less than
		 * UDP's a run, and with them first the mean alone priced the
		 * UDP runs left at TCP's (24 % short at the middle of bench62,
		 * docs/measurements.md) */
		progress_lane_mix(g, lane, per > 0 && had_cost[lane] > 0 && had[lane] > 0
						   ? per / (had_cost[lane] / had[lane])
						   : -1);
		left += n > 0 ? n : 0;
	}
	progress_expect(g, g->runs_done + left, g->builds_total);
}

/* The runs strategy took of the workloads wl, the mean over the sessions
 * that decided them; 0 when none did. */
static double runs_taken(struct store *s, char (*sessions)[40], int n, const char *strategy,
			 const struct strlist *wl)
{
	int sum = 0, decided = 0;
	for (int k = 0; k < n; k++) {
		int runs = estimate_runs_taken(s, sessions[k], strategy, wl);
		sum += runs;
		decided += runs > 0;
	}
	return decided ? (double)sum / decided : 0;
}

/* Once the reference has its runs and the phases their workloads: a run
 * of each phase priced from the reference's stored boot and run times,
 * and each candidate's runs from the plan's recent sessions, or from the
 * reference's spread when there is none (run/estimate.h). On a store that
 * had not run the plan, counting the fewest runs each candidate can take
 * expected 52 runs where 71 were made (docs/measurements.md). */
static void price_phases(struct planner *pl, struct store *s, const struct strlist wl[NPHASES],
			 struct expectation *e)
{
	const struct plan *p = pl->plan;
	struct run_costs c;
	estimate_costs(s, pl->session, pl->reference, &p->workloads, &c);
	for (int ph = 0; ph < NPHASES; ph++) {
		double boot = wl[ph].n ? estimate_boot_s(&c, &p->workloads, &wl[ph]) : -1;
		e->guess_s[ph] = boot > 0 ? boot / (double)wl[ph].n : -1;
		e->extra_s[ph] = estimate_one_run_boot_s(&c, &p->workloads, &wl[ph]);
	}
	estimate_costs_free(&c);
	char last[RECENT_SESSIONS][40];
	int before = store_last_decided_sessions(s, p->name, pl->session, last, RECENT_SESSIONS);
	int alike[NPHASES];
	for (int ph = 0; ph < NPHASES && before <= 0; ph++) {
		alike[ph] = estimate_runs_alike(s, pl->session, pl->reference, p, &wl[ph], 0);
		e->order_runs[ph] =
			estimate_runs_alike(s, pl->session, pl->reference, p, &wl[ph], 0.5);
	}
	e->alike = before <= 0;
	e->last_runs = xcalloc(pl->ncells * NPHASES + 1, sizeof(double));
	e->open_runs = xcalloc(pl->ncells * NPHASES + 1, sizeof(double));
	for (size_t i = 0; i < pl->ncells; i++)
		for (int ph = 0; ph < NPHASES; ph++)
			e->last_runs[i * NPHASES + (size_t)ph] =
				before > 0 ? runs_taken(s, last, before, pl->cells[i].strategy, &wl[ph])
					   : alike[ph];
}

/* Every strategy's kernel and userland (and the board's emulator), one at
 * a time, before any run: the gate loops then find them cached. */
static int build_all(struct planner *pl, const struct board *b)
{
	const struct plan *p = pl->plan;
	const struct exec_opts *o = &pl->opts;
	const char *series = o->series ? o->series : b->series.v[0];
	progress_expect(&pl->prog, pl->prog.runs_total, (int)p->strategies.n);
	for (size_t i = 0; i < p->strategies.n && !hb_interrupted; i++) {
		struct build_result k;
		struct userland_result u;
		struct emulator_result e;
		progress_say(&pl->prog, "%s / %s: building", b->name, p->strategies.v[i]);
		progress_build_begin(&pl->prog);
		int rc = exec_stages_of(o)->prepare(b, series, p->strategies.v[i], o, &k, &u, &e);
		progress_build_end(&pl->prog);
		if (rc)
			return rc;
		build_result_free(&k);
		userland_result_free(&u);
		emulator_result_free(&e);
	}
	return hb_interrupted ? HB_FAIL : 0;
}

/* The reference's repetitions of the workloads wl, a boot each repetition,
 * `jobs` boots at once (the executor allows that only where every one of
 * wl is DUT-paced), before any candidate: candidates judged at once then
 * do not each start them. Runs the session has already (--resume) count,
 * and in virtual time its stored runs of earlier sessions that fit (gate_loop_reference()):
 * those measure the same kernel on the same emulator as a new run would,
 * to the 0.1 % virtual time repeats to across boots (docs/measurements.md,
 * "The main job in minutes"). In real time the host of another day is not
 * this one, so the reference is measured anew. */
static int run_reference(struct planner *pl, struct store *s, const struct strlist *wl, int jobs)
{
	struct plan p = *pl->plan;
	p.workloads = *wl;
	struct exec_opts o = pl->opts;
	o.jobs = jobs;	/* the executor's boots at once (run/executor.h) */
	struct gate_loop g = { .plan = &p, .threshold_pct = NAN, .session = pl->session,
			       .reuse_reference = p.timing == TIMING_VIRTUAL &&
						  !pl->opts.fresh_reference };
	g.ref = g.cand = (struct gate_side){ .strategy = pl->reference, .opts = &o };
	int rc = gate_loop_load(&g);
	if (!rc)
		rc = gate_loop_reference(&g, s);
	gate_loop_free(&g);
	return rc;
}

/* n decisions after the cell's own. */
static void cell_append(struct planner_cell *c, const struct gate_decision *v, size_t n)
{
	if (!n)
		return;
	c->v = xrealloc(c->v, (c->n + n) * sizeof(*c->v));
	memcpy(c->v + c->n, v, n * sizeof(*v));
	c->n += n;
}

/* One candidate's gate loop over the workloads wl, on the boards spare
 * lends too (NULL: one); its decisions are appended to c. Returns the
 * loop's runs. */
static int judge(struct planner *pl, struct planner_cell *c, const struct strlist *wl,
		 struct store *s, struct pool_spare *spare)
{
	struct plan p = *pl->plan;
	p.workloads = *wl;
	struct gate_loop g = { .plan = &p, .threshold_pct = NAN, .session = pl->session,
			       .spare = spare };
	g.ref = (struct gate_side){ .strategy = pl->reference, .opts = &pl->opts };
	g.cand = (struct gate_side){ .strategy = c->strategy, .opts = &pl->opts };
	int before = pl->opts.progress->runs_done;
	int rc = gate_loop_load(&g);
	if (!rc)
		rc = gate_loop_judge(&g, s);
	if (!c->rc)
		c->rc = rc;
	c->missing |= g.missing;
	cell_append(c, g.v, g.n);
	gate_loop_free(&g);
	return pl->opts.progress->runs_done - before;
}

/* What a candidate's process hands back: its result, then n decisions. */
struct verdicts {
	int rc, missing, runs;
	size_t n;
};

/* A candidate's workloads of one phase: what one process judges. The
 * phases of a candidate are judged apart, each kind in boots of its own
 * and first in them (a UDP run after TCP in one boot spread 5x wider
 * between boots, docs/measurements.md), so they may go beside each other
 * too. */
struct unit {
	size_t cell;
	enum phase ph;
	double cost_s;			/* expected: its first boot and the runs past it */
	struct gate_decision *v;	/* its verdicts, once landed */
	size_t n;
};

struct candidate_job {
	struct planner *pl;
	const struct unit *u;
	const struct strlist *wl;	/* the unit's phase's workloads */
	const char *store_path;
	struct pool_spare *spare;	/* the boards the parent lends (run/pool.h) */
};

/* The unit's process: its own store connection, its lines without a bar
 * (the parent draws it); the verdicts through fd. It judges into a cell
 * of its own: the parent's may hold the candidate's other phase. */
static int judge_in_child(void *arg, int fd)
{
	const struct candidate_job *j = arg;
	struct planner *pl = j->pl;
	struct planner_cell c = { .strategy = pl->cells[j->u->cell].strategy };
	struct store *s = store_open(j->store_path);
	struct progress own;
	progress_start(&own);
	own.lines_only = 1;
	pl->opts.progress = &own;
	struct verdicts v;
	memset(&v, 0, sizeof(v));	/* its padding goes down the pipe too */
	if (s && !hb_interrupted)
		v.runs = judge(pl, &c, j->wl, s, j->spare);
	v.rc = s ? c.rc : HB_FAIL;
	v.missing = c.missing;
	v.n = c.n;
	int ok = write_all(fd, &v, sizeof(v)) == 0 &&
		 write_all(fd, c.v, c.n * sizeof(*c.v)) == 0;
	free(c.v);
	if (s)
		store_close(s);
	return ok ? 0 : -1;
}

/* Runs stored in the session so far, of any class: in all (-1 when the
 * read failed), and of each phase's workloads wl, in one read. */
struct session_count {
	int all, phase[NPHASES];
};
static struct session_count session_runs(struct store *s, const char *session,
					 const struct strlist wl[NPHASES])
{
	struct selection sel = { .session = session, .all_classes = 1, .no_provenance = 1 };
	struct session_count n;
	n.all = store_count_runs_by_workload(s, &sel, wl, NPHASES, n.phase);
	return n;
}

/* The bar counts the runs the session gained since *seen, each in its
 * phase's lane (lane_of(); a run of neither phase's workloads in the
 * first's); 1 when there were any. */
static int follow(struct planner *pl, struct expectation *e, struct store *s,
		  const struct strlist wl[NPHASES], struct session_count *seen)
{
	struct session_count now = session_runs(s, pl->session, wl);
	if (now.all <= seen->all)
		return 0;
	for (int ph = 0; ph < NPHASES; ph++) {
		progress_lane(&pl->prog, lane_of(e, (enum phase)ph));
		for (; now.phase[ph] > seen->phase[ph]; seen->phase[ph]++, seen->all++) {
			progress_run_end(&pl->prog, 1);
			e->done[ph]++;
		}
	}
	progress_lane(&pl->prog, lane_of(e, PHASE_DUT_PACED));
	for (; now.all > seen->all; seen->all++)
		progress_run_end(&pl->prog, 1);
	return 1;
}

/* The units started and not judged yet, each priced again from its runs
 * so far: at the middle of bench64 gating-5ms's TCP DUT-TX had made four
 * runs, still open, and was priced at the one a candidate alike the
 * reference takes (docs/measurements.md, "The ETA of a cell still open"). */
static void price_open_units(const struct planner *pl, struct expectation *e, struct store *s,
			     const struct strlist wl[NPHASES], const struct unit *u, size_t started)
{
	for (size_t k = 0; k < started && e->open_runs; k++) {
		size_t at = u[k].cell * NPHASES + (size_t)u[k].ph;
		if (e->unit_done[at])
			continue;
		int n = estimate_runs_open(s, pl->session, pl->reference,
					   pl->cells[u[k].cell].strategy, pl->plan, &wl[u[k].ph]);
		e->open_runs[at] = n > 0 ? n : 0;
	}
}

/* What the units judged beside each other tell the parent. */
struct beside {
	struct planner *pl;
	struct expectation *e;
	int rc;			/* the first unit's input error */
};

/* A unit's process ended: its verdicts kept for its cell. */
static void verdicts_landed(const struct pool_child *p, void *ctx)
{
	struct beside *b = ctx;
	struct unit *u = p->tag;
	struct planner_cell *c = &b->pl->cells[u->cell];
	struct verdicts v;
	b->e->unit_done[u->cell * NPHASES + u->ph] = 1;
	if (p->len < sizeof(v)) {
		c->rc = HB_FAIL;
		hb_err("planner: the process judging %s ended without its verdicts", c->strategy);
		return;
	}
	memcpy(&v, p->got, sizeof(v));
	size_t room = (p->len - sizeof(v)) / sizeof(*u->v);
	if (v.n && v.n <= room && p->len - sizeof(v) == v.n * sizeof(*u->v)) {
		u->v = xcalloc(v.n, sizeof(*u->v));
		memcpy(u->v, p->got + sizeof(v), v.n * sizeof(*u->v));
		u->n = v.n;
	}
	if (!c->rc)
		c->rc = v.rc;
	c->missing |= v.missing;
	b->e->runs[u->ph] += v.runs;
	b->e->judged[u->ph]++;
	if (v.rc == HB_FAIL_INPUT && !b->rc)
		b->rc = v.rc;
}

/* The plan's order: a cell's verdicts in phase order, as one process
 * judging its phases in turn would have them. */
static int by_cell_phase(const void *a, const void *b)
{
	const struct unit *x = a, *y = b;
	if (x->cell != y->cell)
		return x->cell < y->cell ? -1 : 1;
	return (int)x->ph - (int)y->ph;
}

/* Dearest first (longest processing time first: the last unit to end
 * leaves the other boards idle, so the short ones go last); the plan's
 * order among equals. */
static int by_cost(const void *a, const void *b)
{
	const struct unit *x = a, *y = b;
	if (x->cost_s != y->cost_s)
		return x->cost_s < y->cost_s ? 1 : -1;
	return by_cell_phase(a, b);
}

/* The units of the phases judged beside each other, dearest first: a
 * unit's first boot and its runs past it, each at its price (struct
 * phase_runs). Its runs are unit_runs()'s, but for a plan the store has
 * no session of: there each candidate would be priced
 * alike, at the fewest runs, and the phase whose count is least sure (TCP
 * DUT-TX's strategies in two modes: 1 to 6 runs) would come last, its
 * runs one after another beside idle boards (docs/measurements.md, "A
 * reference sized by its noise"); the runs at half a threshold's change
 * put it first. */
static size_t plan_units(const struct planner *pl, const struct strlist wl[NPHASES],
			 const struct expectation *e, struct unit *u)
{
	size_t n = 0;
	for (size_t i = 0; i < pl->ncells; i++)
		for (int ph = 0; ph < e->beside; ph++) {
			if (!wl[ph].n)
				continue;
			double runs = e->alike && e->order_runs[ph] > 0
					      ? e->order_runs[ph]
					      : unit_runs(pl, e, i, (enum phase)ph);
			double first = e->guess_s[ph] > 0 ? e->guess_s[ph] : 1;
			double extra = e->extra_s[ph] > 0 ? e->extra_s[ph] : first;
			double nw = (double)wl[ph].n;
			u[n++] = (struct unit){ .cell = i, .ph = (enum phase)ph,
						.cost_s = fmin(runs, nw) * first +
							  fmax(0, runs - nw) * extra };
		}
	qsort(u, n, sizeof(*u), by_cost);
	return n;
}

/* The candidates' units, pl->jobs at once (run/pool.h), each judged on
 * one phase's workloads; the bar follows the session's runs in the store.
 * Each cell gets its verdicts in phase order. */
static int judge_concurrently(struct planner *pl, const struct strlist wl[NPHASES], struct store *s,
			      struct expectation *e)
{
	struct pool pool = { 0 };
	struct beside b = { .pl = pl, .e = e };
	struct unit *units = xcalloc(pl->ncells * NPHASES + 1, sizeof(*units));
	size_t nunits = plan_units(pl, wl, e, units), next = 0;
	struct session_count seen = session_runs(s, pl->session, wl);
	size_t ended = 1;
	double counted = 0;
	struct pool_spare *spare = pool_spare_new();
	while ((next < nunits || pool.n) && b.rc == 0) {
		/* the verdicts landed priced in before the next line: a line
		 * with the count before them said 47 runs where 54 were
		 * expected a second later; the store's runs counted once a
		 * second else (a count reads every metric row of the session) */
		if (ended || monotonic_s() - counted >= 1) {
			if (follow(pl, e, s, wl, &seen))
				price_open_units(pl, e, s, wl, units, next);
			expect(pl, e);
			counted = monotonic_s();
		}
		while (next < nunits && pool.n < (size_t)pl->jobs && !hb_interrupted) {
			struct unit *u = &units[next];
			const char *strategy = pl->cells[u->cell].strategy;
			struct candidate_job j = { pl, u, &wl[u->ph], store_dir(s), spare };
			if (pool_start(&pool, strategy, judge_in_child, &j, u) < 0) {
				b.rc = HB_FAIL;
				break;
			}
			char *names = argv_join(&wl[u->ph], " and ");
			progress_say(&pl->prog, "%s, %s: judged beside %zu other board(s)", strategy,
				     names, pool.n - 1);
			free(names);
			next++;
		}
		if (!pool.n)
			break;
		/* with nothing left to start, the boards no unit has are lent
		 * to those still judging (run/pool.h) */
		if (next == nunits)
			pool_spare_lend(spare, pl->jobs - (int)pool.n);
		/* a tenth of a second, as the executor's flights: a board that
		 * waited up to a second for its next candidate idled 0.5 s a
		 * candidate and kind, 7 s of a plan (docs/measurements.md) */
		ended = pool_reap(&pool, verdicts_landed, &b);
		if (!ended) {
			progress_draw(&pl->prog);
			usleep(100000);
		}
	}
	/* the children see the interrupt too, store what they ran, and end */
	while (pool.n)
		if (pool_reap(&pool, verdicts_landed, &b) == 0)
			usleep(100000);
	follow(pl, e, s, wl, &seen);
	pool_free(&pool);
	pool_spare_free(spare);
	qsort(units, nunits, sizeof(*units), by_cell_phase);
	for (size_t k = 0; k < nunits; k++) {
		cell_append(&pl->cells[units[k].cell], units[k].v, units[k].n);
		free(units[k].v);
	}
	free(units);
	return b.rc;
}

/* Every decision into the session, for the reports made from the store
 * (analyze/decisions.h); -1 when the store refused one (said). */
static int store_decisions(const struct planner *pl, struct store *s)
{
	if (!pl->session[0])
		return 0;
	double alpha = pl->plan->gate.alpha;
	for (size_t i = 0; i < pl->ncells; i++)
		for (size_t k = 0; k < pl->cells[i].n; k++) {
			const struct gate_decision *d = &pl->cells[i].v[k];
			char why[96];
			planner_why(pl, &pl->cells[i], d, why, sizeof(why));
			struct decision_record r = {
				.session = pl->session, .reference = pl->reference,
				.strategy = pl->cells[i].strategy, .workload = d->workload,
				.metric = d->metric, .reference_runs = (int)d->ref.n,
				.candidate_runs = (int)d->cand.n,
				.outcome = gate_outcome_name(d->outcome), .delta_pct = d->delta_pct,
				.lo_pct = d->lo_pct, .hi_pct = d->hi_pct,
				.threshold_pct = d->threshold_pct, .alpha = alpha, .why = why,
				.movers = d->where,
			};
			if (store_put_decision(s, &r) < 0)
				return -1;
		}
	return 0;
}

/* The plan's cells against its reference, its board and workloads loaded
 * into probe, its strategies checked, the session named (resumed or new):
 * 0 (the caller then frees probe), or HB_FAIL_INPUT said (nothing to free). */
static int planner_prepare(struct planner *pl, const struct plan *p, struct store *s,
			   const struct exec_opts *o, struct gate_loop *probe)
{
	const char *where = p->path ? p->path : p->name;
	if (p->boards.n != 1) {
		hb_err("%s: 'repeat: until-decided' judges on one board, the plan names %zu; give "
		       "--board B or 'repeat: fixed'", where, p->boards.n);
		return HB_FAIL_INPUT;
	}
	pl->cells = xcalloc(p->strategies.n, sizeof(*pl->cells));
	for (size_t i = 0; i < p->strategies.n; i++)
		if (p->strategies.v[i] != pl->reference)
			pl->cells[pl->ncells++].strategy = p->strategies.v[i];
	if (!pl->ncells) {
		hb_err("%s: 'repeat: until-decided' judges strategies against %s, and the plan has "
		       "no other; add one or give 'repeat: fixed'", where, pl->reference);
		return HB_FAIL_INPUT;
	}
	*probe = (struct gate_loop){ .plan = p };
	int rc = gate_loop_load(probe);	/* the board and every workload load */
	if (!rc) {
		/* every part of the plan boots the userland the whole needs */
		pl->opts.perf_userland |= workloads_profile_perf(probe->wls, probe->nwls);
		char err[2048];
		const char *series = o->series ? o->series : probe->board.series.v[0];
		if (plan_check_strategies(p, series, NULL, err, sizeof(err)) < 0) {
			hb_err("%s", err);
			rc = HB_FAIL_INPUT;
		}
	}
	if (rc) {
		gate_loop_free(probe);
		return HB_FAIL_INPUT;
	}
	if (o->resume && resume_session(s, p, o->resume, pl->session) < 0) {
		gate_loop_free(probe);
		return HB_FAIL_INPUT;
	}
	if (!o->resume)
		store_new_id(pl->session);
	return 0;
}

/* pl set up for plan p: the gate loops judge with the gate section's
 * reference repetitions; the caller's options with the planner's bar, and
 * no --resume (the session's runs are reused by the gate loops). */
static void planner_init(struct planner *pl, const struct plan *p, const struct exec_opts *o)
{
	memset(pl, 0, sizeof(*pl));
	pl->judged = *p;
	pl->judged.repetitions = p->gate.reference_repetitions;
	pl->plan = &pl->judged;
	pl->reference = reference_of(pl->plan);
	pl->jobs = 1;	/* decided once the builds are done (run_phases()) */
	progress_start(&pl->prog);
	pl->opts = *o;
	pl->opts.resume = NULL;
	pl->opts.progress = &pl->prog;
}

/* With one board at a time there is nothing to run beside: each
 * candidate's workloads all go in one phase (the executor still gives
 * each kind boots of its own). */
static void one_phase(const struct plan *p, struct strlist wl[NPHASES], struct expectation *e,
		      size_t ncells)
{
	strlist_free(&wl[PHASE_DUT_PACED]);
	strlist_free(&wl[PHASE_OTHERS]);
	for (size_t i = 0; i < p->workloads.n; i++)
		strlist_push(&wl[PHASE_OTHERS], p->workloads.v[i]);
	e->workloads[PHASE_DUT_PACED] = 0;
	e->workloads[PHASE_OTHERS] = p->workloads.n;
	e->judged[PHASE_DUT_PACED] = ncells;
	for (size_t i = 0; i < ncells; i++)
		e->unit_done[i * NPHASES + PHASE_DUT_PACED] = 1;
}

/* The candidates' workloads of the other phase, one candidate at a time. */
static int judge_in_turn(struct planner *pl, const struct strlist *wl, struct store *s,
			 struct expectation *e)
{
	for (size_t i = 0; wl->n && i < pl->ncells && !hb_interrupted; i++) {
		expect(pl, e);
		e->runs[PHASE_OTHERS] += judge(pl, &pl->cells[i], wl, s, NULL);
		e->judged[PHASE_OTHERS]++;
		e->unit_done[i * NPHASES + PHASE_OTHERS] = 1;
		if (pl->cells[i].rc == HB_FAIL_INPUT)
			return HB_FAIL_INPUT;
	}
	return 0;
}

/* The phases the candidates are judged in beside each other: none with
 * one board at a time; the DUT-paced one; and the other one too where its
 * runs share the host (none of the plan's do now: measure/crosscheck.h), or
 * where the board's backend can hold an emulator while a run that cannot
 * share has the host alone (run/executor.h). Elsewhere those run one
 * candidate at a time: TCP's and the host-sent UDP's rates move with the
 * host's load. */
static int phases_beside(const struct planner *pl, const struct board *b,
			 const struct strlist wl[NPHASES], const struct expectation *e)
{
	const struct deploy_ops *ops = deploy_backend(b->backend);
	if (pl->jobs <= 1 || !wl[PHASE_DUT_PACED].n)
		return 0;
	return (ops && ops->hold) || e->shared[PHASE_OTHERS] ? NPHASES : PHASE_DUT_PACED + 1;
}

/* The build, the reference's runs, then the candidates: those of the
 * phases beside each other on pl->jobs boards, the others one at a time. */
static int run_phases(struct planner *pl, const struct board *b, struct store *s,
		      struct strlist wl[NPHASES], struct expectation *e)
{
	int rc = build_all(pl, b);
	if (!rc) {
		/* the host as the runs find it, the builds' load gone */
		pl->jobs = planner_jobs(pl->plan, pl->opts.jobs);
		/* the gate loops' boots one at a time but where run_reference()
		 * asks for more: the candidates beside each other are the boards */
		pl->opts.jobs = 1;
		progress_say(&pl->prog, "%d board(s) at once", pl->jobs);
	}
	progress_lane(&pl->prog, LANE_REFERENCE);
	e->beside = phases_beside(pl, b, wl, e);
	/* the reference's boots (a kind of workload each) all beside each
	 * other where the candidates' are, one flight after another with no
	 * wait between the kinds; else its DUT-paced workloads beside each
	 * other first, then the others one boot at a time */
	if (!rc && !hb_interrupted && e->beside == PHASE_DUT_PACED + 1)
		rc = run_reference(pl, s, &wl[PHASE_DUT_PACED], pl->jobs);
	if (!rc && !hb_interrupted)
		rc = run_reference(pl, s, &pl->plan->workloads, e->beside == NPHASES ? pl->jobs : 1);
	e->reference_left = 0;
	if (!e->beside)
		one_phase(pl->plan, wl, e, pl->ncells);
	if (!rc) {
		price_phases(pl, s, wl, e);
		expect(pl, e);
	}
	if (!rc && e->beside)
		rc = judge_concurrently(pl, wl, s, e);
	progress_lane(&pl->prog, lane_of(e, PHASE_OTHERS));
	if (!rc && e->beside < NPHASES)
		rc = judge_in_turn(pl, &wl[PHASE_OTHERS], s, e);
	return rc;
}

int planner_run(struct planner *pl, const struct plan *p, struct store *s,
		const struct exec_opts *o)
{
	planner_init(pl, p, o);
	p = pl->plan;
	struct gate_loop probe;
	if (planner_prepare(pl, p, s, o, &probe) < 0)
		return HB_FAIL_INPUT;
	pl->opts.session = pl->session;
	struct strlist wl[NPHASES] = { 0 };
	struct expectation e = { .reference_left = gate_loop_reference_runs(&probe) };
	e.unit_done = xcalloc(pl->ncells * NPHASES, 1);
	for (int ph = 0; ph < NPHASES; ph++) {
		e.shared[ph] = phase_workloads(p, &probe.board, ph, &wl[ph]);
		e.workloads[ph] = wl[ph].n;
	}
	hb_info("session %s: plan %s, %s time: %zu strategies against %s, runs until decided "
		"(%d of the reference over its workloads, then %d to %d a side per workload)",
		pl->session, p->name, timing_mode_name(p->timing), pl->ncells, pl->reference,
		e.reference_left,
		p->gate.first_repetitions, p->gate.max_repetitions);
	expect(pl, &e);
	int rc = run_phases(pl, &probe.board, s, wl, &e);
	free(e.last_runs);
	free(e.open_runs);
	free(e.unit_done);
	gate_loop_free(&probe);
	strlist_free(&wl[PHASE_DUT_PACED]);
	strlist_free(&wl[PHASE_OTHERS]);
	progress_expect(&pl->prog, pl->prog.runs_done, pl->prog.builds_total);
	progress_end(&pl->prog);
	if (rc == HB_FAIL_INPUT)
		return rc;
	int infra = store_decisions(pl, s) < 0 || rc != 0;
	for (size_t i = 0; i < pl->ncells; i++)
		infra |= pl->cells[i].rc != 0 || pl->cells[i].missing;
	return hb_interrupted || infra ? HB_FAIL : 0;
}

void planner_why(const struct planner *pl, const struct planner_cell *c,
		 const struct gate_decision *d, char *out, size_t len)
{
	const struct plan *p = pl->plan;
	int last = d->max_looks;
	size_t cap = (size_t)p->gate.max_repetitions;
	if (d->outcome != GATE_INCONCLUSIVE && d->outcome != GATE_OPEN)
		snprintf(out, len, "decided at look %d of %d", d->looks, last);
	else if (d->futile)
		snprintf(out, len, "futile at look %d of %d: %.0f %% chance the cap decides",
			 d->looks, last, 100 * d->decide_chance);
	else if (d->ref.n >= cap && d->cand.n >= cap)
		snprintf(out, len, "cap: %zu runs a side", cap);
	else if (d->looks >= last)
		snprintf(out, len, "all %d looks made", last);
	else if (c->missing)
		snprintf(out, len, "runs kept failing: attempts used up");
	else
		snprintf(out, len, "stopped early (interrupted, or the candidate's DUT failed)");
}

void planner_print(const struct planner *pl, FILE *out)
{
	for (size_t i = 0; i < pl->ncells; i++) {
		const struct planner_cell *c = &pl->cells[i];
		if (!c->n)
			fprintf(out, "%s: not judged: %s\n", c->strategy,
				c->rc == HB_FAIL_INPUT ? "bad input (see the error above)"
				: c->rc ? "a build or the store failed (see the errors above)"
					: "not reached (interrupted, or an earlier step failed)");
	}
	fprintf(out, "%d runs, %d builds, %.0f s, up to %d board(s) at once\n", pl->prog.runs_done,
		pl->prog.builds_done, monotonic_s() - pl->prog.t0, pl->jobs);
}

void planner_free(struct planner *pl)
{
	for (size_t i = 0; i < pl->ncells; i++)
		free(pl->cells[i].v);
	free(pl->cells);
	pl->cells = NULL;
	pl->ncells = 0;
}
