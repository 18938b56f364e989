/* fanout: the executor's fan-out for a backend that boots once per run (a
 * LAVA job each, run/executor.h): as many runs in flight as --max-jobs
 * says, never more, or else as many as the lab's idle devices with a
 * traffic peer each; never more than the backend's cap (devices that
 * share one peer: one at a time); every run stored; an interrupt
 * ends every flight (each stops its boot while interrupted, as the lava
 * backend then cancels its job) and stores what never started as not run;
 * a boot that failed for infrastructure reasons (a job that ended
 * Incomplete on a device that went bad) is tried again on a fresh boot; a
 * lab that takes no boots stops the plan. An emulated board (a boot
 * serves many runs) boots its repetitions --jobs at once only in virtual
 * time, and with a workload of UDP the host sends only where the backend
 * holds its DUTs (the host's turns): that run then has the host alone.
 *
 * fan_ops below is a TEST DOUBLE of the lava backend (struct deploy_ops
 * named "lava", deploy_substitute()): nothing is submitted anywhere. Its
 * start() hands back a console saying HELLO and READY, its slots() what
 * the test says the lab has; its counters are in shared memory, because
 * each flight is a process of its own. fan_run stands in for the runner.
 * The board file is the repository's qemu-orangepi-pc-lava-server. emu_ops
 * is the same TEST DOUBLE named "qemu", one boot for many runs, on the
 * repository's qemu-orangepi-pc: no emulator is started. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "measure/crosscheck.h"
#include "run/executor.h"
#include "run_double.h"
#include "store/store.h"
#include "util/util.h"

/* What the doubles saw, over every process. */
struct fan_seen {
	atomic_int in_flight, most_in_flight, started, stopped, canceled, ran;
	/* runs under way now, host-paced (alone) or not; a run that found
	 * the other kind under way; hold(1) calls */
	atomic_int alone_now, shared_now, overlapped, alone_runs, held;
	int slots;		/* what slots() says */
	int cap;		/* ... and its cap */
	int want;		/* a run waits until this many boots are up at once */
	int total;		/* ... or this many have started: the plan's last ones */
	int bad_boots;		/* the first this many starts: the console closes at once */
	int lab_down;		/* the first start fails as a lab that takes no boots */
	int interrupt;		/* the first run interrupts the plan (SIGTERM to it) */
	int linger;		/* a boot stays until want are up, and a run while
				 * another board is up and has not come to its run,
				 * until one waited (10 s at most each) */
	pid_t plan_pid;
	pid_t down_pid;		/* the flight whose start found the lab down */
};

static struct fan_seen *seen;

/* Waits (10 s at most) for want boots up at once, or the interrupt. */
static void wait_for(int interrupted)
{
	for (int k = 0; k < 1000; k++) {
		if (interrupted ? hb_interrupted != 0
				: (atomic_load(&seen->in_flight) >= seen->want ||
				   atomic_load(&seen->started) >= seen->total))
			return;
		usleep(10000);
	}
}

static int fan_start(struct dut *d, const struct dut_image *img)
{
	(void)img;
	int i = atomic_fetch_add(&seen->started, 1);
	if (seen->lab_down && i == 0) {
		seen->down_pid = getpid();
		snprintf(d->health, sizeof(d->health), "the double's lab takes no boots");
		return HB_FAIL_LAB;
	}
	int now = atomic_fetch_add(&seen->in_flight, 1) + 1;
	for (int most = atomic_load(&seen->most_in_flight);
	     now > most && !atomic_compare_exchange_weak(&seen->most_in_flight, &most, now);)
		;
	/* lingering, a boot (its host's turn shared) also stays until the
	 * boards wanted are up: a board whose process came late, as under
	 * valgrind beside another test, else waited for its boot's turn
	 * behind the other's host-paced run, where no DUT is held, and no
	 * run ever waited (a cold CI's valgrind, 2026-12-08) */
	if (seen->linger)
		wait_for(0);
	int p[2];
	if (pipe(p) < 0)
		return -1;
	char text[256] = "";
	if (i >= seen->bad_boots)
		snprintf(text, sizeof(text), "HB HELLO kernel=%s\nHB READY driver=%s speed=100\n",
			 DOUBLE_KERNEL, d->board->dut_driver);
	if (write(p[1], text, strlen(text)) != (ssize_t)strlen(text))
		return -1;
	close(p[1]);
	d->con_rd = p[0];
	d->con_wr = open("/dev/null", O_WRONLY | O_CLOEXEC);
	d->priv = seen;	/* started: stop() counts it */
	return 0;
}

static void fan_stop(struct dut *d)
{
	if (!d->priv)
		return;
	d->priv = NULL;
	atomic_fetch_sub(&seen->in_flight, 1);
	atomic_fetch_add(&seen->stopped, 1);
	if (hb_interrupted)
		atomic_fetch_add(&seen->canceled, 1);
}

static const char *fan_version(struct dut *d)
{
	(void)d;
	return "lava backend test double";
}

static int fan_slots(const struct board *b, int *cap)
{
	(void)b;
	*cap = seen->cap;
	return seen->slots;
}

static const struct deploy_ops fan_ops = {
	.name = "lava", .start = fan_start, .stop = fan_stop, .version = fan_version,
	.one_run_per_boot = 1, .slots = fan_slots,
};

static const struct deploy_ops emu_ops = {
	.name = "qemu", .start = fan_start, .stop = fan_stop, .version = fan_version,
};

static void fan_hold(struct dut *d, int on)
{
	(void)d;
	if (on)
		atomic_fetch_add(&seen->held, 1);
}

/* emu_ops as a backend whose DUTs take the host's turns (util/lock.h). */
static const struct deploy_ops emu_hold_ops = {
	.name = "qemu", .start = fan_start, .stop = fan_stop, .version = fan_version,
	.hold = fan_hold,
};

static enum run_class fan_run(struct dut *d, const struct workload *w, const char *run_id,
			      const char *rundir, struct run_result *res)
{
	(void)run_id, (void)rundir;
	memset(res, 0, sizeof(*res));
	int i = atomic_fetch_add(&seen->ran, 1);
	if (seen->interrupt) {
		if (i == 0) {
			wait_for(0);	/* the others are up too */
			kill(seen->plan_pid, SIGTERM);
		}
		wait_for(1);
		res->cls = RUN_MISS;
		snprintf(res->reason, sizeof(res->reason), "the double's run: interrupted");
		return res->cls;
	}
	if (seen->lab_down) {
		/* until the plan has reaped the flight that found the lab down:
		 * it then knows, before this one ends */
		for (int k = 0; k < 1000 && !(seen->down_pid && kill(seen->down_pid, 0) < 0); k++)
			usleep(10000);
	} else {
		wait_for(0);
	}
	/* a while under way, seeing whether the other kind is too */
	int alone = !crosscheck_shares_host(w, board_peer_held(d->board));
	atomic_fetch_add(alone ? &seen->alone_now : &seen->shared_now, 1);
	atomic_fetch_add(&seen->alone_runs, alone);
	if (atomic_load(&seen->alone_now) > alone || (alone && atomic_load(&seen->shared_now)))
		atomic_fetch_add(&seen->overlapped, 1);
	usleep(20000);
	/* under valgrind on a loaded host a board up beside this one may come
	 * to its run only after 20 ms: the test needs it to find this one under
	 * way (each boot has one run, so started - ran boards are up and have
	 * not begun theirs; one that waits for its turn is counted in held) */
	for (int k = 0; seen->linger && k < 1000 && !atomic_load(&seen->held) &&
	     atomic_load(&seen->started) > atomic_load(&seen->ran); k++)
		usleep(10000);
	atomic_fetch_sub(alone ? &seen->alone_now : &seen->shared_now, 1);
	res->cls = RUN_PASS;
	snprintf(res->names[0], sizeof(res->names[0]), "mbps");
	snprintf(res->sources[0], sizeof(res->sources[0]), "the double");
	res->metrics[0] = (struct metric){ .name = res->names[0], .source = res->sources[0],
					   .value = 100, .unit = "Mbit/s" };
	res->n_metrics = 1;
	return res->cls;
}

static const struct exec_stages fan_stages = { .prepare = double_prepare, .run = fan_run };

static char dir[64];
static struct store *st;
static struct plan plan;

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hb-test-fanout-XXXXXX");
	st = double_setup(dir);
	deploy_substitute(&fan_ops);
	seen = mmap(NULL, sizeof(*seen), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (seen == MAP_FAILED)
		return -1;
	memset(seen, 0, sizeof(*seen));
	seen->slots = seen->want = 1;
	seen->cap = 64;
	seen->total = 6;
	seen->plan_pid = getpid();
	hb_interrupted = 0;
	memset(&plan, 0, sizeof(plan));
	plan.name = "fanout-test";
	plan.repetitions = 3;
	plan.timing = TIMING_REALTIME;
	plan.boots = BOOTS_PER_CELL;
	strlist_push(&plan.boards, "qemu-orangepi-pc-lava-server");
	strlist_push(&plan.strategies, "baseline");
	strlist_push(&plan.workloads, "udp64-dut-tx");
	strlist_push(&plan.workloads, "tcp-dut-tx");
	return st ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	hb_interrupted = 0;
	deploy_substitute(NULL);
	munmap(seen, sizeof(*seen));
	strlist_free(&plan.boards);
	strlist_free(&plan.strategies);
	strlist_free(&plan.workloads);
	store_close(st);
	return rm_rf(dir);
}

/* The session's stored runs by class. */
struct classes {
	char last[40];
	int pass, error, miss, all;
	int retried;		/* errors whose reason says they were tried again */
};

static int count_class(const struct run_row *r, void *ctx)
{
	struct classes *k = ctx;
	if (!strcmp(k->last, r->id))
		return 0;	/* rows come per run and metric */
	snprintf(k->last, sizeof(k->last), "%s", r->id);
	k->all++;
	k->pass += !strcmp(r->cls, "pass");
	k->error += !strcmp(r->cls, "error");
	k->miss += !strcmp(r->cls, "miss");
	k->retried += r->reason && strstr(r->reason, "retried") != NULL;
	return 0;
}

/* The plan with these options; its session's runs counted into k. */
static int run_with(const struct exec_opts *o, struct classes *k)
{
	char session[40];
	int rc = executor_run_plan(&plan, st, o, session);
	memset(k, 0, sizeof(*k));
	struct selection sel = { .session = session, .all_classes = 1 };
	assert_int_equal(store_foreach(st, &sel, count_class, k), 0);
	return rc;
}

static int run_plan(int max_jobs, struct classes *k)
{
	struct exec_opts o = { .stages = &fan_stages, .max_jobs = max_jobs };
	return run_with(&o, k);
}

/* Without --max-jobs, as many fly as the lab's idle devices with a peer
 * each. */
static void the_lab_s_devices_with_a_peer_each_fly_at_once(void **state)
{
	(void)state;
	seen->slots = seen->want = 3;
	struct classes k;
	assert_int_equal(run_plan(0, &k), 0);
	assert_int_equal(k.pass, 6);
	assert_int_equal(atomic_load(&seen->most_in_flight), 3);
}

/* Devices that share one traffic peer: one job at a time, whatever
 * --max-jobs asks. */
static void a_shared_peer_caps_max_jobs_at_one(void **state)
{
	(void)state;
	seen->cap = 1;
	struct classes k;
	assert_int_equal(run_plan(3, &k), 0);
	assert_int_equal(k.pass, 6);
	assert_int_equal(atomic_load(&seen->most_in_flight), 1);
}

static void as_many_runs_fly_as_max_jobs_says(void **state)
{
	(void)state;
	seen->slots = seen->want = 3;
	struct classes k;
	assert_int_equal(run_plan(3, &k), 0);
	assert_int_equal(k.all, 6);
	assert_int_equal(k.pass, 6);
	assert_int_equal(atomic_load(&seen->most_in_flight), 3);
	assert_int_equal(atomic_load(&seen->started), 6);
	assert_int_equal(atomic_load(&seen->stopped), 6);
	assert_int_equal(atomic_load(&seen->canceled), 0);
}

static void max_jobs_bounds_the_flights(void **state)
{
	(void)state;
	seen->slots = 5;
	seen->want = 2;
	struct classes k;
	assert_int_equal(run_plan(2, &k), 0);
	assert_int_equal(k.pass, 6);
	assert_int_equal(atomic_load(&seen->most_in_flight), 2);
}

static void one_slot_is_one_run_at_a_time(void **state)
{
	(void)state;
	struct classes k;
	assert_int_equal(run_plan(0, &k), 0);
	assert_int_equal(k.pass, 6);
	assert_int_equal(atomic_load(&seen->most_in_flight), 1);
}

static void an_interrupt_ends_every_flight_and_stores_the_rest_as_not_run(void **state)
{
	(void)state;
	hb_install_interrupt_handlers();
	seen->slots = seen->want = 2;
	seen->interrupt = 1;
	struct classes k;
	assert_int_equal(run_plan(2, &k), HB_FAIL);
	/* the two in flight were stopped while interrupted (a LAVA job is
	 * canceled then); nothing started after the interrupt */
	assert_int_equal(atomic_load(&seen->started), 2);
	assert_int_equal(atomic_load(&seen->canceled), 2);
	assert_int_equal(atomic_load(&seen->in_flight), 0);
	assert_int_equal(k.all, 6);
	assert_int_equal(k.miss, 6);
}

static void a_boot_that_failed_is_tried_again_on_a_fresh_one(void **state)
{
	(void)state;
	seen->slots = seen->want = 2;
	seen->bad_boots = 1;
	struct classes k;
	assert_int_equal(run_plan(2, &k), 0);
	assert_int_equal(k.pass, 6);
	assert_int_equal(k.error, 1);
	assert_int_equal(k.retried, 1);
	assert_int_equal(atomic_load(&seen->started), 7);
	assert_true(atomic_load(&seen->most_in_flight) <= 2);
}

static void a_lab_that_takes_no_boots_stops_the_plan(void **state)
{
	(void)state;
	seen->slots = seen->want = 2;
	seen->lab_down = 1;
	struct classes k;
	assert_int_equal(run_plan(2, &k), HB_FAIL);
	/* the failed start and the one flight beside it; nothing after */
	assert_int_equal(atomic_load(&seen->started), 2);
	assert_int_equal(k.error, 1);
	assert_int_equal(k.pass, 1);
	assert_int_equal(k.all, 2);
}

/* The plan on board (a name or a path), a boot per repetition, --jobs jobs. */
static int run_on(const char *board, const struct deploy_ops *ops, int jobs,
		  enum timing_mode timing, const char *workloads, struct classes *k)
{
	deploy_substitute(ops);
	strlist_free(&plan.boards);
	strlist_push(&plan.boards, board);
	strlist_free(&plan.workloads);
	strlist_split(&plan.workloads, workloads, ",");
	plan.timing = timing;
	plan.boots = BOOTS_PER_REPETITION;
	seen->total = plan.repetitions;	/* boots */
	struct exec_opts o = { .stages = &fan_stages, .jobs = jobs };
	return run_with(&o, k);
}

/* The plan on the emulated default board, whose idle DUT's clock waits for
 * the host's frames (deploy.qemu.peer_hold_us). */
static int run_emulated(const struct deploy_ops *ops, int jobs, enum timing_mode timing,
			const char *workloads, struct classes *k)
{
	return run_on("qemu-orangepi-pc", ops, jobs, timing, workloads, k);
}

/* The plan on a board whose idle DUT's clock is not held for the host (it
 * waits in real time, icount sleep=on). */
static int run_unheld(const struct deploy_ops *ops, int jobs, const char *workloads,
		      struct classes *k)
{
	char *board = xasprintf("%s/tests/data/boards/qemu-orangepi-pc-sleep.yaml",
				getenv("HILBENCH_HOME"));
	int rc = run_on(board, ops, jobs, TIMING_VIRTUAL, workloads, k);
	free(board);
	return rc;
}

static void an_emulated_board_boots_its_repetitions_at_once(void **state)
{
	(void)state;
	seen->want = 2;
	struct classes k;
	assert_int_equal(run_emulated(&emu_ops, 2, TIMING_VIRTUAL, "udp64-dut-tx,udp64-dut-tx-ftrace", &k),
			 0);
	assert_int_equal(k.pass, 6);
	assert_int_equal(atomic_load(&seen->started), 3);	/* a boot a repetition */
	assert_int_equal(atomic_load(&seen->most_in_flight), 2);
	assert_int_equal(atomic_load(&seen->in_flight), 0);
}

/* Without the host's turns (a backend that cannot hold its DUTs) a host-paced
 * workload (UDP the host sends), and in real time any: the runs would slow
 * each other. */
static void host_paced_or_real_time_runs_boot_one_at_a_time(void **state)
{
	(void)state;
	struct classes k;
	assert_int_equal(run_emulated(&emu_ops, 2, TIMING_VIRTUAL, "udp64-dut-tx,udp64-dut-rx", &k),
			 0);
	assert_int_equal(k.pass, 6);
	assert_int_equal(atomic_load(&seen->most_in_flight), 1);
	assert_int_equal(run_emulated(&emu_ops, 2, TIMING_REALTIME, "udp64-dut-tx", &k), 0);
	assert_int_equal(k.pass, 3);
	/* 3 repetitions of two kinds a boot each, then 3 of one */
	assert_int_equal(atomic_load(&seen->started), 9);
	assert_int_equal(atomic_load(&seen->most_in_flight), 1);
}

/* TCP has the host alone in virtual time on a board whose idle DUT's clock
 * is not held for the host (measure/crosscheck.h): without the host's turns
 * its repetitions boot one at a time; with them they boot at once and each
 * TCP run is alone, the other board held. */
static void tcp_runs_have_the_host_alone_where_the_clock_is_not_held(void **state)
{
	(void)state;
	struct classes k;
	assert_int_equal(run_unheld(&emu_ops, 2, "udp64-dut-tx,tcp-dut-tx", &k), 0);
	assert_int_equal(k.pass, 6);
	assert_int_equal(atomic_load(&seen->most_in_flight), 1);
	seen->want = 2;
	int alone = atomic_load(&seen->alone_runs);
	assert_int_equal(run_unheld(&emu_hold_ops, 2, "tcp-dut-tx,tcp-dut-rx", &k), 0);
	assert_int_equal(k.pass, 6);
	assert_int_equal(atomic_load(&seen->alone_runs) - alone, 6);
	assert_int_equal(atomic_load(&seen->overlapped), 0);
}

/* Where the DUT's clock is held for the host, TCP runs share it: their
 * repetitions boot at once without the host's turns, and with them no TCP
 * run is alone. */
static void tcp_runs_share_the_host_where_the_clock_is_held(void **state)
{
	(void)state;
	seen->want = 2;
	struct classes k;
	assert_int_equal(run_emulated(&emu_ops, 2, TIMING_VIRTUAL, "udp64-dut-tx,tcp-dut-tx", &k),
			 0);
	assert_int_equal(k.pass, 6);
	assert_int_equal(atomic_load(&seen->most_in_flight), 2);
	int alone = atomic_load(&seen->alone_runs);
	assert_int_equal(run_emulated(&emu_hold_ops, 2, TIMING_VIRTUAL, "tcp-dut-tx,tcp-dut-rx", &k),
			 0);
	assert_int_equal(k.pass, 6);
	assert_int_equal(atomic_load(&seen->alone_runs) - alone, 0);
}

/* With the host's turns (a backend that holds its DUTs): a host-paced
 * workload's repetitions boot at once too, and a host-paced run never has
 * another run beside it: the other boards wait for it, held. (The double's
 * hold stops nothing; its boots and runs take the real turns.) */
static void with_the_hosts_turns_a_host_paced_run_is_alone(void **state)
{
	(void)state;
	seen->want = 2;
	seen->linger = 1;
	struct classes k;
	assert_int_equal(run_emulated(&emu_hold_ops, 2, TIMING_VIRTUAL,
				      "udp64-dut-tx,udp64-dut-rx", &k), 0);
	assert_int_equal(k.pass, 6);
	assert_int_equal(atomic_load(&seen->started), 6);	/* a repetition and kind */
	assert_int_equal(atomic_load(&seen->most_in_flight), 2);
	assert_int_equal(atomic_load(&seen->alone_runs), 3);
	assert_int_equal(atomic_load(&seen->overlapped), 0);
	assert_true(atomic_load(&seen->held) > 0);	/* a board waited for one */
}

int main(void)
{
	/* the host's turns' lock files (util/lock.h), one cache for the
	 * binary: hb_cache_dir() reads the environment once */
	char cache[64] = "/tmp/hb-test-fanout-cache-XXXXXX";
	if (!mkdtemp(cache))
		return 1;
	setenv("HILBENCH_CACHE", cache, 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(the_lab_s_devices_with_a_peer_each_fly_at_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_shared_peer_caps_max_jobs_at_one, setup, teardown),
		cmocka_unit_test_setup_teardown(as_many_runs_fly_as_max_jobs_says, setup, teardown),
		cmocka_unit_test_setup_teardown(max_jobs_bounds_the_flights, setup, teardown),
		cmocka_unit_test_setup_teardown(one_slot_is_one_run_at_a_time, setup, teardown),
		cmocka_unit_test_setup_teardown(
			an_interrupt_ends_every_flight_and_stores_the_rest_as_not_run, setup, teardown),
		cmocka_unit_test_setup_teardown(a_boot_that_failed_is_tried_again_on_a_fresh_one,
						setup, teardown),
		cmocka_unit_test_setup_teardown(a_lab_that_takes_no_boots_stops_the_plan, setup,
						teardown),
		cmocka_unit_test_setup_teardown(an_emulated_board_boots_its_repetitions_at_once,
						setup, teardown),
		cmocka_unit_test_setup_teardown(host_paced_or_real_time_runs_boot_one_at_a_time,
						setup, teardown),
		cmocka_unit_test_setup_teardown(tcp_runs_have_the_host_alone_where_the_clock_is_not_held,
						setup, teardown),
		cmocka_unit_test_setup_teardown(tcp_runs_share_the_host_where_the_clock_is_held, setup,
						teardown),
		cmocka_unit_test_setup_teardown(with_the_hosts_turns_a_host_paced_run_is_alone,
						setup, teardown),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	rm_rf(cache);
	return failed;
}
