#!/usr/bin/env bash
# tests/boards/cross-build.sh HILBENCH: every 6.1 strategy compiles for the
# real boards' configurations (make check-cross, part of make check).
#
# For ipq806x-r7800 and cyclone5-socdk (arm, their defconfig + fragment) and
# the Agilex family (arm64 defconfig + fragment of agilex5-socdk, whose DTS
# is newer than 6.1), each strategy of driver-patches/6.1/ is built with
# `hilbench build --objects-only drivers/net/ethernet/stmicro/stmmac`: the
# same build path and cache as a full build, but only the stmmac objects
# and the board's DTB. Checked: the objects are for the board's
# architecture, every patched strategy's stmmac_main.o differs from
# baseline's (its patches were compiled in), a strategy of runtime settings
# only (knob-*) is baseline's build, and the arm DTBs hold the board's
# stmmac node.
#
# Cold (empty cache) this is 3 configurations x 6 patched strategies of
# kernel `prepare` + stmmac (the first cold, the others incremental from it);
# warm, every cell is a manifest lookup. Times are printed, never asserted
# (docs/boards.md has the measured ones).
set -euo pipefail

hb=$(realpath "${1:?usage: $0 path/to/hilbench}")
cd "$(dirname "$0")/../.."
export HILBENCH_HOME=$PWD
STMMAC=drivers/net/ethernet/stmicro/stmmac
failures=0
fail() { echo "check-cross: FAIL: $*" >&2; failures=$((failures + 1)); }

strategies=()
for f in driver-patches/6.1/*/series; do
	s=$(basename "$(dirname "$f")")
	[[ $s == base ]] || strategies+=("$s")
done
# STRATEGIES="baseline hrtimer-active" narrows the set (e.g. for a CI budget).
[[ -z ${STRATEGIES:-} ]] || read -r -a strategies <<<"$STRATEGIES"
# The glob is sorted: baseline comes first, and the others compare to it.
[[ ${strategies[0]:-} == baseline ]] || { echo "check-cross: no driver-patches/6.1/baseline" >&2; exit 1; }

# board, ELF machine of its objects, compatible its DTB must have ("" = no DTB on 6.1)
cells=(
	"ipq806x-r7800 ARM qcom,ipq806x-gmac"
	"cyclone5-socdk ARM altr,socfpga-stmmac"
	"agilex5-socdk AArch64 "
)
started=$SECONDS
builds=0 cached=0
for cell in "${cells[@]}"; do
	read -r board machine compatible <<<"$cell"
	baseline_sha=
	for s in "${strategies[@]}"; do
		t0=$SECONDS
		before=$failures
		if ! out=$("$hb" build --board "$board" --strategy "$s" --kernel-series 6.1 \
			--objects-only "$STMMAC" 2>"$HILBENCH_HOME/build/cross-$board-$s.log"); then
			fail "$board $s: hilbench build failed:"
			tail -n 20 "$HILBENCH_HOME/build/cross-$board-$s.log" >&2
			continue
		fi
		builds=$((builds + 1))
		[[ $out == *"(cached)"* ]] && cached=$((cached + 1))
		objects=$(sed -n 's/^objects *//p' <<<"$out")
		dtb=$(sed -n 's/^dtb *//p' <<<"$out")
		main=$objects/stmmac_main.o
		if [[ ! -f $main ]]; then
			fail "$board $s: no stmmac_main.o in $objects"
			continue
		fi
		got=$(readelf -h "$main" | sed -n 's/^ *Machine: *//p')
		[[ $got == "$machine" ]] || fail "$board $s: stmmac_main.o is for '$got', not $machine"
		sha=$(sha256sum <"$main")
		# A strategy of runtime settings only (knob-*: no patch lines,
		# only setting: and driver: lines) is baseline's kernel: the
		# same build, shared.
		if grep -q '^[^#[:space:]]' <(grep -Ev '^(setting|upstream|driver):' "driver-patches/6.1/$s/series"); then
			patched=1
		else
			patched=0
		fi
		if [[ $s == baseline ]]; then
			baseline_sha=$sha
		elif ((patched)) && [[ $sha == "$baseline_sha" ]]; then
			fail "$board $s: stmmac_main.o is baseline's: the strategy's patches were not built"
		elif ((!patched)) && [[ $sha != "$baseline_sha" ]]; then
			fail "$board $s: runtime settings only, yet its stmmac_main.o is not baseline's"
		fi
		if [[ $compatible ]]; then
			if [[ ! -f $dtb ]]; then
				fail "$board $s: no DTB ($dtb)"
			elif ! dts=$(dtc -q -I dtb -O dts "$dtb"); then
				fail "$board $s: dtc cannot read $dtb"
			# dtc writes a string list as "a\0b": match the opening quote only
			elif [[ $dts != *"\"$compatible"* ]]; then
				fail "$board $s: $dtb has no $compatible node"
			fi
		elif [[ -f $dtb ]]; then
			fail "$board $s: a DTB from 6.1, which has no $board DTS: $dtb"
		fi
		((failures > before)) ||
			echo "check-cross: $board $s ok ($((SECONDS - t0)) s$([[ $out == *"(cached)"* ]] && echo ", cached"))"
	done
done
echo "check-cross: $builds builds ($cached cached) of ${#cells[@]} configurations x ${#strategies[@]} strategies in $((SECONDS - started)) s"
((failures == 0)) || { echo "check-cross: $failures failure(s)" >&2; exit 1; }
