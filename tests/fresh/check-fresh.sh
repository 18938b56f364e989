#!/usr/bin/env bash
# tests/fresh/check-fresh.sh (make check-fresh): the README's commands on a
# fresh Debian 12 machine, so an install step this machine happens to have
# done by hand cannot hide. Run as root, before resolving any issue that
# touches install steps; about 12 minutes on 2 cores (docs/measurements.md).
#
#  1. debootstrap a minimal (minbase) Debian 12 root from the mirror the
#     host's apt uses, and give it the host's apt sources;
#  2. in the root, as root in a chroot: the README's prerequisite
#     (apt-get install make git), a `git clone` of this tree's committed
#     HEAD (uncommitted files are not in it), then the README's commands as
#     written, one make invocation each: `make compare` on a short plan
#     (PLAN=, default tests/data/plans/fresh-smoke.yaml: builds the
#     baseline kernel and the emulator, boots the emulated board, stores
#     one run) and `make check-unit`;
#  3. asserts the compare session stored a pass run (sqlite3 on the store)
#     and wrote report.html; prints the time of each step.
#
# Before make compare, `deps.sh --download-only` fetches the host packages
# into the root's apt cache (make compare still installs them): with
# HILBENCH_FRESH_LOCK the downloads stay outside the lock.
#
# The chroot gets what a booted machine has: /proc, /sys, /dev and /dev/pts
# (so /dev/net/tun for QEMU's tap), resolv.conf (apt reaches the mirror),
# and a policy-rc.d that refuses service starts (tftpd-hpa's postinst).
# hilbench makes its own network namespaces (198.18.0.0/15) in there; the
# only traffic leaving the host is apt's. Every exit path (failure, Ctrl-C,
# TERM) kills the processes left in the root (QEMU) and unmounts it all.
#
# Environment:
#   HILBENCH_FRESH_DIR   where the root and its caches live
#                        (default /var/tmp/hilbench-fresh; outside the clone).
#                        Removed at the start of each run; kept afterwards
#                        to look at (logs in DIR/logs).
#   HILBENCH_FRESH_KEEP=1  reuse DIR's root from the last run (skip
#                        debootstrap, keep the installed packages and
#                        ~/.cache/hilbench; the clone is made anew). Not a
#                        fresh machine: for iterating on a fix only.
#   HILBENCH_FRESH_PLAN  the plan make compare runs (PLAN=); default above.
#   HILBENCH_FRESH_UNIT=0  skip make check-unit.
#   HILBENCH_FRESH_LOCK  a lock file the compiling and QEMU steps hold
#                        (flock), for a machine shared with other builds.
#   HILBENCH_FRESH_MIRROR  the Debian mirror (default: the host's, from
#                        /etc/apt/sources.list*).
set -euo pipefail

die() { printf 'check-fresh: error: %s\n' "$*" >&2; exit 1; }
log() { printf 'check-fresh: %s\n' "$*"; }

[[ $EUID == 0 ]] || die "run as root (debootstrap, chroot and mounts need it)"
for tool in debootstrap chroot git mount umount findmnt flock; do
	command -v "$tool" >/dev/null || die "$tool not found (apt-get install debootstrap util-linux git)"
done
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
head=$(git -C "$repo" rev-parse HEAD)
dir=${HILBENCH_FRESH_DIR:-/var/tmp/hilbench-fresh}
[[ $dir == /* ]] || die "HILBENCH_FRESH_DIR must be an absolute path (got '$dir')"
dir=$(realpath -m "$dir")
case $dir/ in "$repo"/*) die "HILBENCH_FRESH_DIR ($dir) is inside the clone $repo" ;; esac
[[ $dir != / && $dir != /var/tmp && $dir != /tmp ]] || die "HILBENCH_FRESH_DIR=$dir: choose a directory of its own"
keep=${HILBENCH_FRESH_KEEP:-0}
plan=${HILBENCH_FRESH_PLAN:-tests/data/plans/fresh-smoke.yaml}
unit=${HILBENCH_FRESH_UNIT:-1}
lock=${HILBENCH_FRESH_LOCK:-}
root=$dir/root
logs=$dir/logs
suite=bookworm

# The host's Debian mirror: the URIs of the deb822 stanza or one-line entry
# carrying the suite itself (not -updates or -security).
host_mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[[ -f $f ]] || continue
		awk -v s="$suite" 'BEGIN { RS = ""; FS = "\n" }
			{
				u = ""; deb = 0; ok = 0
				for (i = 1; i <= NF; i++) {
					n = split($i, w, /[ \t]+/)
					for (j = 2; j <= n; j++) {
						if (w[1] == "Types:" && w[j] == "deb") deb = 1
						if (w[1] == "Suites:" && w[j] == s) ok = 1
					}
					if (w[1] == "URIs:") u = w[2]
				}
				if (deb && ok && u != "") { print u; exit }
			}' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[[ -f $f ]] || continue
		sed -E 's/\[[^]]*\]//' "$f" | awk -v s="$suite" '$1 == "deb" && $3 == s { print $2; exit }'
	done
}
mirror=${HILBENCH_FRESH_MIRROR:-$(host_mirror | head -n1)}
[[ $mirror ]] || die "no deb entry for $suite in /etc/apt/sources.list*: set HILBENCH_FRESH_MIRROR"

# --- teardown, on every exit path ---------------------------------------------
mounts_below() { # mount points at or below $1, deepest first
	awk -v r="$1" '$5 == r || index($5, r "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r
}
procs_in_root() { # processes whose root directory is the chroot
	local p
	for p in /proc/[0-9]*; do
		[[ $(readlink "$p/root" 2>/dev/null) == "$root" ]] && echo "${p#/proc/}"
	done
	return 0
}
child=''
teardown() {
	local rc=$? pids m i
	set +e
	trap '' INT TERM
	[[ $child ]] && kill -TERM "$child" 2>/dev/null
	pids=$(procs_in_root)
	if [[ $pids ]]; then
		log "stopping what runs in the root: $(tr "\n" " " <<<"$pids")"
		kill -TERM $pids 2>/dev/null || true
		for i in $(seq 20); do
			pids=$(procs_in_root)
			[[ $pids ]] || break
			sleep 0.5
		done
		[[ -z $pids ]] || kill -KILL $pids 2>/dev/null || true
	fi
	[[ $child ]] && wait "$child" 2>/dev/null
	for m in $(mounts_below "$root"); do
		umount "$m" 2>/dev/null || umount -l "$m" || log "cannot unmount $m"
	done
	m=$(mounts_below "$root")
	[[ -z $m ]] || { log "still mounted: $m"; rc=1; }
	pids=$(procs_in_root)
	[[ -z $pids ]] || { log "still running in the root: $pids"; rc=1; }
	exit "$rc"
}
trap teardown EXIT
trap 'log interrupted; exit 130' INT
trap 'log terminated; exit 143' TERM

# --- the steps, timed -----------------------------------------------------------
names=() times=() waits=()
# step NAME light|heavy CMD...: output in $logs/NAME.log. A heavy step
# (compiling, QEMU) holds HILBENCH_FRESH_LOCK; its time starts when it has
# the lock. It runs in the background so a signal reaches the traps at once.
step() {
	local name=$1 kind=$2 t0=$SECONDS stamp=$logs/$1.started
	shift 2
	log "$name (log $logs/$name.log)"
	local pre=()
	if [[ $kind == heavy && $lock ]]; then pre=(flock "$lock"); fi
	"${pre[@]}" bash -c 'date +%s >"$0"; exec "$@"' "$stamp" "$@" </dev/null >"$logs/$name.log" 2>&1 &
	child=$!
	local rc=0
	wait "$child" || rc=$?
	child=''
	local started t1=$SECONDS now
	now=$(date +%s)
	started=$(cat "$stamp" 2>/dev/null || echo "$now")
	names+=("$name") times+=($((now - started))) waits+=($((t1 - t0 - (now - started))))
	if ((rc)); then
		tail -n 40 "$logs/$name.log" | sed 's/^/  | /'
		log "$name failed (exit $rc) after $((now - started)) s; full log $logs/$name.log"
		summary
		exit 1
	fi
	log "$name: $((now - started)) s"
}
summary() {
	local i total=0
	echo "check-fresh: times (s; wait = for HILBENCH_FRESH_LOCK)"
	for i in "${!names[@]}"; do
		printf '  %-28s %6d s' "${names[i]}" "${times[i]}"
		((waits[i] > 0)) && printf '   (waited %d s for the lock)' "${waits[i]}"
		echo
		total=$((total + times[i]))
	done
	printf '  %-28s %6d s\n' total "$total"
}
# "${in_root[@]}" CMD: CMD in bash in the chroot, in the clone once it
# exists, with a login's environment and nothing of ours (no HILBENCH_*,
# no MAKEFLAGS).
in_root=(env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/bash LANG=C.UTF-8 TERM=dumb
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	chroot "$root" /bin/bash -euo pipefail -c
	'if [ -d /root/hilbench ]; then cd /root/hilbench; else cd /root; fi; eval "$1"' in-root)
sql() { "${in_root[@]}" "sqlite3 results/hilbench.db \"$1\""; }

# --- the root ---------------------------------------------------------------------
[[ -z $(mounts_below "$dir") ]] || {
	log "unmounting what a killed run left under $dir"
	for m in $(mounts_below "$dir"); do umount "$m" 2>/dev/null || umount -l "$m"; done
	[[ -z $(mounts_below "$dir") ]] || die "still mounted below $dir: $(mounts_below "$dir")"
}
reuse=0
if [[ $keep == 1 && -f $dir/debootstrap.done ]]; then
	reuse=1
	log "HILBENCH_FRESH_KEEP=1: reusing the root in $root (not a fresh machine)"
	rm -rf --one-file-system "$logs" "$root/root/hilbench"
else
	rm -rf --one-file-system "$dir"
fi
mkdir -p "$logs" "$dir/debootstrap-cache"
log "HEAD $head of $repo; root $root; mirror $mirror"

if ((!reuse)); then
	step debootstrap light debootstrap --variant=minbase --cache-dir="$dir/debootstrap-cache" \
		"$suite" "$root" "$mirror"
	touch "$dir/debootstrap.done"
fi

# The host's apt sources (the mirror, bookworm-updates, -security), not
# debootstrap's one-line sources.list; what a booted machine has besides.
rm -f "$root/etc/apt/sources.list"
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
	[[ -f $f ]] && cp "$f" "$root$f"
done
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
printf '#!/bin/sh\n# check-fresh: a chroot starts no services\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 0755 "$root/usr/sbin/policy-rc.d"
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
[[ -c $root/dev/net/tun ]] || die "no /dev/net/tun in the root: QEMU's tap needs the tun module (modprobe tun)"

# The README's prerequisite on a fresh machine: make and git.
step prerequisites light "${in_root[@]}" 'apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q make git'

# A clone of the committed HEAD, as a user would have.
step clone light git clone -q "$repo" "$root/root/hilbench"
got=$(git -C "$root/root/hilbench" rev-parse HEAD)
[[ $got == "$head" ]] || die "the clone is at $got, not $repo's HEAD $head (a detached HEAD? commit on a branch)"

step apt-download light "${in_root[@]}" 'bash harness/scripts/deps.sh --download-only'

# --- the README's commands, as written -------------------------------------------------
step make-compare heavy "${in_root[@]}" "make compare PLAN=$plan"
session=$(sed -n 's/^hilbench compare: session \([^ ]*\) .*/\1/p' "$logs/make-compare.log" | tail -n1)
[[ $session ]] || die "make compare printed no session line; see $logs/make-compare.log"
pass=$(sql "SELECT count(*) FROM runs WHERE session = '$session' AND class = 'pass'")
all=$(sql "SELECT count(*) FROM runs WHERE session = '$session'")
((pass >= 1)) || die "session $session stored $all runs, none of class pass: $(sql "SELECT class, reason FROM runs WHERE session = '$session'")"
report=$root/root/hilbench/results/report.html
[[ -s $report ]] && grep -q '<svg' "$report" || die "no report with plots at $report"
log "session $session: $pass of $all runs pass; report $(stat -c %s "$report") bytes"

# Where make compare's time went, from each part's own record: apt's
# history in the root, the emulator's and the kernel's build seconds, the
# stored run's start and end.
secs_between() { echo $(($(date -d "$2" +%s) - $(date -d "$1" +%s))); }
apt_span=$(awk 'BEGIN { RS = "" } /Commandline: apt-get install .*--no-install-recommends/ &&
	!/--download-only/ { s = $0 } END { print s }' "$root/var/log/apt/history.log" |
	sed -n 's/^\(Start\|End\)-Date: *//p' | tr '\n' '|')
key=$(sql "SELECT build_key FROM runs WHERE session = '$session' LIMIT 1")
kernel_s=$(sed -n 's/.*"build_seconds":[[:space:]]*\([0-9]*\).*/\1/p' \
	"$root/root/.cache/hilbench/kernels/$key/manifest.json" 2>/dev/null)
run_span=$(sql "SELECT min(started) || '|' || max(ended) FROM runs WHERE session = '$session'")
log "make compare's parts: apt-get install $(secs_between "${apt_span%%|*}" "$(cut -d'|' -f2 <<<"$apt_span")") s," \
	"emulator build $(sed -n 's/.*emulator .* built in \([0-9]*\) s.*/\1/p' "$logs/make-compare.log" | head -n1) s," \
	"kernel build ${kernel_s:-?} s, the run $(secs_between "${run_span%%|*}" "${run_span#*|}") s"

if [[ $unit != 0 ]]; then
	step make-check-unit heavy "${in_root[@]}" 'make check-unit'
fi

summary
log "ok: the README's commands work on a fresh Debian 12 root (HEAD $head)"
