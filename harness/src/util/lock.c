#include "util/lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "util/util.h"

/* path opened (created) for flock(), or -1 said. */
static int lock_open(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		hb_err("cannot open the lock %s: %s", path, strerror(errno));
	return fd;
}

int lock_wait(const char *path, const char *what)
{
	int fd = lock_open(path);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return fd;
	hb_info("waiting for %s (%s)", what, path);
	if (flock(fd, LOCK_EX) < 0) {	/* EINTR: Ctrl-C or SIGTERM */
		hb_err("stopped while waiting for %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int lock_compile(void)
{
	char *path = path_join(hb_cache_dir(), "compile.lock");
	int fd = lock_wait(path, "another hilbench's kernel or emulator build to finish");
	free(path);
	return fd;
}

static int host_turn_file(const char *name)
{
	char *path = path_join(hb_cache_dir(), name);
	mkdir_p(hb_cache_dir(), 0755);	/* a cache that has built nothing yet */
	int fd = lock_open(path);
	free(path);
	return fd;
}

/* flock(fd, op), without blocking unless wait: 0, 1 (it would block) or
 * -1 (said). */
static int host_turn_flock(int fd, int op, int wait)
{
	if (flock(fd, op | (wait ? 0 : LOCK_NB)) == 0)
		return 0;
	if (!wait && errno == EWOULDBLOCK)
		return 1;
	hb_err("stopped while waiting for the host's turn: %s", strerror(errno));
	return -1;
}

int lock_host_turn(struct host_turn *t, int alone, int wait)
{
	*t = (struct host_turn)HOST_TURN_NONE;
	int gate = host_turn_file("host.gate"), host = gate < 0 ? -1 : host_turn_file("host.lock");
	if (host < 0) {
		if (gate >= 0)
			close(gate);
		return -1;
	}
	/* alone: the gate is held until the end, so no shared user starts
	 * meanwhile; shared: passed through, waiting where one alone holds it */
	int rc = host_turn_flock(gate, alone ? LOCK_EX : LOCK_SH, wait);
	if (!rc)
		rc = host_turn_flock(host, alone ? LOCK_EX : LOCK_SH, wait);
	if (rc) {
		close(host);
		close(gate);
		return rc;
	}
	t->host = host;
	if (alone)
		t->gate = gate;
	else
		close(gate);
	return 0;
}

void lock_host_turn_end(struct host_turn *t)
{
	if (t->host >= 0)
		close(t->host);
	if (t->gate >= 0)
		close(t->gate);
	*t = (struct host_turn)HOST_TURN_NONE;
}
