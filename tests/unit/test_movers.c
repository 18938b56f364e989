/*
 * analyze/movers.c: which functions' instruction counts moved between two
 * sides, on datasets built by hand (the series a store of emulator-insn
 * runs gives: the 20 functions a run keeps, calls per packet).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/movers.h"
#include "store/store.h"

static void add(struct dataset *d, const char *strategy, const char *metric, double a, double b)
{
	d->s = xrealloc(d->s, (d->n + 1) * sizeof(*d->s));
	struct series *s = &d->s[d->n++];
	memset(s, 0, sizeof(*s));
	s->workload = xstrdup("udp64");
	s->strategy = xstrdup(strategy);
	s->metric = xstrdup(metric);
	s->unit = xstrdup("instructions/packet");
	s->first_run = xstrdup("r1");
	s->v = xmalloc(2 * sizeof(double));
	s->v[0] = a;
	s->v[1] = b;
	s->n = 2;
}

static void sides(struct dataset *ref, struct dataset *cand)
{
	memset(ref, 0, sizeof(*ref));
	memset(cand, 0, sizeof(*cand));
	add(ref, "baseline", "insn_self_per_pkt.stmmac_xmit", 700, 702);
	add(ref, "baseline", "insn_self_per_pkt.memcpy", 300, 300);
	add(ref, "baseline", "insn_self_per_pkt.hrtimer_start_range_ns", 90, 90);
	add(ref, "baseline", "insn_self_per_pkt.gone_fn", 200, 200);
	add(ref, "baseline", "calls_per_pkt.hrtimer_try_to_cancel", 0, 0);
	add(ref, "baseline", "calls_per_pkt.mod_timer", 0.0101, 0.0101);
	add(cand, "patched", "insn_self_per_pkt.stmmac_xmit", 941, 941);
	add(cand, "patched", "insn_self_per_pkt.memcpy", 300.4, 300.2);
	/* new: a function the reference never ran (kept only here) */
	add(cand, "patched", "insn_self_per_pkt.hb_busy", 120, 120);
	add(cand, "patched", "calls_per_pkt.hrtimer_try_to_cancel", 1, 1);
	add(cand, "patched", "calls_per_pkt.mod_timer", 0.0102, 0.0102);
}

static void test_movers_order(void **state)
{
	(void)state;
	struct dataset ref, cand;
	sides(&ref, &cand);
	struct mover m[8];
	size_t n = movers_find(&ref, "baseline", &cand, "patched", "udp64", m, 8);
	/* instructions first, largest change first; memcpy (+0.3) and
	 * mod_timer (+0.0001) are below the floors */
	assert_int_equal(n, 4);
	assert_string_equal(m[0].function, "stmmac_xmit");
	assert_false(m[0].calls);
	assert_float_equal(m[0].delta, 240, 1e-9);
	/* gone from the candidate's 20: at most its smallest kept, 120 */
	assert_string_equal(m[1].function, "gone_fn");
	assert_float_equal(m[1].delta, 120 - 200, 1e-9);
	/* new: at least its value over the reference's smallest kept, 90;
	 * hrtimer_start_range_ns, not kept by the candidate, may have fallen
	 * or not: not shown */
	assert_string_equal(m[2].function, "hb_busy");
	assert_float_equal(m[2].delta, 120 - 90, 1e-9);
	assert_string_equal(m[3].function, "hrtimer_try_to_cancel");
	assert_true(m[3].calls);
	char text[256];
	movers_format(m, n, text, sizeof(text));
	assert_string_equal(text, "+240 instructions/packet in stmmac_xmit; "
			    "-80 instructions/packet in gone_fn; "
			    "+30 instructions/packet in hb_busy; "
			    "+1.00 hrtimer_try_to_cancel/packet");
	/* room for one: the largest */
	assert_int_equal(movers_find(&ref, "baseline", &cand, "patched", "udp64", m, 1), 1);
	assert_string_equal(m[0].function, "stmmac_xmit");
	/* a cut text stays terminated */
	movers_format(m, 1, text, 10);
	assert_int_equal(strlen(text), 9);
	dataset_free(&ref);
	dataset_free(&cand);
}

static void test_movers_none(void **state)
{
	(void)state;
	struct dataset ref, cand;
	sides(&ref, &cand);
	struct mover m[4];
	/* runs without the emulator's counts, or another workload: nothing */
	assert_int_equal(movers_find(&ref, "baseline", &cand, "patched", "tcp", m, 4), 0);
	struct dataset empty = { 0 };
	assert_int_equal(movers_find(&empty, "baseline", &empty, "patched", "udp64", m, 4), 0);
	char text[8] = "x";
	movers_format(m, 0, text, sizeof(text));
	assert_string_equal(text, "");
	dataset_free(&ref);
	dataset_free(&cand);
}

/* A run with the emulator's count of stmmac_xmit, stored as the executor does. */
static void put(struct store *st, const char *session, const char *build, double xmit)
{
	struct metric m[] = {
		{ "pps", 4000, "packets/s", "test" },
		{ "insn_self_per_pkt.stmmac_xmit", xmit, "instructions/packet", "emulator-insn: test" },
	};
	struct run_record r = {
		.session = session, .plan = "p", .board = "b", .strategy = "baseline",
		.workload = "udp64", .repetition = 1, .cls = RUN_PASS, .timing = "virtual",
		.started = "2026-11-30T00:00:00Z", .ended = "2026-11-30T00:00:01Z",
		.build_key = build, .metrics = m, .n_metrics = HB_ARRAY_SIZE(m),
	};
	store_new_id(r.id);
	assert_int_equal(store_add_run(st, &r), 0);
}

/* movers_between() over a real store: a side's sessions (of two kernel
 * builds) pooled into one mean; a side naming no runs is not every run. */
static void test_movers_between_pools_a_side(void **state)
{
	(void)state;
	char dir[] = "/tmp/hb-test-movers-XXXXXX";
	assert_non_null(mkdtemp(dir));
	struct store *st = store_open(dir);
	assert_non_null(st);
	put(st, "good-1", "k1", 700);
	put(st, "good-2", "k2", 702);
	put(st, "bad-1", "k3", 941);
	put(st, "bad-2", "k3", 943);
	struct selection good[] = { { .session = "good-1" }, { .session = "good-2" } };
	struct selection bad[] = { { .session = "bad-1" }, { .session = "bad-2" } };
	char where[256];
	assert_int_equal(movers_between(st, good, 2, bad, 2, "udp64", where, sizeof(where)), 0);
	assert_string_equal(where, "+241 instructions/packet in stmmac_xmit");
	/* another workload, or a side of no runs: nothing to name */
	assert_int_equal(movers_between(st, good, 2, bad, 2, "tcp", where, sizeof(where)), 0);
	assert_string_equal(where, "");
	struct strlist none = { 0 };
	struct selection no_runs = { .runs = &none };
	assert_int_equal(movers_between(st, &no_runs, 1, bad, 2, "udp64", where, sizeof(where)), 0);
	assert_string_equal(where, "");
	store_close(st);
	assert_int_equal(rm_rf(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_movers_order),
		cmocka_unit_test(test_movers_none),
		cmocka_unit_test(test_movers_between_pools_a_side),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
