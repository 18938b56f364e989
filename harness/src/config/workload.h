/*
 * workload: one workloads/<name>.yaml file: what traffic to drive.
 *
 * Contract: as board_load(): complete and valid, or -1 with
 * "FILE:LINE:COL: what is wrong; what to do" in err; unknown keys rejected.
 */
#ifndef HB_WORKLOAD_H
#define HB_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

/* Where the host side's iperf3 listens, on every backend: the runner's
 * libiperf server and the host side of a LAVA job both take this port. */
#define IPERF_PORT 5201

enum wl_proto { WL_UDP, WL_TCP };
enum wl_dir { WL_DUT_TX, WL_DUT_RX, WL_BIDIR };	/* seen from the DUT */
/* A profiler running during the traffic (docs/metrics.md, "hrtimer CPU
 * share"); it perturbs the rates, so profiled runs are their own workload. */
enum wl_profile { WL_PROFILE_NONE, WL_PROFILE_FTRACE, WL_PROFILE_PERF };

struct workload {
	char *path;
	char *name;		/* equals the basename without .yaml */
	char *description;
	enum wl_proto proto;
	enum wl_dir dir;
	int length;		/* bytes per write/datagram; 0 = iperf default */
	uint64_t rate_bps;	/* 0 = unlimited */
	int duration_s;		/* measured seconds, 1..3600 */
	/* a run its boot has no other run of its workload in (the planner's
	 * and the gate's): measured seconds, 0 = duration_s. Across boots a
	 * short run's mean settles where in a shared boot it drifts
	 * (docs/measurements.md, "How long a run must be") */
	int duration_own_boot_s;
	int omit_s;		/* warm-up seconds iperf omits, 0..60 */
	int streams;		/* parallel streams, 1..16 */
	enum wl_profile profile;	/* optional, default none */
	/* the metric a report's summary shows for this workload (optional;
	 * analyze/report_summary.h checks it against the metrics table) */
	char *headline;
};

int workload_load(const char *path, struct workload *w, char *err, size_t errlen);
void workload_free(struct workload *w);
/* w as a run of it goes: own_boot (a boot per repetition, config/plan.h,
 * in virtual time, where the evidence for the shorter run is) takes
 * duration_own_boot_s where the file gives one. */
void workload_as_run(struct workload *w, int own_boot);
/* The sha256 of what the DUT is asked to do, in hex: runs of equal digests
 * measured the same thing, so one may stand for the other (a reused
 * reference, run/planner.h); the name and description do not count. */
void workload_digest(const struct workload *w, char out[65]);
const char *wl_proto_name(enum wl_proto p);	/* "udp" | "tcp" */
const char *wl_dir_name(enum wl_dir d);		/* "dut-tx" | "dut-rx" | "bidir" */
const char *wl_profile_name(enum wl_profile p);	/* "none" | "ftrace" | "perf" */
/* 1 when one of w[0..n-1] profiles with perf: its boots need the board's
 * perf_packages in the DUT initramfs (build/userland.h) */
int workloads_profile_perf(const struct workload *w, size_t n);

#endif
