#!/usr/bin/env bash
# tests/man-pages.sh HILBENCH (in make check-unit): the manual pages
# (docs/man/*.scd) and the program say the same. The pages are written by
# hand, so this is what keeps them from drifting:
#  - every command `hilbench --help` lists has hilbench-CMD.1.scd, hilbench.1
#    names it, and there is no page of a command that does not exist;
#  - the options (--word) of `hilbench CMD --help` and of its page are the
#    same set, and so are `hilbench --help`'s and hilbench.1's;
#  - every key of a data file (the .key = "..." of harness/src/config/*.c)
#    is in hilbench-files.5.scd, in bold (*key*).
set -euo pipefail
cd "$(dirname "$0")/.."
hb=$(realpath "${1:-build/hilbench}")
man=docs/man
fail=0
bad() { echo "man-pages: $*" >&2; fail=1; }
opts() { { grep -o -- '--[a-z][a-z0-9-]*' || true; } | sort -u; }

cmds=$("$hb" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }' |
	grep -vx help)
[[ $cmds ]] || bad "no commands in $hb --help"
for c in $cmds; do
	page=$man/hilbench-$c.1.scd
	if [[ ! -f $page ]]; then
		bad "$c: no manual page $page (write one; hilbench help $c opens it)"
		continue
	fi
	grep -q "^hilbench-$c(1)\$" "$page" || bad "$page: its first line is not hilbench-$c(1)"
	grep -qF "*hilbench-$c*(1)" $man/hilbench.1.scd || bad "hilbench.1.scd does not name *hilbench-$c*(1)"
	help=$("$hb" "$c" --help 2>&1 | opts)
	doc=$(opts <"$page")
	if [[ $help != "$doc" ]]; then
		bad "$c: options of \`hilbench $c --help\` (<) and of $page (>) differ:"
		diff <(echo "$help") <(echo "$doc") >&2 || true
	fi
done
for page in $man/hilbench-*.1.scd; do
	c=${page#"$man"/hilbench-}
	c=${c%.1.scd}
	grep -qx "$c" <<<"$cmds" || bad "$page: hilbench has no command '$c'"
done
help=$("$hb" --help | opts)
doc=$(opts <$man/hilbench.1.scd)
[[ $help == "$doc" ]] || {
	bad "the options of \`hilbench --help\` (<) and of hilbench.1.scd (>) differ:"
	diff <(echo "$help") <(echo "$doc") >&2 || true
}

keys=$(sed -n 's/.*\.key = "\([a-z_]*\)".*/\1/p' harness/src/config/*.c | sort -u)
for k in $keys; do
	grep -qF "*$k*" $man/hilbench-files.5.scd || bad "hilbench-files.5.scd does not describe the key *$k*"
done
((fail == 0)) || exit 1
echo "man-pages: $(wc -w <<<"$cmds") commands, each page's options as its --help's; $(wc -w <<<"$keys") file keys in hilbench-files(5)"
