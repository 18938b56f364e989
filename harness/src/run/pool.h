/*
 * pool: work run at once, each piece in a forked process of its own that
 * stores what it measures through its own store connection (the parent's
 * must not cross a fork) and hands the parent a report over a pipe: the
 * executor's one-run boots in flight (fan-out, run/executor.h) and the
 * planner's candidates judged beside each other (run/planner.h).
 *
 * Contract: pool_start() flushes stdio, forks, and in the child clears the
 * status line (the parent draws the bar), forgets the parent's children
 * (not its to reap), runs task(arg, fd) with fd the write end of the
 * child's pipe, and _exits 0 if task returned 0, else 1. It returns 0 in
 * the parent, or -1 when no process could be started (nothing started;
 * said, naming what it was for). pool_reap() never blocks: it reads what each child
 * has written so far (a child never waits on a full pipe), and hands each
 * child that ended, with every byte it wrote, to landed(), which must not
 * start or reap children; then it is gone from the pool. Its return is how
 * many ended. Once hb_interrupted is set, pool_reap() passes SIGTERM on to
 * every child once: Ctrl-C reaches them through the terminal, a SIGTERM
 * sent to hilbench reaches only hilbench. pool_free() once the pool is
 * empty.
 */
#ifndef HB_POOL_H
#define HB_POOL_H

#include <stddef.h>
#include <sys/types.h>

struct pool_child {
	pid_t pid;
	int fd;			/* the read end of its pipe */
	void *tag;		/* the caller's: what it runs */
	char *got;		/* what it wrote so far */
	size_t len, cap;
};

struct pool {
	struct pool_child *v;
	size_t n, cap;
	int forwarded;		/* the interrupt was passed on */
};

int pool_start(struct pool *p, const char *what, int (*task)(void *arg, int fd), void *arg,
	       void *tag);
size_t pool_reap(struct pool *p, void (*landed)(const struct pool_child *c, void *ctx),
		 void *ctx);
void pool_free(struct pool *p);

/*
 * Boards a pool's parent lends its running children once no more work
 * waits to start: otherwise the last child to end leaves the others idle
 * (the planner's last candidate adding one run at a time while a board
 * stands still). Shared memory, made before the children are forked and
 * read by them lock-free: the parent says how many it lends now, a child
 * borrows up to what it wants of what is not borrowed, and gives them
 * back. pool_spare_new() returns NULL when it cannot map the memory (then
 * nothing is lent: every call takes NULL). A child that dies holding some
 * only lends less.
 */
struct pool_spare;
struct pool_spare *pool_spare_new(void);
void pool_spare_lend(struct pool_spare *sp, int boards);
/* The boards got, 0 to want. */
int pool_spare_borrow(struct pool_spare *sp, int want);
void pool_spare_return(struct pool_spare *sp, int boards);
void pool_spare_free(struct pool_spare *sp);

#endif
