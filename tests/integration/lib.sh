# Shared by the integration scripts (sourced): TAP-style checks, the store,
# and what "nothing of ours is left on the host" means.
# The caller sets HB, HILBENCH_STORE (exported) and DATA.
pass=0 fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
not_ok() { echo "not ok - $1"; fail=$((fail + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else not_ok "$what"; fi; }
sql() { sqlite3 "$HILBENCH_STORE/hilbench.db" "$@"; }

# Whole or not at all: SQLite's own check, every pass run has its metrics
# and its artifacts with the agent's log, every metric its run, every
# artifacts directory a row names exists (a run interrupted as it started
# has an empty agent.log: what it captured is nothing).
store_intact() {
	[ "$(sql 'PRAGMA integrity_check')" = ok ] &&
	[ -z "$(sql 'PRAGMA foreign_key_check')" ] &&
	[ "$(sql "SELECT count(*) FROM runs r WHERE r.class='pass' AND (r.artifacts IS NULL
		OR NOT EXISTS (SELECT 1 FROM metrics m WHERE m.run_id = r.id))")" = 0 ] &&
	for a in $(sql "SELECT artifacts FROM runs WHERE class='pass'"); do
		[ -s "$HILBENCH_STORE/$a/agent.log" ] || return 1
	done &&
	for a in $(sql "SELECT artifacts FROM runs WHERE artifacts IS NOT NULL"); do
		[ -f "$HILBENCH_STORE/$a/agent.log" ] || return 1
	done
}

# QEMU processes started by this test run: their environment carries a store
# under $HB_TEST_ROOT (default: the store itself), so that other hilbench
# jobs on the machine do not count.
our_qemus() {
	local pid root=${HB_TEST_ROOT:-$HILBENCH_STORE}
	for pid in $(pgrep -f "qemu-system-arm -M orangepi-pc"); do
		tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null |
			grep -q "^HILBENCH_STORE=$root" && echo "$pid"
	done
}

host_is_clean() {
	# nothing of ours outlives a run: no QEMU, no tap in the host's namespace
	[ -z "$(our_qemus)" ] && ! ip link show hb0 >/dev/null 2>&1
}

# start_mid_run LOG N [ARGS...]: starts `hilbench run` of N UDP repetitions
# in the background, output to the file LOG; returns, with its pid in $pid,
# once the first repetition is under way.
start_mid_run() {
	local log=$1 reps=$2
	shift 2
	mkdir -p "$HILBENCH_STORE"
	$HB run --board qemu-orangepi-pc --strategy baseline \
		--workload "$DATA/workloads/udp64-smoke.yaml" --repeat "$reps" "$@" >"$log" 2>&1 &
	pid=$!
	for _ in $(seq 180); do grep -q "repetition 1/$reps" "$log" && break; sleep 1; done
	sleep 2
}
