#!/usr/bin/env bash
# tests/boards/images.sh HILBENCH: full kernels and boot files for the real
# boards (make check-boards; not part of make check: each cold build is a
# whole kernel). For each board, `hilbench build --strategy baseline` of its
# default series, then its boot files are checked against its boot.format:
#
#   ipq806x-r7800   uimage-appended-dtb: a uImage at 0x42208000 whose payload
#                   is the zImage with the DTB appended, and a uInitrd
#   cyclone5-socdk  plain: zImage, socfpga_cyclone5_socdk.dtb, initramfs
#   agilex5-socdk   fit (6.12): an .itb with kernel, DTB and ramdisk
#
# and u-boot.txt boots them. BOARDS="a b" picks boards. Times are printed.
set -euo pipefail

hb=$(realpath "${1:?usage: $0 path/to/hilbench}")
cd "$(dirname "$0")/../.."
export HILBENCH_HOME=$PWD
read -r -a boards <<<"${BOARDS:-ipq806x-r7800 cyclone5-socdk agilex5-socdk}"
failures=0
fail() { echo "check-boards: FAIL: $*" >&2; failures=$((failures + 1)); }
field() { sed -n "s/^ *$1 *//p" <<<"$2"; }

for board in "${boards[@]}"; do
	t0=$SECONDS
	log=build/boards-$board.log
	if ! out=$("$hb" build --board "$board" --strategy baseline 2>"$log"); then
		fail "$board: hilbench build failed (log $log):"
		tail -n 20 "$log" >&2
		continue
	fi
	kernel=$(field kernel "$(grep '^  kernel' <<<"$out")")
	uboot=$(field u-boot "$out")
	[[ -f $kernel && -f $uboot ]] || { fail "$board: boot files missing: $out"; continue; }
	case $board in
	ipq806x-r7800)
		l=$(mkimage -l "$kernel")
		[[ $l == *"Load Address: 42208000"* ]] || fail "$board: uImage load address: $l"
		# the payload ends with the DTB: its magic d00dfeed is in there
		od -An -tx1 -v "$kernel" | tr -d ' \n' | grep d00dfeed >/dev/null || fail "$board: no DTB in the uImage"
		grep -q '^bootm ${kernel_addr_r} ${ramdisk_addr_r}$' "$uboot" || fail "$board: u-boot.txt"
		;;
	cyclone5-socdk)
		dtb=$(field dtb "$(grep '^  dtb' <<<"$out")")
		[[ $(basename "$kernel") == zImage && -f $dtb ]] || fail "$board: zImage + DTB: $out"
		grep -q '^bootz ' "$uboot" || fail "$board: u-boot.txt"
		;;
	agilex5-socdk)
		l=$(mkimage -l "$kernel")
		for t in "Kernel Image" "Flat Device Tree" "RAMDisk Image"; do
			[[ $l == *"$t"* ]] || fail "$board: no $t in the FIT: $l"
		done
		;;
	esac
	echo "check-boards: $board ok in $((SECONDS - t0)) s: $(grep '^kernel ' <<<"$out")"
done
((failures == 0)) || { echo "check-boards: $failures failure(s)" >&2; exit 1; }
