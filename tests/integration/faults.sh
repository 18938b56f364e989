#!/usr/bin/env bash
# Fault tests on the emulated board (docs/faults.md): bad input, a kernel
# that panics, the DUT's iperf3 dying or hanging, QEMU dying, a boot that never ends,
# a full disk, a locked store, SIGTERM/SIGKILL and --resume. Each asserts
# the run class, the message and an intact store; the host is checked for
# leftover QEMU and tap devices after every fault. Behaviour, never speed.
set -uo pipefail
cd "$(dirname "$0")/../.."
HB=$PWD/build/hilbench
DATA=$PWD/tests/data
UDP=$DATA/workloads/udp64-smoke.yaml
export HILBENCH_STORE HB_TEST_ROOT
HB_TEST_ROOT=$(mktemp -d /tmp/hb-faults.XXXXXX)
source tests/integration/lib.sh
trap 'mountpoint -q "$HB_TEST_ROOT/full" && umount "$HB_TEST_ROOT/full"' EXIT
t0=$SECONDS

# Each fault gets a store of its own, so its assertions see only its runs.
newstore() { HILBENCH_STORE=$HB_TEST_ROOT/$1; mkdir -p "$HILBENCH_STORE"; }

# Polls until the store has N pass runs (the plan is under way), 180 s at most.
wait_passes() {
	for _ in $(seq 180); do
		[ "$(sql "SELECT count(*) FROM runs WHERE class='pass'" 2>/dev/null)" -ge "$1" ] && return 0
		sleep 1
	done
	return 1
}

# After SIGKILL the children go by PDEATHSIG: give the kernel a moment.
clean_soon() { for _ in $(seq 20); do host_is_clean && return 0; sleep 0.5; done; return 1; }

# --- bad input: every option and file names itself and the fix, exit 2 ------
newstore badinput
bad_input() {	# what, expected message (ERE), hilbench arguments...
	local what=$1 want=$2 out rc
	shift 2
	out=$($HB "$@" 2>&1); rc=$?
	if [ $rc = 2 ] && grep -qE -- "$want" <<<"$out"; then ok "bad input: $what"
	else not_ok "bad input: $what (exit $rc: $(head -n2 <<<"$out"))"; fi
}
cell=(--board qemu-orangepi-pc --strategy baseline --workload "$UDP")
bad_input "--repeat -1" "--repeat -1: give a whole number from 1 to 100" run "${cell[@]}" --repeat -1
bad_input "--repeat 3x" "--repeat 3x: give a whole number" run "${cell[@]}" --repeat 3x
bad_input "--attempts 0" "--attempts 0: give a whole number from 1 to 10" run "${cell[@]}" --attempts 0
bad_input "--timing sometimes" "--timing sometimes: choose realtime or virtual" run "${cell[@]}" --timing sometimes
bad_input "an unknown strategy" "no such strategy 'nosuch'.*known strategies: baseline" \
	run --board qemu-orangepi-pc --strategy nosuch --workload "$UDP"
bad_input "an unknown board" "boards/nosuch.yaml: cannot read" run --board nosuch --strategy baseline --workload "$UDP"
bad_input "an unknown workload" "workloads/nosuch.yaml: cannot read" run --board qemu-orangepi-pc --strategy baseline --workload nosuch
bad_input "an unknown plan" "plans/nosuch.yaml: cannot read" run nosuch
typo_plan=$HILBENCH_STORE/typo.yaml
printf 'name: typo\ndescription: a typo in a strategy\nboards: [qemu-orangepi-pc]\nstrategies: [baseline, gatting]\nworkloads: [udp64-dut-tx]\nrepetitions: 3\ntiming: virtual\n' >"$typo_plan"
bad_input "check: a plan's unknown strategy, at its line" "typo.yaml:4:24: .*no such strategy 'gatting'" \
	check --kind plan "$typo_plan"
sweep_typo=$HILBENCH_STORE/sweeptypo.yaml
printf 'name: sweeptypo\ndescription: a typo in a sweep strategy\nboards: [qemu-orangepi-pc]\nstrategies: [baseline]\nworkloads: [udp64-dut-tx]\nrepetitions: 1\ntiming: virtual\nsweeps:\n  - setting: tx-usecs\n    values: [0, 1000]\n    strategies: [baseline, gatting]\n' >"$sweep_typo"
bad_input "check: a sweep's unknown strategy, at its line" "sweeptypo.yaml:11:28: .*no such strategy 'gatting'" \
	check --kind plan "$sweep_typo"
bad_input "run: a sweep's unknown strategy, at its line, before any build" \
	"sweeptypo.yaml:11:28: .*no such strategy 'gatting'" run "$sweep_typo"
sed -i 's/setting: tx-usecs/setting: tx-usec/' "$sweep_typo"
bad_input "check: a sweep's unknown setting, at its line" "sweeptypo.yaml:9:14: no setting 'tx-usec'" \
	check --kind plan "$sweep_typo"
bad_input "report --reference of a strategy not in the selection" \
	"--reference nosuch: no runs of that strategy" report --all --reference nosuch
bad_input "report --out in a directory that does not exist" \
	"cannot write /nonexistent-hb/r.txt.*writable directory" report --all --out /nonexistent-hb/r.txt
bad_input "lava job --out in a directory that does not exist, before any build" \
	"--out /nonexistent-hb/job.yaml: cannot write in /nonexistent-hb: .*writable directory" \
	lava job --board qemu-orangepi-pc-lava --strategy baseline --workload udp64-dut-tx --out /nonexistent-hb/job.yaml
bad_input "two plans" "one plan at a time" run default other
bad_input "a kernel series the board lacks" "--kernel-series 9.9: .*lists only 6.1" run "${cell[@]}" --kernel-series 9.9
bad_input "build --kernel-series 9.9" "--kernel-series 9.9: .*lists only 6.1" \
	build --board qemu-orangepi-pc --strategy baseline --kernel-series 9.9
bad_input "a missing --patch file" "--patch /nonexistent.patch: .*No such file" run "${cell[@]}" --patch /nonexistent.patch
bad_input "--patch of a file that is no patch" "not a patch \(no '\+\+\+ b/FILE' line\)" run "${cell[@]}" --patch "$DATA/bad/bad-enum.yaml"
bad_input "--series with options after a patch" "bad-enum.yaml:2: .*list only the file name" run "${cell[@]}" --series "$DATA/bad/bad-enum.yaml"
bad_input "--resume of an unknown session" "--resume nosuch: no such session" run "${cell[@]}" --resume nosuch
bad_input "an unknown option" "unrecognized option '--bogus'" run --bogus
bad_input "compare --repeat 0" "--repeat 0: give a whole number" compare --repeat 0
bad_input "gate --threshold-pct abc" "--threshold-pct abc: give a number" gate --threshold-pct abc
bad_input "gate --alpha 2" "--alpha 2: give a number from" gate --alpha 2
bad_input "gate --repeat 3x" "--repeat 3x: give a number from 2 to 100" gate --repeat 3x
bad_input "gate --max-repeat x" "--max-repeat x: give a number from 2 to 100" gate --max-repeat x
bad_input "gate --timing never" "--timing never: choose realtime or virtual" gate --timing never
bad_input "gate --candidate session=" "give key=value with a key among" gate --candidate session=
bad_input "report --format nonsense" "--format nonsense: choose text" report --format nonsense
bad_input "report --since yesterday" "--since yesterday: give an ISO 8601 date" report --since yesterday
bad_input "show of an unknown run" "no run 'nosuch'" show nosuch
bad_input "list nonsense" "cannot list 'nonsense'; choose boards" list nonsense
bad_input "check of a missing file" "/nonexistent.yaml: no such file" check /nonexistent.yaml
bad_input "check --kind nonsense" "--kind nonsense: choose board, workload, plan, setting, emulator or driver" check --kind nonsense boards/qemu-orangepi-pc.yaml
bad_input "an unknown command" "'nosuchcmd' is not a hilbench command" nosuchcmd
for f in "$DATA"/bad/*.yaml; do	# each is wrong whatever kind it is read as
	for kind in board workload plan; do
		bad_input "check --kind $kind $(basename "$f") names FILE:LINE:COL" "^$f:[0-9]+:[0-9]+: " \
			check --kind $kind "$f"
	done
done
bad_input "a plan naming an unknown strategy, before any build" \
	"unknown-strategy.yaml:5:24: .*no such strategy 'gatting'" run "$DATA/plans/unknown-strategy.yaml"
badlist=$HB_TEST_ROOT/series
printf '# a series with a patch that is not there\n0001-missing.patch\n' >"$badlist"
bad_input "a series naming a missing patch" "$badlist:2: " run "${cell[@]}" --series "$badlist"
out=$(HILBENCH_STORE_TIMEOUT_S=soon $HB show 2>&1); rc=$?
check "HILBENCH_STORE_TIMEOUT_S=soon is refused, naming the variable" \
	eval '[ $rc != 0 ] && grep -q "HILBENCH_STORE_TIMEOUT_S=soon: give whole seconds" <<<"$out"'
# No store yet is none reached; a store that cannot be queried is a failure.
check "no bad input reached the store" eval \
	'[ ! -e "$HILBENCH_STORE/hilbench.db" ] || [ "$(sql "SELECT count(*) FROM runs")" = 0 ]'
echo "# bad input: $((SECONDS - t0)) s"

# --- no process is started through a shell ------------------------------------
# Every spawn goes through util/proc.c (execvp of an argv array); a shell
# would re-parse strings that carry user input (patch paths, board names).
shells=$(grep -rnE '\b(system|popen|execl|execlp)[[:space:]]*\(|"(/bin/)?(ba)?sh",[[:space:]]*"-c"' \
	harness/src harness/agent --include='*.c' || true)
check "nothing in harness/ starts a process through a shell ($shells)" [ -z "$shells" ]
check "processes are started with execvp/execve of an argv array" \
	grep -qE 'exec(vp|ve)\(' harness/src/util/proc.c
echo "# shell audit: $((SECONDS - t0)) s"

# --- a kernel that panics at boot: fail, the panic line, no retry ------------
newstore panic
out=$($HB run "${cell[@]}" --repeat 2 --patch "$DATA/patches/panic-in-probe.patch" 2>&1); rc=$?
panic="Kernel panic - not syncing: hilbench fault test: stmmac_dvr_probe"
check "panic at boot: exit 125" [ $rc = 125 ]
check "panic at boot: the message quotes the panic line" grep -q "boot failed: .*$panic" <<<"$out"
check "panic at boot: both repetitions stored as fail with the panic line" [ "$(sql "SELECT count(*)
	FROM runs WHERE class='fail' AND reason LIKE 'boot failed: %$panic%'")" = 2 ]
check "panic at boot: deterministic, so one boot and no retry" eval '[ "$(sql "SELECT count(DISTINCT boot_id)
	|| max(attempt) FROM runs")" = 11 ] && ! grep -q retr <<<"$out"'
check "panic at boot: no measurement" [ "$(sql 'SELECT count(*) FROM metrics')" = 0 ]
check "panic at boot: store intact" store_intact
check "panic at boot: no QEMU or tap left" host_is_clean
# a hostile console line (the panic message carries a <script>) in the report
html=$HB_TEST_ROOT/panic.html
$HB report --all --format html --out "$html" >/dev/null 2>&1
check "HTML report: the panic line is shown escaped, never as a <script>" eval \
	'grep -q "stmmac_dvr_probe &lt;script&gt;alert(1)&lt;/script&gt;" "$html" && ! grep -qi "<script" "$html"'
echo "# panic: $((SECONDS - t0)) s"

# --- the DUT's iperf3 dies mid-run: fail, why, no retry ---------------------
newstore iperf-dies
out=$($HB run --board "$DATA/boards/qemu-orangepi-pc-iperf-dies.yaml" --strategy baseline \
	--workload "$UDP" --repeat 2 2>&1); rc=$?
check "DUT iperf3 killed: exit 125" [ $rc = 125 ]
check "DUT iperf3 killed: the run is a failure saying so" [ "$(sql "SELECT count(*) FROM runs
	WHERE repetition=1 AND class='fail' AND reason='agent: iperf3 killed by signal 9'")" = 1 ]
check "DUT iperf3 killed: the rest of the boot is stored as not run" [ "$(sql "SELECT count(*)
	FROM runs WHERE repetition=2 AND class='error' AND reason LIKE 'not run: the DUT failed in run %'")" = 1 ]
check "DUT iperf3 killed: the DUT's doing, so no retry" [ "$(sql "SELECT count(*) || max(attempt) FROM runs")" = 21 ]
check "DUT iperf3 killed: no measurement" [ "$(sql 'SELECT count(*) FROM metrics')" = 0 ]
check "DUT iperf3 killed: store intact" store_intact
check "DUT iperf3 killed: no QEMU or tap left" host_is_clean
echo "# iperf dies: $((SECONDS - t0)) s"

# --- the DUT's iperf3 hangs mid-run, the DUT idle: the host's clock ends it ---
# In virtual time the idle DUT's clock races, so its own deadline would
# pass within a host second; the host's (time + omit + 30 s) ends the run.
newstore iperf-hangs
t1=$SECONDS
out=$($HB run --board "$DATA/boards/qemu-orangepi-pc-iperf-hangs.yaml" --strategy baseline \
	--workload "$UDP" 2>&1); rc=$?
check "DUT iperf3 hangs: exit 125" [ $rc = 125 ]
check "DUT iperf3 hangs: a failure at the host's deadline, the DUT's clock named" [ "$(sql "SELECT
	count(*) FROM runs WHERE class='fail' AND reason GLOB
	'agent: iperf3 killed after the host''s deadline (35 s on its clock), [0-9]* s on the DUT''s'")" = 1 ]
check "DUT iperf3 hangs: not before the host's deadline ($((SECONDS - t1)) s)" [ $((SECONDS - t1)) -ge 35 ]
check "DUT iperf3 hangs: where it was is kept" grep -q '^iperf3_at_deadline=state=T ' \
	"$HILBENCH_STORE"/runs/*/dut-context.txt
check "DUT iperf3 hangs: no measurement" [ "$(sql 'SELECT count(*) FROM metrics')" = 0 ]
check "DUT iperf3 hangs: store intact" store_intact
check "DUT iperf3 hangs: no QEMU or tap left" host_is_clean
echo "# iperf hangs: $((SECONDS - t0)) s"

# --- a DUT that never becomes ready: error, retried a bounded number of times -
newstore impatient
out=$($HB run --board "$DATA/boards/qemu-orangepi-pc-impatient.yaml" --strategy baseline \
	--workload "$UDP" 2>&1); rc=$?
check "boot timeout: exit 125" [ $rc = 125 ]
check "boot timeout: three attempts, the first two marked as retried" [ "$(sql "SELECT
	group_concat(attempt || ':' || (reason LIKE '%retried (attempt ' || attempt || ' of 3)'), ' ')
	FROM (SELECT * FROM runs WHERE class='error' AND reason LIKE '%not ready after 1 s%' ORDER BY rowid)")" = "1:1 2:1 3:0" ]
check "boot timeout: store intact" store_intact
check "boot timeout: no QEMU or tap left" host_is_clean
echo "# boot timeout: $((SECONDS - t0)) s"

# --- QEMU dies mid-run: error, retried on a fresh boot, then measured --------
newstore qemu-dies
start_mid_run "$HB_TEST_ROOT/qemu-dies.out" 2
pkill -KILL -P "$pid" -f qemu-system-arm	# only this hilbench's QEMU
wait "$pid"; rc=$?
check "QEMU killed mid-run: retried, and the plan passes (exit $rc)" [ $rc = 0 ]
check "QEMU killed mid-run: the broken attempt is stored as error, retried" [ "$(sql "SELECT count(*)
	FROM runs r WHERE class='error' AND attempt=1 AND reason LIKE 'the console closed mid-run%retried (attempt 1 of 3)'
	AND NOT EXISTS (SELECT 1 FROM metrics m WHERE m.run_id = r.id)")" = 1 ]
check "QEMU killed mid-run: both repetitions measured, the first on attempt 2" [ "$(sql "SELECT
	group_concat(repetition || ':' || attempt, ' ') FROM (SELECT * FROM runs WHERE class='pass' ORDER BY repetition)")" = "1:2 2:1" ]
check "QEMU killed mid-run: two boots" [ "$(sql 'SELECT count(DISTINCT boot_id) FROM runs')" = 2 ]
check "QEMU killed mid-run: store intact" store_intact
check "QEMU killed mid-run: no QEMU or tap left" host_is_clean
echo "# QEMU dies: $((SECONDS - t0)) s"

# --- the host's iperf side dies mid-run: error, retried, then measured -------
newstore host-iperf
start_mid_run "$HB_TEST_ROOT/host-iperf.out" 2
pkill -KILL -P "$pid" -x hilbench	# its forked libiperf child; QEMU is qemu-system-arm
wait "$pid"; rc=$?
check "host iperf killed mid-run: retried, and the plan passes (exit $rc)" [ $rc = 0 ]
check "host iperf killed mid-run: the broken attempt is stored as error, retried" [ "$(sql "SELECT count(*)
	FROM runs r WHERE class='error' AND attempt=1 AND reason LIKE 'the host''s libiperf side died mid-run%retried (attempt 1 of 3)'
	AND NOT EXISTS (SELECT 1 FROM metrics m WHERE m.run_id = r.id)")" = 1 ]
check "host iperf killed mid-run: both repetitions measured, the first on attempt 2" [ "$(sql "SELECT
	group_concat(repetition || ':' || attempt, ' ') FROM (SELECT * FROM runs WHERE class='pass' ORDER BY repetition)")" = "1:2 2:1" ]
check "host iperf killed mid-run: store intact" store_intact
check "host iperf killed mid-run: no QEMU or tap left" host_is_clean
echo "# host iperf dies: $((SECONDS - t0)) s"

# --- the store locked by another process ---------------------------------------
# sqlite3 holds a write transaction (BEGIN IMMEDIATE) for $2 s on store $1.
hold_lock() {
	{ echo "BEGIN IMMEDIATE;"; sleep "$2"; echo "COMMIT;"; } | sqlite3 "$1/hilbench.db" &
	locker=$!
	sleep 1
}
# the lock outlasts the timeout: refused before anything is measured
newstore locked
sql "SELECT 1" >/dev/null	# create the store
$HB show >/dev/null 2>&1	# with its tables
hold_lock "$HILBENCH_STORE" 15
out=$(HILBENCH_STORE_TIMEOUT_S=2 $HB run "${cell[@]}" 2>&1); rc=$?
kill "$locker" 2>/dev/null; wait "$locker" 2>/dev/null
check "store locked: exit 125" [ $rc = 125 ]
check "store locked: the message says who holds it and for how long" \
	grep -q "still locked by another process after 2 s" <<<"$out"
check "store locked: refused before booting anything" eval '! grep -q booting <<<"$out"'
check "store locked: nothing stored, store intact" eval '[ "$(sql "SELECT count(*) FROM runs")" = 0 ] && store_intact'
# the lock goes away within the timeout: the run waits for it and is stored
hold_lock "$HILBENCH_STORE" 5
out=$(HILBENCH_STORE_TIMEOUT_S=60 $HB run "${cell[@]}" 2>&1); rc=$?
wait "$locker"
check "store locked for 5 s: the run waits and is stored (exit $rc)" \
	eval '[ $rc = 0 ] && [ "$(sql "SELECT count(*) FROM runs WHERE class='"'pass'"'")" = 1 ]'
# locked mid-plan past the timeout: the finished run cannot be stored; its
# files are kept and the plan stops
export HILBENCH_STORE_TIMEOUT_S=3
start_mid_run "$HB_TEST_ROOT/locked-mid.out" 1
unset HILBENCH_STORE_TIMEOUT_S
hold_lock "$HILBENCH_STORE" 40
wait "$pid"; rc=$?
kill "$locker" 2>/dev/null; wait "$locker" 2>/dev/null
check "store locked mid-plan: exit 125" [ $rc = 125 ]
kept=$(sed -n 's/.*could not be stored; its files are in \(\/[^ ,]*\), with its row.*/\1/p' "$HB_TEST_ROOT/locked-mid.out" | head -n1)
check "store locked mid-plan: the message names the run's kept files and row ($kept)" \
	eval 'test -s "$kept/dut-iperf.json" && test -s "$kept/unstored-run.json"'
check "store locked mid-plan: the earlier run intact, nothing half-stored" \
	eval '[ "$(sql "SELECT count(*) FROM runs")" = 1 ] && store_intact'
check "store locked: no QEMU or tap left" host_is_clean
# the lock is gone: --resume imports the kept run instead of measuring it again
kept_id=${kept##*/}
session=$(sed -n 's/.*with --resume \([^ ]*\) imports the kept run.*/\1/p' "$HB_TEST_ROOT/locked-mid.out" | head -n1)
out=$($HB run "${cell[@]}" --resume "$session" 2>&1); rc=$?
check "store locked, then --resume $session: exit 0, the kept run imported" \
	eval '[ $rc = 0 ] && grep -q "run $kept_id (pass, session $session): imported" <<<"$out"'
check "store locked, then --resume: no new boot for it" eval '! grep -q booting <<<"$out"'
check "store locked, then --resume: exactly one row for the run, pass, in its session" \
	[ "$(sql "SELECT count(*) || class || session FROM runs WHERE id='$kept_id'")" = "1pass$session" ]
check "store locked, then --resume: its metrics and files, the store intact, the row file gone" \
	eval '[ "$(sql "SELECT count(*) > 5 FROM metrics WHERE run_id='"'$kept_id'"'")" = 1 ] &&
	[ "$(sql "PRAGMA integrity_check")" = ok ] && store_intact && [ ! -e "$kept/unstored-run.json" ]'
check "store locked, then --resume: 2 runs in the store" [ "$(sql "SELECT count(*) FROM runs")" = 2 ]
echo "# store locked: $((SECONDS - t0)) s"

# --- SIGTERM, then SIGKILL, in the middle of a plan; --resume finishes it -----
newstore resume
start_mid_run "$HB_TEST_ROOT/term.out" 3
wait_passes 1
kill -TERM "$pid"
wait "$pid"; rc=$?
session=$(sql "SELECT DISTINCT session FROM runs")
check "SIGTERM: exit 125" [ $rc = 125 ]
check "SIGTERM: the message says what is kept" grep -q "interrupted: finished runs are stored (session $session)" "$HB_TEST_ROOT/term.out"
check "SIGTERM: what did not finish is stored as interrupted, not as a number" [ "$(sql "SELECT count(*)
	FROM runs r WHERE class != 'pass' AND reason LIKE '%interrupted%'
	AND NOT EXISTS (SELECT 1 FROM metrics m WHERE m.run_id = r.id)")" -ge 1 ]
check "SIGTERM: store intact" store_intact
check "SIGTERM: no QEMU or tap left" host_is_clean
resume=(run --board qemu-orangepi-pc --strategy baseline --workload "$UDP" --repeat 3 --resume "$session")
passed=$(sql "SELECT count(*) FROM runs WHERE class='pass'")
$HB "${resume[@]}" >"$HB_TEST_ROOT/resume1.out" 2>&1 &
pid=$!
wait_passes $((passed + 1))
kill -KILL "$pid"
{ wait "$pid"; rc=$?; } 2>/dev/null	# without bash's "Killed" line
check "SIGKILL: exit 137" [ $rc = 137 ]
check "SIGKILL: QEMU and tap go with hilbench" clean_soon
check "SIGKILL: the resumed runs went into the same session" [ "$(sql "SELECT count(DISTINCT session) FROM runs")" = 1 ]
check "SIGKILL: nothing half-written (store intact)" store_intact
out=$($HB "${resume[@]}" 2>&1); rc=$?
check "--resume after SIGKILL: exit 0" [ $rc = 0 ]
check "--resume: every repetition passed exactly once in session $session" [ "$(sql "SELECT
	group_concat(repetition || ':' || n, ' ') FROM (SELECT repetition, count(*) n FROM runs
	WHERE session='$session' AND class='pass' GROUP BY repetition ORDER BY repetition)")" = "1:1 2:1 3:1" ]
check "--resume: says it runs only what is left" grep -q "less those already passed" <<<"$out"
check "--resume: store intact" store_intact
check "--resume: the SIGKILLed run's unfinished files are swept" \
	eval '[ -z "$(find "$HILBENCH_STORE/runs" -maxdepth 1 -name ".tmp-*")" ]'
check "--resume: no QEMU or tap left" host_is_clean
out=$($HB "${resume[@]}" 2>&1); rc=$?
check "--resume of a finished session runs nothing (exit $rc)" \
	eval '[ $rc = 0 ] && grep -q "0 runs" <<<"$out" && ! grep -q booting <<<"$out"'
echo "# SIGTERM/SIGKILL/resume: $((SECONDS - t0)) s"

# --- the host disk fills while a run writes its artifacts -----------------------
# The store on a small tmpfs; once the first repetition is stored, a file
# fills the rest of it.
newstore full
mount -t tmpfs -o size=24m hb-faults-full "$HILBENCH_STORE"
start_mid_run "$HB_TEST_ROOT/full.out" 3
wait_passes 1
dd if=/dev/zero of="$HILBENCH_STORE/filler" bs=64k 2>/dev/null
wait "$pid"; rc=$?
check "disk full: exit 125" [ $rc = 125 ]
check "disk full: the message says the store's file system is full and how to go on" \
	eval 'grep -q "the file system of the store .* is full\|store.s file system is full\|is full or failing" "$HB_TEST_ROOT/full.out" &&
	grep -q -- "--resume" "$HB_TEST_ROOT/full.out"'
check "disk full: the earlier run is intact" eval '[ "$(sql "SELECT count(*) FROM runs WHERE class='"'pass'"'")" = 1 ] && store_intact'
check "disk full: no QEMU or tap left" host_is_clean
rm -f "$HILBENCH_STORE/filler"
session=$(sql "SELECT DISTINCT session FROM runs")
out=$($HB run "${cell[@]}" --repeat 3 --resume "$session" 2>&1); rc=$?
check "disk full: with space again, --resume completes the session (exit $rc)" \
	[ "$(sql "SELECT count(DISTINCT repetition) FROM runs WHERE class='pass' AND session='$session'")" = 3 ]
check "disk full: store intact after resuming" store_intact
umount "$HILBENCH_STORE"
echo "# disk full: $((SECONDS - t0)) s"

echo "$pass passed, $fail failed ($((SECONDS - t0)) s)"
[ $fail = 0 ] && rm -rf "$HB_TEST_ROOT"
[ $fail = 0 ]
