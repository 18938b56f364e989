#!/usr/bin/env bash
# tests/lava/plan-errors.sh: a LAVA server that fails while `hilbench run`
# uses it (the lava backend, docs/faults.md), against the FAKE server
# tests/lava/fake_lava_server.py, a test fake of LAVA's HTTP error behaviour
# that the product never uses. One ad-hoc plan, two boards: the emulated
# board (a real QEMU boot, the run that passes before the server fails) and
# qemu-orangepi-pc-lava-server pointed at the fake by $HILBENCH_LAVA_URL:
#   1. the server answers 500 to every submission;
#   2. --resume: it takes the job, then closes every connection unanswered;
#   3. --resume: it is back, but its job ends Incomplete before it runs.
# Each asserts the run's class (error), a message naming the request's URL
# and the HTTP status or what happened to the connection, never the token;
# the retries (the client's own for 1 and 2, then no new boot and the plan
# stops; a fresh boot for 3); an intact store with the pass run kept and not
# measured again. No LAVA answer here becomes a measurement. Needs root (a
# network namespace of its own) and the cached baseline kernel; asserts
# behaviour, never speed; prints the time it took.
set -uo pipefail
cd "$(dirname "$0")/../.."
t0=$SECONDS
if [[ ${HB_IN_NETNS:-} != 1 ]]; then
	[[ $(id -u) == 0 ]] || { echo "plan-errors.sh: needs root" >&2; exit 2; }
	HB_IN_NETNS=1 exec unshare --net --fork "$0" "$@"
fi

# --- inside a network namespace of our own ---------------------------------------
# The lava backend drives the DUT's traffic from this host: the board's
# dut.host_addr must be on an interface here (a tap that no DUT is behind).
ip link set lo up
ip tuntap add dev hb-lava0 mode tap
ip addr add 198.18.0.1/24 dev hb-lava0
ip link set hb-lava0 up
HB=$PWD/build/hilbench
DATA=$PWD/tests/data
export HILBENCH_STORE HB_TEST_ROOT
HB_TEST_ROOT=$(mktemp -d /tmp/hb-lava-plan.XXXXXX)
HILBENCH_STORE=$HB_TEST_ROOT/store
mkdir -p "$HILBENCH_STORE"
source tests/integration/lib.sh
server_pid=
cleanup() {
	[[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null
	[[ $fail == 0 && ${KEEP:-} != 1 ]] && rm -rf "$HB_TEST_ROOT" || echo "plan-errors.sh: kept $HB_TEST_ROOT"
}
trap cleanup EXIT
TOKEN=hb-test-token-5f3a9c	# the one the fake accepts
printf '%s\n' "$TOKEN" >"$HB_TEST_ROOT/token"
export HILBENCH_LAVA_TOKEN_FILE=$HB_TEST_ROOT/token

fake() {	# SCENARIO: (re)start the fake server, set $url and $HILBENCH_LAVA_URL
	[[ -n $server_pid ]] && { kill "$server_pid"; wait "$server_pid" 2>/dev/null; }
	rm -f "$HB_TEST_ROOT/port" "$HB_TEST_ROOT/requests"
	touch "$HB_TEST_ROOT/requests"
	/usr/bin/python3 tests/lava/fake_lava_server.py "$1" "$HB_TEST_ROOT/port" "$HB_TEST_ROOT/requests" &
	server_pid=$!
	for _ in $(seq 100); do [[ -s $HB_TEST_ROOT/port ]] && break; sleep 0.05; done
	url=http://127.0.0.1:$(cat "$HB_TEST_ROOT/port")
	export HILBENCH_LAVA_URL=$url/
}
requests() { grep -c "^$1" "$HB_TEST_ROOT/requests"; }
LAVA=qemu-orangepi-pc-lava-server
plan=(run --boards qemu-orangepi-pc,$LAVA --strategy baseline --workload "$DATA/workloads/udp64-smoke.yaml"
	--timing realtime)
lava_runs() { sql "SELECT count(*) FROM runs WHERE board='$LAVA'"; }
qemu_pass() { sql "SELECT count(*) || ':' || group_concat(id) FROM runs WHERE board='qemu-orangepi-pc' AND class='pass'"; }
no_token() { ! grep -qF "$TOKEN" <<<"$out" && [ -z "$(sql "SELECT id FROM runs WHERE reason LIKE '%$TOKEN%'")" ]; }

# --- 1. 500 on every submission ----------------------------------------------------
fake submit-500
out=$($HB "${plan[@]}" 2>&1); rc=$?
echo "$out" >"$HB_TEST_ROOT/1.out"
session=$(sql "SELECT DISTINCT session FROM runs" | head -n1)
check "500: exit 125" [ $rc = 125 ]
check "500: the emulated board's run passed first" [ "$(qemu_pass | cut -d: -f1)" = 1 ]
pass_before=$(qemu_pass)
check "500: the LAVA run is one error row naming the URL and the status" [ "$(sql "SELECT count(*) FROM runs
	WHERE board='$LAVA' AND class='error' AND reason LIKE
	'boot failed: POST $url/api/v0.2/jobs/: HTTP 500 (gave up after the retries; is the server up?)%'")" = "1" ]
check "500: the client retried the submission with backoff (5 POSTs), no new boot" \
	eval '[ "$(requests POST)" = 5 ] && [ "$(grep -c "retrying in" <<<"$out")" = 4 ] &&
	! grep -q "retrying: attempt" <<<"$out" && [ "$(lava_runs)" = 1 ]'
check "500: the plan stops, saying why and how to go on" \
	grep -q "stopping the plan: board $LAVA: the lab cannot take boots (POST $url/api/v0.2/jobs/: HTTP 500.*--resume $session runs the rest" <<<"$out"
check "500: the token is never printed nor stored" no_token
check "500: store intact" store_intact
check "500: no QEMU of ours left" host_is_clean
echo "# 1. 500 on submission: $((SECONDS - t0)) s"

# The pass run on the emulated board, kept as it was, and no boot for it in $out.
not_measured_again() {
	[ "$(qemu_pass)" = "$pass_before" ] && ! grep -q "qemu-orangepi-pc / baseline: booting" <<<"$out"
}

# --- 2. the job taken, then every connection closed unanswered ----------------------
fake gone-after-submit
out=$($HB "${plan[@]}" --resume "$session" 2>&1); rc=$?
echo "$out" >"$HB_TEST_ROOT/2.out"
check "gone: exit 125" [ $rc = 125 ]
check "gone: the finished run is not measured again (no boot of qemu-orangepi-pc)" not_measured_again
closed="LAVA job 7: GET $url/api/v0.2/jobs/7/: Empty reply from server (the server closed the connection without answering)"
check "gone: one more error row, naming the job's URL and the closed connection" [ "$(sql "SELECT count(*)
	FROM runs WHERE board='$LAVA' AND class='error' AND reason LIKE 'boot failed: $closed%'")" = 1 ]
check "gone: submitted once; status and cancel each retried by the client, no new boot" \
	eval '[ "$(requests POST)" = 1 ] && [ "$(requests "GET /api/v0.2/jobs/7/ ")" = 5 ] &&
	[ "$(requests "GET /api/v0.2/jobs/7/cancel/")" = 5 ] && [ "$(lava_runs)" = 2 ]'
check "gone: says the job could not be canceled and where to cancel it" \
	grep -q "LAVA job 7: cannot cancel: .*; cancel $url/scheduler/job/7 by hand" <<<"$out"
check "gone: the plan stops with --resume" grep -q "the lab cannot take boots (LAVA job 7: GET.*--resume $session" <<<"$out"
check "gone: the token is never printed nor stored" no_token
check "gone: store intact" store_intact
echo "# 2. server gone after the submission: $((SECONDS - t0)) s"

# --- 3. back, but the job ends Incomplete before running: a fresh boot may help -------
fake incomplete-at-once
out=$($HB "${plan[@]}" --resume "$session" 2>&1); rc=$?
echo "$out" >"$HB_TEST_ROOT/3.out"
check "back: exit 125 (nothing was measured on the fake)" [ $rc = 125 ]
check "back: the finished run is still not measured again" not_measured_again
check "back: an Incomplete job is retried on fresh jobs, three in all" [ "$(sql "SELECT
	group_concat(attempt || ':' || (reason LIKE '%retried (attempt ' || attempt || ' of 3)'), ' ')
	FROM (SELECT * FROM runs WHERE board='$LAVA' AND reason LIKE 'boot failed: LAVA job 7 is Finished Incomplete, not Running%'
	ORDER BY rowid)")" = "1:1 2:1 3:0" ]
check "back: three submissions" [ "$(requests POST)" = 3 ]
check "back: every LAVA row is an error without metrics; one pass row in all" [ "$(sql "SELECT
	(SELECT count(*) FROM runs WHERE board='$LAVA' AND class != 'error') ||
	(SELECT count(*) FROM metrics m JOIN runs r ON r.id = m.run_id WHERE r.board='$LAVA') ||
	(SELECT count(*) FROM runs WHERE class='pass') || (SELECT count(DISTINCT session) FROM runs)")" = 0011 ]
check "back: store intact" store_intact
check "back: no QEMU of ours left" host_is_clean
echo "# 3. server back, job Incomplete: $((SECONDS - t0)) s"

echo "# lava backend under a failing server: $pass passed, $fail failed, $((SECONDS - t0)) s"
[ "$fail" = 0 ]
