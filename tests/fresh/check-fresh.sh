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
#     one run), then `make deps` (the packages make compare left out, as
#     make check's first part) and `make check-unit`;
#  3. asserts the compare session stored a pass run (sqlite3 on the store)
#     and wrote report.html; prints the time of each step.
#
# Before make compare, `deps.sh --download-only --compare` fetches its host
# packages into the root's apt cache (make compare still installs them): with
# HILBENCH_FRESH_LOCK the downloads stay outside the lock.
#
# The root, its mounts, the timed steps and the teardown on every exit path
# are tests/fresh/root.sh's (shared with make check-package): the chroot
# gets what a booted machine has, and a policy-rc.d that refuses service
# starts (tftpd-hpa's postinst). hilbench makes its own network namespaces
# (198.18.0.0/15) in there; the only traffic leaving the host is apt's.
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
#   HILBENCH_FRESH_UNIT=0  skip make deps and make check-unit.
#   HILBENCH_FRESH_LOCK  a lock file the compiling and QEMU steps hold
#                        (flock), for a machine shared with other builds.
#   HILBENCH_FRESH_MIRROR  the Debian mirror (default: the host's, from
#                        /etc/apt/sources.list*).
set -euo pipefail

me=check-fresh
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
head=$(git -C "$repo" rev-parse HEAD)
dir=${HILBENCH_FRESH_DIR:-/var/tmp/hilbench-fresh}
keep=${HILBENCH_FRESH_KEEP:-0}
plan=${HILBENCH_FRESH_PLAN:-tests/data/plans/fresh-smoke.yaml}
unit=${HILBENCH_FRESH_UNIT:-1}
lock=${HILBENCH_FRESH_LOCK:-}
mirror=${HILBENCH_FRESH_MIRROR:-}
root_cwd=/root/hilbench
# shellcheck source=tests/fresh/root.sh
source "$repo/tests/fresh/root.sh"
root_begin
sql() { "${in_root[@]}" "sqlite3 results/hilbench.db \"$1\""; }

log "HEAD $head of $repo"
root_make /root/hilbench

# The README's prerequisite on a fresh machine: make and git.
step prerequisites light "${in_root[@]}" 'apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q make git'

# A clone of the committed HEAD, as a user would have.
step clone light git clone -q "$repo" "$root/root/hilbench"
got=$(git -C "$root/root/hilbench" rev-parse HEAD)
[[ $got == "$head" ]] || die "the clone is at $got, not $repo's HEAD $head (a detached HEAD? commit on a branch)"

step apt-download light "${in_root[@]}" 'bash harness/scripts/deps.sh --download-only --compare'

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
kernel_s=0 kernels=0
for key in $(sql "SELECT DISTINCT build_key FROM runs WHERE session = '$session'"); do
	built=$(sed -n 's/.*"build_seconds":[[:space:]]*\([0-9]*\).*/\1/p' \
		"$root/root/.cache/hilbench/kernels/$key/manifest.json" 2>/dev/null)
	kernel_s=$((kernel_s + ${built:-0})) kernels=$((kernels + 1))
done
run_span=$(sql "SELECT min(started) || '|' || max(ended) FROM runs WHERE session = '$session'")
log "make compare's parts: apt-get install $(secs_between "${apt_span%%|*}" "$(cut -d'|' -f2 <<<"$apt_span")") s," \
	"emulator build $(sed -n 's/.*emulator .* built in \([0-9]*\) s.*/\1/p' "$logs/make-compare.log" | head -n1) s," \
	"$kernels kernel builds $kernel_s s, the runs $(secs_between "${run_span%%|*}" "${run_span#*|}") s"

if [[ $unit != 0 ]]; then
	# make compare installed the emulated board's packages only; make
	# check begins with make deps, which adds the tests' and LAVA's.
	step make-deps light "${in_root[@]}" 'make deps'
	step make-check-unit heavy "${in_root[@]}" 'make check-unit'
fi

summary
log "ok: the README's commands work on a fresh Debian 12 root (HEAD $head)"
