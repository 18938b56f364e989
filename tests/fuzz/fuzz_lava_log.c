/*
 * fuzz_lava_log: lava_log_parse() on arbitrary lines. They come from a LAVA
 * server or lava-run, and carry the DUT's console text, which can be
 * anything; the parse must never read or write out of bounds, and a
 * parsed entry's strings are always terminated.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "deploy/lava_log.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = fuzz_cstr(data, size);
	struct lava_log_entry *e = malloc(sizeof(*e));
	if (!e)
		abort();
	if (lava_log_parse(line, e) == 0 &&
	    (strlen(e->lvl) >= sizeof(e->lvl) || strlen(e->msg) >= sizeof(e->msg) ||
	     strlen(e->measurement) >= sizeof(e->measurement)))
		abort();
	free(e);
	free(line);
	return 0;
}
