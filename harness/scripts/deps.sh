#!/usr/bin/env bash
# Installs what hilbench needs on Debian 12: host build and test tools, the
# cross toolchains, QEMU, Debian's kernel sources, and the armhf and arm64
# architectures whose packages make the DUT userlands. Idempotent: a second run only checks.
set -euo pipefail

HOST_PKGS=(
	gcc make pkg-config libc6-dev git patch cpio xz-utils gzip iproute2 sqlite3
	libyaml-dev libcjson-dev libsqlite3-dev libssl-dev libiperf-dev iperf3
	libcmocka-dev valgrind libpcap-dev libnl-route-3-dev
	libcurl4-openssl-dev	# the lava backend: LAVA's REST API
	chromium	# the HTML report is checked in a real browser
	lava-common python3-jinja2 busybox	# tests/lava: LAVA's schema, device templates, the DUT's shell
	lava-dispatcher tftpd-hpa u-boot-sunxi	# lava-local backend: lava-run, TFTP, U-Boot for the SD card
	python3-jsonschema	# tests/kcidb: the KCIDB v5 export against its schema
	qemu-system-arm
	gcc-arm-linux-gnueabihf libc6-dev-armhf-cross
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross	# arm64 boards (agilex5-socdk) and their agent
	u-boot-tools device-tree-compiler	# uImage/FIT (mkimage), external .dts (dtc): build/image.c
	linux-source-6.1 ccache bc bison flex libelf-dev kmod
	linux-source-6.12	# boards with kernel.min_series 6.12 (agilex5-socdk)
	clang-14 libclang-rt-14-dev	# make fuzz-check: libFuzzer and its sanitizer runtimes
)
# Packages the DUT initramfs is made of (downloaded, never installed here),
# for each Debian architecture a board uses.
DUT_ARCHES=(armhf arm64)
DUT_PKGS=(busybox-static iperf3 linux-perf)

die() { echo "deps: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root (apt-get and network namespaces need it)"
command -v apt-get >/dev/null || die "this needs Debian 12 (apt-get not found)"

missing=()
for p in "${HOST_PKGS[@]}"; do
	[ "$(dpkg-query -W -f '${Status}' "$p" 2>/dev/null)" = "install ok installed" ] ||
		missing+=("$p")
done
need_update=0
for arch in "${DUT_ARCHES[@]}"; do
	if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
		echo "deps: adding the $arch architecture (DUT userland packages)"
		dpkg --add-architecture "$arch"
		need_update=1
	fi
done
has_candidates() {
	local p policy arch
	for arch in "${DUT_ARCHES[@]}"; do
		for p in "${DUT_PKGS[@]}"; do
			# captured, not piped: grep -q closing early would fail the pipe
			policy=$(apt-cache policy "$p:$arch" 2>/dev/null)
			[[ $policy == *"Candidate: "[0-9]* ]] || return 1
		done
	done
}
if [ ${#missing[@]} -gt 0 ] || ! has_candidates; then
	need_update=1
fi
if [ $need_update = 1 ]; then
	echo "deps: apt-get update"
	# One foreign index (e.g. bookworm-security armhf) failing its hash check
	# must not stop us: what matters is that every package we need resolves,
	# which is checked right after.
	apt-get update -q || echo "deps: apt-get update reported errors; checking what we need"
fi
if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
has_candidates || die "Debian's ${DUT_PKGS[*]} for ${DUT_ARCHES[*]} cannot be found; check /etc/apt/sources.list and run 'apt-get update'"
for series in 6.1 6.12; do
	[ -f /usr/src/linux-source-$series.tar.xz ] ||
		die "linux-source-$series did not install /usr/src/linux-source-$series.tar.xz"
done
echo "deps: ok"
