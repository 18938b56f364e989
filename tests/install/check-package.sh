#!/usr/bin/env bash
# tests/install/check-package.sh (make check-package): the Debian package,
# as a lab would install it, on a fresh Debian 12 machine. Run as root.
#
#  1. a clone of this tree's committed HEAD (uncommitted files are not in
#     it) is built into hilbench_<version>_amd64.deb by dpkg-buildpackage
#     (-b, unsigned); lintian checks the package and fails on any error or
#     warning (the overrides in debian/hilbench.lintian-overrides say why
#     each is there);
#  2. a fresh minbase root (tests/fresh/root.sh, as make check-fresh) gets
#     the package with `apt-get install ./hilbench_*.deb`: every dependency
#     from Debian's mirror, Recommends too (man-db) as apt does by default;
#  3. in the root, outside any source tree (there is none in it): `hilbench
#     --version` and `hilbench list boards` say installed and
#     /usr/share/hilbench; `man hilbench-gate` shows the page; then a lab's
#     directory (/srv/lab: a workload and the patch to judge) and
#     `hilbench --data-dir /srv/lab gate --workloads udp64-smoke --patch
#     /srv/lab/comment-only.patch` on the emulated board from cold: the
#     emulator and the kernel are built in the root's ~/.cache/hilbench
#     from the installed files, as a real first install does. The gate must
#     pass (exit 0: a comment changes nothing that runs) with its runs in
#     the default store of an installed hilbench.
# Prints the time of each step. docs/measurements.md has the times.
#
# The root's cache starts empty, on purpose: sharing the host's would hide
# an installed file the emulator or kernel build cannot find. To iterate on
# a fix, HILBENCH_PACKAGE_KEEP=1 reuses the last root, its packages and its
# cache (not a fresh machine, and the package is installed again).
#
# Environment:
#   HILBENCH_PACKAGE_DIR   where the build, the root and its logs live
#                          (default /var/tmp/hilbench-package; outside the
#                          clone). Removed at the start of each run.
#   HILBENCH_PACKAGE_KEEP=1  reuse the root of the last run (above).
#   HILBENCH_FRESH_LOCK    a lock file the package build and the gate hold
#                          (flock), for a machine shared with other builds.
#   HILBENCH_FRESH_MIRROR  the Debian mirror (default: the host's).
set -euo pipefail

me=check-package
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
head=$(git -C "$repo" rev-parse HEAD)
dir=${HILBENCH_PACKAGE_DIR:-/var/tmp/hilbench-package}
keep=${HILBENCH_PACKAGE_KEEP:-0}
lock=${HILBENCH_FRESH_LOCK:-}
mirror=${HILBENCH_FRESH_MIRROR:-}
root_cwd=/root
# shellcheck source=tests/fresh/root.sh
source "$repo/tests/fresh/root.sh"
for tool in dpkg-buildpackage dpkg-checkbuilddeps lintian; do
	command -v "$tool" >/dev/null || die "$tool not found (apt-get install dpkg-dev debhelper lintian)"
done
root_begin
build=$dir/build
log "HEAD $head of $repo"

# --- a fresh root (first: making it empties its directory) -----------------------
# (a kept root loses the last run's lab and package)
root_make /srv/lab /tmp/hilbench-deb

# --- 1. the package, from a clean clone ---------------------------------------------
rm -rf --one-file-system "$build"
mkdir -p "$build"
git clone -q "$repo" "$build/hilbench"
got=$(git -C "$build/hilbench" rev-parse HEAD)
[[ $got == "$head" ]] || die "the clone is at $got, not $repo's HEAD $head"
(cd "$build/hilbench" && dpkg-checkbuilddeps) ||
	die "the host lacks build dependencies (above): apt-get build-dep $repo, or install them"
step package heavy bash -c 'cd "$0" && dpkg-buildpackage -b -us -uc' "$build/hilbench"
deb=$(ls "$build"/hilbench_*_amd64.deb)
changes=$(ls "$build"/hilbench_*_amd64.changes)
log "package $(basename "$deb"), $(stat -c %s "$deb") bytes"
# lintian's verdict is given at the end: the rest still runs, so one run
# shows every problem.
lint_rc=0
# (--show-overrides would count the overridden tags as failures)
lintian --fail-on error,warning --display-info "$changes" >"$logs/lintian.log" 2>&1 || lint_rc=$?
sed 's/^/  lintian | /' "$logs/lintian.log"
log "lintian: exit $lint_rc, $(grep -c '^[EWIPX]: ' "$logs/lintian.log" || true) tags shown;" \
	"$(grep -c '^hilbench:' "$build/hilbench/debian/hilbench.lintian-overrides") overridden" \
	"(debian/hilbench.lintian-overrides says why)"

# --- 2. the package installed in the root, from the mirror ----------------------
mkdir -p "$root/tmp/hilbench-deb"
cp "$deb" "$root/tmp/hilbench-deb/"
step apt-install light "${in_root[@]}" 'apt-get update -q &&
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --reinstall /tmp/hilbench-deb/hilbench_*.deb'

# --- 3. the installed hilbench, outside any source tree ----------------------------
in_root_out() { "${in_root[@]}" "$1" 2>&1; }
[[ ! -e $root/root/hilbench ]] || die "a source tree in the root"
out=$(in_root_out 'hilbench --version')
log "$out"
grep -q "(installed, /usr/share/hilbench)" <<<"$out" || die "hilbench --version does not say installed: $out"
out=$(in_root_out 'hilbench list boards')
grep -qx "# /usr/share/hilbench/boards" <<<"$out" && grep -q "^qemu-orangepi-pc " <<<"$out" ||
	die "hilbench list boards does not list the installed boards: $out"
log "hilbench list boards: $(grep -vc '^#' <<<"$out") boards from /usr/share/hilbench"
out=$(in_root_out 'MANPAGER=cat man hilbench-gate')
grep -q "hilbench-gate - does a patch make things worse" <<<"$out" ||
	die "man hilbench-gate in the root: $out"
log "man hilbench-gate: $(wc -l <<<"$out") lines"

# The lab's own directory: the workload of this check and the patch to judge.
mkdir -p "$root/srv/lab/workloads"
cp "$repo/tests/data/workloads/udp64-smoke.yaml" "$root/srv/lab/workloads/"
cp "$repo/tests/data/patches/comment-only.patch" "$root/srv/lab/"
step gate heavy "${in_root[@]}" 'hilbench --data-dir /srv/lab gate --workloads udp64-smoke \
	--patch /srv/lab/comment-only.patch --junit /root/gate.xml'
grep -q 'failures="0"' "$root/root/gate.xml" || die "the gate's JUnit file reports failures: $root/root/gate.xml"
store=$root/root/.local/share/hilbench/results
[[ -f $store/hilbench.db ]] || die "no store at $store"
log "gate: $(grep -ci 'pass' "$logs/gate.log") lines say pass; store $store"

# Where the gate's time went, from each part's own record.
em=$(sed -n 's/.*emulator .* built in \([0-9]*\) s.*/\1/p' "$logs/gate.log" | head -n1)
kernel=$(for m in "$root"/root/.cache/hilbench/kernels/*/manifest.json; do
	sed -n 's/.*"build_seconds":[[:space:]]*\([0-9]*\).*/\1/p' "$m"; done | tr '\n' ' ')
log "gate's parts: emulator build ${em:-?} s, kernel builds ${kernel:-?}s"

summary
((lint_rc == 0)) || die "lintian found errors or warnings (above; $logs/lintian.log)"
log "ok: the package builds, is lintian clean, installs on a fresh Debian 12 root and gates the emulated board there (HEAD $head)"
