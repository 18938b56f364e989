#include "config/workload.h"

#include <stdlib.h>
#include <string.h>

#include "config/yamldoc.h"
#include "util/util.h"

#define W(f) offsetof(struct workload, f)

/* iperf3 puts a timestamp and a 64-bit packet counter in every datagram. */
#define MIN_UDP_LENGTH 16

/* Indexed by the enums: YF_ENUM stores the index. */
static const char *const protos[] = { [WL_UDP] = "udp", [WL_TCP] = "tcp", NULL };
static const char *const dirs[] = {
	[WL_DUT_TX] = "dut-tx", [WL_DUT_RX] = "dut-rx", [WL_BIDIR] = "bidir", NULL
};
static const char *const profiles[] = {
	[WL_PROFILE_NONE] = "none", [WL_PROFILE_FTRACE] = "ftrace", [WL_PROFILE_PERF] = "perf", NULL
};

_Static_assert(sizeof(enum wl_proto) == sizeof(int), "YF_ENUM stores an int");
_Static_assert(sizeof(enum wl_dir) == sizeof(int), "YF_ENUM stores an int");
_Static_assert(sizeof(enum wl_profile) == sizeof(int), "YF_ENUM stores an int");

static const struct yfield workload_fields[] = {
	{ .key = "name", .type = YF_STRING, .required = 1, .off = W(name), .is_name = 1 },
	{ .key = "description", .type = YF_STRING, .required = 1, .off = W(description) },
	{ .key = "protocol", .type = YF_ENUM, .required = 1, .off = W(proto), .choices = protos },
	{ .key = "direction", .type = YF_ENUM, .required = 1, .off = W(dir), .choices = dirs },
	/* 65507: the largest UDP payload in an IPv4 datagram */
	{ .key = "length", .type = YF_INT, .required = 1, .off = W(length),
	  .min = 0, .max = 65507 },
	{ .key = "rate", .type = YF_UINT64, .required = 1, .off = W(rate_bps) },
	{ .key = "duration", .type = YF_INT, .required = 1, .off = W(duration_s),
	  .min = 1, .max = 3600 },
	{ .key = "duration_own_boot", .type = YF_INT, .off = W(duration_own_boot_s),
	  .min = 1, .max = 3600 },
	{ .key = "omit", .type = YF_INT, .required = 1, .off = W(omit_s),
	  .min = 0, .max = 60 },
	{ .key = "streams", .type = YF_INT, .required = 1, .off = W(streams),
	  .min = 1, .max = 16 },
	{ .key = "profile", .type = YF_ENUM, .off = W(profile), .choices = profiles },
	{ .key = "headline", .type = YF_STRING, .off = W(headline) },
	{ 0 }
};

static int check(const struct ydoc *d, const struct workload *w, char *err,
		 size_t errlen)
{
	if (ydoc_check_basename(d, w->name, err, errlen))
		return -1;
	if (w->proto == WL_UDP && w->length && w->length < MIN_UDP_LENGTH)
		return ydoc_err(d, ynode_get(d->root, "length"), err, errlen,
				"'length' must be 0 (iperf3's default) or at least %d "
				"for udp, got %d; iperf3 needs that much for its "
				"timestamp and packet counter",
				MIN_UDP_LENGTH, w->length);
	return 0;
}

int workload_load(const char *path, struct workload *w, char *err, size_t errlen)
{
	struct ydoc *d = ydoc_load(path, err, errlen);

	memset(w, 0, sizeof *w);
	if (!d)
		return -1;
	int rc = ydoc_apply(d, workload_fields, w, err, errlen);
	if (!rc)
		rc = check(d, w, err, errlen);
	ydoc_free(d);
	if (rc) {
		workload_free(w);
		return -1;
	}
	w->path = xstrdup(path);
	return 0;
}

void workload_free(struct workload *w)
{
	free(w->path);
	free(w->name);
	free(w->description);
	free(w->headline);
	memset(w, 0, sizeof *w);
}

void workload_as_run(struct workload *w, int own_boot)
{
	if (own_boot && w->duration_own_boot_s)
		w->duration_s = w->duration_own_boot_s;
}

void workload_digest(const struct workload *w, char out[65])
{
	char *what = xasprintf("proto=%s dir=%s len=%d rate=%llu time=%d omit=%d streams=%d "
			       "profile=%s", protos[w->proto], dirs[w->dir], w->length,
			       (unsigned long long)w->rate_bps, w->duration_s, w->omit_s,
			       w->streams, profiles[w->profile]);
	sha256_hex(what, strlen(what), out);
	free(what);
}

const char *wl_proto_name(enum wl_proto p)
{
	return protos[p];
}

const char *wl_dir_name(enum wl_dir d)
{
	return dirs[d];
}

const char *wl_profile_name(enum wl_profile p)
{
	return profiles[p];
}

int workloads_profile_perf(const struct workload *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (w[i].profile == WL_PROFILE_PERF)
			return 1;
	return 0;
}
