#!/bin/bash
# mkinitramfs.sh: build the DUT initramfs from Debian packages.
#
#   mkinitramfs.sh --arch armhf|arm64 --agent build/<arch>/hb-agent \
#                  --out FILE.cpio.gz --cache DIR PKG...
#
# The tree is the packages asked for plus their Depends/Pre-Depends closure,
# minus packages that only serve a dpkg-managed system (SKIP), extracted with
# dpkg-deb, plus busybox applet links and /sbin/hb-agent, which /init links
# to. Every shared library an ELF file in a bin directory needs is checked
# to be in the tree.
# Identical inputs give a byte-identical FILE.cpio.gz. FILE.cpio.gz.manifest
# lists "name version arch sha256-of-deb" per package. Downloads are kept in
# DIR/debs and reused while they match the package index.
set -euo pipefail
umask 022

# Never needed at run time here: configuration and maintainer-script helpers
# (nothing runs maintainer scripts), interpreters and their modules (perf
# links libperl/libpython but loads modules only to run scripts), data files.
SKIP='^(adduser|cdebconf|debconf|dpkg|init-system-helpers|install-info|libc-bin|lsb-base|media-types|netbase|passwd|perl|perl-base|perl-modules-.*|python3|python3\..*|python3-.*|libpython3\..*-(minimal|stdlib)|readline-common|sensible-utils|tzdata|ucf)$'

# Applets the agent and a person debugging on the console use; they all link
# to /bin/busybox.
APPLETS='ash cat chmod cp cut date dd df dmesg echo env free grep gunzip
gzip head hexdump ip kill ln ls mkdir mknod more mount mv nc ping poweroff
ps readlink reboot rm rmdir sed sh sleep sort stat stty sync tail tee test
top touch tr umount uname vi watch wc which xargs'

is_elf() { [[ $(od -An -tx1 -N4 "$1") == ' 7f 45 4c 46' ]]; }
log() { printf 'mkinitramfs: %s\n' "$*" >&2; }
die() { printf 'mkinitramfs: error: %s\n' "$*" >&2; exit 1; }
usage() {
	echo "usage: $0 --arch ARCH --agent PATH --out FILE.cpio.gz --cache DIR PKG..." >&2
	exit 2
}

orig_args=("$@")
arch='' agent='' out='' cache='' retry=1
while (($#)); do
	case $1 in
	--no-retry) retry=0; shift ;;
	--arch) arch=${2:?}; shift 2 ;;
	--agent) agent=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--cache) cache=${2:?}; shift 2 ;;
	-h | --help) usage ;;
	--*) echo "unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
[[ $arch && $agent && $out && $cache && $# -gt 0 ]] || usage
case $arch in
armhf) triplet=arm-linux-gnueabihf ;;
arm64) triplet=aarch64-linux-gnu ;;
*) die "unsupported --arch $arch (armhf, arm64)" ;;
esac
readelf=$triplet-readelf
for tool in apt-get apt-cache dpkg-deb cpio gzip sha256sum "$readelf"; do
	command -v "$tool" >/dev/null || die "$tool not found; run 'make deps'"
done
[[ -f $agent && -x $agent ]] || die "agent $agent is not an executable file"
mkdir -p "$cache/debs" "$cache/apt/$arch" "$(dirname "$out")"
cache=$(cd "$cache" && pwd)
started=$SECONDS

# apt sees an empty $arch system: unqualified names are $arch packages and
# nothing installed on the host satisfies a dependency. The view has package
# lists of its own in DIR/apt/$arch, fetched from the host's sources: the
# host needs no foreign architecture (dpkg --add-architecture), and a
# foreign index that fails to download (bookworm-security's armhf index
# failed its size check while a mirror synced) cannot make the host's apt
# drop a suite it needs. The caller (build/userland.c) holds a lock, so
# one process at a time writes DIR.
aptdir=$cache/apt/$arch
mkdir -p "$aptdir/lists/partial"
: >"$aptdir/status"
apt_opts=(
	-o "APT::Architecture=$arch" -o "APT::Architectures::=$arch"
	-o "Dir::State::status=$aptdir/status"
	-o "Dir::State::Lists=$aptdir/lists"
	-o "Dir::Cache::pkgcache=$aptdir/pkgcache.bin"
	-o "Dir::Cache::srcpkgcache=$aptdir/srcpkgcache.bin"
)
# Root's downloads into a root-owned cache would otherwise warn that the
# _apt user cannot write there.
((EUID)) || apt_opts+=(-o APT::Sandbox::User=root)

# apt-get update of the view; an index that fails (a mirror mid-sync) is
# tried once more, and what still fails is named, not fatal: the checks
# below say whether every package asked for resolves.
update_lists() {
	local try
	for try in 1 2; do
		if apt-get "${apt_opts[@]}" -q update >"$aptdir/update.log" 2>&1; then
			return 0
		fi
		log "apt-get update of the $arch view failed (try $try of 2): $(grep -m1 '^E:' "$aptdir/update.log" || tail -n1 "$aptdir/update.log")"
	done
	return 0
}
if ! compgen -G "$aptdir/lists/*_Packages*" >/dev/null; then
	log "fetching the $arch package lists into $aptdir/lists"
	update_lists
fi

no_candidate() {
	local pkg policy
	for pkg in "$@"; do
		policy=$(apt-cache "${apt_opts[@]}" policy "$pkg" 2>/dev/null)
		[[ $policy == *"Candidate: "[!\(]* ]] || { echo "$pkg"; return; }
	done
}
unresolved=$(no_candidate "$@")
if [[ $unresolved ]]; then
	log "no $arch candidate for $unresolved; fetching fresh $arch lists"
	update_lists
	unresolved=$(no_candidate "$@")
	[[ -z $unresolved ]] || die "no $arch candidate for $unresolved in $aptdir/lists; apt-get update of that view said: $(grep -m1 '^E:' "$aptdir/update.log" || echo nothing wrong); check the package name and /etc/apt/sources.list*"
fi

# --- dependency closure ------------------------------------------------------
# apt-cache depends prints, per package, one line per alternative
# ("  Depends: x", " |Depends: x" when the next line is another choice) and a
# virtual package as "<v>" followed by its providers, indented by 4.
# dep_groups prints "PKG: CHOICE..." per dependency, choices in apt's order.
dep_groups() {
	apt-cache "${apt_opts[@]}" depends --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances "$@" | awk '
		function flush() { if (pkg != "" && started) print pkg ":" group; group = ""; started = 0 }
		/^[^ ]/ { flush(); pkg = $1; sub(/:.*/, "", pkg); more = 0; next }
		/^    / { name = $1; sub(/:.*/, "", name); group = group " " name; next }
		{
			if (!more) flush()
			started = 1
			more = substr($0, 2, 1) == "|"
			name = $2; sub(/:.*/, "", name)
			if (name !~ /^</) group = group " " name
		}
		END { flush() }'
}

declare -A selected=()
queue=("$@")
while ((${#queue[@]})); do
	for pkg in "${queue[@]}"; do selected[$pkg]=1; done
	groups=$(dep_groups "${queue[@]}")
	queue=()
	while read -r pkg choices; do
		[[ $pkg ]] || continue
		pkg=${pkg%:}
		read -ra choice <<<"$choices"
		((${#choice[@]})) || die "$pkg depends on a virtual package no $arch package provides"
		for c in "${choice[@]}"; do
			[[ $c =~ $SKIP ]] && continue 2
		done
		pick=${choice[0]}
		for c in "${choice[@]}"; do
			if [[ -v selected[$c] ]]; then pick=$c; break; fi
		done
		if [[ ! -v selected[$pick] ]]; then
			selected[$pick]=1
			queue+=("$pick")
		fi
	done <<<"$groups"
done
mapfile -t packages < <(printf '%s\n' "${!selected[@]}" | LC_ALL=C sort)
log "${#packages[@]} packages: ${packages[*]}"

# --- download ----------------------------------------------------------------
# name version arch sha256 per package, from the index apt would download by.
mapfile -t index < <(apt-cache "${apt_opts[@]}" show --no-all-versions "${packages[@]}" |
	awk '/^Package:/ { p = $2 } /^Version:/ { v = $2 } /^Architecture:/ { a = $2 }
	     /^SHA256:/ { print p, v, a, $2 }' | LC_ALL=C sort)
((${#index[@]} == ${#packages[@]})) || die "apt-cache show lists ${#index[@]} of ${#packages[@]} packages"

deb_file() { # apt-get download's name: the epoch colon becomes %3a
	echo "$cache/debs/${1}_${2//:/%3a}_${3}.deb"
}
fetch=()
for line in "${index[@]}"; do
	read -r name version parch sha <<<"$line"
	deb=$(deb_file "$name" "$version" "$parch")
	if [[ -f $deb ]] && [[ $(sha256sum <"$deb") == "$sha "* ]]; then continue; fi
	rm -f "$deb"
	fetch+=("$name=$version")
done
# A mirror's transient error (a size or hash mismatch while it syncs, a
# version gone since the lists were fetched) is retried once on fresh
# lists; what fails twice is named.
download() {
	(cd "$cache/debs" && apt-get "${apt_opts[@]}" -q download "$@" >&2)
}
if ((${#fetch[@]})); then
	log "downloading ${#fetch[@]} packages into $cache/debs"
	if ! download "${fetch[@]}"; then
		((retry)) || die "downloading ${fetch[*]} failed twice; the mirror may be syncing: try again later"
		log "download failed; fetching fresh $arch lists and trying once more"
		update_lists
		exec bash "$0" --no-retry "${orig_args[@]}"
	fi
fi
manifest=()
for line in "${index[@]}"; do
	read -r name version parch sha <<<"$line"
	deb=$(deb_file "$name" "$version" "$parch")
	if ! [[ -f $deb && $(sha256sum <"$deb") == "$sha "* ]]; then
		rm -f "$deb"
		((retry)) || die "$name $version ($parch) did not download intact twice; the mirror may be syncing: try again later"
		log "$name $version ($parch) does not match the index's SHA256; fetching fresh lists and trying once more"
		update_lists
		exec bash "$0" --no-retry "${orig_args[@]}"
	fi
	manifest+=("$name $version $parch $sha")
done
log "packages ready ($((SECONDS - started)) s)"

# --- tree --------------------------------------------------------------------
staging=$(mktemp -d "${TMPDIR:-/tmp}/hb-initramfs.XXXXXX")
trap 'rm -rf "$staging"' EXIT
root=$staging/root
mkdir "$root"
for line in "${index[@]}"; do
	read -r name version parch _ <<<"$line"
	dpkg-deb -x "$(deb_file "$name" "$version" "$parch")" "$root"
done
# Documentation, headers, and what only runs when asked for: iconv charset
# modules (nothing here converts charsets) and perl's module tree (perf
# loads it to run perl scripts only). About 60 % of the tree with linux-perf.
rm -rf "$root"/usr/share/{doc,doc-base,info,lintian,locale,man} "$root/usr/include" \
	"$root/usr/lib/$triplet/gconv" "$root/usr/lib/$triplet/perl"

# Some linux-perf packages install the binary as perf_<series> behind a
# /usr/bin/perf script that picks one by the running kernel's version (and
# needs a shell and uname); there is one binary here, so it becomes perf.
mapfile -t perfs < <(cd "$root" && for f in usr/bin/perf_*; do
	[[ -f $f ]] && is_elf "$f" && echo "$f"; done)
if ((${#perfs[@]} > 1)); then die "more than one perf binary: ${perfs[*]}"; fi
if ((${#perfs[@]} == 1)); then
	mv -f "$root/${perfs[0]}" "$root/usr/bin/perf"
	log "perf: /${perfs[0]} -> /usr/bin/perf"
fi

[[ -f $root/bin/busybox ]] || die "no /bin/busybox in the tree; add busybox-static to the packages"
for applet in $APPLETS; do
	[[ -e $root/bin/$applet ]] || ln -s busybox "$root/bin/$applet"
done
mkdir -p "$root"/{dev,proc,sys,tmp,sbin}
install -m 0755 "$agent" "$root/sbin/hb-agent"
# The agent is /init: as pid 1 it mounts what it reads and takes the
# console itself (hb-agent.c, init_setup(); docs/agent-protocol.md).
ln -s sbin/hb-agent "$root/init"
chmod 0755 "$root"

# --- every ELF file in a bin directory can load ------------------------------
# The tree path a tree path leads to, following symlinks (absolute ones
# point into the tree, not the host).
resolve() {
	local p=$1 hops=0 target
	while [[ -L $root/$p ]]; do
		target=$(readlink "$root/$p")
		if [[ $target == /* ]]; then p=${target#/}; else p=$(dirname "$p")/$target; fi
		((++hops < 40)) || return 1
	done
	[[ -f $root/$p ]] && echo "$p"
}
lib_dirs=("lib/$triplet" "usr/lib/$triplet" lib usr/lib)
mapfile -t todo < <(cd "$root" && find bin sbin usr/bin usr/sbin -type f 2>/dev/null | LC_ALL=C sort)
declare -A seen=() libs=()
missing=()
while ((${#todo[@]})); do
	file=${todo[-1]}
	unset 'todo[-1]'
	[[ -v seen[$file] ]] && continue
	seen[$file]=1
	is_elf "$root/$file" || continue
	interp=$("$readelf" -lW "$root/$file" | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
	if [[ $interp ]] && ! resolve "${interp#/}" >/dev/null; then
		missing+=("$interp (interpreter of /$file)")
	fi
	for lib in $("$readelf" -dW "$root/$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
		found=
		for dir in "${lib_dirs[@]}"; do
			found=$(resolve "$dir/$lib") && break
		done
		if [[ $found ]]; then
			libs[$lib]=1
			todo+=("$found")
		else
			missing+=("$lib (needed by /$file)")
		fi
	done
done
((${#missing[@]} == 0)) || die "missing from the tree:$(printf '\n  %s' "${missing[@]}")"
log "NEEDED libraries, all present: $(printf '%s\n' "${!libs[@]}" | LC_ALL=C sort | tr '\n' ' ')"

# --- pack ----------------------------------------------------------------------
# Sorted names, mtime 0, owner root, renumbered inodes, no gzip name/time:
# the archive depends on the inputs only.
find "$root" -exec touch -h -d @0 {} +
(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --reproducible -R 0:0 --quiet) | gzip -9n >"$out.tmp"
# The manifest first: a reader that finds the initramfs finds its manifest.
printf '%s\n' "${manifest[@]}" >"$out.manifest.tmp"
mv -f "$out.manifest.tmp" "$out.manifest"
mv -f "$out.tmp" "$out"
log "wrote $out ($(stat -c %s "$out") bytes, ${#manifest[@]} packages) in $((SECONDS - started)) s"
