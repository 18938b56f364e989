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
# DUT); no systemd. PostgreSQL's cluster is started inside it for the test
# and stopped after (restarted outside if it was running before). Needs
# root and `make deps`; installs lava-server once if it is missing.
# Asserts behaviour, never speed; the time it took is printed.
set -uo pipefail
cd "$(dirname "$0")/../.."
export HILBENCH_HOME=$PWD
HB=$PWD/build/hilbench
PG=(15 main)
SD=/var/lib/hilbench/lava/nanopi_neo-sd.img	# the device dictionary's default
UBOOT=/usr/local/lib/u-boot/nanopi_neo/u-boot-sunxi-with-spl.bin
DEVICE=hilbench-qemu-orangepi-pc-01
WORKER=hilbench-test-worker
t0=$SECONDS

# PostgreSQL started here outlives the script: it must not keep the
# script's open files, or a lock its caller holds (`flock
# /tmp/hb-heavy.lock make check-lava-server`) stays held as long as the
# database runs (it did, for 11 minutes, on 2026-12-01).
pg_start() {
	(
		for f in /proc/self/fd/*; do
			n=${f##*/}
			((n > 2)) && eval "exec $n>&-" 2>/dev/null
		done
		pg_ctlcluster "${PG[@]}" start
	)
}

if [[ ${HB_IN_NETNS:-} != 1 ]]; then
	[[ $(id -u) == 0 ]] || { echo "server.sh: needs root" >&2; exit 2; }
	pg_was_online=0
	pg_lsclusters -h | awk '$1 == 15 && $2 == "main" && $4 == "online"' | grep . >/dev/null && pg_was_online=1
	if ! dpkg-query -W -f '${Status}' lava-server 2>/dev/null | grep 'install ok installed' >/dev/null; then
		echo "server.sh: installing lava-server (its postinst needs PostgreSQL up)"
		pg_start 2>/dev/null
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q \
			--no-install-recommends lava-server >/dev/null || { echo "server.sh: cannot install lava-server" >&2; exit 2; }
		pg_was_online=1
		echo "# server.sh: lava-server installed in $((SECONDS - t0)) s"
	fi
	# The cluster moves into the test's namespace for the test.
	pg_ctlcluster "${PG[@]}" stop 2>/dev/null
	HB_IN_NETNS=1 unshare --net --fork "$0" "$@"
	rc=$?
	((pg_was_online)) && pg_start
	exit $rc
fi

# --- inside the namespace ------------------------------------------------------
work=$(mktemp -d /var/tmp/hb-lava-server.XXXXXX)
# The publisher and scheduler drop to the lavaserver user: their logs must
# be theirs.
chmod 0755 "$work"
install -o lavaserver -m 0644 /dev/null "$work/publisher.log"
install -o lavaserver -m 0644 /dev/null "$work/scheduler.log"
export HILBENCH_STORE=$work/store
pids=()
cleanup() {
	local p ns
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	pg_ctlcluster "${PG[@]}" stop 2>/dev/null
	# What the worker started (lava-run, QEMU) has its own process group:
	# anything else still in this namespace is ours too.
	ns=$(readlink /proc/$$/ns/net)
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		[[ $p != "$$" && $p != "$PPID" && $(readlink "/proc/$p/ns/net" 2>/dev/null) == "$ns" ]] && kill -9 "$p" 2>/dev/null
	done
	rm -f /etc/lava-server/dispatcher-config/devices/$DEVICE.jinja2
	rm -rf /etc/lava-server/dispatcher.d/$WORKER
	[[ ${KEEP:-} == 1 ]] && echo "server.sh: kept $work" || rm -rf "$work"
}
trap cleanup EXIT
pass=0 fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
not_ok() { echo "not ok - $1"; fail=$((fail + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else not_ok "$what"; fi; }
die() { echo "server.sh: $*" >&2; for f in "$work"/*.log "$work"/*.out; do echo "== $f"; tail -n 20 "$f"; done >&2; exit 1; }
manage() { lava-server manage "$@"; }
wait_port() {	# PORT WHAT
	for _ in $(seq 1200); do
		grep -q ":$(printf '%04X' "$1") 00000000:0000 0A" /proc/net/tcp && return 0
		sleep 0.1
	done
	die "$2 did not listen on port $1"
}

ip link set lo up
ip tuntap add dev hb0 mode tap
ip addr add 198.18.0.1/24 dev hb0
ip link set hb0 up
echo 1 >/proc/sys/net/ipv6/conf/hb0/disable_ipv6
pg_start || die "PostgreSQL did not start"

# LAVA's settings for these processes: events pushed at once (seconds
# instead of a minute per job).
export LAVA_YAML_SETTINGS_EVENT_NOTIFICATION=true
/usr/bin/gunicorn3 lava_server.wsgi --bind 127.0.0.1:8000 --worker-class eventlet --workers 2 \
	--log-file "$work/gunicorn.log" >"$work/gunicorn.out" 2>&1 &
pids+=($!)
lava-server manage lava-publisher --host 127.0.0.1 --port 8001 --log-file "$work/publisher.log" >"$work/publisher.out" 2>&1 &
pids+=($!)
lava-server manage lava-scheduler --log-file "$work/scheduler.log" >"$work/scheduler.out" 2>&1 &
pids+=($!)
wait_port 8000 gunicorn
wait_port 8001 lava-publisher

# A user and token for hilbench, the worker, the device type and device.
user=hilbench-test
manage users add "$user" --superuser --staff >/dev/null 2>&1	# fails when it exists: fine
token=$(head -c 24 /dev/urandom | base64 | tr -dc 'a-zA-Z0-9')
manage tokens add --user "$user" --secret "$token" >/dev/null || die "cannot add a token"
printf '%s\n' "$token" >"$work/token"
manage workers list 2>/dev/null | grep -w "$WORKER" >/dev/null || manage workers add "$WORKER" >/dev/null
wtoken=$(manage shell -c "from lava_scheduler_app.models import Worker; print(Worker.objects.get(hostname='$WORKER').token)" 2>/dev/null | tail -n 1)
[[ -n $wtoken ]] || die "no token for worker $WORKER"
mkdir -p /etc/lava-server/dispatcher.d/$WORKER
printf 'dispatcher_ip: 198.18.0.1\n' >/etc/lava-server/dispatcher.d/$WORKER/dispatcher.yaml
cp lava/device-types/hilbench-qemu-orangepi-pc.jinja2 /etc/lava-server/dispatcher-config/device-types/
manage device-types list 2>/dev/null | grep -w hilbench-qemu-orangepi-pc >/dev/null ||
	manage device-types add hilbench-qemu-orangepi-pc >/dev/null || die "cannot add the device type"
cp "lava/devices/$DEVICE.jinja2" /etc/lava-server/dispatcher-config/devices/
if manage devices list -a 2>/dev/null | grep -w "$DEVICE" >/dev/null; then
	manage devices update "$DEVICE" --worker "$WORKER" --health UNKNOWN >/dev/null
else
	manage devices add "$DEVICE" --device-type hilbench-qemu-orangepi-pc --worker "$WORKER" >/dev/null ||
		die "cannot add the device"
fi
# The SD card the dictionary names: U-Boot at 8 KiB of 64 MiB.
mkdir -p "$(dirname "$SD")"
truncate -s 64M "$SD.tmp" && dd if="$UBOOT" of="$SD.tmp" bs=1k seek=8 conv=notrunc status=none && mv "$SD.tmp" "$SD"
# TFTP for U-Boot, on the host side of the DUT's link.
/usr/sbin/in.tftpd --foreground --listen --address 198.18.0.1:69 --secure /srv/tftp &
pids+=($!)
PATH=/usr/bin:/usr/sbin:$PATH lava-worker --url http://127.0.0.1:8000/ --ws-url http://127.0.0.1:8001/ws/ \
	--name "$WORKER" --token "$wtoken" --ping-interval 1 --worker-dir "$work/worker" \
	--log-file "$work/worker.log" >"$work/worker.out" 2>&1 &
pids+=($!)
for _ in $(seq 300); do
	[[ $(manage workers list 2>/dev/null | grep -w "$WORKER") == *"Online"* || $(grep -c 'PING' "$work/worker.log" 2>/dev/null) -gt 1 ]] && break
	sleep 0.2
done
echo "# server.sh: server, worker and device up in $((SECONDS - t0)) s"

# --- one hilbench run through the REST backend ---------------------------------
t1=$SECONDS
HILBENCH_LAVA_TOKEN_FILE=$work/token HILBENCH_LAVA_URL=http://127.0.0.1:8000/ \
	"$HB" run --board qemu-orangepi-pc-lava-server --strategy baseline --workload udp64-dut-tx \
	--timing realtime 2>&1 | tee "$work/hilbench.log"
rc=${PIPESTATUS[0]}
echo "# server.sh: one UDP run through the server took $((SECONDS - t1)) s"
sql() { sqlite3 "$HILBENCH_STORE/hilbench.db" "$@"; }
check "hilbench run through the lava backend exits 0" [ "$rc" = 0 ]
check "the token is never printed" bash -c '! grep -qF "$1" "$2"' _ "$token" "$work/hilbench.log"
check "one run stored, class pass" [ "$(sql "select count(*) || ' ' || group_concat(class) from runs")" = "1 pass" ]
run=$(sql "select id from runs")
boot=$(sql "select boot_id from runs")
check "the run's measurements are stored" \
	[ "$(sql "select count(*) from metrics where run_id='$run' and name in
		('pps', 'dut_tx_packets', 'netlink_dut_tx_frames', 'hrtimer_start.stmmac_tx_timer')")" = 4 ]
job=$(sed -n 's|.*/scheduler/job/\([0-9]*\)$|\1|p' "$HILBENCH_STORE/boots/$boot/lava-job-id")
health=$(curl -s -H "Authorization: Token $token" "http://127.0.0.1:8000/api/v0.2/jobs/$job/" |
	/usr/bin/python3 -c 'import json, sys; j = json.load(sys.stdin); print(j["state"], j["health"])')
check "the server says job $job is Finished Complete" [ "$health" = "Finished Complete" ]
check "LAVA's results reached the store's boot directory (pps measured on the DUT)" \
	grep -q '"case": "pps".*"result": "pass"' "$HILBENCH_STORE/boots/$boot/lava-results.yaml"
check "the console has the agent's END for the run" \
	grep -q "^HB END id=$run status=ok" "$HILBENCH_STORE/boots/$boot/console.log"

# --- fan-out (docs/lava.md, "Fan-out"): two jobs in flight at once --------------
# One device: the second job waits in LAVA's queue while the first runs,
# and hilbench follows both; each run is stored as its job ends.
api() {	# PATH: the server's JSON, with the test's token
	curl -s -H "Authorization: Token $token" "http://127.0.0.1:8000/api/v0.2/$1"
}
jobs_in() {	# the server's jobs, one "id state health submit_time end_time" line each
	api "jobs/?limit=200&ordering=-id" | /usr/bin/python3 -c '
import json, sys
for j in json.load(sys.stdin)["results"]:
    print(j["id"], j["state"], j["health"], j["submit_time"], j["end_time"])'
}
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
two=$(sql "select boot_id from runs where rowid > $before" | while read -r b; do
	sed -n 's|.*/scheduler/job/\([0-9]*\)$|\1|p' "$HILBENCH_STORE/boots/$b/lava-job-id"; done | sort -n | tr '\n' ' ')
read -r j1 j2 <<<"$two"
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
