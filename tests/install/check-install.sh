#!/usr/bin/env bash
# tests/install/check-install.sh (make check-install): `make install` into
# a temporary DESTDIR (prefix /usr), and the installed hilbench run from
# there, outside the clone and without HILBENCH_HOME, as a lab would:
#  - the files where the FHS and docs/install.md put them;
#  - it knows it is installed, finds its data under share/hilbench and
#    its scripts and agents under lib/hilbench;
#  - a lab's directory (--data-dir, HILBENCH_DATA) comes first, `list`
#    says where each entry comes from and which are not used;
#  - `hilbench help gate` opens the installed manual page, and in the
#    clone the one make man built;
#  - bash completion gives commands, options and the lab's names.
# No root, no kernel, no emulator: seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=tests/integration/lib.sh
source tests/integration/lib.sh
clone=$PWD
tmp=$(mktemp -d /tmp/hb-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest
make --no-print-directory install DESTDIR="$dest" prefix=/usr >"$tmp/install.log" 2>&1 ||
	{ tail -n 20 "$tmp/install.log"; echo "check-install: make install failed" >&2; exit 1; }
usr=$dest/usr
for f in bin/hilbench share/hilbench/boards/qemu-orangepi-pc.yaml \
	share/hilbench/boards/qemu-orangepi-pc.config share/hilbench/emulators/qemu-7.2.yaml \
	share/hilbench/emulator-patches/qemu-7.2/series share/hilbench/driver-patches/6.1/base/series \
	share/hilbench/lava/render-device.py lib/hilbench/scripts/mkinitramfs.sh \
	lib/hilbench/scripts/build-emulator.sh lib/hilbench/agent/lava-report.awk \
	lib/hilbench/plugin/hb-insn.c \
	lib/hilbench/agent/armhf/hb-agent lib/hilbench/agent/arm64/hb-agent lib/hilbench/VERSION \
	share/man/man1/hilbench.1 share/man/man1/hilbench-gate.1 share/man/man5/hilbench-files.5 \
	share/bash-completion/completions/hilbench; do
	check "installed: /usr/$f" [ -s "$usr/$f" ]
done
# (but the emulator plugin's source, which hilbench compiles against the
# emulator it builds)
check "nothing of the clone's tests or sources is installed" \
	eval '! find "$dest" -path "*/tests/*" -o -name "*.c" ! -path "*/lib/hilbench/plugin/*" | grep . >/dev/null'

# The installed program, from / and with a login's environment: no
# HILBENCH_HOME, no clone in sight.
home=$tmp/home
mkdir -p "$home"
# (HILBENCH_DATA only when lab_data says)
hb() { (cd / && env -u HILBENCH_HOME -u HILBENCH_STORE HILBENCH_DATA="${lab_data:-}" HOME="$home" \
	MANPATH="$usr/share/man" MANPAGER=cat "$usr/bin/hilbench" "$@"); }
out=$(hb --version)
check "--version: installed, its data in share/hilbench ($out)" \
	grep -qx "hilbench $(cat "$usr/lib/hilbench/VERSION") (installed, $usr/share/hilbench)" <<<"$out"
out=$(hb list boards)
check "list boards: the installed directory's heading" grep -qx "# $usr/share/hilbench/boards" <<<"$out"
check "... and its boards" grep -q "^qemu-orangepi-pc  *QEMU orangepi-pc" <<<"$out"
out=$(hb list strategies)
check "list strategies: the installed stacks" grep -q "^gating  *Gate the TX hrtimer" <<<"$out"
d=$usr/share/hilbench
out=$(hb check "$d"/boards/*.yaml "$d"/plans/*.yaml "$d"/workloads/*.yaml 2>&1) &&
	rc=0 || rc=$?
check "check: every installed board, plan and workload is valid (exit $rc)" [ "$rc" = 0 ]
hb show >/dev/null
check "the default store of an installed hilbench: ~/.local/share/hilbench/results" \
	[ -f "$home/.local/share/hilbench/results/hilbench.db" ]

# A lab's own directory: a board of its own (its fragment beside it), one
# that replaces an installed board, a strategy and a plan.
lab=$tmp/lab
mkdir -p "$lab/boards" "$lab/plans" "$lab/driver-patches/6.1/lab-knob"
sed 's/^name: qemu-orangepi-pc$/name: lab-board/; s/^description: .*/description: the lab'"'"'s own board/' \
	boards/qemu-orangepi-pc.yaml >"$lab/boards/lab-board.yaml"
cp boards/qemu-orangepi-pc.config "$lab/boards/"
sed 's/^description: .*/description: the lab'"'"'s stock board/' boards/qemu-orangepi-pc-stock.yaml \
	>"$lab/boards/qemu-orangepi-pc-stock.yaml"
printf '# the lab'"'"'s TX timer of 500 us\ndriver: stmmac\nsetting: tx-usecs 500\n' \
	>"$lab/driver-patches/6.1/lab-knob/series"
cat >"$lab/plans/lab-smoke.yaml" <<'PLAN'
name: lab-smoke
description: the lab's board, the installed workload
boards: [lab-board]
strategies: [baseline, lab-knob]
workloads: [udp64-dut-tx]
repetitions: 1
timing: virtual
PLAN
out=$(hb --data-dir "$lab" list boards)
check "--data-dir: the lab's boards first" \
	eval '[ "$(grep "^#" <<<"$out" | head -n1)" = "# $lab/boards" ]'
check "... its own board" grep -q "^lab-board  *the lab's own board" <<<"$out"
check "... the board it replaces, from the lab" grep -q "^qemu-orangepi-pc-stock  *the lab's stock board" <<<"$out"
check "... and the installed one, not used" \
	grep -q "^qemu-orangepi-pc-stock  *(not used: $lab/boards has it)" <<<"$out"
out=$(lab_data=$lab hb list plans)
check "HILBENCH_DATA: the same search path" grep -q "^lab-smoke  *the lab's board" <<<"$out"
out=$(hb --data-dir "$lab" list strategies)
check "a lab's strategy beside the installed ones" grep -q "^lab-knob  *the lab's TX timer" <<<"$out"
out=$(hb --data-dir "$lab" check "$lab/boards/lab-board.yaml" "$lab/plans/lab-smoke.yaml" 2>&1) &&
	rc=0 || rc=$?
check "check: the lab's board (its fragment beside it) and plan, whose names resolve (exit $rc)" [ "$rc" = 0 ]
out=$(hb --data-dir "$tmp/no-such-dir" list boards 2>&1) && rc=0 || rc=$?
check "--data-dir of no directory: exit 2 (got $rc)" [ "$rc" = 2 ]
check "... saying so" grep -q "no-such-dir: no such directory" <<<"$out"

# Manual pages: installed, then the clone's.
out=$(hb help gate 2>&1)
check "help gate: the installed hilbench-gate(1)" grep -q "hilbench-gate - does a patch make things worse" <<<"$out"
out=$(hb help files 2>&1)
check "help files: hilbench-files(5)" grep -q "hilbench-files - the formats of hilbench's data" <<<"$out"
out=$(hb help nosuch 2>&1) && rc=0 || rc=$?
check "help of no command: exit 2 (got $rc)" [ "$rc" = 2 ]
out=$(cd / && env -u HILBENCH_HOME MANPAGER=cat "$clone/build/hilbench" help gate 2>&1)
check "in the clone, help gate: build/man's page" grep -q "hilbench-gate - does a patch" <<<"$out"

# bash completion, as bash calls it: COMP_WORDS and COMP_CWORD.
complete_words() { # the words of a command line; the last is being completed
	(
		# shellcheck source=harness/completion/hilbench.bash
		source "$usr/share/bash-completion/completions/hilbench"
		COMP_WORDS=("$@")
		COMP_WORDS[0]=$usr/bin/hilbench
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		cd / && unset HILBENCH_HOME HILBENCH_DATA && _hilbench && printf '%s\n' "${COMPREPLY[@]}"
	)
}
check "completion: commands" eval 'complete_words hilbench ga | grep -x -- gate >/dev/null'
check "... a command's options" eval 'complete_words hilbench gate --pa | grep -x -- --patch >/dev/null'
check "... boards, with the lab's" \
	eval 'complete_words hilbench --data-dir "$lab" run --board "" | grep -x -- lab-board >/dev/null'
check "... the installed ones too" \
	eval 'complete_words hilbench --data-dir "$lab" run --board "" | grep -x -- qemu-orangepi-pc >/dev/null'
check "... the last of a list of workloads" \
	eval 'complete_words hilbench run --workloads udp64-dut-tx,tcp-dut-r | grep -x -- udp64-dut-tx,tcp-dut-rx >/dev/null'
check "... strategies" eval 'complete_words hilbench build --strategy gat | grep -x -- gating >/dev/null'
check "... report formats" eval 'complete_words hilbench report --format js | grep -x -- json >/dev/null'
check "... what to list" eval 'complete_words hilbench list st | grep -x -- strategies >/dev/null'

echo "check-install: $pass passed, $fail failed"
((fail == 0))
