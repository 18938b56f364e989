# tests/lava/lab.sh: a LAVA lab on this machine for the tests that need a
# real server (server.sh: one worker; workers.sh: two). Sourced, not run.
# Debian's lava-server 2023.01 with PostgreSQL, gunicorn, the scheduler and
# the publisher, started by hand (no systemd) inside a private network
# namespace the caller creates with lab_enter; workers, device type and
# devices added with lava-server's own manage commands.
#
# The caller sets, before sourcing: DEVICE_TYPE. It gets: $work (a
# temporary directory, removed at exit unless KEEP=1), $token (a
# superuser's API token, also in $work/token), pids+=() for what it
# starts, ok/not_ok/check/die, api, jobs_in, job_state, job_of_boot,
# jobs_of_runs_after, sql.
PG=(15 main)
SD=/var/lib/hilbench/lava/nanopi_neo-sd.img	# the device dictionary's default
UBOOT=/usr/local/lib/u-boot/nanopi_neo/u-boot-sunxi-with-spl.bin
DICT=lava/devices/hilbench-qemu-orangepi-pc-01.jinja2	# every emulated device's
lab_devices=() lab_workers=() lab_netns=() work=''

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

# lab_enter SCRIPT ARGS...: outside the namespace (the first time through),
# installs lava-server if it is missing, moves PostgreSQL's cluster into a
# new network namespace (and mount namespace, for `ip netns add`), runs
# SCRIPT there again and exits with its status, restarting the cluster
# outside if it ran before. Inside (HB_IN_NETNS=1) it returns at once.
lab_enter() {
	[[ ${HB_IN_NETNS:-} == 1 ]] && return 0
	local me=${1##*/}
	[[ $(id -u) == 0 ]] || { echo "$me: needs root" >&2; exit 2; }
	local pg_was_online=0
	pg_lsclusters -h | awk '$1 == 15 && $2 == "main" && $4 == "online"' | grep . >/dev/null && pg_was_online=1
	if ! dpkg-query -W -f '${Status}' lava-server 2>/dev/null | grep 'install ok installed' >/dev/null; then
		echo "$me: installing lava-server (its postinst needs PostgreSQL up)"
		pg_start 2>/dev/null
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q \
			--no-install-recommends lava-server >/dev/null || { echo "$me: cannot install lava-server" >&2; exit 2; }
		pg_was_online=1
		echo "# $me: lava-server installed in $((SECONDS - t0)) s"
	fi
	pg_ctlcluster "${PG[@]}" stop 2>/dev/null
	HB_IN_NETNS=1 unshare --net --mount --propagation private --fork bash "$@"
	local rc=$?
	((pg_was_online)) && pg_start
	exit $rc
}

lab_cleanup() {
	local p ns n
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	pg_ctlcluster "${PG[@]}" stop 2>/dev/null
	# What the workers started (lava-run, QEMU) has its own process
	# group: anything else still in the lab's namespaces is ours too.
	ns=" $(readlink /proc/$$/ns/net) "
	for n in "${lab_netns[@]}"; do ns+="$(ip netns exec "$n" readlink /proc/self/ns/net) "; done
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		[[ $p != "$$" && $p != "$PPID" && $ns == *" $(readlink "/proc/$p/ns/net" 2>/dev/null) "* ]] &&
			kill -9 "$p" 2>/dev/null
	done
	for n in "${lab_netns[@]}"; do ip netns del "$n" 2>/dev/null; done
	for n in "${lab_devices[@]}"; do rm -f "/etc/lava-server/dispatcher-config/devices/$n.jinja2"; done
	for n in "${lab_workers[@]}"; do rm -rf "/etc/lava-server/dispatcher.d/$n"; done
	[[ ${KEEP:-} == 1 ]] && echo "lab: kept $work" || rm -rf "$work"
}

pass=0 fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
not_ok() { echo "not ok - $1"; fail=$((fail + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else not_ok "$what"; fi; }
die() { echo "lab: $*" >&2; for f in "$work"/*.log "$work"/*.out; do echo "== $f"; tail -n 20 "$f"; done >&2; exit 1; }
manage() { lava-server manage "$@"; }
sql() { sqlite3 "$HILBENCH_STORE/hilbench.db" "$@"; }
wait_port() {	# PORT WHAT
	for _ in $(seq 1200); do
		grep -q ":$(printf '%04X' "$1") 00000000:0000 0A" /proc/net/tcp && return 0
		sleep 0.1
	done
	die "$2 did not listen on port $1"
}

# lab_server_up IP: the server on IP:8000 (REST) and IP:8001 (events), a
# superuser's token in $token, the device type installed. IP is on an
# interface of this namespace already.
lab_server_up() {
	lab_server=$1
	work=$(mktemp -d /var/tmp/hb-lava-lab.XXXXXX)
	# The publisher and scheduler drop to the lavaserver user: their logs
	# must be theirs.
	chmod 0755 "$work"
	install -o lavaserver -m 0644 /dev/null "$work/publisher.log"
	install -o lavaserver -m 0644 /dev/null "$work/scheduler.log"
	export HILBENCH_STORE=$work/store
	pg_start || die "PostgreSQL did not start"
	# Events pushed at once (seconds instead of a minute per job); the
	# server answers requests for IP too, not only for loopback (its
	# settings add $ALLOWED_HOSTS to Django's).
	export LAVA_YAML_SETTINGS_EVENT_NOTIFICATION=true
	export ALLOWED_HOSTS=$lab_server
	/usr/bin/gunicorn3 lava_server.wsgi --bind "$lab_server:8000" --worker-class eventlet --workers 2 \
		--log-file "$work/gunicorn.log" >"$work/gunicorn.out" 2>&1 &
	pids+=($!)
	lava-server manage lava-publisher --host "$lab_server" --port 8001 --log-file "$work/publisher.log" \
		>"$work/publisher.out" 2>&1 &
	pids+=($!)
	lava-server manage lava-scheduler --log-file "$work/scheduler.log" >"$work/scheduler.out" 2>&1 &
	pids+=($!)
	wait_port 8000 gunicorn
	wait_port 8001 lava-publisher
	local user=hilbench-test
	manage users add "$user" --superuser --staff >/dev/null 2>&1	# fails when it exists: fine
	token=$(head -c 24 /dev/urandom | base64 | tr -dc 'a-zA-Z0-9')
	manage tokens add --user "$user" --secret "$token" >/dev/null || die "cannot add a token"
	printf '%s\n' "$token" >"$work/token"
	# A job an earlier, killed test left Running would hold its device
	# for ever: no worker of this test knows it.
	local id
	for id in $(manage shell -c "from lava_scheduler_app.models import TestJob as J
print(' '.join(str(j.id) for j in J.objects.exclude(state=J.STATE_FINISHED)))" 2>/dev/null | tail -n 1); do
		manage jobs fail "$id" >/dev/null
	done
	cp "lava/device-types/$DEVICE_TYPE.jinja2" /etc/lava-server/dispatcher-config/device-types/
	manage device-types list 2>/dev/null | grep -w "$DEVICE_TYPE" >/dev/null ||
		manage device-types add "$DEVICE_TYPE" >/dev/null || die "cannot add the device type"
	# The SD card the dictionary names: U-Boot at 8 KiB of 64 MiB. QEMU
	# opens it with snapshot=on, so every device may share it.
	mkdir -p "$(dirname "$SD")"
	truncate -s 64M "$SD.tmp" && dd if="$UBOOT" of="$SD.tmp" bs=1k seek=8 conv=notrunc status=none &&
		mv "$SD.tmp" "$SD"
}

# lab_worker_add NAME TFTP_IP: the worker on the server, its token in
# $wtoken; U-Boot fetches the job's files from TFTP_IP (its dispatcher_ip).
lab_worker_add() {
	lab_workers+=("$1")
	manage workers list 2>/dev/null | grep -w "$1" >/dev/null || manage workers add "$1" >/dev/null
	wtoken=$(manage shell -c "from lava_scheduler_app.models import Worker; print(Worker.objects.get(hostname='$1').token)" 2>/dev/null | tail -n 1)
	[[ -n $wtoken ]] || die "no token for worker $1"
	mkdir -p "/etc/lava-server/dispatcher.d/$1"
	printf 'dispatcher_ip: %s\n' "$2" >"/etc/lava-server/dispatcher.d/$1/dispatcher.yaml"
}

# lab_device_add HOSTNAME WORKER: an emulated device of $DEVICE_TYPE on
# WORKER, with the shipped dictionary.
lab_device_add() {
	lab_devices+=("$1")
	cp "$DICT" "/etc/lava-server/dispatcher-config/devices/$1.jinja2"
	if manage devices list -a 2>/dev/null | grep -w "$1" >/dev/null; then
		manage devices update "$1" --worker "$2" --health UNKNOWN >/dev/null
	else
		manage devices add "$1" --device-type "$DEVICE_TYPE" --worker "$2" >/dev/null ||
			die "cannot add the device $1"
	fi
}

# lab_worker_start NAME TFTP_IP [NETNS]: TFTP on TFTP_IP and the worker
# NAME (its token in $wtoken), in NETNS when given; waits until it pings.
lab_worker_start() {
	local name=$1 in=()
	[[ -n ${3:-} ]] && in=(ip netns exec "$3")
	"${in[@]}" /usr/sbin/in.tftpd --foreground --listen --address "$2:69" --secure /srv/tftp &
	pids+=($!)
	PATH=/usr/bin:/usr/sbin:$PATH "${in[@]}" lava-worker --url "http://$lab_server:8000/" \
		--ws-url "http://$lab_server:8001/ws/" --name "$name" --token "$wtoken" --ping-interval 1 \
		--worker-dir "$work/worker-$name" --log-file "$work/worker-$name.log" >"$work/worker-$name.out" 2>&1 &
	pids+=($!)
	for _ in $(seq 300); do
		[[ $(grep -c 'PING' "$work/worker-$name.log" 2>/dev/null) -gt 1 ]] && return 0
		sleep 0.2
	done
	die "worker $name did not reach the server"
}

api() {	# PATH: the server's JSON, with the test's token
	curl -s -H "Authorization: Token $token" "http://$lab_server:8000/api/v0.2/$1"
}
jobs_in() {	# the server's jobs, one "id state health submit_time end_time device start_time" line each
	api "jobs/?limit=200&ordering=-id" | /usr/bin/python3 -c '
import json, sys
for j in json.load(sys.stdin)["results"]:
    print(j["id"], j["state"], j["health"], j["submit_time"], j["end_time"], j["actual_device"],
          j["start_time"])'
}
job_state() {	# ID: "state health" of the server's job ID
	api "jobs/$1/" | /usr/bin/python3 -c 'import json, sys; j = json.load(sys.stdin); print(j["state"], j["health"])'
}
job_of_boot() {	# BOOT: the LAVA job id of a boot in the store
	sed -n 's|.*/scheduler/job/\([0-9]*\)$|\1|p' "$HILBENCH_STORE/boots/$1/lava-job-id"
}
# The LAVA job ids of the runs stored after rowid $1, in order.
jobs_of_runs_after() {
	sql "select boot_id from runs where rowid > $1" | while read -r b; do
		job_of_boot "$b"
	done | sort -n | tr '\n' ' '
}
