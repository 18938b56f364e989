#!/usr/bin/env bash
# Speed measurements, not tests: prints how long the slow parts take on this
# machine. Numbers we measured are in docs/measurements.md with their commands.
# Uses the shared build cache; run it when no other kernel build is running.
set -euo pipefail
cd "$(dirname "$0")/.."
HB=$PWD/build/hilbench
export HILBENCH_STORE
HILBENCH_STORE=$(mktemp -d /tmp/hb-bench.XXXXXX)
trap 'rm -rf "$HILBENCH_STORE"' EXIT
# Seconds a command takes; a failing command stops the bench (a fast
# failure must never read as a fast success).
secs() {
	local t0=$SECONDS log=$HILBENCH_STORE/cmd.log
	"$@" >"$log" 2>&1 || { echo "bench: FAILED: $*" >&2; tail -n 5 "$log" >&2; exit 1; }
	echo $((SECONDS - t0))
}

echo "bench: cached build (nothing to do): $(secs $HB build --board qemu-orangepi-pc --strategy baseline) s"

# A driver patch never built before: the per-packet loop of the gate test
# with a marker comment, so every bench run has a new build key.
new_patch() {
	local p=$HILBENCH_STORE/bench-$(date +%s%N).patch
	sed "s|barrier();|barrier();	/* hilbench bench marker $(date +%s%N) */|" \
		tests/data/patches/per-packet-work.patch >"$p"
	echo "$p"
}
patch=$(new_patch)
echo "bench: new driver patch, incremental from the cached baseline: $(secs $HB build --board qemu-orangepi-pc --strategy baseline --patch "$patch") s"
naive=$(new_patch)
echo "bench: new driver patch, from scratch (full kbuild pass, warm ccache): $(secs $HB build --board qemu-orangepi-pc --strategy baseline --patch "$naive" --from-scratch) s"

out=$($HB boot --board qemu-orangepi-pc --strategy baseline 2>&1)
echo "bench: boot to agent READY: $(grep -o 'ready in [0-9.]* s' <<<"$out")"

for t in virtual realtime; do
	w=$PWD/tests/data/workloads/udp64-smoke.yaml
	echo "bench: one 4 s UDP run incl. boot, $t time: $(secs $HB run --board qemu-orangepi-pc --strategy baseline --workload "$w" --timing $t) s wall"
done

# The emulator's instruction counter (insn_profile, harness/plugin/hb-insn.c)
# costs the host, not the guest: the same run on the default board (counter
# on) and on a copy without it, each with its boot.
w=$PWD/tests/data/workloads/udp64-smoke.yaml
for b in qemu-orangepi-pc tests/data/boards/qemu-orangepi-pc-uncounted.yaml; do
	echo "bench: one 4 s UDP run incl. boot, virtual time, $(basename "$b" .yaml): $(secs $HB run --board "$b" --strategy baseline --workload "$w" --timing virtual) s wall"
done

# Patch to verdict in virtual time: a new one-file driver patch, gated
# against baseline runs already in the store (a first gate stores them and
# is not timed). Beside it the naive path: a from-scratch build and a gate
# in real time that boots both kernels every repetition, nothing reused.
w=tests/data/workloads/udp64-smoke.yaml
secs $HB gate --workloads "$w" --patch tests/data/patches/comment-only.patch >/dev/null || true
fast=$(new_patch)
t0=$SECONDS
$HB gate --workloads "$w" --patch "$fast" >"$HILBENCH_STORE/fast.log" 2>&1 && rc=0 || rc=$?
echo "bench: patch to verdict, virtual time, reference reused: $((SECONDS - t0)) s (exit $rc: $(tail -n 1 "$HILBENCH_STORE/fast.log"))"
slow=$(new_patch)
t0=$SECONDS
HILBENCH_STORE=$HILBENCH_STORE/naive-store $HB build --board qemu-orangepi-pc --strategy baseline \
	--patch "$slow" --from-scratch >"$HILBENCH_STORE/naive.log" 2>&1
HILBENCH_STORE=$HILBENCH_STORE/naive-store $HB gate --workloads "$w" --patch "$slow" --timing realtime \
	--repeat 3 --max-repeat 3 >>"$HILBENCH_STORE/naive.log" 2>&1 && rc=0 || rc=$?
echo "bench: naive path (from-scratch build, 3 + 3 real-time boots): $((SECONDS - t0)) s (exit $rc: $(tail -n 1 "$HILBENCH_STORE/naive.log"))"

# Reports and gates over a big store. The 100,000 runs are GENERATED rows
# (random values, not measurements) in a store of their own, only to time
# the query, statistics and formatting path; nothing here is a result.
big=$(mktemp -d /tmp/hb-bench-store.XXXXXX)
trap 'rm -rf "$HILBENCH_STORE" "$big"' EXIT
HILBENCH_STORE=$big $HB report --all >/dev/null 2>&1 || true	# creates the schema
sqlite3 "$big/hilbench.db" <<'SQL'
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 99999)
INSERT INTO runs (id, session, plan, board, strategy, workload, repetition, class, timing,
		  started, ended, build_key, initramfs_sha256)
SELECT printf('20261130T000000Z-%06d', i), printf('s%04d', i / 100), 'bench-generated',
       'qemu-orangepi-pc',
       CASE i % 6 WHEN 0 THEN 'baseline' WHEN 1 THEN 'revert' WHEN 2 THEN 'gating'
		  WHEN 3 THEN 'gating-5ms' WHEN 4 THEN 'is-queued' ELSE 'hrtimer-active' END,
       CASE (i / 6) % 3 WHEN 0 THEN 'udp64-dut-tx' WHEN 1 THEN 'tcp-dut-tx' ELSE 'tcp-dut-rx' END,
       i / 18 % 5 + 1, 'pass', 'virtual', '2026-11-30T00:00:00Z', '2026-11-30T00:00:10Z',
       printf('key%d', i % 6), 'userland'
FROM n;
INSERT INTO metrics (run_id, name, value, unit, source)
SELECT id, m.name, 3600 + abs(random() % 100), m.unit, 'generated for make bench'
FROM runs, (SELECT 'pps' AS name, 'packets/s' AS unit UNION ALL SELECT 'mbps', 'Mbit/s'
	    UNION ALL SELECT 'hrtimer_starts_per_pkt', '1' UNION ALL SELECT 'cpu_busy_pct', '%'
	    UNION ALL SELECT 'tx_packets', 'packets' UNION ALL SELECT 'rx_packets', 'packets'
	    UNION ALL SELECT 'softirq_pct', '%' UNION ALL SELECT 'duration_s', 's') AS m;
COMMIT;
SQL
rss() { /usr/bin/time -f "%e s, %M KB max RSS" "$@" 2>&1 >/dev/null | tail -n 1; }
echo "bench: report over 100,000 stored runs (800,000 metric rows): $(HILBENCH_STORE=$big rss $HB report --all --format text)"
echo "bench: gate over 100,000 stored runs: $(HILBENCH_STORE=$big rss $HB gate --plan gate \
	--workloads udp64-dut-tx --reference strategy=baseline,plan=bench-generated \
	--candidate strategy=gating,plan=bench-generated)"

# The host's packet-counting path on a veth pair: capacity and cost.
bash tests/bench-capture.sh
