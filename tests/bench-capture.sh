#!/usr/bin/env bash
# Host capture capacity (a benchmark, not a test; docs/measurements.md):
# the host's counting path (libpcap + netlink, build/bench/capture-count,
# the same code a run uses) on one end of a veth pair between two network
# namespaces this script creates, 198.18.1.1 -> 198.18.1.2.
#  1. capacity: iperf3 floods 64-byte UDP datagrams at its highest rate;
#     every frame must be counted (counted = rx_packets minus non-IPv4
#     frames, pcap drops 0);
#  2. cost: a plain iperf3 TCP receiver with and without the counter,
#     interleaved, RUNS each; the median with it must be within 10 %.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=$PWD/build/bench/capture-count
SECS=${SECS:-10} RUNS=${RUNS:-5}
A=hb-bench-a-$$ B=hb-bench-b-$$
tmp=$(mktemp -d /tmp/hb-bench-capture.XXXXXX)
cleanup() {
	ip netns pids "$A" 2>/dev/null | xargs -r kill 2>/dev/null || true
	ip netns pids "$B" 2>/dev/null | xargs -r kill 2>/dev/null || true
	ip netns del "$A" 2>/dev/null || true
	ip netns del "$B" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add "$A"
ip netns add "$B"
ip link add hbva netns "$A" type veth peer name hbvb netns "$B"
ip -n "$A" addr add 198.18.1.1/24 dev hbva
ip -n "$B" addr add 198.18.1.2/24 dev hbvb
for ns in "$A" "$B"; do ip -n "$ns" link set lo up; done
ip -n "$A" link set hbva up
ip -n "$B" link set hbvb up

inA() { ip netns exec "$A" "$@"; }
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# Starts the counter on B's end; returns once it counts.
counter_start() {
	# ip itself, not a function: $! must be the counter, not a subshell
	ip netns exec "$B" "$COUNT" hbvb 198.18.1.2/24 198.18.1.1/24 600 >"$tmp/count.out" &
	counter=$!
	for _ in $(seq 100); do grep -q ready "$tmp/count.out" && return; sleep 0.1; done
	echo "bench-capture: the counter did not start" >&2
	exit 1
}
# Not in a $(...) subshell: only this shell can wait for the counter.
counter_stop() {
	kill -TERM "$counter"
	wait "$counter" || true
	line=$(tail -n 1 "$tmp/count.out")
	case $line in counted=*) ;; *) echo "bench-capture: the counter failed: $line" >&2; exit 1 ;; esac
}

iperf() {	# iperf3 client in A against a one-shot server in B; JSON to $1
	local out=$1; shift
	ip netns exec "$B" iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
	local srv=$!
	sleep 0.5
	inA iperf3 -c 198.18.1.2 -p 5201 -J "$@" >"$out" || true
	wait "$srv" || true
}

echo "bench-capture: 1. 64-byte UDP flood, ${SECS} s, counted on the receiving veth"
for i in 1 2 3; do
	counter_start
	iperf "$tmp/udp.json" -u -b 0 -l 64 -t "$SECS"
	counter_stop
	sent=$(json "$tmp/udp.json" "d['end']['sum']['packets']")
	eval "$line"	# counted= rx_packets= rx_dropped= drops=
	echo "bench-capture:   run $i: sent $sent, rx_packets $rx_packets, counted $counted" \
		"($((counted / SECS)) pps), not counted $((rx_packets - counted)), pcap drops $drops," \
		"rx_dropped $rx_dropped"
done

echo "bench-capture: 2. iperf3 TCP receiver, ${RUNS} x (without, with the counter), 5 s each"
without=() with=()
for i in $(seq "$RUNS"); do
	iperf "$tmp/tcp.json" -t 5
	without+=("$(json "$tmp/tcp.json" "round(d['end']['sum_received']['bits_per_second'] / 1e9, 3)")")
	counter_start
	iperf "$tmp/tcp.json" -t 5
	counter_stop
	with+=("$(json "$tmp/tcp.json" "round(d['end']['sum_received']['bits_per_second'] / 1e9, 3)")")
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
m0=$(median "${without[@]}") m1=$(median "${with[@]}")
echo "bench-capture:   without: ${without[*]} Gbit/s, median $m0"
echo "bench-capture:   with:    ${with[*]} Gbit/s, median $m1"
echo "bench-capture:   cost of counting: $(awk -v a="$m0" -v b="$m1" 'BEGIN { printf "%.1f", 100 * (a - b) / a }') % (target <= 10 %)"
