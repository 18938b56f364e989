/*
 * intervals: a run's throughput over time, from the DUT's iperf3 JSON
 * (runs/<id>/dut-iperf.json). The DUT's own report is the one on the DUT
 * clock, so in virtual time its intervals are the DUT's seconds, as the
 * run's pps is (docs/metrics.md); warm-up (omitted) intervals are left out.
 * The one reader of iperf3's "intervals": the runner's per-interval stddev
 * metrics and the report's throughput plots both come from here, which is
 * why it sits with the store, below the stages that write and read runs.
 *
 * Contract: both functions take input of any content without crashing.
 * iperf_json_intervals() returns the number of measured intervals (0 when
 * there are none or the tree is not iperf3 JSON), each from its "sum", in
 * *v, malloc'ed (the caller frees it, also when 0). iperf_intervals()
 * returns the number of those with an end time and a rate, their end
 * times (s since the start) and Mbit/s in *t and *mbps, malloc'ed (the
 * caller frees both, also when 0).
 */
#ifndef HB_INTERVALS_H
#define HB_INTERVALS_H

#include <stddef.h>

struct cJSON;

/* One measured interval. A field iperf3 did not give, or gave as anything
 * but a finite number, is NaN. */
struct iperf_interval {
	double end;		/* s since the start */
	double seconds;		/* the interval's length */
	double mbps;		/* bits_per_second / 1e6 */
	double packets;		/* UDP: sent, or on the receiver the sequence numbers seen */
	double lost_packets;	/* UDP receiver */
};

size_t iperf_json_intervals(const struct cJSON *report, struct iperf_interval **v);
size_t iperf_intervals(const char *json, double **t, double **mbps);

#endif
