#!/usr/bin/env bash
# deps.sh [--download-only] [--compare] [SERIES...]: installs what hilbench
# needs on Debian 12: host build and test tools, the cross toolchains, QEMU
# and what building hilbench's own emulator takes, and Debian's kernel
# source of each series asked for (default 6.1, what the emulated board and
# the real arm boards build; 6.12 only for boards that need it: `make deps
# SERIES="6.1 6.12"`).
# The DUT userlands' armhf and arm64 packages come through package-list
# views of hilbench's own (harness/scripts/mkinitramfs.sh), so the host
# gets no foreign architecture. Idempotent: a second run only checks.
# --download-only: fetch the missing packages into apt's cache and install
# nothing (tests/fresh/check-fresh.sh downloads first, outside the lock it
# may build under).
# --compare: only what `make compare` needs on the emulated boards (build,
# boot, measure, report): not the tests' tools, nor LAVA's dispatcher and
# artifact host, whose commands say "make deps" when they are missing.
set -euo pipefail
download_only=() compare_only=0
while [[ ${1:-} == --* ]]; do
	case $1 in
	--download-only) download_only=(--download-only) ;;
	--compare) compare_only=1 ;;
	*) echo "deps: unknown option $1 (--download-only, --compare)" >&2; exit 2 ;;
	esac
	shift
done
SERIES=("$@")
((${#SERIES[@]})) || SERIES=(6.1)

# What building hilbench and its emulator, a kernel and the DUT's userland,
# and booting and measuring the emulated board take (make compare).
COMPARE_PKGS=(
	gcc make pkg-config libc6-dev git patch cpio xz-utils gzip iproute2 sqlite3
	libyaml-dev libcjson-dev libsqlite3-dev libssl-dev libiperf-dev iperf3
	libpcap-dev libnl-route-3-dev
	libcurl4-openssl-dev	# linked in for the lava backend: LAVA's REST API
	qemu-system-arm
	dpkg-dev meson ninja-build libglib2.0-dev libpixman-1-dev libfdt-dev zlib1g-dev	# emulators/: QEMU from Debian's source
	gcc-arm-linux-gnueabihf libc6-dev-armhf-cross
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross	# arm64 boards (agilex5-socdk) and their agent
	u-boot-tools device-tree-compiler	# uImage/FIT (mkimage), external .dts (dtc): build/image.c; the DTB's rng-seed (fdtput): deploy/qemu.c
	ccache bc bison flex libelf-dev kmod
)
# make check's tools, LAVA's, and the manual pages'.
REST_PKGS=(
	libcmocka-dev valgrind
	chromium	# the HTML report is checked in a real browser
	lava-common python3-jinja2 busybox	# tests/lava: LAVA's schema, device templates, the DUT's shell
	lava-dispatcher tftpd-hpa	# lava-local backend: lava-run, TFTP (U-Boot for the SD card: below)
	lighttpd	# the lava backends' artifact host: the jobs' files over HTTP (docs/lava.md)
	python3-jsonschema	# tests/kcidb: the KCIDB v5 export against its schema
	scdoc	# make man, make install: the manual pages (docs/man/*.scd)
	clang-14 libclang-rt-14-dev	# make fuzz-check: libFuzzer and its sanitizer runtimes
)
HOST_PKGS=("${COMPARE_PKGS[@]}")
((compare_only)) || HOST_PKGS+=("${REST_PKGS[@]}")
# The lava-local backend's emulated SD card boots Debian's u-boot-sunxi
# nanopi_neo build (boards/qemu-orangepi-pc-lava.yaml, sd_bootloader). That
# package is armhf only: it comes through an armhf package-list view of its
# own, like the DUT userland, and its image is extracted here.
UBOOT=/usr/local/lib/u-boot/nanopi_neo/u-boot-sunxi-with-spl.bin
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
# hilbench runs lighttpd itself, one per LAVA job, on loopback or in its own
# namespace; Debian's package also enables a service on port 80 of every
# address, which a machine booted with systemd starts. Installed just now
# for hilbench: that service is not wanted.
if [[ " ${missing[*]} " == *" lighttpd "* ]] && [ -d /run/systemd/system ]; then
	echo "deps: disabling the lighttpd service Debian's package started (hilbench starts its own)"
	systemctl disable --now lighttpd || echo "deps: systemctl disable lighttpd failed; stop it by hand"
fi
if ((!compare_only)) && [ ! -f $UBOOT ]; then
	view=$(mktemp -d)
	trap 'rm -rf "$view"' EXIT
	mkdir -p "$view/lists/partial"
	: >"$view/status"
	armhf=(-o APT::Architecture=armhf -o APT::Architectures::=armhf -o APT::Sandbox::User=root
		-o "Dir::State::status=$view/status" -o "Dir::State::Lists=$view/lists"
		-o "Dir::Cache::pkgcache=$view/pkgcache.bin" -o "Dir::Cache::srcpkgcache=$view/srcpkgcache.bin")
	echo "deps: u-boot-sunxi (armhf) for the emulated SD card, into ${UBOOT%/*}"
	apt-get "${armhf[@]}" -q update >"$view/update.log" 2>&1 ||
		echo "deps: apt-get update of the armhf view said: $(grep -m1 '^E:' "$view/update.log")"
	(cd "$view" && apt-get "${armhf[@]}" -q download u-boot-sunxi) ||
		die "cannot download armhf u-boot-sunxi; see /etc/apt/sources.list*"
	dpkg-deb -x "$view"/u-boot-sunxi_*.deb "$view/tree"
	install -D -m 0644 "$view/tree/usr/lib/u-boot/nanopi_neo/${UBOOT##*/}" "$UBOOT"
fi
for series in "${SERIES[@]}"; do
	[ -f "/usr/src/linux-source-$series.tar.xz" ] ||
		die "linux-source-$series did not install /usr/src/linux-source-$series.tar.xz"
done
echo "deps: ok"
