#include "run/pool.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "deploy/dut.h"
#include "util/util.h"

/* In a child: the parent's children and their pipes are not its own. */
static void forget_children(struct pool *p)
{
	for (size_t i = 0; i < p->n; i++) {
		close(p->v[i].fd);
		free(p->v[i].got);
	}
	free(p->v);
	*p = (struct pool){ 0 };
}

int pool_start(struct pool *p, const char *what, int (*task)(void *arg, int fd), void *arg,
	       void *tag)
{
	int fd[2];
	fflush(NULL);
	if (pipe2(fd, O_CLOEXEC) < 0) {
		hb_err("cannot start a process for %s: %s", what, strerror(errno));
		return -1;
	}
	/* the parent reads what has come so far, never waiting for more */
	fcntl(fd[0], F_SETFL, O_NONBLOCK);
	pid_t pid = fork();
	if (pid < 0) {
		hb_err("cannot start a process for %s: %s", what, strerror(errno));
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		close(fd[0]);
		hb_status(NULL);	/* the parent's bar, inherited: the parent draws it */
		forget_children(p);
		_exit(task(arg, fd[1]) == 0 ? 0 : 1);
	}
	close(fd[1]);
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 4;
		p->v = xrealloc(p->v, p->cap * sizeof(*p->v));
	}
	p->v[p->n++] = (struct pool_child){ .pid = pid, .fd = fd[0], .tag = tag };
	return 0;
}

/* What the child has written since the last look. A grandchild may still
 * hold the write end open after the child ended: no waiting for EOF. */
static void take_what_came(struct pool_child *c)
{
	for (;;) {
		if (c->cap - c->len < 4096) {
			c->cap = c->cap ? 2 * c->cap : 8192;
			c->got = xrealloc(c->got, c->cap);
		}
		ssize_t n = read(c->fd, c->got + c->len, c->cap - c->len);
		if (n <= 0)
			return;	/* EOF, nothing yet (EAGAIN), or EINTR: the next look */
		c->len += (size_t)n;
	}
}

size_t pool_reap(struct pool *p, void (*landed)(const struct pool_child *c, void *ctx),
		 void *ctx)
{
	if (hb_interrupted && !p->forwarded) {
		/* Ctrl-C reaches them through the terminal, SIGTERM only us */
		for (size_t i = 0; i < p->n; i++)
			kill(p->v[i].pid, SIGTERM);
		p->forwarded = 1;
	}
	size_t ended = 0;
	for (size_t i = 0; i < p->n;) {
		struct pool_child *c = &p->v[i];
		take_what_came(c);
		pid_t w = waitpid(c->pid, NULL, WNOHANG);
		if (w == 0 || (w < 0 && errno == EINTR)) {
			i++;
			continue;
		}
		take_what_came(c);	/* what it wrote before it ended is all there */
		landed(c, ctx);
		close(c->fd);
		free(c->got);
		p->v[i] = p->v[--p->n];
		ended++;
	}
	return ended;
}

void pool_free(struct pool *p)
{
	forget_children(p);
}

/* Two counters in a shared page: a lock-free int is address-free, so
 * atomics on it hold across processes (C11 7.17.5). */
struct pool_spare {
	atomic_int lent, borrowed;
};
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "pool_spare needs lock-free ints");

struct pool_spare *pool_spare_new(void)
{
	struct pool_spare *sp = mmap(NULL, sizeof(*sp), PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sp == MAP_FAILED)
		return NULL;
	atomic_init(&sp->lent, 0);
	atomic_init(&sp->borrowed, 0);
	return sp;
}

void pool_spare_lend(struct pool_spare *sp, int boards)
{
	if (sp)
		atomic_store(&sp->lent, boards > 0 ? boards : 0);
}

int pool_spare_borrow(struct pool_spare *sp, int want)
{
	if (!sp || want <= 0)
		return 0;
	int had = atomic_load(&sp->borrowed), got;
	do {
		int free = atomic_load(&sp->lent) - had;
		got = free < want ? free : want;
		if (got <= 0)
			return 0;
	} while (!atomic_compare_exchange_weak(&sp->borrowed, &had, had + got));
	return got;
}

void pool_spare_return(struct pool_spare *sp, int boards)
{
	if (sp && boards > 0)
		atomic_fetch_sub(&sp->borrowed, boards);
}

void pool_spare_free(struct pool_spare *sp)
{
	if (sp)
		munmap(sp, sizeof(*sp));
}
