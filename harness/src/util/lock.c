#include "util/lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "util/util.h"

int lock_wait(const char *path, const char *what)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		hb_err("cannot open the lock %s: %s", path, strerror(errno));
		return -1;
	}
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
