#!/usr/bin/env bash
# hilbench bisect finds a planted regressing commit in a small local kernel
# git history, on the emulated board. The history is made here: Debian's
# linux-source tree (the one hilbench extracts to its cache) as the root
# commit, then three stmmac commits of which the middle one adds per-packet
# work to stmmac_xmit (tests/data/patches/per-packet-work.patch); the other
# two only change comments. Asserts behaviour, never speed.
set -uo pipefail
cd "$(dirname "$0")/../.."
HB=$PWD/build/hilbench
CACHE=${HILBENCH_CACHE:-$HOME/.cache/hilbench}
export HILBENCH_STORE
HILBENCH_STORE=$(mktemp -d /tmp/hb-bisect-store.XXXXXX)
WORK=$(mktemp -d /tmp/hb-bisect-git.XXXXXX)
trap 'rm -rf "$WORK" "$HILBENCH_STORE"' EXIT
pass=0 fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
not_ok() { echo "not ok - $1"; fail=$((fail + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else not_ok "$what"; fi; }

# The Debian tree: a cached baseline build guarantees it is extracted.
$HB build --board qemu-orangepi-pc --strategy baseline >/dev/null ||
	{ echo "Bail out! cannot build the baseline kernel"; exit 1; }
SRC=$(ls -d "$CACHE"/src/*/linux-source-6.1 | tail -n 1)
REPO=$WORK/linux
git init -q "$REPO"
g() { git -C "$REPO" -c gc.auto=0 -c user.name="hilbench test" -c user.email=test@hilbench.invalid "$@"; }
# The pristine tree is read, never written: it is the work tree of one add.
git --git-dir="$REPO/.git" --work-tree="$SRC" -c core.looseCompression=1 add -A -f ||
	{ echo "Bail out! git add of $SRC failed"; exit 1; }
g commit -q -m "Debian linux-source-6.1 $(basename "$(dirname "$SRC")")"
BASE=$(g rev-parse HEAD)

# One commit changing stmmac_main.c, made with a private index (no checkout).
F=drivers/net/ethernet/stmicro/stmmac/stmmac_main.c
commit_main() {
	local msg=$1 file=$2 blob tree c
	blob=$(g hash-object -w "$file")
	GIT_INDEX_FILE=$WORK/index g read-tree HEAD
	GIT_INDEX_FILE=$WORK/index g update-index --cacheinfo "100644,$blob,$F"
	tree=$(GIT_INDEX_FILE=$WORK/index g write-tree)
	c=$(g commit-tree "$tree" -p HEAD -m "$msg")
	g update-ref HEAD "$c"
}
cp "$SRC/$F" "$WORK/main.c"
sed -i '0,/^#include/s//\/* stmmac: TX completion is coalesced (see stmmac_tx_timer_arm) *\/\n#include/' "$WORK/main.c"
commit_main "stmmac: say where TX completion is coalesced" "$WORK/main.c"
C1=$(g rev-parse HEAD)
patch -s "$WORK/main.c" <tests/data/patches/per-packet-work.patch ||
	{ echo "Bail out! per-packet-work.patch does not apply"; exit 1; }
commit_main "stmmac: per-packet work in stmmac_xmit" "$WORK/main.c"
C2=$(g rev-parse HEAD)
printf '\n/* end of stmmac_main.c */\n' >>"$WORK/main.c"
commit_main "stmmac: mark the end of the file" "$WORK/main.c"
C3=$(g rev-parse HEAD)
HEAD_BEFORE=$(g rev-parse HEAD)
# where a lab's tree would be fetched from, with the credentials its remote
# may carry: KCIDB gets the URL without them, and nothing stores them
g remote add origin "https://lab:s3cret@git.example.org/lab/linux.git"

out=$($HB bisect --good "$BASE" --bad "$C3" --kernel-git "$REPO" 2>&1); rc=$?
if [ $rc = 0 ]; then
	echo "$out" | grep -E "^(good|culprit|  pps|  where)|bisect:|good [0-9a-f]{12}: " | sed 's/^/# /'
else
	echo "$out" | sed 's/^/# /'
fi
check "bisect exits 0 with a culprit" [ $rc = 0 ]
check "the culprit is the per-packet-work commit" grep -q "^culprit $C2 stmmac: per-packet work" <<<"$out"
check "the numbers on both sides are printed" grep -qE "^  pps: [0-9.]+ before \(${C1:0:12}\) -> [0-9.]+ after \(-" <<<"$out"
# the emulator's counts (emulator-insn) say where, under the ends' line and
# under the culprit's numbers: the commit's loop is in stmmac_xmit
# (the ends' line is printed before git runs but reaches the pipe at exit,
# after git's "bisect found first bad commit", which ends without a newline)
check "the ends' verdict names stmmac_xmit first" eval \
	'grep -A1 -E "good [0-9a-f]{12}: pps " <<<"$out" | grep -qE "^  where: \+[0-9]+ instructions/packet in stmmac_xmit"'
check "the culprit's verdict names stmmac_xmit first" eval \
	'grep -A1 "^  pps: " <<<"$out" | grep -qE "^  where: \+[0-9]+ instructions/packet in stmmac_xmit"'
check "the repository's HEAD is unchanged" [ "$(g rev-parse HEAD)" = "$HEAD_BEFORE" ]
check "no bisection is left in progress" bash -c "! git -C '$REPO' bisect log >/dev/null 2>&1"
check "no worktree is left" [ "$(g worktree list | wc -l)" = 1 ]
check "runs are stored with the revision" \
	bash -c "sqlite3 '$HILBENCH_STORE/hilbench.db' \"SELECT count(*) FROM runs WHERE kernel_version LIKE '%+g${C2:0:12}'\" | grep -qv '^0$'"
# the revisions' KCIDB checkouts: the commit and the repository, as KernelCI
# groups them with other CI systems' results
$HB report --all --format kcidb --out "$WORK/kcidb.json" 2>/dev/null
check "a revision's KCIDB checkout names its commit and repository" \
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(not any(c.get("git_commit_hash") == sys.argv[2] and
		 c.get("git_repository_url") == "https://git.example.org/lab/linux.git"
		 for c in j["checkouts"]))' "$WORK/kcidb.json" "$C2"
check "the remote's credentials are in neither the export nor the store" \
	bash -c "! grep -rq s3cret '$WORK/kcidb.json' '$HILBENCH_STORE'"

echo "# bisect: $pass passed, $fail failed"
[ $fail = 0 ]
