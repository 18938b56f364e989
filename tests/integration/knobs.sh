#!/usr/bin/env bash
# Integration test of runtime settings and sweeps on the emulated board: the
# baseline kernel booted in QEMU (virtual time), settings applied by the
# agent and read back, a sweep over tx-usecs (with a value the driver
# refuses) and one over napi_defer_hard_irqs, and the HTML report's curves
# in Chromium. It asserts behaviour, never speed.
set -uo pipefail
cd "$(dirname "$0")/../.."
HB=$PWD/build/hilbench
export HILBENCH_STORE
HILBENCH_STORE=$(mktemp -d /tmp/hb-knobs.XXXXXX)
DATA=$PWD/tests/data
pass=0 fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
not_ok() { echo "not ok - $1"; fail=$((fail + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else not_ok "$what"; fi; }
sql() { sqlite3 "$HILBENCH_STORE/hilbench.db" "$@"; }
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
check "one cell per strategy and sweep point: 10 runs" [ "$(sql "SELECT count(*) FROM runs")" = 10 ]
check "one boot per strategy and per sweep: 4 boots" [ "$(sql "SELECT count(DISTINCT boot_id) FROM runs")" = 4 ]
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
dom=$(timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$HILBENCH_STORE/chromium" --dump-dom "file://$html" 2>/dev/null)
check "Chromium renders the report with a sweep curve per metric and setting" eval \
	'[ "$(grep -o "<svg class=\"plot sweep\"" <<<"$dom" | wc -l)" -ge 4 ]'
check "... each with the baseline's line and points" eval \
	'grep -q "<title>baseline@tx-usecs=40000: mean" <<<"$dom" && grep -q "<title>knob-irq-coalescing@napi_defer_hard_irqs=200: mean" <<<"$dom"'

echo "knobs: $((SECONDS - t0)) s"
echo "$pass passed, $fail failed"
[ $fail = 0 ] && rm -rf "$HILBENCH_STORE"
[ $fail = 0 ]
