# tests/fresh/root.sh, sourced by check-fresh.sh and
# tests/install/check-package.sh: a fresh Debian 12 root to run in.
#
#  - root_begin: checks the tools, sets the teardown traps;
#  - root_make [PATH...]: debootstraps a minimal (minbase) root from the
#    mirror the host's apt uses (or reuses the last one with KEEP=1, after
#    removing PATH... of it), gives it the host's apt sources, resolv.conf,
#    a policy-rc.d that refuses service starts, and mounts /proc, /sys, /dev
#    and /dev/pts (so /dev/net/tun for QEMU's tap);
#  - step NAME light|heavy CMD...: one timed step, its output in
#    $logs/NAME.log; a heavy step (compiling, QEMU) holds $lock (flock);
#  - "${in_root[@]}" 'COMMANDS': bash in the chroot, in $root_cwd when it
#    exists (else /root), with a login's environment and nothing of ours
#    (no HILBENCH_*, no MAKEFLAGS);
#  - summary: every step's time and its wait for the lock.
# Every exit path (failure, Ctrl-C, TERM) kills the processes left in the
# root (QEMU) and unmounts it all.
#
# The caller sets, before root_begin: me (the name in log lines), dir (the
# root's directory, absolute; the root is $dir/root, logs $dir/logs), keep
# (1: reuse the root), lock (a lock file, or empty), mirror (empty: the
# host's), root_cwd, and repo (the clone, which dir must be outside).
# shellcheck shell=bash

die() { printf '%s: error: %s\n' "$me" "$*" >&2; exit 1; }
log() { printf '%s: %s\n' "$me" "$*"; }
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

root_begin() {
	[[ $EUID == 0 ]] || die "run as root (debootstrap, chroot and mounts need it)"
	local tool
	for tool in debootstrap chroot git mount umount findmnt flock; do
		command -v "$tool" >/dev/null || die "$tool not found (apt-get install debootstrap util-linux git)"
	done
	[[ $dir == /* ]] || die "the root's directory must be an absolute path (got '$dir')"
	dir=$(realpath -m "$dir")
	case $dir/ in "$repo"/*) die "the root's directory ($dir) is inside the clone $repo" ;; esac
	[[ $dir != / && $dir != /var/tmp && $dir != /tmp ]] || die "$dir: choose a directory of its own"
	root=$dir/root
	logs=$dir/logs
	mirror=${mirror:-$(host_mirror | head -n1)}
	[[ $mirror ]] || die "no deb entry for $suite in /etc/apt/sources.list*: set the mirror"
	in_root=(env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/bash LANG=C.UTF-8 TERM=dumb
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
		chroot "$root" /bin/bash -euo pipefail -c
		'if [ -d "$1" ]; then cd "$1"; else cd /root; fi; eval "$2"' in-root "$root_cwd")
	trap teardown EXIT
	trap 'log interrupted; exit 130' INT
	trap 'log terminated; exit 143' TERM
}

# --- the steps, timed -----------------------------------------------------------
names=() times=() waits=()
# It runs in the background so a signal reaches the traps at once; a heavy
# step's time starts when it has the lock.
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
	echo "$me: times (s; wait = for the lock)"
	for i in "${!names[@]}"; do
		printf '  %-28s %6d s' "${names[i]}" "${times[i]}"
		((waits[i] > 0)) && printf '   (waited %d s for the lock)' "${waits[i]}"
		echo
		total=$((total + times[i]))
	done
	printf '  %-28s %6d s\n' total "$total"
}

# --- the root ---------------------------------------------------------------------
reuse=0
root_make() {
	local m f
	[[ -z $(mounts_below "$dir") ]] || {
		log "unmounting what a killed run left under $dir"
		for m in $(mounts_below "$dir"); do umount "$m" 2>/dev/null || umount -l "$m"; done
		[[ -z $(mounts_below "$dir") ]] || die "still mounted below $dir: $(mounts_below "$dir")"
	}
	if [[ $keep == 1 && -f $dir/debootstrap.done ]]; then
		reuse=1
		log "keep=1: reusing the root in $root (not a fresh machine)"
		rm -rf --one-file-system "$logs"
		for f in "$@"; do rm -rf --one-file-system "$root$f"; done
	else
		rm -rf --one-file-system "$dir"
	fi
	mkdir -p "$logs" "$dir/debootstrap-cache"
	log "root $root; mirror $mirror"

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
	printf '#!/bin/sh\n# %s: a chroot starts no services\nexit 101\n' "$me" >"$root/usr/sbin/policy-rc.d"
	chmod 0755 "$root/usr/sbin/policy-rc.d"
	mount -t proc proc "$root/proc"
	mount -t sysfs sysfs "$root/sys"
	mount --bind /dev "$root/dev"
	mount --bind /dev/pts "$root/dev/pts"
	[[ -c $root/dev/net/tun ]] || die "no /dev/net/tun in the root: QEMU's tap needs the tun module (modprobe tun)"
}
