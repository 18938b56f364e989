#!/usr/bin/env bash
# Integration test: two hilbench processes on one cache. Two main-job-like
# plans start at once on a cache whose DUT userland (package lists,
# downloads, initramfs) is cold, as when `hilbench lava job` ran while
# `make compare` built: both downloaded into one directory and corrupted
# each other's packages. The kernels, the emulator, the extracted source
# and ccache come from the real cache (symlinks: those have their own locks,
# and building them cold here would cost a quarter of an hour). The
# userland must be built once, every downloaded package must match the
# index it was fetched by, and neither plan may lose a run to the other:
# every UDP DUT-TX run passes (the DUT paces it; a neighbour's load cannot
# change its rate), and a TCP run passes or is an error naming the host's
# contention or the DUT's wait for the host (two emulators and their iperf3
# peers on this host's cores: where the DUT idled for the host, its rate
# would measure the host, measure/crosscheck.h), never fail and never any
# other error.
set -uo pipefail
cd "$(dirname "$0")/../.."
HB=$PWD/build/hilbench
DATA=$PWD/tests/data
root=$(mktemp -d /tmp/hb-concurrent.XXXXXX)
export HB_TEST_ROOT=$root
export HILBENCH_STORE=$root/store	# lib.sh's sql() reads the first plan's
source tests/integration/lib.sh
real_cache=${HILBENCH_CACHE:-$HOME/.cache/hilbench}
# The kernels and the emulator this test boots, built (or found) first.
for s in baseline hrtimer-active; do
	$HB build --board qemu-orangepi-pc --strategy $s >/dev/null || { echo "build $s failed"; exit 1; }
done
$HB emulator >/dev/null || { echo "emulator build failed"; exit 1; }
export HILBENCH_CACHE=$root/cache
mkdir -p "$HILBENCH_CACHE"
for d in kernels src ccache emulators; do
	[ -e "$real_cache/$d" ] && ln -s "$real_cache/$d" "$HILBENCH_CACHE/$d"
done
t0=$SECONDS

run_plan() { # STORE LOG
	HILBENCH_STORE=$1 $HB run "$DATA/plans/concurrent.yaml" \
		--workloads "$DATA/workloads/udp64-smoke.yaml,$DATA/workloads/tcp-rx-smoke.yaml" >"$2" 2>&1
}
run_plan "$root/store" "$root/a.log" & a=$!
run_plan "$root/store-b" "$root/b.log" & b=$!
wait $a; rc_a=$?
wait $b; rc_b=$?
check "plan A ends beside plan B, its runs passed or errors (exit $rc_a)" test $rc_a = 0 -o $rc_a = 125
check "plan B ends beside plan A, its runs passed or errors (exit $rc_b)" test $rc_b = 0 -o $rc_b = 125
contention="reason LIKE '%CPUs were contended%' OR reason LIKE '%the DUT waited for the host%'
	OR reason LIKE 'not run: an error, with every attempt used, ended run %'"
for s in store store-b; do
	db=$root/$s/hilbench.db
	check "$s: every UDP run passes (2)" [ "$(sqlite3 "$db" "SELECT count(*) FROM runs
		WHERE class='pass' AND workload='udp64-smoke'")" = 2 ]
	check "$s: a TCP run for each cell, passed or a contention error" [ "$(sqlite3 "$db" "SELECT
		count(DISTINCT strategy) FROM runs WHERE workload='tcp-rx-smoke' AND (class='pass'
		OR (class='error' AND ($contention)))")" = 2 ]
	check "$s: no other class or reason: $(sqlite3 "$db" "SELECT group_concat(class || ': ' ||
		reason, ' | ') FROM runs WHERE class != 'pass' AND NOT (class='error' AND ($contention))")" \
		[ "$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE class != 'pass'
		AND NOT (class='error' AND ($contention))")" = 0 ]
	sqlite3 "$db" "SELECT '# ' || strategy || ' ' || workload || ' attempt ' || attempt || ': ' ||
		class || ' ' || coalesce(substr(reason, 1, 90), '') FROM runs ORDER BY started"
done
check "the DUT userland was built once" [ "$(cat "$root"/a.log "$root"/b.log | grep -c 'building the armhf DUT initramfs')" = 1 ]
check "the other plan waited for it" grep -q "waiting for another hilbench building a DUT userland" "$root/a.log" "$root/b.log"
# every .deb in the shared download directory is what its manifest line says
bad=0
for m in "$HILBENCH_CACHE"/userland/*/initramfs.cpio.gz.manifest; do
	while read -r name version arch sha; do
		deb=$HILBENCH_CACHE/userland/debs/${name}_${version//:/%3a}_${arch}.deb
		[[ $(sha256sum <"$deb") == "$sha "* ]] || { echo "# $deb does not match $m"; bad=1; }
	done <"$m"
done
check "every downloaded package matches the index" [ $bad = 0 ]
check "nothing of ours is left on the host" host_is_clean

echo "# concurrent.sh: $((SECONDS - t0)) s"
echo "$pass passed, $fail failed"
if [ $fail = 0 ]; then rm -rf "$root"; else echo "# kept: $root"; fi
[ $fail = 0 ]
