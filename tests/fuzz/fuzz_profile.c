/*
 * fuzz_profile: the parsers of the DUT profilers' files (measure/profile.c)
 * and of /dev/kmsg records (agent_proto.c). The files arrive from the DUT
 * over a console; the first byte picks the parser and the size of its
 * output array (allocated exactly, so ASan sees any write past it).
 */
#include <stdint.h>
#include <stdlib.h>

#include "agent_proto.h"
#include "fuzz.h"
#include "measure/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t max = data[0] >> 2;
	char *text = fuzz_cstr(data + 1, size - 1);
	unsigned long long samples;
	switch (data[0] & 3) {
	case 0: {
		struct fprof_entry *e = malloc((max ? max : 1) * sizeof(*e));
		fprof_parse(text, e, max);
		free(e);
		break;
	}
	case 1: {
		struct perf_sym *e = malloc((max ? max : 1) * sizeof(*e));
		perf_report_parse(text, e, max, &samples);
		free(e);
		break;
	}
	case 2: {
		struct perf_count *e = malloc((max ? max : 1) * sizeof(*e));
		perf_stat_parse(text, e, max);
		free(e);
		break;
	}
	default: {
		/* the raw bytes: a kmsg record is not NUL-terminated */
		unsigned level;
		const char *t;
		size_t len;
		uint8_t *raw = malloc(size - 1 ? size - 1 : 1);
		memcpy(raw, data + 1, size - 1);
		kmsg_record_parse((const char *)raw, size - 1, &level, &t, &len);
		free(raw);
		break;
	}
	}
	free(text);
	return 0;
}
