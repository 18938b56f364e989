#!/usr/bin/env bash
# Integration tests on the emulated board: a real kernel built from Debian's
# linux-source-6.1 with the base layer, booted in QEMU orangepi-pc (EMAC
# driven by dwmac-sun8i), traffic from libiperf, runs in a fresh store.
# They assert behaviour, never speed.
set -uo pipefail
cd "$(dirname "$0")/../.."
HB=$PWD/build/hilbench
export HILBENCH_STORE
HILBENCH_STORE=$(mktemp -d /tmp/hb-itest.XXXXXX)
DATA=$PWD/tests/data
source tests/integration/lib.sh

# --- input errors: clear message with FILE:LINE:COL, exit 2 -----------------
bad=$DATA/bad/unknown-key-nested.yaml
out=$($HB check --kind board "$bad" 2>&1); rc=$?
check "check rejects a broken board file with exit 2" [ $rc = 2 ]
check "the error names FILE:LINE:COL" grep -qE "^$bad:[0-9]+:[0-9]+: " <<<"$out"
check "check accepts the shipped board" $HB check boards/qemu-orangepi-pc.yaml

# --- a patch that does not apply: which patch, which file, which hunk -------
badpatch=$HILBENCH_STORE/bad.patch
cat >"$badpatch" <<'P'
--- a/drivers/net/ethernet/stmicro/stmmac/stmmac_main.c
+++ b/drivers/net/ethernet/stmicro/stmmac/stmmac_main.c
@@ -1,3 +1,3 @@
-this line is not in the file
+neither is this one
 nor this
P
out=$($HB build --board qemu-orangepi-pc --strategy baseline --patch "$badpatch" 2>&1); rc=$?
check "a patch that does not apply exits 2" [ $rc = 2 ]
check "the error names the patch, the file and the hunk" \
	grep -q "bad.patch (user layer) does not apply.*stmmac_main.c: Hunk #1 FAILED" <<<"$out"

# --- a kernel source the stacks were not verified on --------------------------
# A home whose driver-patches/6.1/verified lists another version than the
# installed linux-source-6.1: every strategy is checked to apply first.
# The plain baseline is built first (the end-to-end slice below needs it):
# the patched build then starts from it. Built the other way round, on an
# empty cache, baseline compiled every file twice, the second time from
# ccache: 171 s more of a cold CI (docs/measurements.md).
$HB build --board qemu-orangepi-pc --strategy baseline >/dev/null ||
	not_ok "the baseline kernel builds"
home=$HILBENCH_STORE/home
mkdir -p "$home"
for e in *; do [ "$e" = driver-patches ] || ln -s "$PWD/$e" "$home/$e"; done
cp -a driver-patches "$home/"
echo "0.0-1" >"$home/driver-patches/6.1/verified"
unverified=$HILBENCH_STORE/unverified.patch
sed 's/a comment changes nothing that runs/an unverified source, a comment/' \
	"$DATA/patches/comment-only.patch" >"$unverified"
out=$(HILBENCH_HOME=$home $HB build --board qemu-orangepi-pc --strategy baseline \
	--patch "$unverified" 2>&1); rc=$?
check "an unverified linux-source builds once every strategy applies (exit $rc)" [ $rc = 0 ]
# (built by an earlier run of this test, the cached build says so instead)
check "... saying so, with the versions it was verified on" eval 'grep -q \
	-e "NOTE: linux-source-6.1 .* is not a version driver-patches/6.1/ was verified on (0.0-1" \
	-e "NOTE: the cached build .* is not a version its series was verified on" <<<"$out"'
m=$(sed -n 's|^manifest *||p' <<<"$out")
check "... and its manifest says source_verified false" \
	grep -q '"source_verified":[[:space:]]*false' "${m:-/nonexistent}"
mkdir "$home/driver-patches/6.1/zz-broken"
cp "$badpatch" "$home/driver-patches/6.1/zz-broken/0001-bad.patch"
printf '# A strategy that does not apply (integration test)\ndriver: stmmac\n0001-bad.patch\n' \
	>"$home/driver-patches/6.1/zz-broken/series"
sed -i 's/an unverified source, a comment/an unverified source, another comment/' "$unverified"
out=$(HILBENCH_HOME=$home $HB build --board qemu-orangepi-pc --strategy baseline \
	--patch "$unverified" 2>&1); rc=$?
check "a strategy that does not apply to the unverified source stops the build (exit 2, got $rc)" [ $rc = 2 ]
check "... naming the strategy" grep -q "strategy zz-broken does not apply to linux-source-6.1" <<<"$out"

# --- the end-to-end slice ----------------------------------------------------
$HB run --board qemu-orangepi-pc --strategy baseline \
	--workload "$DATA/workloads/udp64-smoke.yaml,$DATA/workloads/tcp-rx-smoke.yaml" \
	--timing virtual 2>&1 | tee "$HILBENCH_STORE/run.out"
rc=${PIPESTATUS[0]}
check "hilbench run exits 0" [ $rc = 0 ]
boot=$(sql "SELECT boot_id FROM runs LIMIT 1")
console=$HILBENCH_STORE/boots/$boot/console.log
check "dwmac-sun8i probed" grep -q "dwmac-sun8i .*ethernet" "$console"
check "the link came up" grep -q "Link is Up" "$console"
check "two runs stored, both pass" [ "$(sql "SELECT count(*) FROM runs WHERE class='pass'")" = 2 ]
udp=$(sql "SELECT id FROM runs WHERE workload='udp64-smoke'")
pps=$(sql "SELECT value FROM metrics WHERE run_id='$udp' AND name='pps'")
check "UDP DUT-TX pps > 0 (got $pps)" awk -v v="${pps:-0}" 'BEGIN { exit !(v > 0) }'
for m in pcap_dut_tx_frames netlink_dut_tx_frames; do
	v=$(sql "SELECT value FROM metrics WHERE run_id='$udp' AND name='$m'")
	check "UDP DUT-TX $m > 0 (got $v)" awk -v v="${v:-0}" 'BEGIN { exit !(v > 0) }'
done
v=$(sql "SELECT CAST(value AS INTEGER) FROM metrics WHERE run_id='$udp' AND name='counts_inconsistent'")
check "UDP DUT-TX: the DUT's, netlink's and pcap's counts agree (counts_inconsistent=$v)" [ "$v" = 0 ]
v=$(sql "SELECT value FROM metrics WHERE run_id='$udp' AND name='dump_dut_tx_frames'")
check "UDP DUT-TX: QEMU's filter-dump counted the DUT's frames too (got $v)" awk -v v="${v:-0}" 'BEGIN { exit !(v > 0) }'
# the clock check found the test's data in both records: its set-up and
# teardown on the DUT's clock (filter-dump) and on the host's (capture)
for r in $(sql "SELECT id FROM runs"); do
	out=$(sed -n 's/.*set-up and teardown left out \([0-9.]*\) s DUT ([0-9.]* s of it idle), \([0-9.]*\) s host$/\1 \2/p' \
		"$HILBENCH_STORE/runs/$r/agent.log")
	check "run $r: the test's set-up and teardown found on both clocks (got ${out:-none})" \
		awk -v d="${out% *}" -v h="${out#* }" 'BEGIN { exit !(d > 0 && h > 0) }'
done
mbps=$(sql "SELECT value FROM metrics m JOIN runs r ON r.id=m.run_id WHERE r.workload='tcp-rx-smoke' AND m.name='mbps'")
check "TCP DUT-RX Mbit/s > 0 (got $mbps)" awk -v v="${mbps:-0}" 'BEGIN { exit !(v > 0) }'
# the DUT receiving, its iperf3 counts what arrived: the bytes it
# acknowledged over the same seconds, from QEMU's record, say the same
acked=$(sql "SELECT value FROM metrics m JOIN runs r ON r.id=m.run_id WHERE r.workload='tcp-rx-smoke' AND m.name='mbps_acked'")
check "TCP DUT-RX: the acknowledged rate from the filter-dump is iperf3's within 5 % (got $acked against $mbps)" \
	awk -v a="${acked:-0}" -v m="${mbps:-0}" 'BEGIN { exit !(m > 0 && a > 0.95 * m && a < 1.05 * m) }'
prov=$(sql "SELECT count(*) FROM runs WHERE id='$udp' AND kernel_release LIKE '6.1.%'
	AND kernel_version='6.1.192' AND length(build_key)=64 AND length(config_sha256)=64
	AND patches LIKE '%0001-net-stmmac-don-t-clear-xstats-in-open.patch%'
	AND emulator LIKE 'QEMU emulator version%' AND hilbench_commit != '' AND host != ''
	AND timing='virtual' AND started <= ended")
check "the run carries its provenance" [ "$prov" = 1 ]
check "raw artifacts kept" test -s "$HILBENCH_STORE/runs/$udp/dut-iperf.json" -a \
	-s "$HILBENCH_STORE/runs/$udp/host-iperf.json"
check "hilbench show prints the run" eval '$HB show "$udp" >/dev/null'
v=$(sql "SELECT count(*) FROM metrics WHERE run_id='$udp' AND name IN ('mbps_interval_stddev',
	'pps_interval_stddev', 'hrtimer_expiries_per_s', 'coalesce_tx_usecs')")
check "UDP DUT-TX: interval stddev, timer expiries and coalescing stored" [ "$v" = 4 ]
check "the DUT's context is kept (kernel, cmdline, coalescing, IRQ affinity, RPS/XPS)" eval \
	'grep -q "^kernel_release=6.1" "$HILBENCH_STORE/runs/$udp/dut-context.txt" &&
	grep -q "^coalesce=rx_usecs=" "$HILBENCH_STORE/runs/$udp/dut-context.txt" &&
	grep -q "^irq[0-9]*.smp_affinity_list=" "$HILBENCH_STORE/runs/$udp/dut-context.txt" &&
	grep -q "^rx-0.rps_cpus=" "$HILBENCH_STORE/runs/$udp/dut-context.txt"'
check "no QEMU or tap left after a run" host_is_clean

# --- a user's mbox lands in the manifest, one patch per mail, with hashes ------
# A marker unique to this test run makes the build key new every time, so
# the build starts from the cached baseline build (incremental) every time.
file=drivers/net/ethernet/stmicro/stmmac/stmmac_main.c
mbox=$HILBENCH_STORE/user.mbox
marker=$(basename "$HILBENCH_STORE")
for n in 1 2; do
	line=$((14 + n * 2))	# after the licence block: lines 16 and 18
	cat <<M
From 000000000000000000000000000000000000000$n Mon Sep 17 00:00:00 2001
From: hilbench test <test@hilbench.invalid>
Subject: [PATCH $n/2] test: a comment in stmmac_main.c ($n)

A measurement-neutral change, to follow a user's patch through a build.
---
--- a/$file
+++ b/$file
@@ -$line,0 +$line,1 @@
+/* hilbench integration test $marker, mail $n */
M
done >"$mbox"
out=$($HB build --board qemu-orangepi-pc --strategy baseline --patch "$mbox" 2>&1); rc=$?
check "a build with a user mbox succeeds" [ $rc = 0 ]
manifest=$(sed -n 's/^manifest *//p' <<<"$out")
user_patches() { python3 -c 'import json,sys
m=json.load(open(sys.argv[1]))
print(" ".join(p["path"].rsplit("/",1)[1]+"="+p["sha256"] for p in m["patches"] if p["layer"]=="user"))' "$1"; }
got=$(user_patches "$manifest" 2>/dev/null)
want=""
for f in "${HILBENCH_CACHE:-$HOME/.cache/hilbench}"/mbox/$(sha256sum "$mbox" | cut -c1-64)/*.patch; do
	want="$want${want:+ }$(basename "$f")=$(sha256sum "$f" | cut -c1-64)"
done
check "the manifest lists each mail as a user patch with its hash" [ -n "$got" -a "$got" = "$want" ]
check "the mails are split in order, named by subject" \
	grep -q "^0001-test-a-comment-in-stmmac-main-c-1.patch=.* 0002-test-a-comment-in-stmmac-main-c-2.patch=" <<<"$got"
baseline_key=$($HB build --board qemu-orangepi-pc --strategy baseline |
	sed -n 's|^manifest *.*/kernels/\([0-9a-f]*\)/manifest.json|\1|p')
check "the new key was built from the cached baseline build's objects" \
	grep -q "\"incremental_from\":[[:space:]]*\"$baseline_key\"" "$manifest"
check "... and recompiled only what the mails touch" \
	eval '[ "$(grep -c "^  CC .*stmmac" "$(dirname "$manifest")/build.log")" = 1 ]'
# No mail touches a configuration input: baseline's .config is kept, not
# made again (build/kernel.h). A patch to a Kconfig file configures anew.
config_sha() { sed -n 's/^[[:space:]]*"config_sha256":[[:space:]]*"\([0-9a-f]*\)".*/\1/p' "$1"; }
baseline_manifest=${HILBENCH_CACHE:-$HOME/.cache/hilbench}/kernels/$baseline_key/manifest.json
check "... keeping baseline's configuration" grep -q "its configuration kept" <<<"$out"
check "... which is the one configure makes" \
	eval '[ -n "$(config_sha "$manifest")" ] && [ "$(config_sha "$manifest")" = "$(config_sha "$baseline_manifest")" ]'
# The patch is the same every time (unlike the mails above): after the first
# run on a cache it is a cached build, and the checks read its manifest and
# log, which say how it was built.
kconfig=$HILBENCH_STORE/kconfig.patch
cat >"$kconfig" <<'P'
--- a/drivers/net/ethernet/stmicro/stmmac/Kconfig
+++ b/drivers/net/ethernet/stmicro/stmmac/Kconfig
@@ -1,1 +1,2 @@
 # SPDX-License-Identifier: GPL-2.0-only
+# hilbench integration test: a Kconfig file changed, the configuration not
P
out=$($HB build --board qemu-orangepi-pc --strategy baseline --patch "$kconfig" 2>&1); rc=$?
check "a build with a patch to a Kconfig file succeeds (exit $rc)" [ $rc = 0 ]
kmanifest=$(sed -n 's/^manifest *//p' <<<"$out")
check "... from the cached baseline build, configuring the tree again" eval '
	grep -q "\"incremental_from\":[[:space:]]*\"$baseline_key\"" "${kmanifest:-/nonexistent}" &&
	grep -q "configuration written to" "$(dirname "$kmanifest")/build.log"'
check "... to the same configuration" \
	eval '[ "$(config_sha "$kmanifest")" = "$(config_sha "$baseline_manifest")" ]'

# --- every strategy builds, boots and passes traffic ---------------------------
$HB run --board qemu-orangepi-pc --workload "$DATA/workloads/udp64-smoke.yaml" \
	--strategies baseline,revert,gating,gating-5ms,is-queued,hrtimer-active \
	--timing virtual >"$HILBENCH_STORE/strategies.out" 2>&1
rc=$?
check "all six strategies build, boot and pass traffic" [ $rc = 0 ]
v=$(sql "SELECT count(DISTINCT r.strategy) FROM runs r JOIN metrics m ON m.run_id = r.id
	WHERE r.workload = 'udp64-smoke' AND r.class = 'pass' AND m.name = 'hrtimer_share_insn_pct'")
check "every strategy's run has the emulator's hrtimer share (got $v of 6)" [ "$v" = 6 ]
# Each strategy's timer shape on the faithful board, against Debian's stock
# EMAC model: tests/integration/model.sh.

# every build above worked on its own hard-linked copy: the pristine tree has
# none of the strategies' or the user's changes
# (the files must be there: a grep of files that are not finds nothing too)
pristine=$(ls -d "${HILBENCH_CACHE:-$HOME/.cache/hilbench}"/src/*/linux-source-6.1 | head -n1)
untouched() {	# FILE...: all there, none with a strategy's or the user's change
	local f
	for f in "$@"; do [ -f "$f" ] || return 1; done
	! grep -q -e "hrtimer_is_queued(&tx_q->txtimer)" -e "hilbench integration test" \
		-e "napi_is_scheduled" "$@"
}
check "the pristine kernel tree (${pristine:-not found}) is never modified" untouched \
	"$pristine/drivers/net/ethernet/stmicro/stmmac/stmmac_main.c" "$pristine/include/linux/netdevice.h"

between() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }

# --- the profilers: hrtimer CPU share, method named -----------------------------
# perf first: a second perf record in one boot got no samples (docs/metrics.md)
$HB run --board qemu-orangepi-pc --strategy baseline --timing virtual \
	--workload "$DATA/workloads/udp64-perf-smoke.yaml,$DATA/workloads/udp64-ftrace-smoke.yaml" \
	>"$HILBENCH_STORE/profile.out" 2>&1
check "profiled runs pass" [ $? = 0 ]
pmetric() { sql "SELECT m.value FROM runs r JOIN metrics m ON m.run_id = r.id
	WHERE r.workload='$1' AND m.name='$2' AND r.class='pass' ORDER BY r.started DESC LIMIT 1"; }
v=$(pmetric udp64-ftrace-smoke hrtimer_share_ftrace_pct)
check "ftrace: baseline spends a share of its time in the hrtimer paths (got $v %)" between "${v:-0}" 1 60
v=$(pmetric udp64-ftrace-smoke tx_napi_polls_per_pkt)
# the faithful EMAC interrupts every tx-frames (25) frames: the TX ring is
# cleaned by a poll about every 25 packets, not after each one
check "ftrace: about one TX NAPI poll per 25 packets on baseline (got $v)" between "${v:-0}" 0.02 0.1
v=$(pmetric udp64-ftrace-smoke tx_cleans_per_pkt)
check "... as the driver's own tx_clean count says (got $v)" between "${v:-0}" 0.02 0.1
v=$(sql "SELECT count(*) FROM metrics m JOIN runs r ON r.id = m.run_id WHERE r.workload =
	'udp64-ftrace-smoke' AND m.name = 'hrtimer_share_ftrace_pct' AND m.source LIKE '%ftrace%'")
check "the ftrace share names its method" [ "$v" = 1 ]
v=$(pmetric udp64-perf-smoke perf_samples)
check "perf record sampled the run (got $v samples)" awk -v v="${v:-0}" 'BEGIN { exit !(v > 100) }'
v=$(pmetric udp64-perf-smoke perf_stat.hrtimer_start)
check "perf stat counted timer:hrtimer_start (got $v)" awk -v v="${v:-0}" 'BEGIN { exit !(v > 0) }'

# --- two virtual-time boots of one kernel agree on UDP pps within 1 % ---------
# (the first run of each boot: later runs in a boot differ, docs/measurements.md).
# The faithful board's rate falls in two clusters about 0.5 % apart, by a phase
# the host's real-time answers set before the measurement ("Boot-to-boot
# spread"): a clean clone's CI read 4457.3 and 4480.0 (0.51 %). What must hold
# is that two boots never differ by the gate's UDP threshold, 1 % (plans/gate.yaml).
first_pps() { sql "SELECT m.value FROM runs r JOIN metrics m ON m.run_id = r.id
	WHERE r.workload='udp64-smoke' AND r.class='pass' AND m.name='pps' AND r.timing='virtual'
	AND r.build_key = (SELECT build_key FROM runs WHERE id='$udp')
	AND r.started = (SELECT min(started) FROM runs r2 WHERE r2.boot_id = r.boot_id)
	ORDER BY r.started"; }
mapfile -t pps_first < <(first_pps)
check "at least two boots ran udp64-smoke first (got ${#pps_first[@]})" [ ${#pps_first[@]} -ge 2 ]
check "virtual time: two boots give UDP pps within 1 % (${pps_first[0]:-?} vs ${pps_first[1]:-?})" \
	awk -v a="${pps_first[0]:-0}" -v b="${pps_first[1]:-1}" \
	'BEGIN { d = a > b ? a - b : b - a; m = a > b ? a : b; exit !(m > 0 && d / m < 0.01) }'

# --- the HTML report renders in a real browser, with its plots -----------------
html=$HILBENCH_STORE/report.html
$HB report --all --format html --out "$html"
read -r plots points lines < <(rendered "$html" "svg[class='plot']" "svg[class='plot'] circle" \
	"svg.intervals polyline")
check "Chromium lays out a plot per metric, as SVG (got ${plots:-none})" [ "${plots:-0}" -ge 4 ]
check "... with points (got ${points:-none})" [ "${points:-0}" -ge 4 ]
check "... and a throughput-over-time line per strategy, six (got ${lines:-none})" \
	[ "${lines:-0}" -ge 6 ]
geometry=$(bash tests/report/geometry.sh "$html" 2>&1)
check "... and at 800 and 1400 px every mark lies inside its plot and no labels overlap" \
	[ "$(grep -c '^ok ' <<<"$geometry")" = 2 ]
grep -v '^ok ' <<<"$geometry" | head -20 | sed 's/^/# /'

# --- the gate: per-packet work in stmmac_xmit is a regression, a comment is not -
gate() { $HB gate --reference baseline --workloads "$DATA/workloads/udp64-smoke.yaml" "$@" \
	>"$HILBENCH_STORE/gate.out" 2>&1; echo $?; }
rc=$(gate --patch "$DATA/patches/per-packet-work.patch" --junit "$HILBENCH_STORE/gate.xml")
check "gate: per-packet work in stmmac_xmit is a regression (exit $rc)" [ "$rc" = 1 ]
check "gate: the JUnit file reports the failure" grep -q "<failure message=\"REGRESSED" "$HILBENCH_STORE/gate.xml"
# the emulator's instruction counts (emulator-insn) say where: the patch's
# loop is in stmmac_xmit
check "gate: the verdict names stmmac_xmit first, where the patch adds work" \
	grep -qE "^udp64-smoke +where: \+[0-9]+ instructions/packet in stmmac_xmit" "$HILBENCH_STORE/gate.out"
check "... and so does the JUnit file" grep -qE "where: \+[0-9]+ instructions/packet in stmmac_xmit" \
	"$HILBENCH_STORE/gate.xml"
check "gate: the second gate reuses the stored reference runs" eval \
	'[ "$(gate --patch "$DATA/patches/comment-only.patch")" = 0 ] && grep -q "reusing 3 stored runs" "$HILBENCH_STORE/gate.out"'
# The comment-only patch passes, reusing the reference runs; the loop patch
# (-2.4 %) must be called a regression early.
loop_build=$(sql "SELECT build_key FROM runs WHERE plan = 'gate' ORDER BY rowid LIMIT 1 OFFSET 3")
# On the faithful board the reference's three boots may fall in both of its
# pps clusters (docs/measurements.md), which widens the first look's interval:
# a -2.4 % patch is decided by its first run or two, never at the cap.
n=$(sql "SELECT count(*) FROM runs WHERE plan = 'gate' AND build_key = '$loop_build'")
check "gate: the per-packet patch was decided within 2 candidate runs (got $n)" between "${n:-0}" 1 2
# stored runs on both sides: judged as they are, nothing built or run
gate_runs=$(sql "SELECT count(*) FROM runs WHERE plan = 'gate'")
ref_session=$(sql "SELECT session FROM runs WHERE plan = 'gate' ORDER BY rowid LIMIT 1")
rc=$(gate --reference "session=$ref_session" --candidate "build=$loop_build")
check "gate over stored runs finds the same regression (exit $rc), running nothing" eval \
	'[ "$rc" = 1 ] && [ "$(sql "SELECT count(*) FROM runs WHERE plan = '"'gate'"'")" = "$gate_runs" ]'
# Work on the receive path only: what the DUT sends cannot show it; the
# default gate (plans/gate.yaml: udp64-dut-tx and tcp-dut-rx, no
# --workloads) judges the driver's own instructions per received packet
# inside its RX poll, and names the function that grew.
rc=$($HB gate --patch "$DATA/patches/rx-work.patch" >"$HILBENCH_STORE/gate-rx.out" 2>&1; echo $?)
check "gate: the default gate calls work on the receive path only a regression (exit $rc)" [ "$rc" = 1 ]
check "... of tcp-dut-rx's driver instructions per received packet" \
	grep -qE "^tcp-dut-rx +insn_rx_driver_per_pkt .*REGRESSED" "$HILBENCH_STORE/gate-rx.out"
check "... whose where: names stmmac_napi_poll_rx (stmmac_rx() is inlined there) first" \
	grep -qE "^tcp-dut-rx +where: \+[0-9]+ instructions/packet in stmmac_napi_poll_rx" \
	"$HILBENCH_STORE/gate-rx.out"
check "... and not of what the DUT sends" eval \
	'! grep -qE "^udp64-dut-tx .*REGRESSED" "$HILBENCH_STORE/gate-rx.out"'

# A DUT that never becomes ready, QEMU dying mid-run, SIGTERM/SIGKILL and
# --resume, a panic, a full disk, a locked store: tests/integration/faults.sh.

# --- Ctrl-C in the middle of a run --------------------------------------------
start_mid_run "$HILBENCH_STORE/int.out" 3
kill -INT $pid
wait $pid; rc=$?
check "Ctrl-C exits 125 (inconclusive)" [ $rc = 125 ]
check "interrupted runs are stored as such, not as numbers" \
	[ "$(sql "SELECT count(*) FROM runs WHERE class!='pass' AND reason LIKE '%interrupted%'")" -ge 1 ]
check "no QEMU or tap left after Ctrl-C" host_is_clean

echo "$pass passed, $fail failed"
[ $fail = 0 ] && rm -rf "$HILBENCH_STORE"
[ $fail = 0 ]
