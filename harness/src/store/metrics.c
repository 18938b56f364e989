#include "store/metrics.h"

#include <string.h>

#include "util/util.h"

#define H BETTER_HIGHER
#define L BETTER_LOWER
#define N BETTER_NONE
#define RUN NEEDS_RUN
#define INSN NEEDS_INSN_COUNTS
#define LINK NEEDS_LINK_RECORD

/* Grouped as docs/metrics.md reads: the headline rates, the run's
 * stability and counts, the profilers, how the TX path ran, CPU time, the
 * cross-checks, then context. Reports show the SHOWN_REPORTS and
 * SHOWN_HEADLINE ones in this order. */
const struct metric_def metric_defs[] = {
	{ METRIC_PPS, "packets/s", H, SHOWN_HEADLINE,
	  "UDP only; the seeds' number (`iperf3 -u -b 0 -l 64` on the DUT)",
	  "DUT-TX: datagrams the DUT's iperf3 sent / its measured seconds. DUT-RX: datagrams the "
	  "DUT received (packets - lost) / its seconds", RUN },
	{ METRIC_MBPS, "Mbit/s", H, SHOWN_HEADLINE,
	  "DUT clock; a bidirectional run's is the sum of both directions",
	  "the DUT's iperf3 result: `end.sum_sent` (DUT-TX) or `end.sum_received` (DUT-RX)", RUN },
	{ "mbps_acked", "Mbit/s", H, SHOWN_HEADLINE,
	  "one-way TCP on a board whose emulator records the link: what arrived, where `mbps` "
	  "counts what the sender wrote into its socket (a growing send buffer reads up to 10 % "
	  "more); the gate's TCP DUT-TX rate",
	  "bytes the receiver acknowledged from the workload's warm-up end (after the first data "
	  "segment) to its measured seconds later, in the QEMU filter-dump record of the link, "
	  "whose clock is the DUT's (measure/tcpacked.h)", LINK },
	{ "mbps_dut_tx", "Mbit/s", H, SHOWN_STORED,
	  "bidirectional runs: what the DUT sent",
	  "the DUT's iperf3 `--bidir`: `end.sum_sent`, DUT clock", RUN },
	{ "mbps_dut_rx", "Mbit/s", H, SHOWN_STORED,
	  "bidirectional runs: what the DUT received",
	  "the DUT's iperf3 `--bidir`: `end.sum_received_bidir_reverse`, DUT clock", RUN },
	{ "host_mbps", "Mbit/s", H, SHOWN_STORED,
	  "cross-check; not in bidirectional runs",
	  "libiperf on the host, host clock", RUN },
	{ "lost_pct", "%", L, SHOWN_STORED, "UDP", "the receiver's iperf3", RUN },
	{ "jitter_ms", "ms", L, SHOWN_STORED, "UDP", "the receiver's iperf3", RUN },
	{ "mbps_interval_stddev", "Mbit/s", L, SHOWN_STORED,
	  "within-run stability; across runs use the report's stddev",
	  "sample stddev over the DUT's iperf3 1 s intervals, warm-up (omitted) intervals left out", RUN },
	{ "pps_interval_stddev", "packets/s", L, SHOWN_STORED,
	  "UDP; within-run stability; across runs use the report's stddev",
	  "the same over pps per interval: `packets` (sender) or `packets - lost_packets` "
	  "(receiver) / interval seconds", RUN },
	{ "dut_tx_packets", "packets", N, SHOWN_STORED,
	  "includes iperf3 start-up, warm-up and control traffic, and ARP",
	  "DUT interface counters (sysfs), delta over the agent's sampling window; every run", RUN },
	{ "dut_rx_packets", "packets", N, SHOWN_STORED,
	  "includes iperf3 start-up, warm-up and control traffic, and ARP",
	  "DUT interface counters (sysfs), delta over the agent's sampling window; every run", RUN },
	{ "pps_counter", "packets/s", N, SHOWN_STORED,
	  "a lower bound (the window includes iperf3 start-up); for cross-checking only",
	  "the delta in the workload's direction / the DUT's CLOCK_MONOTONIC delta over the same "
	  "window", RUN },
	{ "hrtimer_share_ftrace_pct", "%", L, SHOWN_REPORTS,
	  "`profile: ftrace` runs; see \"hrtimer CPU share\"",
	  "function profiler (graph time) of `hrtimer_start_range_ns` + `hrtimer_try_to_cancel` + "
	  "`hrtimer_interrupt` / DUT-clock window", RUN },
	{ "hrtimer_share_insn_pct", "%", L, SHOWN_REPORTS,
	  "exact, no probe effect: method `emulator-insn`, every run on a board with "
	  "`insn_profile: on`; see \"hrtimer CPU share\"",
	  "the emulator's instruction counts (QEMU plugin `harness/plugin/hb-insn.c`) of "
	  "`hrtimer_start_range_ns` + `hrtimer_try_to_cancel` + `hrtimer_interrupt`, each with its "
	  "callees / every instruction executed in the agent's window", INSN },
	{ "insn_per_pkt", "instructions/packet", L, SHOWN_REPORTS,
	  "the DUT's CPU cost of a packet, exact in virtual time, in both directions "
	  "(`emulator-insn`)",
	  "instructions executed in the window, kernel and user / the DUT's packets in the "
	  "workload's direction (`dut_tx_packets`, `dut_rx_packets`, both for bidir)", INSN },
	{ "insn_rx_poll_per_pkt", "instructions/packet", L, SHOWN_REPORTS,
	  "DUT-RX runs (`emulator-insn`): the receive path's cost of a packet, free of the idle "
	  "and timer work in `insn_per_pkt` that follows the host's pace",
	  "instructions from entry to return of the driver file's `rx_napi_poll` (stmmac: "
	  "`stmmac_napi_poll_rx`, into which `stmmac_rx()` is inlined) / `dut_rx_packets`", INSN },
	{ "insn_rx_driver_per_pkt", "instructions/packet", L, SHOWN_REPORTS,
	  "DUT-RX runs (`emulator-insn`): the driver's own receive code per packet, exact; the "
	  "gate's receive-path metric",
	  "the instructions in the driver's own functions (the text symbols of its `source` "
	  "directory's objects) from entry to return of its `rx_napi_poll` / `dut_rx_packets`", INSN },
	{ "insn_driver_per_pkt", "instructions/packet", L, SHOWN_REPORTS,
	  "the driver's own code per packet, exact (`emulator-insn`), in both directions",
	  "the instructions in the driver's own functions (the text symbols of its `source` "
	  "directory's objects) in the window / the DUT's packets in the workload's direction", INSN },
	{ "insn_kernel_per_pkt", "instructions/packet", L, SHOWN_STORED,
	  "`emulator-insn`",
	  "the kernel's share of `insn_per_pkt`", INSN },
	{ "insn_window", "instructions", N, SHOWN_STORED,
	  "`emulator-insn`; the window opens once the agent has sampled its counters and armed "
	  "its tracers, as iperf3 starts, and closes before its second sample (hb-agent.c "
	  "`window_mark_*`)",
	  "every instruction the guest executed in the window", INSN },
	{ "insn_self_per_pkt.<fn>", "instructions/packet", L, SHOWN_STORED,
	  "`emulator-insn`: the 20 functions with the most; the run's `insn-profile.txt` has every "
	  "function",
	  "the function's own instructions (callees not included) / the packets of "
	  "`insn_per_pkt`", INSN },
	{ "insn_incl_per_pkt.<fn>", "instructions/packet", L, SHOWN_STORED,
	  "`emulator-insn`: the hrtimer paths and the driver file's `inclusive:` (stmmac: xmit, "
	  "TX clean, both NAPI polls, the TX timer)",
	  "instructions from the function's entry to its return, callees, interrupts and tail "
	  "calls included (ftrace's graph time) / the packets", INSN },
	{ "calls_per_pkt.<fn>", "calls/packet", N, SHOWN_STORED,
	  "`emulator-insn`: the driver file's `calls:` (stmmac: `hrtimer_start_range_ns`, "
	  "`hrtimer_try_to_cancel`, `mod_timer`, `__napi_schedule`)",
	  "executions of the function's first instruction in the window / the packets", INSN },
	{ "insn_unmatched_calls", "calls", L, SHOWN_STORED,
	  "`emulator-insn`: 0 when every inclusive count is whole",
	  "entries of an inclusive function not reached by a call the plugin saw, or whose "
	  "return it missed: left out of the inclusive counts", INSN },
	{ "ftrace_time_pct.<fn>", "%", N, SHOWN_STORED,
	  "nested: read \"hrtimer CPU share\" before adding them",
	  "the same profiler, per function of the filter: its time / DUT-clock window", RUN },
	{ "ftrace_hits.<fn>", "calls", N, SHOWN_STORED,
	  "nested: read \"hrtimer CPU share\" before adding them",
	  "the same profiler, per function of the filter: its hits", RUN },
	{ "tx_napi_polls_per_pkt", "ratio", L, SHOWN_STORED,
	  "`profile: ftrace` runs",
	  "function-profiler hits of the driver file's `tx_napi_poll` (stmmac: "
	  "`stmmac_napi_poll_tx`) / DUT `tx_packets`", RUN },
	{ "hrtimer_share_perf_pct", "%", L, SHOWN_STORED,
	  "`profile: perf`; blind on this board",
	  "`perf record -e cpu-clock -F 1000 -a`: share of samples in kernel symbols whose name "
	  "contains `hrtimer`", RUN },
	{ "irqrestore_share_perf_pct", "%", L, SHOWN_STORED,
	  "`profile: perf`; where irq-off time lands on ARMv7",
	  "the same samples in `_raw_spin_unlock_irqrestore`", RUN },
	{ "xmit_share_perf_pct", "%", L, SHOWN_STORED,
	  "`profile: perf`",
	  "the same samples in the driver file's `xmit` (stmmac: `stmmac_xmit`), self", RUN },
	{ "perf_samples", "samples", N, SHOWN_STORED,
	  "a share of few samples means little",
	  "`# Samples:` of the report", RUN },
	{ "perf_stat.<event>", "events", N, SHOWN_STORED,
	  "`profile: perf`; timer events: lower is better per packet; counts include perf's 3 s "
	  "start-up (idle)",
	  "`perf stat -x, -a` on timer:hrtimer_start, hrtimer_cancel, hrtimer_expire_entry, "
	  "timer_start, timer_expire_entry, napi:napi_poll, irq:softirq_entry", RUN },
	{ "perf_stat.<event>_per_s", "events/s", N, SHOWN_STORED,
	  "`profile: perf`",
	  "`perf_stat.<event>` / DUT-clock window", RUN },
	{ "hrtimer_start.<callback>", "events", N, SHOWN_STORED,
	  "the driver file's `tx_timer` is the TX coalescing timer (stmmac: `stmmac_tx_timer`)",
	  "tracefs hist trigger `hist:keys=function.sym:vals=hitcount` on `timer:hrtimer_start`, "
	  "over the sampling window", RUN },
	{ "hrtimer_starts_per_pkt", "ratio", L, SHOWN_REPORTS,
	  "1.000 on baseline: the timer is re-armed for every packet",
	  "`hrtimer_start.<tx_timer>` / `dut_tx_packets`", RUN },
	{ "timer_start.<callback>", "events", N, SHOWN_STORED,
	  "where the TX timer is a timer_list (as before the hrtimer move)",
	  "the same hist on `timer:timer_start`", RUN },
	{ "timer_list_starts_per_pkt", "ratio", L, SHOWN_REPORTS,
	  "`hrtimer_starts_per_pkt` for a timer_list TX timer",
	  "`timer_start.<tx_timer>` / `dut_tx_packets`", RUN },
	{ "hrtimer_expire_entry.<callback>", "events", N, SHOWN_STORED,
	  "context, no better direction; cheap (expiries are rare): on in every run",
	  "tracefs hist on `timer:hrtimer_expire_entry`, keyed by callback", RUN },
	{ "timer_expire_entry.<callback>", "events", N, SHOWN_STORED,
	  "context, no better direction; cheap (expiries are rare): on in every run",
	  "tracefs hist on `timer:timer_expire_entry`, keyed by callback", RUN },
	{ "hrtimer_expiries_per_s", "events/s", N, SHOWN_STORED,
	  "context: a fix trades starts for expiries (the notes: gating raised them)",
	  "`hrtimer_expire_entry` hits of every callback / the DUT-clock window", RUN },
	{ "timer_list_expiries_per_s", "events/s", N, SHOWN_STORED,
	  "context",
	  "`timer_expire_entry` hits of every callback / the DUT-clock window", RUN },
	{ "tx_timer_expiries_per_s", "events/s", N, SHOWN_STORED,
	  "context",
	  "`hrtimer_expire_entry.<tx_timer>` / the DUT-clock window", RUN },
	{ "tx_timer_expiries_per_pkt", "ratio", L, SHOWN_REPORTS,
	  "how often the TX timer, not an interrupt, cleans the ring (hrtimer-active 0.14, gating "
	  "0.0014 on the faithful board)",
	  "`hrtimer_expire_entry.<tx_timer>` / `dut_tx_packets`", RUN },
	{ "ethtool.<stat>", "events", N, SHOWN_STORED,
	  "exact and free: the driver counts them anyway, so on in every run",
	  "the driver's own statistic (`ETHTOOL_GSTATS`, what `ethtool -S` prints), delta over the "
	  "run, read by the agent before and after (`HB DSTAT`); kept for the driver file's "
	  "`stats:` (stmmac: `tx_normal_irq_n`, `tx_clean`, `tx_set_ic_bit`, `rx_normal_irq_n`), "
	  "every other stat that moved is in the run's `agent.log`", RUN },
	{ "tx_cleans_per_pkt", "ratio", L, SHOWN_REPORTS,
	  "unlike `tx_napi_polls_per_pkt` measured in every run, without a profiler",
	  "`ethtool.tx_clean` / `dut_tx_packets`: `stmmac_tx_clean()` runs, i.e. TX NAPI polls, "
	  "per frame", RUN },
	{ "tx_irqs_per_pkt", "ratio", L, SHOWN_REPORTS,
	  "0.040 (1/`tx-frames`) on the faithful board, 1.000 on the stock model "
	  "(tests/integration/model.sh)",
	  "`ethtool.tx_normal_irq_n` / `dut_tx_packets`: TX interrupts per frame", RUN },
	{ "tx_ic_frames_per_pkt", "ratio", N, SHOWN_STORED,
	  "context: 1/`tx-frames`",
	  "`ethtool.tx_set_ic_bit` / `dut_tx_packets`: frames the driver asked an interrupt for", RUN },
	{ "rx_irqs_per_pkt", "ratio", N, SHOWN_STORED,
	  "context",
	  "`ethtool.rx_normal_irq_n` / `dut_rx_packets`", RUN },
	{ "napi_poll.<dev>", "events", N, SHOWN_STORED,
	  "**profiled runs only**: a per-packet hist cost 19 % of UDP pps in virtual time",
	  "tracefs hist on `napi:napi_poll` keyed by device", RUN },
	{ "napi_polls_per_pkt", "ratio", L, SHOWN_STORED,
	  "fewer polls for the same packets; **profiled runs only**",
	  "`napi_poll.<dev>` of the DUT's interface / (DUT tx + rx packets)", RUN },
	{ "cpu_busy_pct", "%", L, SHOWN_REPORTS,
	  "the DUT's CPU time outside idle",
	  "`/proc/stat` deltas on the DUT over the sampling window", RUN },
	{ "cpu_system_pct", "%", L, SHOWN_STORED,
	  "the DUT's CPU time in the kernel",
	  "`/proc/stat` deltas on the DUT over the sampling window", RUN },
	{ "cpu_softirq_pct", "%", L, SHOWN_STORED,
	  "the DUT's CPU time in softirqs (NAPI, timers)",
	  "`/proc/stat` deltas on the DUT over the sampling window", RUN },
	{ "pcap_dut_tx_frames", "frames", N, SHOWN_STORED,
	  "IPv4 only: no ARP, no IPv6. See \"Cross-checks\"",
	  "libpcap on the host's interface to the DUT (the tap `hb0` on QEMU), live, filter `ip "
	  "host <host> and ip host <dut>`: frames whose IPv4 source is the DUT; host window", RUN },
	{ "pcap_dut_rx_frames", "frames", N, SHOWN_STORED,
	  "IPv4 only: no ARP, no IPv6. See \"Cross-checks\"",
	  "the same capture: frames whose IPv4 source is the host", RUN },
	{ "pcap_drops", "frames", L, SHOWN_STORED,
	  "0 on every run measured; when not 0 the pcap counts are short",
	  "libpcap `ps_drop + ps_ifdrop` over the capture", RUN },
	{ "netlink_dut_tx_frames", "frames", N, SHOWN_STORED,
	  "every protocol",
	  "the host interface's `rx_packets` (on a tap, what the DUT sends is RX), rtnetlink via "
	  "libnl-route-3, host window", RUN },
	{ "netlink_dut_rx_frames", "frames", N, SHOWN_STORED,
	  "every protocol",
	  "the host interface's `tx_packets`, rtnetlink via libnl-route-3, host window", RUN },
	{ "dump_dut_tx_frames", "frames", N, SHOWN_STORED,
	  "a fourth count, from inside the emulator; in the cross-check",
	  "QEMU `-object filter-dump` pcap, the records appended during the host window, read with "
	  "libpcap and classified as the live capture", LINK },
	{ "dump_dut_rx_frames", "frames", N, SHOWN_STORED,
	  "the receiving direction: stored, not judged",
	  "the same dump, frames whose IPv4 source is the host", LINK },
	{ "count_disagreement_pct", "%", L, SHOWN_STORED,
	  "0.005-0.023 % measured",
	  "the largest `\\|a-b\\|/max(a,b)` over pairs of `dut_tx_packets`, "
	  "`netlink_dut_tx_frames`, `pcap_dut_tx_frames`, `dump_dut_tx_frames`", RUN },
	{ "counts_inconsistent", "flag", L, SHOWN_STORED,
	  "the run keeps its class; the pair and counts are in the run's `agent.log` (`host "
	  "crosscheck ...`)",
	  "1 when a pair of those differs by more than 16 frames *and* more than 0.1 %, else 0", RUN },
	{ "coalesce_<dir>_usecs", "us", N, SHOWN_STORED,
	  "context (a result depends on them); also in `dut-context.txt`",
	  "`ETHTOOL_GCOALESCE` ioctl by the agent before the run: `rx_usecs`, `tx_usecs`", RUN },
	{ "coalesce_<dir>_frames", "frames", N, SHOWN_STORED,
	  "context (a result depends on them); also in `dut-context.txt`",
	  "`ETHTOOL_GCOALESCE` ioctl by the agent before the run: `rx_frames`, `tx_frames`", RUN },
	{ "dut_idle_per_host_s", "ratio", N, SHOWN_STORED,
	  "context; in virtual time above 1, on a contended host, the run is `error` instead "
	  "(docs/faults.md, \"A host that falls behind\"); 0.017-0.024 in recorded runs",
	  "the DUT's idle seconds (`/proc/stat` idle share x its `CLOCK_MONOTONIC` delta, agent "
	  "window) / the host's monotonic seconds over the host window, each less the test's "
	  "set-up and teardown (before its first data frame and after its last: QEMU's "
	  "filter-dump on the DUT's clock, the host's capture on the host's)", RUN },
	{ "host_cpu_pressure_pct", "%", N, SHOWN_STORED,
	  "context: the share of the run during which a host task waited for a CPU; absent "
	  "without PSI",
	  "the host's `/proc/pressure/cpu` \"some\" delta / the host window", RUN },
};
const size_t n_metric_defs = HB_ARRAY_SIZE(metric_defs);

const char *const metric_hrtimer_paths[] = {
	"hrtimer_start_range_ns", "hrtimer_try_to_cancel", "hrtimer_interrupt", NULL,
};

#undef H
#undef L
#undef N
#undef RUN
#undef INSN
#undef LINK

/* How many literal characters family pattern matches name with, or -1:
 * the placeholder takes one or more characters. */
static int family_match(const char *pattern, const char *name)
{
	const char *open = strchr(pattern, '<'), *close = open ? strchr(open, '>') : NULL;
	if (!close)
		return -1;
	size_t pre = (size_t)(open - pattern), suf = strlen(close + 1), len = strlen(name);
	if (len < pre + suf + 1 || strncmp(name, pattern, pre) ||
	    strcmp(name + len - suf, close + 1))
		return -1;
	return (int)(pre + suf);
}

const struct metric_def *metric_find(const char *name)
{
	const struct metric_def *best = NULL;
	int best_literal = -1;
	for (size_t i = 0; i < n_metric_defs; i++) {
		if (!strcmp(metric_defs[i].name, name))
			return &metric_defs[i];
		int literal = family_match(metric_defs[i].name, name);
		if (literal > best_literal) {
			best = &metric_defs[i];
			best_literal = literal;
		}
	}
	return best;
}

const char *metric_better_name(enum metric_better b)
{
	return b == BETTER_HIGHER ? "higher" : b == BETTER_LOWER ? "lower" : "none";
}

const char *metric_shown_name(enum metric_shown s)
{
	return s == SHOWN_HEADLINE ? "headline" : s == SHOWN_REPORTS ? "reports" : "stored";
}

const char *metric_needs_name(enum metric_needs n)
{
	return n == NEEDS_INSN_COUNTS ? "insn counts" : n == NEEDS_LINK_RECORD ? "link record" : "run";
}

void metrics_write_markdown(FILE *out)
{
	fputs("| metric | unit | better | shown | needs | what | how |\n"
	      "| --- | --- | --- | --- | --- | --- | --- |\n", out);
	for (size_t i = 0; i < n_metric_defs; i++) {
		const struct metric_def *m = &metric_defs[i];
		fprintf(out, "| `%s` | %s | %s | %s | %s | %s | %s |\n", m->name, m->unit,
			metric_better_name(m->better), metric_shown_name(m->shown),
			metric_needs_name(m->needs), m->what, m->how);
	}
}
