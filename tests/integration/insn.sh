#!/usr/bin/env bash
# Integration test of the emulator's instruction counter (method
# emulator-insn: harness/plugin/hb-insn.c, docs/metrics.md "hrtimer CPU
# share"): the default board counts every run's instructions per kernel
# function in the agent's window. Checked: the plugin does not change what
# the guest does (a boot with it and one without it send the same packets
# at the same pps in virtual time, as closely as two boots do), the counts
# say what the strategies do (baseline starts the TX
# hrtimer once per packet, is-queued rarely), the counter starts after the
# boot, the window is the agent's (a window per run), and every result
# names its method. Behaviour, never
# speed.
set -uo pipefail
cd "$(dirname "$0")/../.."
HB=$PWD/build/hilbench
export HILBENCH_STORE
HILBENCH_STORE=$(mktemp -d /tmp/hb-insn.XXXXXX)
DATA=$PWD/tests/data
source tests/integration/lib.sh
between() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }
# values BOARD STRATEGY NAME: the metric of each pass run, in run order
values() { sql "SELECT m.value FROM runs r JOIN metrics m ON m.run_id = r.id
	WHERE r.board='$1' AND r.strategy='$2' AND m.name='$3' AND r.class='pass' ORDER BY r.started"; }
B=qemu-orangepi-pc U=qemu-orangepi-pc-uncounted
t0=$SECONDS

# one boot per board and strategy, two runs in each
$HB run --board $B --strategies baseline,is-queued --workload "$DATA/workloads/udp64-smoke.yaml" \
	--repeat 2 --timing virtual >"$HILBENCH_STORE/counted.out" 2>&1
check "counted: baseline and is-queued pass twice each (exit $?)" \
	[ "$(sql "SELECT count(*) FROM runs WHERE board='$B' AND class='pass'")" = 4 ]
$HB run --board "$DATA/boards/$U.yaml" --strategy baseline --workload "$DATA/workloads/udp64-smoke.yaml" \
	--repeat 2 --timing virtual >"$HILBENCH_STORE/uncounted.out" 2>&1
check "uncounted: baseline passes twice (exit $?)" \
	[ "$(sql "SELECT count(*) FROM runs WHERE board='$U' AND class='pass'")" = 2 ]

# --- the guest does the same with the plugin and without it -------------------
# Two boots of one kernel are not bit-identical even without the plugin (the
# host's side of the link runs in real time): they agree on UDP pps within
# 1 %, in two clusters about 0.5 % apart (run.sh). A boot with the counter
# agrees with one without it as closely: the plugin adds no instruction to
# the guest (baseline's instructions per packet are counted below).
close() { awk -v a="$1" -v b="$2" 'BEGIN { d = a > b ? a - b : b - a; m = a > b ? a : b;
	exit !(m > 0 && d / m < 0.01) }'; }
for m in dut_tx_packets pps; do
	mapfile -t c < <(values $B baseline $m)
	mapfile -t u < <(values $U baseline $m)
	check "the first run of a boot: $m with the counter and without within 1 % (${c[0]:-?} vs ${u[0]:-?})" \
		close "${c[0]:-0}" "${u[0]:-0}"
	check "... and the second run's (${c[1]:-?} vs ${u[1]:-?})" close "${c[1]:-0}" "${u[1]:-0}"
done
check "uncounted runs have no instruction counts" [ "$(sql "SELECT count(*) FROM metrics m JOIN runs r
	ON r.id = m.run_id WHERE r.board='$U' AND m.name LIKE 'insn%'")" = 0 ]

# --- what the counts say ------------------------------------------------------
mapfile -t s < <(values $B baseline hrtimer_share_insn_pct)
check "baseline: an hrtimer share in each run (${s[*]:-none} %)" eval \
	'[ ${#s[@]} = 2 ] && between "${s[0]}" 1 60 && between "${s[1]}" 1 60'
mapfile -t q < <(values $B is-queued hrtimer_share_insn_pct)
check "is-queued: a smaller share than baseline's (${q[0]:-?} vs ${s[0]:-?} %)" \
	awk -v a="${q[0]:-100}" -v b="${s[0]:-0}" 'BEGIN { exit !(a < b) }'
v=$(values $B baseline calls_per_pkt.hrtimer_start_range_ns | head -n1)
check "baseline: hrtimer_start_range_ns once per packet (got $v)" between "${v:-x}" 0.95 1.05
v=$(values $B is-queued calls_per_pkt.hrtimer_start_range_ns | head -n1)
check "is-queued: hrtimer_start_range_ns on a few packets (got $v)" between "${v:-x}" 0.01 0.4
v=$(values $B baseline insn_per_pkt | head -n1)
k=$(values $B baseline insn_kernel_per_pkt | head -n1)
check "baseline: instructions per packet, most in the kernel ($k of $v)" eval \
	'between "${v:-0}" 100 1000000 && between "${k:-0}" "$(awk -v v="$v" "BEGIN { print v / 2 }")" "$v"'
v=$(values $B baseline insn_incl_per_pkt.stmmac_xmit | head -n1)
w=$(values $B baseline insn_self_per_pkt.stmmac_xmit | head -n1)
check "stmmac_xmit with its callees costs more than its own instructions ($v > $w)" \
	awk -v a="${v:-0}" -v b="${w:-0}" 'BEGIN { exit !(a > b && b > 0) }'
v=$(sql "SELECT max(m.value) FROM metrics m JOIN runs r ON r.id = m.run_id
	WHERE r.board='$B' AND m.name='insn_unmatched_calls'")
check "the inclusive counts are whole: at most a few entries unmatched (got $v)" between "${v:-x}" 0 10
n=$(sql "SELECT count(*) FROM metrics m JOIN runs r ON r.id = m.run_id WHERE r.board='$B'
	AND (m.name LIKE 'insn%' OR m.name LIKE 'calls_per_pkt.%' OR m.name = 'hrtimer_share_insn_pct')
	AND m.source NOT LIKE 'emulator-insn:%'")
check "every instruction count names its method, emulator-insn" [ "$n" = 0 ]

# --- the counter starts once the agent is ready (a boot translated without it) --
n=0
for c in $(sql "SELECT DISTINCT 'boots/' || boot_id || '/console.log' FROM runs WHERE board='$B'"); do
	awk '/HB READY/ { r = 1 } /# hilbench: the instruction counter counts from here/ { if (r) ok = 1 }
		END { exit !ok }' "$HILBENCH_STORE/$c" && n=$((n + 1))
done
check "each counted boot started its counter after the agent's READY ($n of 2)" [ "$n" = 2 ]

# --- the window is the agent's: one per run, in order ---------------------------
windows=""
for a in $(sql "SELECT artifacts FROM runs WHERE board='$B' AND strategy='baseline' ORDER BY started"); do
	windows="$windows$(sed -n 's/^window //p' "$HILBENCH_STORE/$a/insn-profile.txt" 2>/dev/null) "
done
check "each run's counts are its window: windows 1 and 2 of the boot (got ${windows% })" \
	[ "$windows" = "1 2 " ]

check "the store is intact" store_intact
check "nothing of ours is left on the host" host_is_clean

echo "# insn.sh: $((SECONDS - t0)) s"
echo "$pass passed, $fail failed"
if [ $fail = 0 ]; then rm -rf "$HILBENCH_STORE"; else echo "# store kept: $HILBENCH_STORE"; fi
[ $fail = 0 ]
