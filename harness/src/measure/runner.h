/*
 * runner: one repetition of one workload on a booted DUT.
 *
 * Drives both ends (the host's libiperf side and the agent's iperf3 side),
 * collects the agent's counters, hist buckets and iperf JSON, and turns them
 * into metrics (docs/metrics.md). Artifacts land in the run directory:
 * host-iperf.json, dut-iperf.json, agent.log (the protocol lines),
 * dut-context.txt (coalescing, IRQ affinity, RPS/XPS, command line), and
 * for a profiled workload the profiler's files.
 *
 * Contract: returns the run's class; for RUN_PASS, res->metrics holds the
 * measurements; otherwise res->reason says why (never a number).
 */
#ifndef HB_RUNNER_H
#define HB_RUNNER_H

#include "config/workload.h"
#include "deploy/dut.h"
#include "store/store.h"

#define RUNNER_MAX_METRICS 256

struct run_result {
	enum run_class cls;
	char reason[512];
	struct metric metrics[RUNNER_MAX_METRICS];
	size_t n_metrics;
	/* storage behind metrics[].name and .source */
	char names[RUNNER_MAX_METRICS][96];
	char sources[RUNNER_MAX_METRICS][96];
};

enum run_class runner_run(struct dut *d, const struct workload *w, const char *run_id,
			  const char *rundir, struct run_result *res);
/* 1 if the DUT's iperf3 JSON (as iperf3 writes it on the SIGINT the agent
 * sends at the run's deadline, hb-agent.c) has measured intervals adding
 * up to the test's duration: its transfer ran its course, and what hung
 * came after it. 0 for anything else, a file that is not such JSON too. */
int runner_transfer_ran(const char *dut_json);
/* The iperf3 part of a run's metrics, from the two JSON files alone (the
 * agent's counters absent): how runner_run() reads iperf3's output, open
 * to the fuzz target. 1 with res->metrics, or 0 with res->reason. */
int runner_iperf_metrics(const struct workload *w, const char *dut_json, const char *host_json,
			 struct run_result *res);
/* The agent's side of a run without the host's traffic: its lines on d's
 * console read as runner_run() reads them (counters, hist buckets, the
 * files they carry into rundir, END), then the metrics from them and
 * host_json. For tests and the fuzz target, whose console is a file
 * (d->con_rd; d->board names the interface): a test double of the DUT.
 * 1 with res->metrics, or 0 with res->reason. */
int runner_agent_metrics(struct dut *d, const struct workload *w, const char *run_id,
			 const char *rundir, const char *host_json, struct run_result *res);

#endif
