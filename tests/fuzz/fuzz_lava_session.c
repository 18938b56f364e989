/*
 * fuzz_lava_session: LAVA's job log as a backend reads it: lava-run's
 * stdout or a server's log, split into lines by lava_session_pump() and
 * each handled by lava_session_log_line() (the DUT's console passed on,
 * results counted). The log carries the DUT's console, so anything can be
 * in it. The first byte picks the line buffer's size (16 to 4111 bytes,
 * allocated exactly, so ASan sees any write past it: a line longer than it
 * is passed on cut); the rest is the log.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "deploy/lava_session.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char log[96];
	if (size < 1)
		return 0;
	if (!log[0])
		snprintf(log, sizeof(log), "%s/lava-stdout", fuzz_dir());
	fuzz_write(log, data + 1, size - 1);
	size_t cap = 16 + (size_t)data[0] * 16, len = 0;
	char *buf = malloc(cap);
	struct lava_session l;
	int fd = open(log, O_RDONLY | O_CLOEXEC);
	if (!buf || fd < 0 || lava_session_open(&l, fuzz_dir(), "127.0.0.1", 5300) < 0)
		abort();
	while (lava_session_pump(fd, buf, cap, &len, &l, lava_session_log_line))
		;
	if (l.n_failed > l.n_results)
		abort();
	lava_session_close(&l);
	close(fd);
	free(buf);
	return 0;
}
