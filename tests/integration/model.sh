#!/usr/bin/env bash
# Integration test of the emulated board's EMAC model (docs/boards.md, "The
# faithful emulated board"): every strategy boots on the faithful model
# (hilbench's emulator, boards/qemu-orangepi-pc.yaml) and on Debian's stock
# one (qemu-orangepi-pc-stock) in virtual time. Checked: the TX interrupts
# per frame (the driver's tx_normal_irq_n) are 1/tx-frames with the
# faithful model and 1 with the stock one, and 1 with ethtool -C tx-frames
# 1; each strategy's TX timer shape on the faithful board; the strategies
# the stock model cannot tell apart differ there; every run names the
# emulator that measured it. Virtual time is deterministic, so these are
# behaviour, never speed.
set -uo pipefail
cd "$(dirname "$0")/../.."
HB=$PWD/build/hilbench
export HILBENCH_STORE
HILBENCH_STORE=$(mktemp -d /tmp/hb-model.XXXXXX)
DATA=$PWD/tests/data
source tests/integration/lib.sh
between() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }
# metric BOARD STRATEGY NAME: the value of the plan's one run
metric() { sql "SELECT m.value FROM runs r JOIN metrics m ON m.run_id = r.id
	WHERE r.board='$1' AND r.strategy='$2' AND m.name='$3' AND r.class='pass'"; }
# apart A B PCT: A and B differ by more than PCT percent of B
apart() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = (a - b) / b * 100; exit !(d > p || d < -p) }'; }
t0=$SECONDS

$HB run "$DATA/plans/model.yaml" --workloads "$DATA/workloads/udp64-smoke.yaml" \
	>"$HILBENCH_STORE/run.out" 2>&1
check "every strategy passes on both models, and tx-frames 1 (exit $?)" \
	[ "$(sql "SELECT count(*) FROM runs WHERE class='pass' AND strategy != 'baseline@tx-usecs=0'")" = 14 ]
F=qemu-orangepi-pc S=qemu-orangepi-pc-stock

# --- TX interrupts per frame ---------------------------------------------------
v=$(metric $F baseline tx_irqs_per_pkt)
check "faithful: a TX interrupt every tx-frames (25) frames (got $v per frame)" between "${v:-x}" 0.035 0.045
v=$(metric $F baseline tx_ic_frames_per_pkt)
check "... the frames the driver marked with the IC bit (got $v per frame)" between "${v:-x}" 0.035 0.045
v=$(metric $S baseline tx_irqs_per_pkt)
check "stock: a TX interrupt for every frame (got $v)" between "${v:-x}" 0.95 1.05
v=$(metric $F baseline@tx-frames=1 tx_irqs_per_pkt)
check "faithful, ethtool -C tx-frames 1: a TX interrupt for every frame (got $v)" between "${v:-x}" 0.95 1.05
check "... and tx-frames read back as 1" [ "$(sql "SELECT json_extract(settings, '\$[0].read_back') FROM runs
	WHERE board='$F' AND strategy='baseline@tx-frames=1'")" = 1 ]

# --- tx-usecs 0: no TX timer ---------------------------------------------------------
# stmmac accepts it beside tx-frames 25; on the silicon (and the faithful
# model) up to 24 frames then wait for an interrupt that never comes
check "faithful, tx-usecs 0: the TX queue stalls and the watchdog says so" [ "$(sql "SELECT class FROM runs
	WHERE board='$F' AND strategy='baseline@tx-usecs=0' AND reason LIKE '%NETDEV WATCHDOG%transmit queue 0 timed out%'")" = fail ]
v=$(metric $S baseline@tx-usecs=0 hrtimer_starts_per_pkt)
check "stock, tx-usecs 0: every frame interrupts, nothing waits, no TX hrtimer starts (got $v)" \
	between "${v:-x}" 0 0.001

# --- each strategy's TX timer on the faithful board ------------------------------
v=$(metric $F baseline hrtimer_starts_per_pkt)
check "baseline: one TX hrtimer start per packet (got $v)" between "${v:-x}" 0.95 1.05
# Under UDP send NAPI is rarely scheduled when stmmac_xmit() arms the timer
# (it runs every 25 frames), so gating restarts it about as often as baseline.
for s in gating gating-5ms; do
	v=$(metric $F $s hrtimer_starts_per_pkt)
	check "$s: NAPI rarely scheduled at xmit, the timer restarted almost every packet (got $v)" \
		between "${v:-x}" 0.9 1.05
done
for s in is-queued hrtimer-active; do
	v=$(metric $F $s hrtimer_starts_per_pkt)
	check "$s: a queued timer is left alone, a start every few packets (got $v)" between "${v:-x}" 0.02 0.4
done
v=$(metric $F revert hrtimer_starts_per_pkt)
check "revert: no TX hrtimer starts (got $v per packet)" [ "${v:-x}" = 0.0 ]
v=$(metric $F revert timer_list_starts_per_pkt)
check "revert: the timer_list is (re)armed on a fraction of the packets (got $v)" between "${v:-x}" 0.001 0.5
a=$(metric $F gating tx_timer_expiries_per_pkt) b=$(metric $F gating-5ms tx_timer_expiries_per_pkt)
check "gating-5ms: its 5 ms timer expires less often than gating's 1 ms one ($b vs $a per packet)" \
	awk -v a="${a:-0}" -v b="${b:-1}" 'BEGIN { exit !(b < a) }'
v=$(metric $F hrtimer-active tx_cleans_per_pkt) w=$(metric $F gating tx_cleans_per_pkt)
check "hrtimer-active: its expiring timer cleans the ring more often than gating ($v vs $w per packet)" \
	awk -v a="${w:-1}" -v b="${v:-0}" 'BEGIN { exit !(b > a) }'

# --- the strategies differ where their code differs --------------------------------
g=$(metric $F gating pps) h=$(metric $F hrtimer-active pps) q=$(metric $F is-queued pps)
check "faithful: hrtimer-active sends more than gating ($h vs $g pps)" \
	awk -v g="${g:-1}" -v h="${h:-0}" 'BEGIN { exit !(h > g * 1.05) }'
check "faithful: is-queued and hrtimer-active differ (no gating in is-queued: $q vs $h pps)" \
	apart "${q:-0}" "${h:-1}" 0.05
g5=$(metric $F gating-5ms pps)
check "faithful: gating and gating-5ms differ ($g vs $g5 pps)" apart "${g:-0}" "${g5:-1}" 0.05
sg=$(metric $S gating pps) sg5=$(metric $S gating-5ms pps) sh=$(metric $S hrtimer-active pps)
check "stock: gating, gating-5ms and hrtimer-active read the same ($sg, $sg5, $sh pps)" eval \
	'! apart "${sg:-0}" "${sh:-1}" 0.1 && ! apart "${sg5:-0}" "${sh:-1}" 0.1'

# --- provenance --------------------------------------------------------------------
check "faithful runs name hilbench's emulator and its patches" [ "$(sql "SELECT count(*) FROM runs
	WHERE board='$F' AND emulator LIKE '%hilbench emulator: key % name qemu-7.2; %verified yes%patch 0001-%'")" = 8 ]
check "stock runs name Debian's QEMU only" [ "$(sql "SELECT count(*) FROM runs
	WHERE board='$S' AND emulator LIKE 'QEMU emulator version %' AND emulator NOT LIKE '%hilbench%'")" = 8 ]

# --- TCP DUT-TX: the host's ACKs and a full RX ring ------------------------------
# The host acknowledges every segment (deploy/netns.c), so the DUT's RX ring
# fills in bursts; before emulator patch 0004 such runs of hrtimer-active
# hung in TCP back-off, 6 of 6 (docs/measurements.md, "TCP DUT-TX and the
# host's ACKs").
$HB run --board $F --strategy hrtimer-active --workload tcp-dut-tx --timing virtual \
	--attempts 1 >>"$HILBENCH_STORE/run.out" 2>&1
check "faithful: TCP DUT-TX with an ACK per segment passes, the RX ring resumes (exit $?)" \
	[ "$(sql "SELECT class FROM runs WHERE workload='tcp-dut-tx'")" = pass ]
v=$(sql "SELECT round(rx.value / tx.value, 3) FROM runs r
	JOIN metrics rx ON rx.run_id = r.id AND rx.name = 'dut_rx_packets'
	JOIN metrics tx ON tx.run_id = r.id AND tx.name = 'dut_tx_packets'
	WHERE r.workload='tcp-dut-tx'")
check "... the host acknowledged every DUT segment (got $v packets received per sent)" \
	between "${v:-x}" 0.95 1.05
check "the store is intact" store_intact
check "nothing of ours is left on the host" host_is_clean

echo "# model.sh: $((SECONDS - t0)) s"
echo "$pass passed, $fail failed"
if [ $fail = 0 ]; then rm -rf "$HILBENCH_STORE"; else echo "# store kept: $HILBENCH_STORE"; fi
[ $fail = 0 ]
