/*
 * fuzz_agent_lines: a run's console as the host reads it, through
 * runner_agent_metrics(): the agent's COUNTER, HIST, CONTEXT, KMSG and END
 * lines, HB FILE transfers (size=, crc32=, B64 lines, EOF) written into the
 * run directory, and the metrics computed from all of it. The console is
 * shared with a kernel under test (or relayed by a LAVA server), so any
 * line can arrive. The first byte picks the workload (bit 0: DUT receives,
 * bit 1: TCP, bits 2-3: no profiler, ftrace, perf); the rest is the
 * console, a file here: the test double of a DUT.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz.h"
#include "measure/runner.h"

static const char host_json[] =
	"{\"end\":{\"sum_sent\":{\"seconds\":4,\"bits_per_second\":1e6,\"packets\":10},"
	"\"sum_received\":{\"seconds\":4,\"bits_per_second\":1e6,\"packets\":10,"
	"\"lost_packets\":0}}}";

/* What a run may leave in its directory: gone before the next input, so
 * each input is judged on what it sent itself. */
static const char *const run_files[] = {
	"dut-iperf.json", "function-profile.txt", "perf-report.txt", "perf-stat.csv",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char con[96], host[96];
	static struct run_result res;	/* 40 KiB: not on the stack */
	static struct board b = { .dut_interface = "eth0" };
	static struct driver stmmac;	/* the driver under test, as runs have it */
	if (size < 1)
		return 0;
	if (!stmmac.name) {
		char err[1024];
		if (driver_load("drivers/stmmac.yaml", &stmmac, err, sizeof(err)) < 0) {
			fprintf(stderr, "%s (run from the repository's top)\n", err);
			abort();
		}
	}
	const char *dir = fuzz_dir();
	if (!con[0]) {
		snprintf(con, sizeof(con), "%s/console", dir);
		snprintf(host, sizeof(host), "%s/host-iperf.json", dir);
		fuzz_write(host, (const uint8_t *)host_json, sizeof(host_json) - 1);
	}
	for (size_t i = 0; i < sizeof(run_files) / sizeof(run_files[0]); i++) {
		char path[128];
		snprintf(path, sizeof(path), "%s/%s", dir, run_files[i]);
		unlink(path);
	}
	static const enum wl_profile profiles[] = { WL_PROFILE_NONE, WL_PROFILE_FTRACE,
						    WL_PROFILE_PERF, WL_PROFILE_NONE };
	struct workload w = {
		.name = "fuzz", .dir = data[0] & 1 ? WL_DUT_RX : WL_DUT_TX,
		.proto = data[0] & 2 ? WL_TCP : WL_UDP, .profile = profiles[(data[0] >> 2) & 3],
		.duration_s = 4, .streams = 1,
	};
	fuzz_write(con, data + 1, size - 1);
	struct dut d = { .board = &b, .con_wr = -1, .under_test = &stmmac };
	d.con_rd = open(con, O_RDONLY | O_CLOEXEC);
	if (d.con_rd < 0)
		abort();
	runner_agent_metrics(&d, &w, "r1", dir, host, &res);
	close(d.con_rd);
	return 0;
}
