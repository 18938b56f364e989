#!/usr/bin/env bash
# tests/lava/workers.sh: a LAVA lab of one server and two workers on this
# machine, and one plan fanned out over both (issue 21, docs/lava.md "A
# lab"). Nothing is faked: Debian's lava-server 2023.01 (tests/lava/lab.sh)
# in a private network namespace, on 198.18.1.1; two workers, each in a
# network namespace of its own (hb-lab-worker-1, -2: a veth to the
# server's bridge, 198.18.1.11 and .12), each with its own emulated device
# of type hilbench-qemu-orangepi-pc (QEMU orangepi-pc behind its own tap
# hb0, 198.18.0.1, with TFTP there); the artifacts on a lighttpd the lab
# runs on 198.18.1.1:8080 over the board's lava.artifact_dir.
#
# The board qemu-orangepi-pc-lava-lab names each device's traffic peer
# (lava.peers: the worker's namespace, where the host end of its link
# is). The same plan (8 runs of a paced UDP workload) runs twice: with
# device -02 in Maintenance (one worker), then with both. Asserted: every
# run stored, pass, with the same packet rate both times (within 2 %:
# the pacer's rate, which two devices at once on this host still keep);
# in the second, jobs ran on both devices at once and each run's traffic
# went over its own device's link; every job's files were fetched over
# HTTP, by the two workers only, and no job names a file:// URL; a device
# marked Bad mid-plan leaves its jobs to the other; a job that lands on a
# device without a peer stops the plan, canceled; and a board without an
# artifact host stops before submitting to a server off this machine. The
# wall-time ratio of the two plans is printed (docs/measurements.md), not
# asserted. Needs root and `make deps`; installs lava-server if missing.
set -uo pipefail
cd "$(dirname "$0")/../.."
export HILBENCH_HOME=$PWD
HB=$PWD/build/hilbench
DEVICE_TYPE=hilbench-qemu-orangepi-pc
BOARD=qemu-orangepi-pc-lava-lab
RUNS=${HB_LAB_RUNS:-8}
t0=$SECONDS
pids=()
. tests/lava/lab.sh
lab_enter "$0" "$@"

# --- inside the lab's namespace ------------------------------------------------
trap lab_cleanup EXIT
# The artifact directory the board file names, and the lab's web server.
ART=$(sed -n 's/^  artifact_dir: *//p' "boards/$BOARD.yaml")
[[ $ART == /* ]] || die "boards/$BOARD.yaml names no lava.artifact_dir"
ip link set lo up
ip link add br0 type bridge
ip addr add 198.18.1.1/24 dev br0
ip link set br0 up
for i in 1 2; do
	ns=hb-lab-worker-$i
	ip netns add "$ns" || die "cannot add network namespace $ns"
	lab_netns+=("$ns")
	ip link add "hbw$i" type veth peer name eth0 netns "$ns"
	ip link set "hbw$i" master br0 up
	ip -n "$ns" link set lo up
	ip -n "$ns" addr add "198.18.1.1$i/24" dev eth0
	ip -n "$ns" link set eth0 up
	ip -n "$ns" tuntap add dev hb0 mode tap
	ip -n "$ns" addr add 198.18.0.1/24 dev hb0
	ip -n "$ns" link set hb0 up
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.hb0.disable_ipv6=1
done
lab_server_up 198.18.1.1
mkdir -p "$ART"
cat >"$work/lighttpd.conf" <<EOF
server.document-root = "$ART"
server.bind = "198.18.1.1"
server.port = 8080
server.follow-symlink = "disable"
server.modules += ( "mod_accesslog" )
accesslog.filename = "$work/artifacts-access.log"
server.errorlog = "$work/artifacts-error.log"
mimetype.assign = ( "" => "application/octet-stream" )
EOF
/usr/sbin/lighttpd -D -f "$work/lighttpd.conf" &
pids+=($!)
wait_port 8080 lighttpd
# a third device an earlier run added (below) takes no job of the plans
manage devices update "$DEVICE_TYPE-03" --health RETIRED >/dev/null 2>&1
for i in 1 2; do
	lab_worker_add "hb-lab-worker-$i" 198.18.0.1
	lab_device_add "$DEVICE_TYPE-0$i" "hb-lab-worker-$i"
	lab_worker_start "hb-lab-worker-$i" 198.18.0.1 "hb-lab-worker-$i"
done
echo "# workers.sh: server, two workers and their devices up in $((SECONDS - t0)) s"

export HILBENCH_LAVA_TOKEN_FILE=$work/token
# plain HTTP, but on this test's own network namespaces only
export HILBENCH_LAVA_ALLOW_HTTP=1
plan() {	# NAME: the plan's runs, stored; prints its wall time
	local t=$SECONDS
	"$HB" --data-dir tests/data run --board "$BOARD" --strategy baseline --workload udp64-tx-paced \
		--repeat "$RUNS" --timing realtime >"$work/$1.log" 2>&1
	local rc=$?
	echo "$((SECONDS - t))" >"$work/$1.seconds"
	return $rc
}
pps_of() {	# ROWID_FROM ROWID_TO: the mean pps of those runs
	sql "select round(avg(m.value), 2) from runs r join metrics m on m.run_id = r.id
		where r.rowid > $1 and r.rowid <= $2 and m.name = 'pps'"
}

# --- one worker: device -02 in Maintenance ---------------------------------------
manage devices update "$DEVICE_TYPE-02" --health MAINTENANCE >/dev/null
b1=$(sql "select count(*) from runs" 2>/dev/null || echo 0)
plan one
rc=$?
e1=$(sql "select count(*) from runs")
check "$RUNS runs on one worker: hilbench exits 0" [ "$rc" = 0 ]
# A boot that stalls after the BusyBox banner (1 in 29) is an error row,
# and its run is tried again on a fresh job.
passed() {	# ROWID: the runs stored after it that passed
	sql "select count(*) from runs where rowid > $1 and class = 'pass'"
}
retried() {	# ROWID: the error rows after it (tried again)
	sql "select count(*) from runs where rowid > $1 and class != 'pass'"
}
check "$RUNS runs passed" [ "$(passed "$b1")" = "$RUNS" ]
r1=$(retried "$b1")
check "all ran on device -01" [ "$(sql "select count(*) from runs where rowid > $b1 and class = 'pass' and
	emulator like '%device $DEVICE_TYPE-01 %'")" = "$RUNS" ]
((fail == 0)) || die "the one-worker plan failed: $work/one.log"

# --- two workers ---------------------------------------------------------------
manage devices update "$DEVICE_TYPE-02" --health UNKNOWN >/dev/null
plan two
rc=$?
e2=$(sql "select count(*) from runs")
check "$RUNS runs on two workers: hilbench exits 0" [ "$rc" = 0 ]
check "it started two at a time (both devices idle, each with its peer)" \
	grep -q "up to 2 runs at once" "$work/two.log"
check "$RUNS runs passed" [ "$(passed "$e1")" = "$RUNS" ]
r2=$(retried "$e1")
for i in 1 2; do
	check "device -0$i ran some of them" [ "$(sql "select count(*) > 0 from runs where rowid > $e1 and
		class = 'pass' and emulator like '%device $DEVICE_TYPE-0$i %'")" = 1 ]
done
check "each run's traffic went over its own device's link (its peer namespace)" \
	[ "$(grep -c "traffic over device \($DEVICE_TYPE-01's link, in network namespace hb-lab-worker-1\|$DEVICE_TYPE-02's link, in network namespace hb-lab-worker-2\)$" \
		"$work/two.log")" -ge "$RUNS" ]
jobs_in >"$work/jobs.txt"
check "jobs ran on the two devices at once" /usr/bin/python3 - "$work/jobs.txt" "$(jobs_of_runs_after "$e1")" "$RUNS" <<'PY'
import sys
rows = {l.split()[0]: l.split() for l in open(sys.argv[1])}
mine = [rows[j] for j in sys.argv[2].split()]
# id state health submit end device start: two jobs on different devices
# whose [start, end] intervals overlap
# (a job of a stalled boot ends Incomplete, and its run is tried again)
done = [r for r in mine if r[1] == "Finished" and r[2] == "Complete"]
both = [(a, b) for a in done for b in done if a[5] < b[5] and max(a[6], b[6]) < min(a[4], b[4])]
sys.exit(0 if both and len(done) == int(sys.argv[3]) else 1)
PY
p1=$(pps_of "$b1" "$e1") p2=$(pps_of "$e1" "$e2")
echo "# workers.sh: mean pps, one worker $p1, two workers $p2 (paced at 50 kbit/s, 64 B: 97.7)"
check "the same packet rate with one worker and two (within 2 %)" \
	/usr/bin/python3 -c 'import sys; a, b = map(float, sys.argv[1:]); sys.exit(0 if abs(a - b) <= 0.02 * a else 1)' "$p1" "$p2"

# --- the artifacts went over HTTP ------------------------------------------------
check "no job names a file:// URL" bash -c '! grep -l "file://" "$1"/boots/*/lava-job.yaml' _ "$HILBENCH_STORE"
check "every job deploys its files from the lab's artifact host" \
	[ "$(grep -l 'url: "\?http://198\.18\.1\.1:8080/sha256/' "$HILBENCH_STORE"/boots/*/lava-job.yaml | wc -l)" = \
		"$(ls "$HILBENCH_STORE"/boots/*/lava-job.yaml | wc -l)" ]
check "every job's three files were fetched over HTTP for it (a GET answered 200 each)" \
	/usr/bin/python3 - "$work/artifacts-access.log" "$HILBENCH_STORE" <<'PY'
import collections, glob, re, sys
gets = collections.Counter()
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) > 8 and f[5] == '"GET' and f[8] == "200":
        gets[f[6]] += 1
wanted = collections.Counter()
jobs = glob.glob(sys.argv[2] + "/boots/*/lava-job.yaml")
for job in jobs:
    paths = re.findall(r'url: "?http://198\.18\.1\.1:8080(/sha256/[^"\s]+)', open(job).read())
    wanted.update(paths if len(paths) == 3 else ["(a job without its three URLs)"])
sys.exit(0 if jobs and all(gets[p] >= n for p, n in wanted.items()) else 1)
PY
check "both workers fetched, and nothing else did" \
	[ "$(awk '{ print $1 }' "$work/artifacts-access.log" | sort -u | tr '\n' ' ')" = "198.18.1.11 198.18.1.12 " ]
check "the token is never printed" bash -c '! grep -qF "$1" "$2" "$3"' _ "$token" "$work/one.log" "$work/two.log"

# --- a device going Bad mid-plan ---------------------------------------------------
# When a job of the plan runs on -02, an admin marks -02 Bad: LAVA gives
# the queued jobs to -01, and the plan ends with every run measured.
before=$(sql "select count(*) from runs")
"$HB" --data-dir tests/data run --board "$BOARD" --strategy baseline --workload udp64-tx-paced \
	--repeat 4 --timing realtime >"$work/bad.log" 2>&1 &
hb=$!
bad=0
for _ in $(seq 300); do
	if jobs_in | awk -v d="$DEVICE_TYPE-02" '$2 == "Running" && $6 == d' | grep -q .; then
		manage devices update "$DEVICE_TYPE-02" --health BAD >/dev/null && bad=1
		break
	fi
	sleep 1
done
wait "$hb"
rc=$?
check "device -02 went Bad while it ran a job of the plan" [ "$bad" = 1 ]
check "... the plan still ends with its 4 runs passed, exit 0" [ "$rc $(passed "$before")" = "0 4" ]
check "... and -02 ran no job after that one" [ "$(sql "select count(*) from runs where rowid > $before and
	emulator like '%device $DEVICE_TYPE-02 %'")" -le 1 ]

# --- a job on a device without a peer --------------------------------------------
# A third device of the type, on worker 2, that the board's lava.peers does
# not name; the other two in Maintenance, so the job goes to it.
lab_device_add "$DEVICE_TYPE-03" hb-lab-worker-2
for d in 01 02; do manage devices update "$DEVICE_TYPE-$d" --health MAINTENANCE >/dev/null; done
before=$(sql "select count(*) from runs")
"$HB" --data-dir tests/data run --board "$BOARD" --strategy baseline --workload udp64-tx-paced \
	--timing realtime >"$work/nopeer.log" 2>&1
rc=$?
# -02 and -03 are this test's: other tests of the type see one usable device
manage devices update "$DEVICE_TYPE-03" --health RETIRED >/dev/null
manage devices update "$DEVICE_TYPE-02" --health RETIRED >/dev/null
check "a job on a device without a peer: the plan stops, exit 125" [ "$rc" = 125 ]
check "... saying which device and what to add" \
	grep -q "runs on device $DEVICE_TYPE-03, which has no traffic peer in lava.peers" "$work/nopeer.log"
check "... the run stored as an error, with no number" [ "$(sql "select count(*) || ' ' || group_concat(class) ||
	' ' || (select count(*) from metrics m join runs r on m.run_id = r.id where r.rowid > $before)
	from runs where rowid > $before")" = "1 error 0" ]
read -r j3 <<<"$(jobs_of_runs_after "$before")"
state=
for _ in $(seq 120); do
	state=$(job_state "$j3")
	[[ $state == Finished* ]] && break
	sleep 1
done
check "... its job $j3 canceled on the server" [ "$state" = "Finished Canceled" ]

# --- a server off this machine, and a board without an artifact host ----------
# qemu-orangepi-pc-lava-server names no lava.artifact_url: its jobs' files
# would be file:// paths no remote worker reads. Its dut.host_addr on a
# tap here, so only that is missing.
ip tuntap add dev hbd0 mode tap && ip addr add 198.18.0.1/24 dev hbd0 && ip link set hbd0 up
jobs_before=$(jobs_in | wc -l)
before=$(sql "select count(*) from runs")
HILBENCH_LAVA_URL=http://198.18.1.1:8000/ \
	"$HB" --data-dir tests/data run --board qemu-orangepi-pc-lava-server --strategy baseline \
	--workload udp64-tx-paced --timing realtime >"$work/noart.log" 2>&1
rc=$?
ip link del hbd0
check "a remote server and no lava.artifact_url: the plan stops, exit 125" [ "$rc" = 125 ]
check "... naming the key to set" grep -q "is not on this machine, so its workers need the job's files over HTTP: set lava.artifact_url" "$work/noart.log"
check "... before anything is submitted" [ "$(jobs_in | wc -l)" = "$jobs_before" ]
check "... the run stored as an error, with no number" [ "$(sql "select count(*) || ' ' || group_concat(class)
	from runs where rowid > $before")" = "1 error" ]

s1=$(cat "$work/one.seconds") s2=$(cat "$work/two.seconds")
echo "# workers.sh: $RUNS runs took $s1 s on one worker ($r1 tried again), $s2 s on two" \
	"($r2 tried again): ratio $(/usr/bin/python3 -c "print(round($s1 / $s2, 2))")"
echo "# workers.sh: $pass passed, $fail failed, $((SECONDS - t0)) s in all"
[ "$fail" = 0 ]
