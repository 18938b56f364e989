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

# of_this_run PID|/proc/PID...: the processes started by this test run:
# their environment carries a store under $HB_TEST_ROOT (default: the store
# itself), so that other hilbench jobs on the machine do not count.
of_this_run() {
	local pid root=${HB_TEST_ROOT:-$HILBENCH_STORE}
	for pid in "${@#/proc/}"; do
		{ tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null |
			grep -q "^HILBENCH_STORE=$root" && echo "$pid"
	done
}
# QEMU processes started by this test run.
our_qemus() {
	# shellcheck disable=SC2046 # one pid per word
	of_this_run $(pgrep -f "qemu-system-arm -M orangepi-pc")
}

# Nothing of ours outlives a run: no QEMU, and no process of ours in a
# network namespace other than this shell's. The tap only ever exists in
# hilbench's anonymous namespace, which the kernel removes with its last
# process: a tap can outlive a run only with such a process (looking for
# the tap in the host's namespace, where it never is, could not fail).
host_is_clean() {
	local pid ns me
	me=$(readlink /proc/self/ns/net) && [ -n "$me" ] && [ -z "$(our_qemus)" ] || return 1
	for pid in $(of_this_run /proc/[0-9]*); do
		ns=$(readlink "/proc/$pid/ns/net" 2>/dev/null)
		[ "$ns" = "$me" ] || [ ! -e "/proc/$pid" ] || return 1
	done
}

# rendered HTML SELECTOR...: what Chromium made of the page, which a grep of
# the file cannot tell: per selector, how many matching elements parsed
# into the SVG namespace and were laid out with a box (one count each, in
# order, on one line). A probe script appended to a copy of the page counts
# them in the live DOM and writes the counts into it; --dump-dom prints
# the DOM after the scripts ran. Prints nothing when Chromium fails.
rendered() {
	local html=$1 probe=$HILBENCH_STORE/probe.html sel
	shift
	{
		cat "$html"
		printf '<script>\nvar hbSelectors = [];\n'
		for sel in "$@"; do printf 'hbSelectors.push("%s");\n' "$sel"; done
		cat <<'EOF'
(function () {
	var ns = "http://www.w3.org/2000/svg", p = document.createElement("pre");
	p.id = "hb-probe";
	p.textContent = hbSelectors.map(function (sel) {
		return Array.prototype.filter.call(document.querySelectorAll(sel), function (e) {
			var b = e.getBoundingClientRect();
			return e.namespaceURI === ns && (b.width > 0 || b.height > 0);
		}).length;
	}).join(" ");
	document.body.appendChild(p);
})();
</script>
EOF
	} >"$probe"
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$HILBENCH_STORE/chromium" --dump-dom "file://$probe" 2>/dev/null |
		sed -n 's|.*<pre id="hb-probe">\([0-9 ]*\)</pre>.*|\1|p'
}

# start_mid_run LOG N [ARGS...]: starts `hilbench run` of N UDP repetitions
# in the background, output to the file LOG; returns, with its pid in $pid,
# once the first repetition is under way: a second after its traffic
# started (the runner's "warm-up" line), of a run of 5 s of the DUT's
# clock, which took 2.8 s of wall time on the fastest machine yet; waiting
# 2 s after the repetition's first line, polled each second, once landed
# in the second repetition there.
start_mid_run() {
	local log=$1 reps=$2
	shift 2
	mkdir -p "$HILBENCH_STORE"
	$HB run --board qemu-orangepi-pc --strategy baseline \
		--workload "$DATA/workloads/udp64-smoke.yaml" --repeat "$reps" "$@" >"$log" 2>&1 &
	pid=$!
	for _ in $(seq 900); do
		grep -q "repetition 1/$reps" "$log" && grep -q "warm-up)" "$log" && break
		sleep 0.2
	done
	sleep 1
}
