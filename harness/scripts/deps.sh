#!/usr/bin/env bash
# deps.sh [SERIES...]: installs what hilbench needs on Debian 12: host build
# and test tools, the cross toolchains, QEMU and what building hilbench's
# own emulator takes, and Debian's kernel source of each series asked for
# (default 6.1, what the emulated board and the real arm boards build; 6.12
# only for boards that need it: `make deps SERIES="6.1 6.12"`).
# The DUT userlands' armhf and arm64 packages come through package-list
# views of hilbench's own (harness/scripts/mkinitramfs.sh), so the host
# gets no foreign architecture. Idempotent: a second run only checks.
# --download-only (first argument): fetch the missing packages into apt's
# cache and install nothing (tests/fresh/check-fresh.sh downloads first,
# outside the lock it may build under).
set -euo pipefail
download_only=()
if [[ ${1:-} == --download-only ]]; then download_only=(--download-only); shift; fi
SERIES=("$@")
((${#SERIES[@]})) || SERIES=(6.1)

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
	dpkg-dev meson ninja-build libglib2.0-dev libpixman-1-dev libfdt-dev zlib1g-dev	# emulators/: QEMU from Debian's source
	gcc-arm-linux-gnueabihf libc6-dev-armhf-cross
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross	# arm64 boards (agilex5-socdk) and their agent
	u-boot-tools device-tree-compiler	# uImage/FIT (mkimage), external .dts (dtc): build/image.c
	ccache bc bison flex libelf-dev kmod
	clang-14 libclang-rt-14-dev	# make fuzz-check: libFuzzer and its sanitizer runtimes
)
die() { echo "deps: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root (apt-get and network namespaces need it)"
command -v apt-get >/dev/null || die "this needs Debian 12 (apt-get not found)"

for series in "${SERIES[@]}"; do
	[[ $series =~ ^[0-9]+\.[0-9]+$ ]] || die "'$series' is not a kernel series (like 6.1 or 6.12)"
	HOST_PKGS+=("linux-source-$series")
done

missing=()
for p in "${HOST_PKGS[@]}"; do
	[ "$(dpkg-query -W -f '${Status}' "$p" 2>/dev/null)" = "install ok installed" ] ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: apt-get update"
	# An index that fails (a mirror mid-sync) must not stop us: what matters
	# is that every package we need installs, which apt-get install checks.
	apt-get update -q || echo "deps: apt-get update reported errors; trying the install anyway"
	echo "deps: installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${download_only[@]}" "${missing[@]}"
fi
if ((${#download_only[@]})); then echo "deps: downloaded, nothing installed"; exit 0; fi
for series in "${SERIES[@]}"; do
	[ -f /usr/src/linux-source-$series.tar.xz ] ||
		die "linux-source-$series did not install /usr/src/linux-source-$series.tar.xz"
done
echo "deps: ok"
