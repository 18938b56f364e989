# lava-report.awk: the metrics of one `hb-agent run`, computed on the DUT for
# a LAVA job (docs/lava.md), one "NAME VALUE UNIT" line each, for
# lava-test-case. The same definitions as compute_metrics() in
# harness/src/measure/runner.c (docs/metrics.md), minus host_mbps: the host's
# view is not on the DUT. hilbench's own backends recompute every metric from
# the HB lines, which stay on the console; these are for LAVA's result pages.
#
#   awk -v proto=udp|tcp -v dir=tx|rx [-v tx_timer=CALLBACK] -f lava-report.awk IPERF.json AGENT.out
#
# tx_timer: the driver's TX timer callback (its drivers/<name>.yaml file's
# tx_timer, e.g. stmmac_tx_timer); without it the per-packet timer metrics
# are not reported.
#
# Prints nothing unless the agent ended the run with status=ok: like the
# runner, only a passed run has metrics. POSIX awk (BusyBox, mawk, gawk).

# iperf3 -J output as cJSON pretty-prints it: one key per line, so a stack of
# keys gives each leaf's path. Keeps the leaves of end.sum_sent and
# end.sum_received as json["sum_sent.packets"] and so on.
FILENAME == ARGV[1] {
	s = $0
	sub(/^[ \t]+/, "", s)
	sub(/,$/, "", s)
	key = ""
	if (s ~ /^"[^"]*":/) {
		key = s
		sub(/^"/, "", key)
		sub(/".*/, "", key)
		sub(/^"[^"]*":[ \t]*/, "", s)
	}
	if (s == "{" || s == "[{")
		path[++depth] = key
	else if (s == "}" || s == "}]")
		depth--
	else if (s != "}, {" && depth == 3 && path[2] == "end")
		json[path[3] "." key] = s
	next
}

$1 != "HB" { next }
{
	split("", f)
	for (i = 3; i <= NF; i++)
		if ((eq = index($i, "=")) > 0)
			f[substr($i, 1, eq - 1)] = substr($i, eq + 1)
}
$2 == "COUNTER" { ctr[f["phase"] "." f["name"]] = f["value"] }
$2 == "HIST" {
	event = f["event"]
	sub(/^.*:/, "", event)
	hist[event "." f["caller"]] += f["hits"]
	nhist++
}
$2 == "END" { status = f["status"] }

function has(name) { return ("before." name) in ctr && ("after." name) in ctr }
function delta(name) { return ctr["after." name] - ctr["before." name] }
function emit(name, value, unit, fmt) {
	# LAVA test case names: [-_a-zA-Z0-9.]
	gsub(/[^-_a-zA-Z0-9.]/, "_", name)
	printf "%s " fmt " %s\n", name, value, unit
}

END {
	if (status != "ok")
		exit
	sends = dir == "tx"
	sum = sends ? "sum_sent" : "sum_received"
	secs = json[sum ".seconds"] + 0
	if (secs > 0 && (sum ".bits_per_second") in json)
		emit("mbps", json[sum ".bits_per_second"] / 1e6, "Mbit/s", "%.6f")
	if (proto == "udp" && secs > 0) {
		# the receiver's numbers: the DUT's own, or the server's as
		# iperf3 passes them back to its client
		total = json["sum_received.packets"]
		lost = json["sum_received.lost_packets"]
		if (sends && ("sum_sent.packets" in json))
			emit("pps", json["sum_sent.packets"] / secs, "packets/s", "%.6f")
		if (!sends && total != "" && lost != "")
			emit("pps", (total - lost) / secs, "packets/s", "%.6f")
		if (total > 0 && lost != "")
			emit("lost_pct", 100 * lost / total, "%", "%.6f")
		if (json["sum_received.jitter_ms"] != "")
			emit("jitter_ms", json["sum_received.jitter_ms"], "ms", "%.6f")
	}
	if (has("tx_packets"))
		emit("dut_tx_packets", delta("tx_packets"), "packets", "%.0f")
	if (has("rx_packets"))
		emit("dut_rx_packets", delta("rx_packets"), "packets", "%.0f")
	pkts_name = sends ? "tx_packets" : "rx_packets"
	if (has(pkts_name) && has("clock_ns") && delta("clock_ns") > 0)
		emit("pps_counter", delta(pkts_name) / (delta("clock_ns") / 1e9), "packets/s", "%.6f")
	for (k in hist)
		emit(k, hist[k], "events", "%.0f")
	# A strategy that never arms the timer has no bucket for it: a measured
	# 0, as long as trace data arrived at all.
	txp = has("tx_packets") ? delta("tx_packets") : 0
	if (nhist > 0 && txp > 0 && tx_timer != "") {
		emit("hrtimer_starts_per_pkt", hist["hrtimer_start." tx_timer] / txp, "ratio", "%.6f")
		emit("timer_list_starts_per_pkt", hist["timer_start." tx_timer] / txp, "ratio", "%.6f")
	}
	split("cpu_user cpu_nice cpu_system cpu_idle cpu_iowait cpu_irq cpu_softirq", cpu, " ")
	total = 0
	for (i = 1; i <= 7; i++) {
		v[i] = has(cpu[i]) ? delta(cpu[i]) : -1
		if (v[i] > 0)
			total += v[i]
	}
	if (total > 0) {
		busy = total - (v[4] > 0 ? v[4] : 0)
		emit("cpu_softirq_pct", 100 * v[7] / total, "%", "%.6f")
		emit("cpu_system_pct", 100 * v[3] / total, "%", "%.6f")
		emit("cpu_busy_pct", 100 * busy / total, "%", "%.6f")
	}
}
