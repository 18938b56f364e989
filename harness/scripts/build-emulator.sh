#!/bin/bash
# build-emulator.sh: build an emulator from a Debian source package plus
# hilbench's patches (build/emulator.c runs it; emulators/*.yaml say what).
#
#   build-emulator.sh --name N --package P --version V --target T --binary B
#                     [--device SYM]... [--configure OPT]... [--patch FILE]...
#                     --out DIR --cache DIR
#
# The source comes from apt's deb-src of the mirrors the host already uses,
# through a package-list view of its own in CACHE/apt/src (the host's apt
# configuration is only read). Version V when the mirror has it; otherwise
# the newest it has, after every patch is checked to apply, said loudly and
# written to the manifest (verified no). The build happens in DIR.tmp.<pid>;
# DIR appears complete (bin/B, include/qemu-plugin.h, manifest) or not at
# all. The caller holds DIR's lock and the cache's compile lock.
set -euo pipefail
umask 022

log() { printf 'build-emulator: %s\n' "$*" >&2; }
die() { printf 'build-emulator: error: %s\n' "$*" >&2; exit 1; }
usage() {
	echo "usage: $0 --name N --package P --version V --target T --binary B [--device SYM]... [--configure OPT]... [--patch FILE]... --out DIR --cache DIR" >&2
	exit 2
}

name='' package='' version='' target='' binary='' out='' cache=''
devices=() configure=() patches=()
while (($#)); do
	case $1 in
	--name) name=${2:?}; shift 2 ;;
	--package) package=${2:?}; shift 2 ;;
	--version) version=${2:?}; shift 2 ;;
	--target) target=${2:?}; shift 2 ;;
	--binary) binary=${2:?}; shift 2 ;;
	--device) devices+=("${2:?}"); shift 2 ;;
	--configure) configure+=("${2:?}"); shift 2 ;;
	--patch) patches+=("${2:?}"); shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--cache) cache=${2:?}; shift 2 ;;
	*) echo "unknown argument $1" >&2; usage ;;
	esac
done
[[ $name && $package && $version && $target && $binary && $out && $cache ]] || usage
for tool in apt-get apt-cache dpkg-source patch meson ninja sha256sum flock; do
	command -v "$tool" >/dev/null || die "$tool not found; run 'make deps'"
done
started=$SECONDS

# --- the source package --------------------------------------------------------
aptdir=$cache/apt/src
mkdir -p "$aptdir/lists/partial" "$aptdir/sources.list.d" "$cache/src"
apt_opts=(
	-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$aptdir/sources.list.d"
	-o "Dir::State::Lists=$aptdir/lists" -o "Dir::State::status=/dev/null"
	-o "Dir::Cache::pkgcache=$aptdir/pkgcache.bin"
	-o "Dir::Cache::srcpkgcache=$aptdir/srcpkgcache.bin"
)
((EUID)) || apt_opts+=(-o APT::Sandbox::User=root)
# One process at a time in the shared view and downloads (other keys'
# builds use them too).
exec 9>"$cache/src.lock"
flock 9
# deb-src entries for the host's deb entries, one-line and deb822 alike.
{
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[[ -f $f ]] && sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f"
	done
} >"$aptdir/sources.list.d/host.list"
for f in /etc/apt/sources.list.d/*.sources; do
	[[ -f $f ]] && sed 's/^Types:[[:space:]]*deb[[:space:]]*$/Types: deb-src/' "$f"
	echo
done >"$aptdir/sources.list.d/host.sources"
[[ -s $aptdir/sources.list.d/host.list || -s $aptdir/sources.list.d/host.sources ]] ||
	die "no deb entries in /etc/apt/sources.list*: apt has no mirror to take $package's source from"
versions() {
	apt-cache "${apt_opts[@]}" showsrc --only-source "$package" 2>/dev/null |
		sed -n 's/^Version: //p'
}
have=$(versions || true)
if ! grep -qxF "$version" <<<"$have"; then
	log "fetching the source package lists into $aptdir/lists"
	apt-get "${apt_opts[@]}" -q update >"$aptdir/update.log" 2>&1 ||
		log "apt-get update said: $(grep -m1 '^E:' "$aptdir/update.log" || tail -n1 "$aptdir/update.log")"
	have=$(versions || true)
fi
verified=yes
if ! grep -qxF "$version" <<<"$have"; then
	[[ $have ]] || die "no source package $package on the host's mirrors (deb-src of /etc/apt/sources.list*); see $aptdir/update.log"
	newest=
	while read -r v; do
		if [[ -z $newest ]] || dpkg --compare-versions "$v" gt "$newest"; then newest=$v; fi
	done <<<"$have"
	log "NOTE: $package $version (the verified version) is not on the mirror; building $newest instead, after checking every patch applies. Its numbers are not comparable to stored runs made on $version without a check."
	version=$newest
	verified=no
fi
srcdir=$cache/src/$package-$version
if [[ ! -f $srcdir/done ]]; then
	log "downloading $package $version"
	rm -rf "$srcdir"
	mkdir -p "$srcdir"
	(cd "$srcdir" && apt-get "${apt_opts[@]}" -q source --download-only "$package=$version" >&2) ||
		die "downloading the source of $package $version failed; see the messages above"
	touch "$srcdir/done"
fi
dsc=$(ls "$srcdir"/*.dsc)
dsc_sha=$(sha256sum <"$dsc" | cut -d' ' -f1)
exec 9>&-

# --- unpack, patch, configure, build -------------------------------------------
tmp=$out.tmp.$$
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
log "unpacking $(basename "$dsc") (Debian's patches applied)"
dpkg-source --no-copy -x "$dsc" "$tmp/src" >"$tmp/unpack.log" 2>&1 ||
	die "dpkg-source -x $dsc failed: $(tail -n3 "$tmp/unpack.log")"
manifest=("name $name" "package $package" "version $version" "verified $verified"
	"dsc_sha256 $dsc_sha" "target $target")
for p in "${patches[@]}"; do
	patch -d "$tmp/src" -p1 --dry-run --quiet <"$p" >"$tmp/patch.log" 2>&1 ||
		die "$p does not apply to $package $version: $(head -n3 "$tmp/patch.log")"
	patch -d "$tmp/src" -p1 --quiet --no-backup-if-mismatch <"$p"
	manifest+=("patch $(basename "$p") $(sha256sum <"$p" | cut -d' ' -f1)")
done
mak=$tmp/src/configs/devices/$target/default.mak
[[ -f $mak ]] || die "$package $version has no configs/devices/$target/default.mak: is $target a target of this emulator?"
printf 'CONFIG_%s=y\n' "${devices[@]}" >"$mak"
manifest+=("devices ${devices[*]}" "configure ${configure[*]}")
mkdir "$tmp/src/build"
log "configuring (${configure[*]})"
(cd "$tmp/src/build" && ../configure --target-list="$target" "${configure[@]}") \
	>"$tmp/configure.log" 2>&1 || die "configure failed: $(tail -n5 "$tmp/configure.log")"
log "compiling $binary ($(nproc) jobs; log $tmp/build.log)"
nice -n 5 ninja -C "$tmp/src/build" -j "$(nproc)" "$binary" >"$tmp/build.log" 2>&1 ||
	die "the build failed: $(grep -m3 -E 'error|Error' "$tmp/build.log" || tail -n5 "$tmp/build.log")"
mkdir "$tmp/bin" "$tmp/include"
install -m 0755 "$tmp/src/build/$binary" "$tmp/bin/$binary"
# TCG plugins build against the header of the emulator that loads them.
[[ -f $tmp/src/include/qemu/qemu-plugin.h ]] && cp "$tmp/src/include/qemu/qemu-plugin.h" "$tmp/include/"
manifest+=("binary_sha256 $(sha256sum <"$tmp/bin/$binary" | cut -d' ' -f1)"
	"build_seconds $((SECONDS - started))")
rm -rf "$tmp/src"
printf '%s\n' "${manifest[@]}" >"$tmp/manifest"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
log "built $out/bin/$binary in $((SECONDS - started)) s"
