#include "store/intervals.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

#include "util/util.h"

static double finite_number(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : NAN;
}

size_t iperf_json_intervals(const cJSON *report, struct iperf_interval **v)
{
	const cJSON *iv = cJSON_GetObjectItemCaseSensitive(report, "intervals");
	size_t cap = cJSON_IsArray(iv) ? (size_t)cJSON_GetArraySize(iv) : 0, n = 0;
	*v = xcalloc(cap ? cap : 1, sizeof(**v));
	const cJSON *it;
	if (!cap)
		iv = NULL;
	cJSON_ArrayForEach(it, iv) {
		const cJSON *sum = cJSON_GetObjectItemCaseSensitive(it, "sum");
		if (!cJSON_IsObject(sum) ||
		    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sum, "omitted")))
			continue;
		(*v)[n++] = (struct iperf_interval){
			.end = finite_number(sum, "end"),
			.seconds = finite_number(sum, "seconds"),
			.mbps = finite_number(sum, "bits_per_second") / 1e6,
			.packets = finite_number(sum, "packets"),
			.lost_packets = finite_number(sum, "lost_packets"),
		};
	}
	return n;
}

size_t iperf_intervals(const char *json, double **t, double **mbps)
{
	cJSON *root = json ? cJSON_Parse(json) : NULL;
	struct iperf_interval *v;
	size_t all = iperf_json_intervals(root, &v), n = 0;
	cJSON_Delete(root);
	*t = xcalloc(all ? all : 1, sizeof(**t));
	*mbps = xcalloc(all ? all : 1, sizeof(**mbps));
	for (size_t i = 0; i < all; i++) {
		if (isnan(v[i].end) || isnan(v[i].mbps))
			continue;
		(*t)[n] = v[i].end;
		(*mbps)[n++] = v[i].mbps;
	}
	free(v);
	return n;
}
