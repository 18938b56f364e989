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

# A driver patch never built before: a fresh key, so a new hard-linked tree
# and a full make over a warm ccache (only the patched file compiles).
patch=$HILBENCH_STORE/bench-$(date +%s%N).patch
file=drivers/net/ethernet/stmicro/stmmac/stmmac_main.c
src=$(ls -d "${HILBENCH_CACHE:-$HOME/.cache/hilbench}"/src/*/linux-source-6.1 | head -n1)
# the definition, not the forward declaration: the last match
def=$(grep -n '^static void stmmac_tx_timer_arm(' "$src/$file" | tail -n 1)
line=${def%%:*}
{
	echo "--- a/$file"
	echo "+++ b/$file"
	echo "@@ -$line,1 +$line,2 @@"
	echo "+/* hilbench bench marker $(date +%s%N) */"
	echo " ${def#*:}"
} >"$patch"
echo "bench: new driver patch, warm ccache: $(secs $HB build --board qemu-orangepi-pc --strategy baseline --patch "$patch") s"

out=$($HB boot --board qemu-orangepi-pc --strategy baseline 2>&1)
echo "bench: boot to agent READY: $(grep -o 'ready in [0-9.]* s' <<<"$out")"

for t in virtual realtime; do
	w=$PWD/tests/data/workloads/udp64-smoke.yaml
	echo "bench: one 4 s UDP run incl. boot, $t time: $(secs $HB run --board qemu-orangepi-pc --strategy baseline --workload "$w" --timing $t) s wall"
done
