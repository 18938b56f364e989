/*
 * crosscheck: do independent counts of the same frames agree, and did the
 * host keep up with a virtual-time run?
 *
 * The counts come from different vantage points and windows (the DUT's
 * interface counters over the agent's window, the host tap's netlink
 * counters and the host's pcap count over the host's window), so they may
 * differ by a few frames at the window edges and by what one counts and
 * another does not (ARP). docs/metrics.md, "Cross-checks", says why and how
 * the tolerance below was measured.
 *
 * Contract: crosscheck_counts() looks at the counts that are >= 0 (a
 * negative count is "not measured"); with fewer than two it returns -1 and
 * leaves *out alone, else fills *out and returns 0. Pure; prints nothing.
 */
#ifndef HB_CROSSCHECK_H
#define HB_CROSSCHECK_H

#include <stddef.h>

#include "config/workload.h"

/* A pair disagrees when it differs by more than both of these. The frames
 * absorb ARP, which the pcap count excludes (measured: 2 frames in a 4 s
 * run); the percentage is 4x the largest disagreement measured and 5x below
 * the 0.5 % two virtual-time runs of one kernel must agree within. */
#define CROSSCHECK_TOL_PCT 0.1
#define CROSSCHECK_TOL_FRAMES 16

struct crosscheck {
	double max_pct;		/* largest pairwise |a - b| / max(a, b), in % */
	size_t worst_a, worst_b;	/* the indexes of that pair */
	int inconsistent;	/* some pair is beyond the tolerance */
};

int crosscheck_counts(const long long *counts, size_t n, struct crosscheck *out);
/* The pair that differs most, as the run's trace and its warning say it:
 * "DUT tx_packets 18245 vs pcap 17333 (5.00 %)", with names[i] naming
 * counts[i]. Into buf, which it returns. */
const char *crosscheck_pair_text(const struct crosscheck *cc, const long long *counts,
				 const char *const *names, char *buf, size_t len);

/*
 * The clocks of a virtual-time run. Under -icount shift=5,sleep=off the
 * DUT's clock advances 32 ns per guest instruction while the DUT works and
 * jumps to its next timer whenever it idles. How fast the working part runs
 * against real time depends on the host: the DUT-clock seconds of a run
 * were 0.83x the host's in a recorded UDP DUT-TX run and 1.8x in a TCP
 * DUT-RX run, both 99 % busy (tests/data/lava), and below 1x whenever TCG
 * runs fewer than 31 M guest instructions a second (docs/measurements.md),
 * so the run's length in DUT and host seconds says nothing alone. The idle
 * part is the DUT waiting: in a run at an unlimited rate, where the DUT
 * should be the bottleneck, it waits for the host, and its clock races
 * ahead of a host that has not sent or acknowledged yet, so its rate and
 * its TCP and iperf3 timers measure the host.
 *
 * A run is one of four kinds (enum run_pacing). The host fell behind
 *
 * - a DUT-paced run at an unlimited rate (UDP, the DUT sending), when both
 *   hold:
 *   - the DUT was idle for more of its seconds than passed on the host's
 *     clock (idle DUT-seconds per host second above 1): 0.017 and 0.024 in
 *     the two recorded runs (about 1 % idle), at most 0.3 in a 10 s perf
 *     workload (perf's start-up wait is idle by design); the run issue 15
 *     saw stored at -99 % idled about 10 DUT-seconds in 2 host seconds;
 *   - some task waited for a host CPU (PSI cpu "some") for at least a
 *     quarter of the host's window: 0-2 % on the 2-core development
 *     machine between jobs, near 100 % with every core busy (a kernel
 *     build, stress-ng).
 *   The second keeps a DUT that waits for its own timers on a quiet host (a
 *   coalescing patch that stalls TX completion) a measurement: that is the
 *   patch's doing, and exactly what the benchmark is for. Such a run's rate
 *   held within 0.16 % of the quiet runs' with every host core busy
 *   (tests/integration/starve.sh, docs/faults.md);
 * - a TCP run, by the same two signs at lower bounds: more than 0.3 idle
 *   DUT-seconds per host second, with a task waiting for a host CPU for
 *   at least a tenth of the window. Its ACKs or data come from the host
 *   in real time, but the emulated DUT is what limits it: busy 95-99 % of
 *   its clock in either direction, and 0.02-0.19 idle DUT-seconds per host
 *   second, on a quiet host, beside another board's TCP or UDP run, or
 *   with both host cores spinning (host pressure 10-72 %), on the machine
 *   of 2026-12-05's day; its rates held there (TCP DUT-TX delivered 0.6 %
 *   lower with two TCP boards at once, TCP DUT-RX within 0.1 %: "TCP beside
 *   another board"; under stress-ng within -2.4 % to +2.5 % and -0.5 % to
 *   +0.2 %, starve.sh). On a slower machine (boots of 2.5-3.6 s) three of
 *   33 runs beside another board passed far off: TCP DUT-RX -64 % at 1.9
 *   idle DUT-seconds a host second (pressure 23 %, under the quarter
 *   above), TCP DUT-TX -29 % at 0.51 (32 %) and -6 % at 0.72 (52 %), where
 *   the other 30 idled at most 0.26, and runs with the host alone up to
 *   0.13 (DUT-TX) and 0.52 (DUT-RX, pressure 1 %; its rate as the others')
 *   (docs/measurements.md, "A slower machine"). A DUT whose own timers
 *   stall its TCP on a quiet host stays a measurement, as above;
 * - a host-paced run (UDP the host sends), when the second holds alone:
 *   the host's real-time rate, counted on the DUT's clock, is the run's,
 *   and a contended host's emulator runs fewer instructions a second;
 * - a DUT-paced run at a limited rate is never judged: it idles by design.
 *
 * A TCP or host-paced run can also end with the agent killing iperf3 at
 * its deadline while the host is not contended: two emulators on 2 cores, the
 * DUT's clock racing through 27 idle DUT-seconds while the host sent for
 * about 1 s (tests/integration/concurrent.sh, 2026-12-01). waited_for_host
 * says so.
 *
 * The idle DUT-seconds and the host's seconds are the test's only
 * (measure/dataspan.h: from its first data frame to its end). Set-up and
 * teardown are outside what iperf3 measures, and a host late to answer
 * there made a sound run look behind: 25.5 idle DUT-seconds in 5.2 host
 * seconds (at 39 % pressure), 25.4 of them before the parameters' answer,
 * the 4 s test after it clean (docs/measurements.md, "A host late at a
 * run's set-up"). The pressure stays the whole window's (PSI's totals are
 * read at its ends).
 *
 * Contract: crosscheck_clocks() returns -1 when a clock or the host's
 * pressure is unknown (negative, or no host seconds), or a clock's outside
 * seconds or the waits are negative, leaving *out alone; outside seconds
 * that are not less than their clock's are taken as not known, waits
 * beyond the outside seconds as those;
 * else fills *out (reason when host_behind or waited_for_host) and returns 0.
 * Pure.
 */
enum run_pacing {
	PACED_BY_DUT,	/* UDP, the DUT sending at an unlimited rate */
	PACED_BY_TCP,	/* TCP either way: the DUT's limit, the host's ACKs or data */
	PACED_BY_HOST,	/* UDP, the host sending */
	PACED_BY_RATE,	/* UDP, the DUT sending at a limited rate */
};
/* How a workload's runs are paced: the rule above, in one place (the
 * runner judges a run by it, the planner gives UDP DUT-TX boots of their
 * own). */
enum run_pacing crosscheck_pacing(const struct workload *w);
/* Whether a virtual-time run of w keeps its numbers beside another board
 * on this host (DUT-paced runs, measured above), rather than needing the
 * host alone (the others). TCP needs it unless peer_held, the board
 * holding an idle DUT's clock while the host keeps sending
 * (board_peer_held()): beside another board its runs kept their numbers
 * on one machine and passed 6-64 % off, or waited for the host in 8 of 40,
 * on a slower one (docs/measurements.md, "A slower machine"; with the
 * hold, "An idle DUT's clock held for the host"). UDP the host sends
 * always needs it, as real-time runs do. */
int crosscheck_shares_host(const struct workload *w, int peer_held);
struct run_clocks {
	enum run_pacing pacing;
	double dut_s;		/* the DUT's CLOCK_MONOTONIC over the agent's window */
	double dut_idle_s;	/* of it, idle (/proc/stat on the DUT) */
	double host_s;		/* the host's wall clock over its window, which holds the agent's */
	double host_wait_s;	/* of it, with a task waiting for a host CPU (PSI "some") */
	/* Of dut_s and of host_s, the seconds before the test's first data
	 * frame and after its end (measure/dataspan.h): its set-up and
	 * teardown, on either clock from a record stamped with it; 0 when not
	 * known. Of dut_outside_s, the DUT's waits for the host's answers,
	 * which are idle (the rest is the DUT's work). */
	double dut_outside_s, host_outside_s, dut_waits_s;
};
struct clock_check {
	double idle_per_host_s;	/* dut_idle_s / host_s, both without their outside_s */
	double host_wait_pct;	/* host_wait_s / host_s (the whole window: PSI's), in % */
	/* what came off the clocks and the DUT's idle seconds; 0: nothing */
	double dut_outside_s, host_outside_s, dut_waits_s;
	int host_behind;	/* beyond the bounds of the run's pacing */
	/* PACED_BY_TCP or PACED_BY_HOST on a host that was not contended, and
	 * the DUT idled more DUT-seconds than passed on the host's clock: it
	 * waited for the host's traffic. Not enough to void a
	 * measurement alone (a DUT's own stall idles it too), enough not to
	 * blame the DUT for a deadline on its clock that it missed. */
	int waited_for_host;
	char reason[384];	/* host_behind: the numbers, fit for a run's reason */
};
#define CROSSCHECK_MAX_IDLE_PER_HOST_S 1.0
#define CROSSCHECK_MIN_HOST_WAIT_PCT 25.0
#define CROSSCHECK_TCP_MAX_IDLE_PER_HOST_S 0.3
#define CROSSCHECK_TCP_MIN_HOST_WAIT_PCT 10.0

int crosscheck_clocks(const struct run_clocks *c, struct clock_check *out);

/*
 * A TCP run the DUT received counts its transfer twice over the same
 * seconds of the DUT's clock: what its iperf3 read (mbps) and what its
 * kernel acknowledged on the link (mbps_acked, measure/tcpacked.h). Of 154
 * such runs (three benches of the main job and a starved host, 2026-12-06)
 * 149 agreed within 0.8 %; the five 4.7-11.5 % apart had each a sign of the
 * host: its CPUs waited for 24-58 % of the run, or the DUT idled 0.88 s per
 * host second. Four of them passed both clock rules, one reading 5 % low
 * where the quiet runs kept to 0.4 % (one of its measured seconds 13 %
 * under the others: the host's data came unevenly). A run that stalled
 * for an initial RTO across the start of the acknowledged window parts
 * the other way with its read rate sound (iperf3 counted as if its measured
 * seconds began when the data came again; why is open); it is retried all
 * the same (docs/faults.md, "A host that falls behind"). Without a host
 * sign a gap would be the DUT's own (its reader starved by its own softirq
 * work) and stands.
 *
 * Contract: with cc from crosscheck_clocks() (idle_per_host_s >= 0), a
 * read rate >= 0 and an acknowledged one > 0: 1 when the rates are
 * CROSSCHECK_TCP_RX_GAP_PCT or more apart and the host gave a sign
 * (host_wait_pct >= the TCP rule's, or idle_per_host_s > its bound), with
 * cc->host_behind set and cc->reason written; else 0, cc untouched. -1 (cc
 * untouched) when either is unknown. Pure.
 */
#define CROSSCHECK_TCP_RX_GAP_PCT 2.0
int crosscheck_tcp_received(double read_mbps, double acked_mbps, struct clock_check *cc);

/* The "some" total (microseconds) of /proc/pressure/cpu; 0, or -1 if the
 * text has none. */
int crosscheck_psi_some_us(const char *text, long long *us);

#endif
