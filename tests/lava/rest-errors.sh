#!/usr/bin/env bash
# tests/lava/rest-errors.sh HILBENCH: the error paths of hilbench's LAVA REST
# client (`hilbench lava submit`), against a FAKE server
# (tests/lava/fake_lava_server.py) that tests the client code only: wrong
# token (403), bad job (400), server down, a job that ends Incomplete, 5xx
# then success, a Bad device reported before submitting, Ctrl-C canceling
# the job, a plain-HTTP server on another machine refused, and that the
# token never appears in hilbench's output. The real LAVA server is
# tests/lava/server.sh. Asserts behaviour, never speed.
set -uo pipefail
hb=$(realpath "${1:?usage: $0 path/to/hilbench}")
cd "$(dirname "$0")/../.."
work=$(mktemp -d "${TMPDIR:-/tmp}/hb-lava-rest.XXXXXX")
server_pid=
cleanup() { [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
TOKEN=hb-test-token-5f3a9c	# the one the fake server accepts
pass=0 fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
not_ok() { echo "not ok - $1"; fail=$((fail + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else not_ok "$what"; fi; }

printf 'job_name: a job the fake server never reads\n' >"$work/job.yaml"
printf '%s\n' "$TOKEN" >"$work/token"

fake() {	# SCENARIO: start the fake server, set $url
	[[ -n $server_pid ]] && { kill "$server_pid"; wait "$server_pid" 2>/dev/null; }
	rm -f "$work/port" "$work/requests"
	/usr/bin/python3 tests/lava/fake_lava_server.py "$1" "$work/port" "$work/requests" &
	server_pid=$!
	for _ in $(seq 100); do [[ -s $work/port ]] && break; sleep 0.05; done
	url=http://127.0.0.1:$(cat "$work/port")/
}
submit() {	# ARGS...: run hilbench lava submit; $rc, $out (stdout+stderr)
	out=$(HILBENCH_LAVA_TOKEN_FILE=$work/token "$hb" lava submit --server "$url" "$@" "$work/job.yaml" 2>&1)
	rc=$?
}
no_token() { ! grep -qF "$TOKEN" <<<"$out"; }

fake wrong-token
out=$(HILBENCH_LAVA_TOKEN=wrong-token-value "$hb" lava submit --server "$url" "$work/job.yaml" 2>&1); rc=$?
check "403: exit 2 with the server's message" \
	bash -c '[[ $1 == 2 && $2 == *"HTTP 403: Invalid token."* ]]' _ "$rc" "$out"
check "403: the token (from \$HILBENCH_LAVA_TOKEN) is not printed" \
	bash -c '! grep -qF wrong-token-value <<<"$1"' _ "$out"
check "403: sent as 'Authorization: Token ...'" grep -q ' Token wrong-token-value$' "$work/requests"

fake bad-job
submit --device qemu-01
check "400: exit 2 with the server's message" \
	bash -c '[[ $1 == 2 && $2 == *"HTTP 400: job submission failed: '"'"'timeouts'"'"' is a required property."* ]]' _ "$rc" "$out"
check "400: the token (from \$HILBENCH_LAVA_TOKEN_FILE) is not printed" no_token

fake device-bad
submit --device qemu-01
check "Bad device: exit 2, reported before submitting" \
	bash -c '[[ $1 == 2 && $2 == *"device qemu-01 is Bad"* ]] && ! grep -q "^POST" "$3"' _ "$rc" "$out" "$work/requests"

fake incomplete
submit
check "Incomplete job: exit 1, health reported" bash -c '[[ $1 == 1 && $2 == *"finished: Incomplete"* ]]' _ "$rc" "$out"
check "the job's console and results are printed" \
	bash -c '[[ $1 == *"HB HELLO agent=1"* && $1 == *"LAVA result: 0_hilbench-udp64-dut-tx/pps pass 724.5 packets/s"* ]]' _ "$out"

fake flaky
submit
check "500 twice, then success: retried with backoff, exit 0" \
	bash -c '[[ $1 == 0 && $(grep -c "retrying in" <<<"$2") == 2 && $2 == *"finished: Complete"* ]]' _ "$rc" "$out"
check "5xx: the token is not printed" no_token

fake running
HILBENCH_LAVA_TOKEN_FILE=$work/token "$hb" lava submit --server "$url" "$work/job.yaml" >"$work/out" 2>&1 &
hb_pid=$!
for _ in $(seq 100); do grep -q '^GET /api/v0.2/jobs/7/' "$work/requests" 2>/dev/null && break; sleep 0.1; done
kill -INT "$hb_pid"; wait "$hb_pid"; rc=$?
check "Ctrl-C: the job is canceled on the server, exit 125" \
	bash -c '[[ $1 == 125 ]] && grep -q "^GET /api/v0.2/jobs/7/cancel/" "$2"' _ "$rc" "$work/requests"

kill "$server_pid"; wait "$server_pid" 2>/dev/null; server_pid=
submit
check "server down: exit 125 after the retries" \
	bash -c '[[ $1 == 125 && $2 == *"gave up after the retries"* && $(grep -c "retrying in" <<<"$2") == 4 ]]' _ "$rc" "$out"

url=http://192.0.2.1:8000/	# TEST-NET-1: nothing answers there
submit
check "plain HTTP to another machine: refused before any request, exit 2" \
	bash -c '[[ $1 == 2 && $2 == *"plain HTTP to another machine"* && $2 != *"retrying"* ]]' _ "$rc" "$out"
check "plain HTTP: the token is not printed" no_token

printf '\n' >"$work/token"
submit
check "an empty token file is an error naming the file" \
	bash -c '[[ $1 == 2 && $2 == *"$3"*"is empty"* ]]' _ "$rc" "$out" "$work/token"

echo "# lava REST client: $pass passed, $fail failed (fake server: client code only)"
[ "$fail" = 0 ]
