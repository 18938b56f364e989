/* planner: compare's runs-until-decided plan driven over the doubles of
 * run_double.h (a test double of the board's deploy backend; builds and
 * runs that only pretend) with plans/default.yaml's gate section and a
 * real store: every strategy is built first; the reference gets the
 * plan's repetitions once, fewer of a workload whose metrics need fewer
 * (its boots shared), and the candidates share them; a slower
 * candidate is a regression and an equal one passes, each after fewer runs
 * than the cap; a noisy one stops at the cap, inconclusive, or before it
 * by the plan's futility rule; every run is in
 * one session; a workload no metric judges runs once a side; the table
 * says per decision how many runs it took and why
 * it stopped, and the error rate; the progress counts match the runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/decisions.h"
#include "analyze/gate.h"
#include "config/catalog.h"
#include "run/planner.h"
#include "run_double.h"
#include "util/util.h"

static char dir[64];
static struct store *st;
static struct plan plan;
/* one board at a time: the doubles count boots in this process */
static const struct exec_opts opts = { .stages = &double_stages, .jobs = 1 };

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hb-test-planner-XXXXXX");
	st = double_setup(dir);
	if (!st || catalog_plan("default", &plan) < 0)
		return -1;
	plan_gate_for_timing(&plan);	/* as compare's options do */
	/* two workloads, a UDP and a TCP one, keep the runs countable */
	strlist_free(&plan.workloads);
	strlist_push(&plan.workloads, "udp64-dut-tx");
	strlist_push(&plan.workloads, "tcp-dut-tx");
	strlist_free(&plan.strategies);
	strlist_push(&plan.strategies, "baseline");
	strlist_push(&plan.strategies, "revert");
	strlist_push(&plan.strategies, "is-queued");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	deploy_substitute(NULL);
	plan_free(&plan);
	store_close(st);
	return rm_rf(dir);
}

/* revert 20 % slower, the others alike, each 0.1 % around its rate. */
static double revert_slower(const char *strategy, size_t run)
{
	double base = strcmp(strategy, "revert") ? 100 : 80;
	return base * (1 + 0.001 * ((double)(run % 3) - 1));
}

/* Every run up to 20 % off, in a cycle of 5 that the runs of one workload
 * (every other run, or every run) go through too: no verdict within the cap. */
static double noisy(const char *strategy, size_t run)
{
	(void)strategy;
	return 100 * (1 + 0.1 * (double)((int)(run * 7 % 5) - 2));
}

static size_t boots_of(const char *strategy)
{
	size_t n = 0;
	for (size_t i = 0; i < dbl.started && i < DOUBLE_MAX; i++)
		n += !strcmp(dbl.booted[i], strategy);
	return n;
}

/* The reference's runs of a workload before its first look: the gate
 * section's, fewer where its metrics need fewer (analyze/gate.h). */
static size_t reference_runs(const char *workload)
{
	struct workload w;
	assert_int_equal(catalog_workload(workload, &w), 0);
	int n = gate_reference_runs(&plan.gate, plan.gate.reference_repetitions, &w, plan.timing);
	workload_free(&w);
	return (size_t)n;
}

static const struct gate_decision *find(const struct planner *pl, const char *strategy,
					const char *workload, const char *metric)
{
	for (size_t i = 0; i < pl->ncells; i++)
		for (size_t k = 0; k < pl->cells[i].n; k++) {
			const struct gate_decision *d = &pl->cells[i].v[k];
			if (!strcmp(pl->cells[i].strategy, strategy) &&
			    !strcmp(d->workload, workload) && !strcmp(d->metric, metric))
				return d;
		}
	fail_msg("no decision for %s %s %s", strategy, workload, metric);
	return NULL;
}

/* Stored runs of a session that passed. */
static int count_run(const struct run_row *r, void *ctx)
{
	(void)r;
	++*(size_t *)ctx;
	return 0;
}

/* Of one strategy and workload, or (NULL) of any. */
static size_t runs_of(const char *session, const char *strategy, const char *workload)
{
	size_t n = 0;
	struct strlist m = { 0 };
	strlist_push(&m, "mbps");	/* one row per run */
	struct selection sel = { .session = session, .strategy = strategy,
				 .workload = workload, .metrics = &m };
	assert_int_equal(store_foreach(st, &sel, count_run, &n), 0);
	strlist_free(&m);
	return n;
}

static size_t runs_in(const char *session)
{
	return runs_of(session, NULL, NULL);
}

/* The candidates' runs of a workload in a session. */
static size_t candidates_runs(const char *session, const char *workload)
{
	return runs_of(session, "revert", workload) + runs_of(session, "is-queued", workload);
}

/* Each phase's runs were counted in the bar's lane of that phase
 * (run/planner.c: 0 the reference's, 1 the DUT-paced phase's, 2 the
 * others'), whether judged beside each other or in turn; or, where every
 * phase's runs share the host (one_lane), all the candidates' in 1. */
static void assert_lanes(const struct planner *pl, int one_lane)
{
	size_t udp = candidates_runs(pl->session, "udp64-dut-tx");
	size_t tcp = candidates_runs(pl->session, "tcp-dut-tx");
	assert_int_equal((size_t)pl->prog.lanes[0].done, runs_of(pl->session, "baseline", NULL));
	assert_int_equal((size_t)pl->prog.lanes[1].done, one_lane ? udp + tcp : udp);
	assert_int_equal((size_t)pl->prog.lanes[2].done, one_lane ? 0 : tcp);
}

static void candidates_are_decided_against_a_shared_reference(void **state)
{
	(void)state;
	dbl.mbps = revert_slower;
	struct planner pl;
	assert_int_equal(planner_run(&pl, &plan, st, &opts), 0);
	assert_string_equal(pl.reference, "baseline");
	assert_int_equal(pl.ncells, 2);
	/* every strategy built before the first boot, counted by the bar */
	assert_int_equal(pl.prog.builds_done, 3);
	const struct gate_decision *d = find(&pl, "revert", "udp64-dut-tx", "pps");
	assert_int_equal(d->outcome, GATE_REGRESSED);
	assert_true(d->cand.n < (size_t)plan.gate.max_repetitions);
	assert_int_equal(find(&pl, "revert", "tcp-dut-tx", "mbps_acked")->outcome, GATE_REGRESSED);
	/* TCP DUT-TX's rate as delivered is taken to spread 2 % a run
	 * (plans/gate.yaml): an unchanged one passes on one run */
	const struct gate_decision *tcp = find(&pl, "is-queued", "tcp-dut-tx", "mbps_acked");
	assert_int_equal(tcp->outcome, GATE_PASS);
	assert_true(!tcp->futile && tcp->cand.n == 1);
	/* the reference's runs are measured once and judged with both, as
	 * many of each workload as its metrics need (plans/gate.yaml: fewer of
	 * UDP than of TCP DUT-TX), a boot per repetition and kind */
	size_t udp = reference_runs("udp64-dut-tx"), tcp_tx = reference_runs("tcp-dut-tx");
	assert_true(udp < tcp_tx && tcp_tx == (size_t)plan.gate.reference_repetitions);
	assert_int_equal(find(&pl, "is-queued", "udp64-dut-tx", "pps")->ref.n, udp);
	assert_int_equal(find(&pl, "is-queued", "tcp-dut-tx", "mbps_acked")->ref.n, tcp_tx);
	assert_int_equal(boots_of("baseline"), udp + tcp_tx);
	/* the looks follow the reference's runs of the workload */
	assert_int_equal(d->max_looks, gate_max_looks(&plan.gate, (int)udp));
	assert_int_equal(tcp->max_looks, gate_max_looks(&plan.gate, (int)tcp_tx));
	/* a boot per repetition and kind: here one workload each */
	assert_int_equal(dbl.started, dbl.ran);
	/* one session holds them all, and the bar counted each */
	assert_int_equal(runs_in(pl.session), dbl.ran);
	assert_int_equal(pl.prog.runs_done, (int)dbl.ran);
	assert_int_equal(pl.prog.runs_total, pl.prog.runs_done);

	char why[96], want[96];
	planner_why(&pl, &pl.cells[0], d, why, sizeof(why));
	snprintf(want, sizeof(want), "decided at look 1 of %d", d->max_looks);
	assert_string_equal(why, want);
	/* the decisions are in the store, for every report of the session */
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct selection sel = { .session = pl.session };
	assert_int_equal(decisions_write(st, &sel, NULL, SECTION_TEXT, out), 0);
	fclose(out);
	assert_non_null(strstr(text, "| revert | udp64-dut-tx | pps | "));
	assert_non_null(strstr(text, "| REGRESSED |"));
	assert_non_null(strstr(text, "decided at look"));
	assert_non_null(strstr(text, "with chance at most 0.05 over all its looks"));
	free(text);
	/* and the planner's own lines: the totals */
	out = open_memstream(&text, &len);
	planner_print(&pl, out);
	fclose(out);
	assert_non_null(strstr(text, " runs, 3 builds, "));
	free(text);
	planner_free(&pl);
}

/* revert against baseline, every run noisy; revert's UDP pps decision */
static const struct gate_decision *revert_on_noise(struct planner *pl)
{
	dbl.mbps = noisy;
	strlist_free(&plan.strategies);
	strlist_push(&plan.strategies, "baseline");
	strlist_push(&plan.strategies, "revert");
	assert_int_equal(planner_run(pl, &plan, st, &opts), 0);
	return find(pl, "revert", "udp64-dut-tx", "pps");
}

static void a_noisy_candidate_stops_at_the_cap(void **state)
{
	(void)state;
	plan.gate.futility = 0;
	struct planner pl;
	const struct gate_decision *d = revert_on_noise(&pl);
	assert_int_equal(d->outcome, GATE_INCONCLUSIVE);
	assert_int_equal(d->cand.n, plan.gate.max_repetitions);
	assert_int_equal(d->ref.n, plan.gate.max_repetitions);
	char why[96];
	planner_why(&pl, &pl.cells[0], d, why, sizeof(why));
	assert_string_equal(why, "cap: 6 runs a side");
	planner_free(&pl);
}

/* With the plan's futility rule the same noise ends the decisions long
 * before the cap, inconclusive, and the reason says so. */
static void a_futile_decision_stops_before_the_cap(void **state)
{
	(void)state;
	assert_true(plan.gate.futility > 0);
	struct planner pl;
	const struct gate_decision *d = revert_on_noise(&pl);
	assert_int_equal(d->outcome, GATE_INCONCLUSIVE);
	assert_true(d->futile);
	assert_true(d->cand.n < (size_t)plan.gate.max_repetitions);
	char why[96];
	planner_why(&pl, &pl.cells[0], d, why, sizeof(why));
	assert_non_null(strstr(why, "futile at look "));
	assert_non_null(strstr(why, " % chance the cap decides"));
	planner_free(&pl);
}

/* is-queued 1 % slower, on the UDP threshold (it takes runs until the
 * cap or futility), revert 20 % slower */
static double is_queued_on_threshold(const char *strategy, size_t run)
{
	return revert_slower(strategy, run) * (strcmp(strategy, "is-queued") ? 1 : 0.99);
}

/* revert (20 % slower) against baseline on UDP alone, on `jobs` boards:
 * its decision, a regression at the first look. */
static const struct gate_decision *lone_revert(struct planner *pl, int jobs)
{
	strlist_free(&plan.workloads);
	strlist_push(&plan.workloads, "udp64-dut-tx");
	strlist_free(&plan.strategies);
	strlist_push(&plan.strategies, "baseline");
	strlist_push(&plan.strategies, "revert");
	dbl.mbps = revert_slower;
	struct exec_opts o = opts;
	o.jobs = jobs;
	assert_int_equal(planner_run(pl, &plan, st, &o), 0);
	const struct gate_decision *d = find(pl, "revert", "udp64-dut-tx", "pps");
	assert_int_equal(d->outcome, GATE_REGRESSED);
	assert_int_equal(d->looks, 1);
	assert_int_equal(runs_of(pl->session, "revert", NULL), d->cand.n);
	assert_int_equal((size_t)pl->prog.runs_done, runs_in(pl->session));
	return d;
}

/* One unit left to judge on two boards: the board no unit has is lent to
 * it, so the runs of its look go two at once; on one board, one. */
static void a_lone_candidate_borrows_the_idle_board(void **state)
{
	(void)state;
	struct planner pl;
	assert_int_equal(lone_revert(&pl, 1)->cand.n, 1);
	planner_free(&pl);
	assert_int_equal(lone_revert(&pl, 2)->cand.n, 2);
	planner_free(&pl);
}

/* The plan with revert 20 % slower on two boards at once into pl: its
 * verdicts are those of one board at a time, every run of the session
 * counted by the bar (the children's from the store). */
static void judge_on_two_boards(struct planner *pl)
{
	dbl.mbps = revert_slower;
	struct exec_opts two = opts;
	two.jobs = 2;
	assert_int_equal(planner_run(pl, &plan, st, &two), 0);
	assert_int_equal(pl->jobs, 2);
	assert_int_equal(find(pl, "revert", "udp64-dut-tx", "pps")->outcome, GATE_REGRESSED);
	assert_int_equal(find(pl, "is-queued", "udp64-dut-tx", "mbps")->outcome, GATE_PASS);
	assert_int_equal(find(pl, "revert", "tcp-dut-tx", "mbps_acked")->outcome, GATE_REGRESSED);
	assert_int_equal(find(pl, "is-queued", "tcp-dut-tx", "mbps_acked")->outcome, GATE_PASS);
	assert_int_equal((size_t)pl->prog.runs_done, runs_in(pl->session));
}

/* Two boards at once: each candidate's UDP workload in a process of its
 * own (the doubles' counts stay there); its TCP one, which needs the host
 * alone on a board whose idle DUT's clock is not held for the host
 * (measure/crosscheck.h; this one waits in real time, icount sleep=on)
 * and a backend that cannot hold a DUT cannot give it so, one candidate at
 * a time in this process; the verdicts are those of one board at a time,
 * every run in the session. */
static void concurrent_candidates_reach_the_same_verdicts(void **state)
{
	(void)state;
	char *board = xasprintf("%s/tests/data/boards/qemu-orangepi-pc-sleep.yaml",
				getenv("HILBENCH_HOME"));
	strlist_free(&plan.boards);
	strlist_push(&plan.boards, board);
	free(board);
	struct planner pl;
	judge_on_two_boards(&pl);
	/* no candidate booted its UDP workload in this process: the two
	 * boots here are their TCP ones */
	assert_int_equal(boots_of("revert") + boots_of("is-queued"), 2);
	assert_lanes(&pl, 0);
	planner_free(&pl);
}

/* On the default board, whose idle DUT's clock waits for the host's frames
 * (deploy.qemu.peer_hold_us), the TCP workload shares the host: every
 * candidate's units go in processes of their own, even on a backend that
 * cannot hold a DUT, with the same verdicts. */
static void where_the_clock_is_held_tcp_is_judged_beside(void **state)
{
	(void)state;
	struct planner pl;
	judge_on_two_boards(&pl);
	assert_int_equal(boots_of("revert") + boots_of("is-queued"), 0);
	assert_lanes(&pl, 1);
	planner_free(&pl);
}

/* Where in what planner_run() said its candidates' processes started
 * (progress_say()'s "S, W...: judged beside N other board(s)"), the first
 * of `unit`'s ("S," or "S, W:"); -1 for none. */
static long started_at(const char *said, const char *unit)
{
	char *what = xasprintf("] %s", unit);	/* after the bar's counts */
	const char *at = strstr(said, what);
	free(what);
	return at ? at - said : -1;
}

/* planner_run() into pl, which must succeed: what it said on stderr. */
static char *run_said(struct planner *pl, const struct exec_opts *o)
{
	char *path = path_join(dir, "said");
	fflush(stderr);
	int saved = dup(2), fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, 2);
	close(fd);
	int rc = planner_run(pl, &plan, st, o);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	assert_int_equal(rc, 0);
	char *said = read_file(path, NULL);
	assert_non_null(said);
	free(path);
	return said;
}

/* The second session starts the dearest of the candidates' processes
 * first, by the runs the first took: is-queued's, which the plan's order
 * (revert first) would start last; the longest last would leave the other
 * board idle. */
static void the_dearest_candidate_starts_first(void **state)
{
	(void)state;
	dbl.mbps = is_queued_on_threshold;
	struct exec_opts two = opts;
	two.jobs = 2;
	struct planner pl;
	assert_int_equal(planner_run(&pl, &plan, st, &two), 0);
	planner_free(&pl);
	char *said = run_said(&pl, &two);
	long queued = started_at(said, "is-queued,"), revert = started_at(said, "revert,");
	assert_true(queued >= 0 && revert >= 0);
	assert_true(queued < revert);
	assert_int_equal(find(&pl, "revert", "udp64-dut-tx", "pps")->outcome, GATE_REGRESSED);
	free(said);
	planner_free(&pl);
}

/* On a store without a session of the plan every candidate is priced
 * alike, and the units go in the order of how unsure their run count is:
 * TCP DUT-TX, whose runs the gate takes to spread 2 % against 10 %, before
 * UDP, whose spread is a hundredth of its threshold; the UDP units, one
 * run each, fill the end. */
static void with_no_history_the_unsure_units_start_first(void **state)
{
	(void)state;
	dbl.mbps = revert_slower;
	struct exec_opts two = opts;
	two.jobs = 2;
	struct planner pl;
	char *said = run_said(&pl, &two);
	/* the units in the order they started: both TCP ones, then UDP's */
	long tcp[2] = { started_at(said, "revert, tcp-dut-tx:"),
			started_at(said, "is-queued, tcp-dut-tx:") },
	     udp[2] = { started_at(said, "revert, udp64-dut-tx:"),
			started_at(said, "is-queued, udp64-dut-tx:") };
	for (int i = 0; i < 4; i++)
		assert_true((i < 2 ? tcp : udp)[i % 2] >= 0);
	assert_true(tcp[0] < udp[0] && tcp[0] < udp[1] && tcp[1] < udp[0] && tcp[1] < udp[1]);
	assert_int_equal(find(&pl, "revert", "udp64-dut-tx", "pps")->outcome, GATE_REGRESSED);
	free(said);
	planner_free(&pl);
}

/* A candidate's runs are priced by the mean of the plan's recent
 * sessions, not the last one alone: is-queued took runs to the cap, then
 * one (decided at once), so the third session still starts it first;
 * by the last session alone it would tie with revert's one and start
 * after it, in the plan's order. */
static void a_candidate_is_priced_by_its_recent_sessions(void **state)
{
	(void)state;
	struct exec_opts two = opts;
	two.jobs = 2;
	struct planner pl;
	dbl.mbps = is_queued_on_threshold;
	assert_int_equal(planner_run(&pl, &plan, st, &two), 0);
	planner_free(&pl);
	dbl.mbps = revert_slower;	/* is-queued as the reference */
	assert_int_equal(planner_run(&pl, &plan, st, &two), 0);
	assert_int_equal(find(&pl, "is-queued", "udp64-dut-tx", "pps")->cand.n, 1);
	planner_free(&pl);
	char *said = run_said(&pl, &two);
	long queued = started_at(said, "is-queued,"), revert = started_at(said, "revert,");
	assert_true(queued >= 0 && revert >= 0);
	assert_true(queued < revert);
	free(said);
	planner_free(&pl);
}

static void double_hold(struct dut *d, int on)
{
	(void)d, (void)on;
}

/* double_ops as a backend that can hold a DUT while a host-paced run has
 * the host alone (run/executor.h's turns, over util/lock.h's files in the
 * test's cache). */
static const struct deploy_ops double_hold_ops = {
	.name = "qemu", .start = double_start, .stop = double_stop, .version = double_version,
	.hold = double_hold,
};

/* A backend that holds: the same, and the reference's runs too go on two
 * boards. */
static void with_a_backend_that_holds_every_workload_is_judged_beside(void **state)
{
	(void)state;
	deploy_substitute(&double_hold_ops);
	struct planner pl;
	judge_on_two_boards(&pl);
	assert_int_equal(boots_of("revert") + boots_of("is-queued"), 0);
	/* the reference's on two boards too, the executor's processes */
	assert_int_equal(runs_of(pl.session, "baseline", "tcp-dut-tx"), 6);
	assert_lanes(&pl, 1);
	planner_free(&pl);
}

static void a_plan_with_only_the_reference_is_an_input_error(void **state)
{
	(void)state;
	strlist_free(&plan.strategies);
	strlist_push(&plan.strategies, "baseline");
	struct planner pl;
	assert_int_equal(planner_run(&pl, &plan, st, &opts), HB_FAIL_INPUT);
	assert_int_equal(dbl.started, 0);
	planner_free(&pl);
}

/* The planner runs its plan in parts (the DUT-paced workloads, then the
 * host-paced ones): a perf workload in one makes every part boot the perf
 * userland, so a workload's runs share one userland whichever part they
 * are in. */
static void every_part_of_a_plan_with_a_perf_workload_boots_perf(void **state)
{
	(void)state;
	dbl.mbps = revert_slower;
	strlist_push(&plan.workloads, "udp64-dut-tx-perf");
	struct planner pl;
	assert_int_equal(planner_run(&pl, &plan, st, &opts), 0);
	assert_true(dbl.prepared > 3);	/* the builds, and each part's */
	assert_int_equal(dbl.prepared_with_perf, dbl.prepared);
	planner_free(&pl);
}

/* A workload no gate metric judges (the profiler's, whose rate it
 * slows) is reported, not decided: one run of the reference, in its first
 * boot, and one of each candidate, where a judged workload's reference
 * gets what its metrics need. */
static void an_unjudged_workload_runs_once_a_side(void **state)
{
	(void)state;
	dbl.mbps = revert_slower;
	strlist_push(&plan.workloads, "udp64-dut-tx-ftrace");
	struct planner pl;
	assert_int_equal(planner_run(&pl, &plan, st, &opts), 0);
	const char *ftrace = "udp64-dut-tx-ftrace";
	assert_int_equal(runs_of(pl.session, "baseline", ftrace), 1);
	assert_int_equal(runs_of(pl.session, "revert", ftrace), 1);
	assert_int_equal(runs_of(pl.session, "is-queued", ftrace), 1);
	assert_int_equal(runs_of(pl.session, "baseline", "udp64-dut-tx"),
			 reference_runs("udp64-dut-tx"));
	/* the reference's first boot: its UDP workloads in the plan's order;
	 * its TCP one has the next boot to itself */
	assert_string_equal(dbl.booted[0], "baseline");
	assert_string_equal(dbl.ran_workloads[0], "udp64-dut-tx");
	assert_string_equal(dbl.ran_workloads[1], ftrace);
	assert_string_equal(dbl.booted[1], "baseline");
	assert_string_equal(dbl.ran_workloads[2], "tcp-dut-tx");
	assert_string_equal(dbl.ran_workloads[3], "udp64-dut-tx");
	for (size_t i = 0; i < pl.ncells; i++)
		for (size_t k = 0; k < pl.cells[i].n; k++)
			assert_string_not_equal(pl.cells[i].v[k].workload, ftrace);
	assert_int_equal(pl.prog.runs_done, (int)runs_in(pl.session));
	planner_free(&pl);
}

/* TCP DUT-RX's metric needs fewer reference runs than TCP DUT-TX's: it
 * runs in the first of the TCP boots, which TCP DUT-TX's count makes. */
static void a_workload_needing_fewer_reference_runs_shares_the_first_boots(void **state)
{
	(void)state;
	dbl.mbps = revert_slower;
	strlist_push(&plan.workloads, "tcp-dut-rx");
	size_t rx = reference_runs("tcp-dut-rx"), tx = reference_runs("tcp-dut-tx");
	assert_true(rx >= 2 && rx < tx);
	struct planner pl;
	assert_int_equal(planner_run(&pl, &plan, st, &opts), 0);
	assert_int_equal(runs_of(pl.session, "baseline", "tcp-dut-rx"), rx);
	assert_int_equal(runs_of(pl.session, "baseline", "tcp-dut-tx"), tx);
	assert_int_equal(boots_of("baseline"), reference_runs("udp64-dut-tx") + tx);
	/* the reference's TCP boots: both workloads in the first rx, then
	 * TCP DUT-TX alone (its runs come first: the plan's order) */
	size_t runs = 0;
	for (size_t i = 0; i < dbl.ran && i < DOUBLE_MAX; i++)
		if (!strcmp(dbl.ran_workloads[i], "tcp-dut-rx")) {
			assert_string_equal(dbl.ran_workloads[i - 1], "tcp-dut-tx");
			runs++;
		}
	assert_int_equal(runs, rx + 2);	/* and the two candidates' */
	const struct gate_decision *d = find(&pl, "is-queued", "tcp-dut-rx", "mbps");
	assert_int_equal(d->outcome, GATE_PASS);
	assert_int_equal(d->ref.n, rx);
	assert_int_equal(d->max_looks, gate_max_looks(&plan.gate, (int)rx));
	planner_free(&pl);
}

static void a_failed_build_is_not_judged(void **state)
{
	(void)state;
	dbl.prepare_rc = HB_FAIL;
	struct planner pl;
	assert_int_equal(planner_run(&pl, &plan, st, &opts), HB_FAIL);
	assert_int_equal(dbl.started, 0);
	planner_free(&pl);
}

int main(void)
{
	/* the host's turns' lock files (util/lock.h) in a cache of the
	 * binary's own: hb_cache_dir() reads the environment once */
	char cache[64] = "/tmp/hb-test-planner-cache-XXXXXX";
	if (!mkdtemp(cache))
		return 1;
	setenv("HILBENCH_CACHE", cache, 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(candidates_are_decided_against_a_shared_reference,
						setup, teardown),
		cmocka_unit_test_setup_teardown(a_noisy_candidate_stops_at_the_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(a_futile_decision_stops_before_the_cap, setup,
						teardown),
		cmocka_unit_test_setup_teardown(where_the_clock_is_held_tcp_is_judged_beside, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_lone_candidate_borrows_the_idle_board, setup,
						teardown),
		cmocka_unit_test_setup_teardown(concurrent_candidates_reach_the_same_verdicts, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			with_a_backend_that_holds_every_workload_is_judged_beside, setup, teardown),
		cmocka_unit_test_setup_teardown(the_dearest_candidate_starts_first, setup, teardown),
		cmocka_unit_test_setup_teardown(with_no_history_the_unsure_units_start_first, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_candidate_is_priced_by_its_recent_sessions, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_plan_with_only_the_reference_is_an_input_error,
						setup, teardown),
		cmocka_unit_test_setup_teardown(every_part_of_a_plan_with_a_perf_workload_boots_perf,
						setup, teardown),
		cmocka_unit_test_setup_teardown(an_unjudged_workload_runs_once_a_side, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			a_workload_needing_fewer_reference_runs_shares_the_first_boots, setup,
			teardown),
		cmocka_unit_test_setup_teardown(a_failed_build_is_not_judged, setup, teardown),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	rm_rf(cache);
	return failed;
}
