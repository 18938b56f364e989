/*
 * fuzz_iperf_json: how the host reads iperf3's JSON results: runner.c
 * through runner_iperf_metrics(), and the per-interval parser it shares
 * with the report's plots (store/intervals.h), from the DUT's text as the
 * report reads it. The DUT's file arrives over a serial
 * console (base64, CRC-checked, but written by whatever iperf3 the DUT
 * runs), the host's from libiperf; either can be cut short, carry an
 * "error", or have fields of the wrong type. The first input byte picks the
 * workload (bit 0: DUT sends or receives, bit 1: UDP or TCP); the rest is
 * the DUT's JSON, then a NUL, then the host's (no NUL: the same for both).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "measure/runner.h"
#include "store/intervals.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dut_path[96], host_path[96];
	static struct run_result res;	/* 30 KiB: not on the stack */
	if (size < 1)
		return 0;
	if (!dut_path[0]) {
		snprintf(dut_path, sizeof(dut_path), "%s/dut-iperf.json", fuzz_dir());
		snprintf(host_path, sizeof(host_path), "%s/host-iperf.json", fuzz_dir());
	}
	struct workload w = {
		.name = "fuzz", .dir = data[0] & 4 ? WL_BIDIR : data[0] & 1 ? WL_DUT_RX : WL_DUT_TX,
		.proto = data[0] & 2 ? WL_TCP : WL_UDP, .duration_s = 4, .streams = 1,
	};
	const uint8_t *dut = data + 1, *nul = memchr(dut, 0, size - 1);
	size_t dut_len = nul ? (size_t)(nul - dut) : size - 1;
	fuzz_write(dut_path, dut, dut_len);
	if (nul)
		fuzz_write(host_path, nul + 1, size - 1 - dut_len - 1);
	else
		fuzz_write(host_path, dut, dut_len);
	runner_iperf_metrics(&w, dut_path, host_path, &res);
	char *dut_text = fuzz_cstr(dut, dut_len);
	double *t, *mbps;
	iperf_intervals(dut_text, &t, &mbps);
	free(t);
	free(mbps);
	free(dut_text);
	return 0;
}
