/*
 * intervals: a run's throughput over time, from the DUT's iperf3 JSON
 * (runs/<id>/dut-iperf.json). The DUT's own report is the one on the DUT
 * clock, so in virtual time its intervals are the DUT's seconds, as the
 * run's pps is (docs/metrics.md); warm-up (omitted) intervals are left out.
 *
 * Contract: iperf_intervals() parses text of any content without crashing
 * and returns the number of intervals (0 when there are none or the text
 * is not iperf3 JSON), with their end times (s since the start) and Mbit/s
 * in *t and *mbps, malloc'ed (the caller frees both, also when 0).
 */
#ifndef HB_INTERVALS_H
#define HB_INTERVALS_H

#include <stddef.h>

size_t iperf_intervals(const char *json, double **t, double **mbps);

#endif
