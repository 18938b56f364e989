/*
 * fuzz_insn: the parser of the emulator's instruction counts of a window
 * (measure/profile.c insn_window_parse(), the file harness/plugin/hb-insn.c
 * writes on the host). The first byte is the output array's size
 * (allocated exactly, so ASan sees any write past it).
 */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz.h"
#include "measure/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t max = data[0];
	char *text = fuzz_cstr(data + 1, size - 1);
	struct insn_fn *e = malloc((max ? max : 1) * sizeof(*e));
	struct insn_window w;
	insn_window_parse(text, &w, e, max);
	free(e);
	free(text);
	return 0;
}
