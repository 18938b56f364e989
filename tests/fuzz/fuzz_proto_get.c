/*
 * fuzz_proto_get: the host's side of the agent protocol, proto_get() on
 * arbitrary "HB ..." lines. The lines come from a serial console shared with
 * the kernel's own output, so anything can arrive. The first byte picks one
 * of the keys the host looks up, the second the size of the output buffer
 * (allocated exactly, so ASan sees any overflow) and the bound given to
 * proto_get_uint() (2^byte); the rest is the line.
 */
#include <stdint.h>
#include <stdlib.h>

#include "deploy/dut.h"
#include "fuzz.h"

/* Every key dut.c and runner.c ask for. */
static const char *const keys[] = {
	"kernel", "driver", "speed", "size", "crc32", "id", "name", "value",
	"phase", "caller", "hits", "event", "status", "msg",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	const char *key = keys[data[0] % (sizeof(keys) / sizeof(keys[0]))];
	size_t outlen = (size_t)data[1] + 1;
	char *out = malloc(outlen);
	char *line = fuzz_cstr(data + 2, size - 2);
	if (!out)
		abort();
	proto_get(line, key, out, outlen);
	unsigned long long max = data[1] < 64 ? 1ull << data[1] : ~0ull, v;
	if (proto_get_uint(line, key, max, &v) && v > max)
		abort();
	free(line);
	free(out);
	return 0;
}
