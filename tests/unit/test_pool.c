/* pool: the run stage's processes at once (run/pool.h): each child's report
 * reaches the parent whole, even one larger than a pipe holds (the parent
 * reads as it comes, so the child never waits on it); each child lands
 * once with its tag; one that wrote nothing lands with nothing; an
 * interrupt is passed on to every child once; a child does not see its
 * parent's children as its own; the boards a parent lends are borrowed
 * by its children no more than once. The children here are real processes
 * running the small tasks below. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deploy/dut.h"
#include "run/pool.h"
#include "util/util.h"

/* Larger than a Linux pipe's 64 KiB: a child writing it all before it
 * ends would wait for ever on a parent that reads only once it ended. */
#define BIG (300 * 1024)

/* What landed, by tag (an index). */
struct seen {
	int landed[4];
	char got[4][16];
	size_t len[4];
	int big_ok;
};

static void note(const struct pool_child *c, void *ctx)
{
	struct seen *s = ctx;
	size_t i = (size_t)(uintptr_t)c->tag;
	s->landed[i]++;
	s->len[i] = c->len;
	memcpy(s->got[i], c->got, c->len < sizeof(s->got[i]) ? c->len : sizeof(s->got[i]));
	if (c->len == BIG) {
		s->big_ok = 1;
		for (size_t k = 0; k < BIG; k++)
			s->big_ok &= (unsigned char)c->got[k] == (unsigned char)(k % 251);
	}
}

/* Reaps until the pool is empty, 10 s at most; the children reaped. */
static size_t reap_all(struct pool *p, struct seen *s)
{
	size_t ended = 0;
	for (int i = 0; i < 1000 && p->n; i++) {
		size_t n = pool_reap(p, note, s);
		ended += n;
		if (!n)
			usleep(10000);
	}
	return ended;
}

static int write_big(void *arg, int fd)
{
	(void)arg;
	char *buf = xcalloc(BIG, 1);
	for (size_t k = 0; k < BIG; k++)
		buf[k] = (char)(k % 251);
	int rc = write_all(fd, buf, BIG);
	free(buf);
	return rc;
}

static void a_report_larger_than_a_pipe_arrives_whole(void **state)
{
	(void)state;
	struct pool p = { 0 };
	struct seen s = { 0 };
	assert_int_equal(pool_start(&p, "a test", write_big, NULL, (void *)0), 0);
	assert_int_equal(reap_all(&p, &s), 1);
	assert_int_equal(p.n, 0);
	assert_int_equal(s.len[0], BIG);
	assert_true(s.big_ok);
	pool_free(&p);
}

static int write_arg(void *arg, int fd)
{
	const char *text = arg;
	return write_all(fd, text, strlen(text));
}

static void each_child_lands_once_with_its_tag(void **state)
{
	(void)state;
	static const char *const text[] = { "zero", "one", "two" };
	struct pool p = { 0 };
	struct seen s = { 0 };
	for (uintptr_t i = 0; i < 3; i++)
		assert_int_equal(pool_start(&p, "a test", write_arg, (void *)text[i], (void *)i), 0);
	assert_int_equal(p.n, 3);
	assert_int_equal(reap_all(&p, &s), 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(s.landed[i], 1);
		assert_int_equal(s.len[i], strlen(text[i]));
		assert_memory_equal(s.got[i], text[i], s.len[i]);
	}
	pool_free(&p);
}

static int write_nothing(void *arg, int fd)
{
	(void)arg;
	(void)fd;
	return -1;
}

static void a_child_that_wrote_nothing_lands_with_nothing(void **state)
{
	(void)state;
	struct pool p = { 0 };
	struct seen s = { 0 };
	assert_int_equal(pool_start(&p, "a test", write_nothing, NULL, (void *)0), 0);
	assert_int_equal(reap_all(&p, &s), 1);
	assert_int_equal(s.landed[0], 1);
	assert_int_equal(s.len[0], 0);
	pool_free(&p);
}

/* Waits (10 s at most) for the interrupt, then says whether it came. */
static int wait_for_interrupt(void *arg, int fd)
{
	(void)arg;
	for (int i = 0; i < 1000 && !hb_interrupted; i++)
		usleep(10000);
	return write_all(fd, hb_interrupted ? "T" : "-", 1);
}

static void an_interrupt_is_passed_on_to_every_child_once(void **state)
{
	(void)state;
	hb_install_interrupt_handlers();
	struct pool p = { 0 };
	struct seen s = { 0 };
	for (uintptr_t i = 0; i < 2; i++)
		assert_int_equal(pool_start(&p, "a test", wait_for_interrupt, NULL, (void *)i), 0);
	assert_int_equal(pool_reap(&p, note, &s), 0);
	assert_int_equal(p.forwarded, 0);
	hb_interrupted = 1;	/* a SIGTERM to this process only, as from kill(1) */
	assert_int_equal(reap_all(&p, &s), 2);
	assert_int_equal(p.forwarded, 1);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(s.len[i], 1);
		assert_int_equal(s.got[i][0], 'T');
	}
	hb_interrupted = 0;
	pool_free(&p);
}

/* In the child: the pool it was started from holds none of its parent's. */
static int say_pool_size(void *arg, int fd)
{
	const struct pool *p = arg;
	char text[16];
	snprintf(text, sizeof(text), "%zu", p->n);
	return write_all(fd, text, strlen(text));
}

static int wait_a_little(void *arg, int fd)
{
	(void)arg;
	usleep(200000);
	return write_all(fd, "w", 1);
}

static void a_child_does_not_see_its_parent_s_children(void **state)
{
	(void)state;
	struct pool p = { 0 };
	struct seen s = { 0 };
	assert_int_equal(pool_start(&p, "a test", wait_a_little, NULL, (void *)0), 0);
	assert_int_equal(pool_start(&p, "a test", say_pool_size, &p, (void *)1), 0);
	assert_int_equal(reap_all(&p, &s), 2);
	assert_int_equal(s.len[0], 1);
	assert_int_equal(s.len[1], 1);
	assert_int_equal(s.got[1][0], '0');
	pool_free(&p);
}

/* A child borrows a board the parent lends and reports how many it got. */
static int borrow_two(void *arg, int fd)
{
	struct pool_spare *sp = arg;
	char text[16];
	snprintf(text, sizeof(text), "%d", pool_spare_borrow(sp, 2));
	return write_all(fd, text, strlen(text));
}

/* The boards lent: never more borrowed than lent, across processes; given
 * back, they can be borrowed again; none before the parent lends. */
static void spare_boards_are_lent_once(void **state)
{
	(void)state;
	struct pool_spare *sp = pool_spare_new();
	assert_non_null(sp);
	assert_int_equal(pool_spare_borrow(sp, 1), 0);
	pool_spare_lend(sp, 3);
	assert_int_equal(pool_spare_borrow(sp, 2), 2);
	/* a child sees the same page: one left of the three */
	struct pool p = { 0 };
	struct seen s = { 0 };
	assert_int_equal(pool_start(&p, "a test", borrow_two, sp, (void *)0), 0);
	assert_int_equal(reap_all(&p, &s), 1);
	assert_int_equal(s.got[0][0], '1');
	assert_int_equal(pool_spare_borrow(sp, 1), 0);
	pool_spare_return(sp, 2);
	assert_int_equal(pool_spare_borrow(sp, 5), 2);
	pool_spare_free(sp);
	pool_free(&p);
	/* none mapped: nothing lent, nothing borrowed */
	pool_spare_lend(NULL, 2);
	assert_int_equal(pool_spare_borrow(NULL, 2), 0);
	pool_spare_return(NULL, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_report_larger_than_a_pipe_arrives_whole),
		cmocka_unit_test(each_child_lands_once_with_its_tag),
		cmocka_unit_test(a_child_that_wrote_nothing_lands_with_nothing),
		cmocka_unit_test(an_interrupt_is_passed_on_to_every_child_once),
		cmocka_unit_test(a_child_does_not_see_its_parent_s_children),
		cmocka_unit_test(spare_boards_are_lent_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
