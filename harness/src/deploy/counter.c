#include "deploy/counter.h"

#include <stdio.h>
#include <sys/socket.h>

#include "deploy/dut.h"
#include "util/util.h"

int counter_start(int fd, double timeout_s, char *why, size_t len)
{
	char c = 'S';
	ssize_t got = READ_CLOSED;
	if (send(fd, &c, 1, MSG_NOSIGNAL) == 1)
		got = read_within(fd, &c, 1, monotonic_s() + timeout_s);
	if (got == 1 && c == 'C')
		return 0;
	const char *what = "the emulator's instruction counter did not start";
	if (got == 1)
		snprintf(why, len, "%s: it answered byte 0x%02x, not 'C' (an emulator plugin "
			 "not of this hilbench?)", what, (unsigned char)c);
	else if (got == READ_NONE_IN_TIME)
		snprintf(why, len, "%s: no answer within %g s", what, timeout_s);
	else if (got == READ_INTERRUPTED)
		snprintf(why, len, "%s: interrupted", what);
	else
		snprintf(why, len, "%s: the emulator closed its socket (its qemu.log beside the "
			 "console says why)", what);
	return -1;
}
