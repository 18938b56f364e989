#!/usr/bin/env bash
# Integration test of runtime settings and sweeps on the emulated board: the
# baseline kernel booted in QEMU (virtual time), settings applied by the
# agent and read back, a sweep over tx-usecs (with a value the driver
# refuses), one over napi_defer_hard_irqs and one over the root qdisc (with
# a qdisc the kernel does not have), the HTML report's curves in Chromium,
# and a sweep going on on fresh boots after runs broken on purpose. It
# asserts behaviour, never speed.
set -uo pipefail
cd "$(dirname "$0")/../.."
HB=$PWD/build/hilbench
export HILBENCH_STORE
HILBENCH_STORE=$(mktemp -d /tmp/hb-knobs.XXXXXX)
DATA=$PWD/tests/data
source tests/integration/lib.sh
t0=$SECONDS

# --- the plan and its mistakes -------------------------------------------------
check "the sweep plan passes hilbench check" eval '$HB check "$DATA/plans/knobs-sweep.yaml" >/dev/null'
bad=$HILBENCH_STORE/knobs-bad.yaml
sed 's/values: \[0, 2, 20, 200\]/values: [0, 2, lots]/' "$DATA/plans/knobs-sweep.yaml" >"$bad"
sed -i 's/^name: knobs-sweep/name: knobs-bad/' "$bad"
out=$($HB check --kind plan "$bad" 2>&1); rc=$?
check "a sweep value the setting cannot take exits 2 (got $rc)" [ $rc = 2 ]
check "... naming FILE:LINE:COL and the fix" grep -q "^$bad:[0-9]*:[0-9]*: napi_defer_hard_irqs wants a decimal integer, got 'lots'" <<<"$out"

# --- the sweep ----------------------------------------------------------------
$HB run "$DATA/plans/knobs-sweep.yaml" --workloads "$DATA/workloads/udp64-knob.yaml" \
	>"$HILBENCH_STORE/run.out" 2>&1
rc=$?
check "a plan with a refused setting exits 125 (some runs not measured; got $rc)" [ $rc = 125 ]
check "one cell per strategy and sweep point: 13 runs" [ "$(sql "SELECT count(*) FROM runs")" = 13 ]
check "one boot per strategy and per sweep: 5 boots" [ "$(sql "SELECT count(DISTINCT boot_id) FROM runs")" = 5 ]
check "the sweep points are labelled cells" [ "$(sql "SELECT count(*) FROM runs WHERE strategy IN
	('baseline@tx-usecs=0','baseline@tx-usecs=1000','baseline@tx-usecs=40000',
	 'knob-irq-coalescing@napi_defer_hard_irqs=0','knob-irq-coalescing@napi_defer_hard_irqs=2',
	 'knob-irq-coalescing@napi_defer_hard_irqs=20','knob-irq-coalescing@napi_defer_hard_irqs=200')
	 AND class='pass'")" = 7 ]
check "settings-only strategies run the baseline kernel (same build key)" [ "$(sql "SELECT count(DISTINCT build_key) FROM runs")" = 1 ]

# every passing run's settings read back as the plan asked
readback() { sql "SELECT json_extract(settings, '\$[$2].read_back') FROM runs WHERE strategy='$1'"; }
all_match=1
for v in 0 1000 40000; do [ "$(readback "baseline@tx-usecs=$v" 0)" = "$v" ] || all_match=0; done
for v in 0 2 20 200; do
	[ "$(readback "knob-irq-coalescing@napi_defer_hard_irqs=$v" 0)" = "$v" ] || all_match=0
	# the strategy's own setting comes along with the swept one
	[ "$(readback "knob-irq-coalescing@napi_defer_hard_irqs=$v" 1)" = 20000 ] || all_match=0
done
check "every sweep point's setting reads back as planned" [ $all_match = 1 ]
check "knob-tx-usecs-5000 reads back tx-usecs 5000" [ "$(readback knob-tx-usecs-5000 0)" = 5000 ]
check "knob-irq-coalescing reads back both settings" eval \
	'[ "$(readback knob-irq-coalescing 0)" = 1 ] && [ "$(readback knob-irq-coalescing 1)" = 20000 ]'
check "the settings are in the runs' settings log" grep -q "^SETTING id=.* key=tx-usecs value=5000" \
	"$HILBENCH_STORE/runs/$(sql "SELECT id FROM runs WHERE strategy='knob-tx-usecs-5000'")/settings.log"

# the refused setting: a failed run with the driver's message, the boot goes on
refused=$(sql "SELECT class || '|' || reason FROM runs WHERE strategy='baseline@tx-usecs=200000'")
check "tx-usecs above stmmac's maximum fails its run with the driver's message ($refused)" \
	grep -q "^fail|setting tx-usecs=200000 refused by the DUT: .*ethtool.*Invalid argument" <<<"$refused"
check "... stored with what was asked and why" [ "$(sql "SELECT json_extract(settings, '\$[0].status')
	FROM runs WHERE strategy='baseline@tx-usecs=200000'")" = refused ]
check "... and the next point of the same boot still ran" [ "$(sql "SELECT class FROM runs
	WHERE strategy='baseline@tx-usecs=40000'")" = pass ]

# the root qdisc: replaced over rtnetlink and read back; one the kernel lacks
# fails its run with the kernel's own words, and the boot goes on
check "qdisc fq_codel reads back fq_codel" [ "$(sql "SELECT class || '|' || json_extract(settings,
	'\$[0].read_back') FROM runs WHERE strategy='baseline@qdisc=fq_codel'")" = "pass|fq_codel" ]
refused=$(sql "SELECT class || '|' || reason FROM runs WHERE strategy='baseline@qdisc=cake'")
check "a qdisc the kernel lacks fails its run with the kernel's message ($refused)" grep -q \
	"^fail|setting qdisc=cake refused by the DUT: RTM_NEWQDISC eth0 root cake: Specified qdisc kind is unknown (No such file or directory)$" <<<"$refused"
check "... and pfifo_fast after it still ran in the same boot" [ "$(sql "SELECT class || '|' ||
	json_extract(settings, '\$[0].read_back') || '|' || (boot_id = (SELECT boot_id FROM runs
	WHERE strategy='baseline@qdisc=cake')) FROM runs WHERE strategy='baseline@qdisc=pfifo_fast'")" = "pass|pfifo_fast|1" ]
# the default root qdisc, on record in every run's context: mq (stmmac
# allocates 8 TX queues) over pfifo_fast, as before CONFIG_NET_SCHED was on
ctx=$HILBENCH_STORE/runs/$(sql "SELECT id FROM runs WHERE strategy='knob-tx-usecs-5000'")/dut-context.txt
check "a run without a qdisc setting has the default root qdisc, mq, in its context" grep -qx "qdisc=root=mq" "$ctx"
check "... and the qdisc sweep's runs have theirs" grep -qx "qdisc=root=fq_codel" \
	"$HILBENCH_STORE/runs/$(sql "SELECT id FROM runs WHERE strategy='baseline@qdisc=fq_codel'")/dut-context.txt"

# what the emulated EMAC can show: tx-usecs 0 switches the TX hrtimer off
hr() { sql "SELECT value FROM metrics m JOIN runs r ON r.id=m.run_id WHERE r.strategy='$1'
	AND m.name='hrtimer_starts_per_pkt'"; }
between() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }
v=$(hr baseline@tx-usecs=1000)
check "tx-usecs 1000: one TX hrtimer start per packet (got $v)" between "${v:-x}" 0.95 1.05
v=$(hr baseline@tx-usecs=0)
check "tx-usecs 0: no TX hrtimer starts (got $v)" between "${v:-x}" 0 0.001

# --- the reports ----------------------------------------------------------------
text=$($HB report --all 2>&1)
check "the text report lists the sweep cells beside the strategies" eval \
	'grep -q "baseline@tx-usecs=40000" <<<"$text" && grep -q "knob-irq-coalescing" <<<"$text"'
check "... and the best setting per metric" grep -q "udp64-knob / pps (higher is better) / tx-usecs: baseline best at" <<<"$text"
json=$($HB report --all --format json)
check "the JSON report has the two sweeps" [ "$(python3 -c 'import json,sys
d=json.load(sys.stdin); print(sorted({s["setting"] for s in d["sweeps"]}))' <<<"$json")" = "['napi_defer_hard_irqs', 'tx-usecs']" ]
html=$HILBENCH_STORE/report.html
$HB report --all --format html --out "$html"
read -r sweeps curves < <(rendered "$html" "svg.sweep" "svg.sweep polyline")
check "Chromium lays out a sweep curve per metric and setting, as SVG (got ${sweeps:-none})" \
	[ "${sweeps:-0}" -ge 4 ]
check "... each with lines (got ${curves:-none})" [ "${curves:-0}" -ge 4 ]
geometry=$(bash tests/report/geometry.sh "$html" 2>&1)
check "... every mark inside its plot, no labels overlapping, at 800 and 1400 px" \
	[ "$(grep -c '^ok ' <<<"$geometry")" = 2 ]
grep -v '^ok ' <<<"$geometry" | head -20 | sed 's/^/# /'
check "... the baseline's and the IRQ-coalescing strategy's curves among them" eval \
	'grep -q "<title>baseline@tx-usecs=40000: mean" "$html" && grep -q "<title>knob-irq-coalescing@napi_defer_hard_irqs=200: mean" "$html"'

echo "# sweeps and reports: $((SECONDS - t0)) s"

# --- a sweep goes on on a fresh boot after a failed run ------------------------
# QEMU is SIGKILLed while the chosen points run (--attempts 1: no retry in
# place). kill_during N LABEL...: in store N, kill QEMU once each LABEL's run
# is under way.
kill_during() {
	local store=$1 label
	shift
	export HILBENCH_STORE=$main_store/$store
	mkdir -p "$HILBENCH_STORE"
	$HB run "$DATA/plans/knobs-reboot.yaml" --workloads "$DATA/workloads/udp64-knob.yaml" \
		--attempts 1 >"$HILBENCH_STORE/run.out" 2>&1 &
	local pid=$!
	for label in "$@"; do
		# the label's run line, then its runner's "warm-up)" line: the
		# point's settings are applied and its traffic is starting. Its
		# 3 s of the DUT's clock took under 2 s of wall time on the
		# fastest machine yet, so a fixed wait after the first line
		# (1.5 s, polled every 0.5 s) once landed after the run there.
		for _ in $(seq 1500); do
			awk -v l="$label, udp64-knob, repetition 1/1" \
				'index($0, l) { on = 1 } on && /warm-up\)/ { f = 1 } END { exit !f }' \
				"$HILBENCH_STORE/run.out" && break
			sleep 0.2
		done
		sleep 0.5
		pkill -KILL -P "$pid" -f qemu-system-arm	# only this hilbench's QEMU
	done
	wait "$pid"
}
main_store=$HILBENCH_STORE
point() { sql "SELECT class FROM runs WHERE strategy='baseline@tx-usecs=$1'"; }
boot() { sql "SELECT boot_id FROM runs WHERE strategy='baseline@tx-usecs=$1'"; }

kill_during one baseline@tx-usecs=1000; rc=$?
check "a broken sweep point: exit 125 (got $rc)" [ $rc = 125 ]
check "... the broken point keeps its class and reason" [ "$(sql "SELECT count(*) FROM runs
	WHERE strategy='baseline@tx-usecs=1000' AND class IN ('error','fail') AND reason NOT LIKE 'not run%'
	AND reason NOT LIKE '%retried%'")" = 1 ]
check "... the points after it are measured" [ "$(point 5000) $(point 40000)" = "pass pass" ]
check "... on a fresh boot of their own" eval '[ "$(boot 5000)" = "$(boot 40000)" ] &&
	[ "$(boot 5000)" != "$(boot 1000)" ] && [ "$(boot 0)" = "$(boot 1000)" ]'
check "... saying so" grep -q "going on with the next run on a fresh boot (1 of 2 after failed runs in this sweep)" \
	"$HILBENCH_STORE/run.out"

kill_during cap baseline@tx-usecs=0 baseline@tx-usecs=1000 baseline@tx-usecs=5000; rc=$?
check "three broken points: exit 125 (got $rc)" [ $rc = 125 ]
check "... two fresh boots, then the cap: the last point is not run, saying why (an error, its one attempt used)" [ "$(sql "SELECT
	class || '|' || reason FROM runs WHERE strategy='baseline@tx-usecs=40000'")" = \
	"error|not run: an error, with every attempt used, ended run $(sql "SELECT id FROM runs WHERE strategy='baseline@tx-usecs=5000'"); the sweep's fresh boots after failed runs are used up" ]
check "... the broken points on three boots" [ "$(sql "SELECT count(DISTINCT boot_id) FROM runs
	WHERE strategy LIKE 'baseline@%' AND strategy != 'baseline@tx-usecs=40000'")" = 3 ]
HILBENCH_STORE=$main_store
check "no QEMU of this test left, none in a network namespace (a tap) of its own" host_is_clean

echo "knobs: $((SECONDS - t0)) s"
echo "$pass passed, $fail failed"
[ $fail = 0 ] && rm -rf "$HILBENCH_STORE"
[ $fail = 0 ]
