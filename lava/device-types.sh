#!/usr/bin/env bash
# lava/device-types.sh: prints the directory of LAVA's own device-type
# templates for the installed lava-common version, fetching them once.
#
# They ship only with lava-server (/usr/share/lava-server/device-types);
# hilbench's device types extend them (base-uboot.jinja2), and rendering a
# device dictionary needs both. Without a server installed, lava-server's
# .deb is downloaded (about 400 KB, not installed) and its templates kept in
# $HILBENCH_CACHE/lava-server/<version>/device-types.
set -euo pipefail

version=$(dpkg-query -W -f '${Version}' lava-common 2>/dev/null) ||
	{ echo "lava/device-types.sh: lava-common is not installed; run 'make deps'" >&2; exit 2; }
types=${HILBENCH_CACHE:-$HOME/.cache/hilbench}/lava-server/$version/device-types
if [[ ! -d $types ]]; then
	work=$(mktemp -d "${TMPDIR:-/tmp}/hb-lava-types.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	echo "lava/device-types.sh: fetching lava-server $version for its device types" >&2
	(cd "$work" && apt-get download -q -o APT::Sandbox::User=root "lava-server=$version" >/dev/null) ||
		{ echo "lava/device-types.sh: cannot download lava-server $version; check apt's sources" >&2; exit 2; }
	dpkg-deb -x "$work"/lava-server_*.deb "$work/lava-server"
	mkdir -p "$(dirname "$types")"
	# A rename within one file system: a concurrent caller sees all or nothing.
	mv "$work/lava-server/usr/share/lava-server/device-types" "$types.$$"
	mv -T "$types.$$" "$types" 2>/dev/null || rm -rf "$types.$$"
fi
echo "$types"
