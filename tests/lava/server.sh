#!/usr/bin/env bash
# tests/lava/server.sh: a real LAVA server on loopback, and one hilbench run
# through it over REST (the lava backend, docs/lava.md). Nothing is faked:
# Debian's lava-server 2023.01 with PostgreSQL, gunicorn, the scheduler,
# the publisher and a lava-worker, the emulated board added as a device
# (QEMU orangepi-pc booting U-Boot from an SD image, TFTP), and
# `hilbench run --board qemu-orangepi-pc-lava-server` submitting, polling,
# driving the host side, and storing the run with its measurements; then
# fan-out: two jobs in flight at once (--max-jobs 2; one device, so the
# second waits in LAVA's queue), both stored, and Ctrl-C with a job Running
# and one Submitted leaving every job Finished (canceled) on the server.
#
# Everything runs in one private network namespace this script creates
# (loopback for the server, tap hb0 with the board's host address for the
# DUT); no systemd. The lab's pieces are tests/lava/lab.sh's, shared with
# tests/lava/workers.sh (two workers). PostgreSQL's cluster is started inside it for the test
# and stopped after (restarted outside if it was running before). Needs
# root and `make deps`; installs lava-server once if it is missing.
# Asserts behaviour, never speed; the time it took is printed.
set -uo pipefail
cd "$(dirname "$0")/../.."
export HILBENCH_HOME=$PWD
HB=$PWD/build/hilbench
DEVICE_TYPE=hilbench-qemu-orangepi-pc
DEVICE=hilbench-qemu-orangepi-pc-01
WORKER=hilbench-test-worker
t0=$SECONDS
pids=()
. tests/lava/lab.sh
lab_enter "$0" "$@"

# --- inside the namespace ------------------------------------------------------
trap lab_cleanup EXIT
ip link set lo up
ip tuntap add dev hb0 mode tap
ip addr add 198.18.0.1/24 dev hb0
ip link set hb0 up
echo 1 >/proc/sys/net/ipv6/conf/hb0/disable_ipv6
lab_server_up 127.0.0.1
lab_worker_add "$WORKER" 198.18.0.1
lab_device_add "$DEVICE" "$WORKER"
lab_worker_start "$WORKER" 198.18.0.1
echo "# server.sh: server, worker and device up in $((SECONDS - t0)) s"

# --- one hilbench run through the REST backend ---------------------------------
t1=$SECONDS
HILBENCH_LAVA_TOKEN_FILE=$work/token HILBENCH_LAVA_URL=http://127.0.0.1:8000/ \
	"$HB" run --board qemu-orangepi-pc-lava-server --strategy baseline --workload udp64-dut-tx \
	--timing realtime 2>&1 | tee "$work/hilbench.log"
rc=${PIPESTATUS[0]}
echo "# server.sh: one UDP run through the server took $((SECONDS - t1)) s"
check "hilbench run through the lava backend exits 0" [ "$rc" = 0 ]
check "the token is never printed" bash -c '! grep -qF "$1" "$2"' _ "$token" "$work/hilbench.log"
check "one run stored, class pass" [ "$(sql "select count(*) || ' ' || group_concat(class) from runs")" = "1 pass" ]
run=$(sql "select id from runs")
boot=$(sql "select boot_id from runs")
check "the run's measurements are stored" \
	[ "$(sql "select count(*) from metrics where run_id='$run' and name in
		('pps', 'dut_tx_packets', 'netlink_dut_tx_frames', 'hrtimer_start.stmmac_tx_timer')")" = 4 ]
job=$(job_of_boot "$boot")
health=$(job_state "$job")
check "the server says job $job is Finished Complete" [ "$health" = "Finished Complete" ]
check "LAVA's results reached the store's boot directory (pps measured on the DUT)" \
	grep -q '"case": "pps".*"result": "pass"' "$HILBENCH_STORE/boots/$boot/lava-results.yaml"
check "the console has the agent's END for the run" \
	grep -q "^HB END id=$run status=ok" "$HILBENCH_STORE/boots/$boot/console.log"

# --- fan-out (docs/lava.md, "Fan-out"): two jobs in flight at once --------------
# One device: the second job waits in LAVA's queue while the first runs,
# and hilbench follows both; each run is stored as its job ends.
t1=$SECONDS
before=$(sql "select count(*) from runs")
HILBENCH_LAVA_TOKEN_FILE=$work/token HILBENCH_LAVA_URL=http://127.0.0.1:8000/ \
	"$HB" run --board qemu-orangepi-pc-lava-server --strategy baseline --workload udp64-dut-tx \
	--repeat 2 --max-jobs 2 --timing realtime >"$work/fanout.log" 2>&1
rc=$?
echo "# server.sh: two runs, two jobs in flight, took $((SECONDS - t1)) s"
check "hilbench run --max-jobs 2 exits 0" [ "$rc" = 0 ]
check "two more runs stored, both pass" \
	[ "$(sql "select count(*) || ' ' || group_concat(distinct class) from runs where rowid > $before")" = "2 pass" ]
read -r j1 j2 <<<"$(jobs_of_runs_after "$before")"
jobs_in >"$work/jobs.txt"
check "jobs $j1 and $j2 were both submitted before the first ended (in flight together)" \
	/usr/bin/python3 - "$work/jobs.txt" "$j1" "$j2" <<'PY'
import sys
rows = {l.split()[0]: l.split() for l in open(sys.argv[1])}
a, b = rows[sys.argv[2]], rows[sys.argv[3]]
ok = a[1] == b[1] == "Finished" and a[2] == b[2] == "Complete" and max(a[3], b[3]) < min(a[4], b[4])
sys.exit(0 if ok else 1)
PY
check "the provenance names the device that ran the job" \
	[ "$(sql "select count(*) from runs where rowid > $before and emulator like '%device $DEVICE (type hilbench-qemu-orangepi-pc)%'")" = 2 ]

# --- Ctrl-C with jobs in flight: every job canceled ----------------------------
before=$(sql "select count(*) from runs")
HILBENCH_LAVA_TOKEN_FILE=$work/token HILBENCH_LAVA_URL=http://127.0.0.1:8000/ \
	"$HB" run --board qemu-orangepi-pc-lava-server --strategy baseline --workload udp64-dut-tx \
	--repeat 3 --max-jobs 2 --timing realtime >"$work/cancel.log" 2>&1 &
hb=$!
flying=0
for _ in $(seq 240); do
	jobs_in >"$work/jobs.txt"
	if grep -q ' Running ' "$work/jobs.txt" && grep -q ' Submitted ' "$work/jobs.txt"; then
		flying=1
		break
	fi
	sleep 1
done
check "a job Running and one Submitted before the interrupt" [ "$flying" = 1 ]
kill -INT "$hb"
wait "$hb"
rc=$?
check "interrupted, hilbench exits 125" [ "$rc" = 125 ]
left=1
for _ in $(seq 120); do
	jobs_in >"$work/jobs.txt"
	if ! awk '$2 != "Finished"' "$work/jobs.txt" | grep -q .; then
		left=0
		break
	fi
	sleep 1
done
check "no job left Submitted, Scheduled, Running or Canceling on the server" [ "$left" = 0 ]
check "the interrupted session's three runs stored as interrupted, none as a number" \
	[ "$(sql "select count(*) || ' ' || sum(class != 'pass' and reason like '%interrupted%') from runs
		where rowid > $before")" = "3 3" ]
check "the token is never printed" bash -c '! grep -qF "$1" "$2" "$3"' _ "$token" "$work/fanout.log" "$work/cancel.log"

echo "# server.sh: $pass passed, $fail failed, $((SECONDS - t0)) s in all"
[ "$fail" = 0 ]
