#include "analyze/intervals.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

#include "util/util.h"

size_t iperf_intervals(const char *json, double **t, double **mbps)
{
	cJSON *root = json ? cJSON_Parse(json) : NULL;
	const cJSON *iv = cJSON_GetObjectItemCaseSensitive(root, "intervals");
	size_t cap = cJSON_IsArray(iv) ? (size_t)cJSON_GetArraySize(iv) : 0, n = 0;
	*t = xcalloc(cap ? cap : 1, sizeof(**t));
	*mbps = xcalloc(cap ? cap : 1, sizeof(**mbps));
	const cJSON *it;
	if (!cap)
		iv = NULL;
	cJSON_ArrayForEach(it, iv) {
		const cJSON *sum = cJSON_GetObjectItemCaseSensitive(it, "sum");
		const cJSON *end = cJSON_GetObjectItemCaseSensitive(sum, "end");
		const cJSON *bps = cJSON_GetObjectItemCaseSensitive(sum, "bits_per_second");
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sum, "omitted")) ||
		    !cJSON_IsNumber(end) || !cJSON_IsNumber(bps) || !isfinite(end->valuedouble) ||
		    !isfinite(bps->valuedouble))
			continue;
		(*t)[n] = end->valuedouble;
		(*mbps)[n++] = bps->valuedouble / 1e6;
	}
	cJSON_Delete(root);
	return n;
}
