#!/usr/bin/env bash
# tests/check-times.sh: tests/timed.sh, which times make check's parts:
# the command's exit status comes back, each part's line follows the lines
# of the parts inside it, indented by depth, and a failing part says so.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HB_CHECK_TIMES=$tmp/times
# make check runs this inside a timed.sh of its own: start at depth 0
unset HB_TIMED_DEPTH

out=$(bash tests/timed.sh bash -c 'bash tests/timed.sh true; bash tests/timed.sh bash -c "exit 3"; exit 0')
# Seconds vary: N stands for them.
secs() { sed -E 's/: [0-9]+ s/: N s/'; }
want_file=$'  true: N s\n  -c exit 3: N s (exit 3)\n-c bash tests/timed.sh true; bash tests/timed.sh bash -c "exit 3"; exit 0: N s'
[[ $(secs <"$HB_CHECK_TIMES") == "$want_file" ]] ||
	{ echo "check-times: $HB_CHECK_TIMES reads:" >&2; cat "$HB_CHECK_TIMES" >&2; exit 1; }
secs <<<"$out" | grep -qx '# time: -c exit 3: N s (exit 3)' ||
	{ echo "check-times: no '# time:' line for the failing part in: $out" >&2; exit 1; }

rc=0
HB_CHECK_TIMES='' bash tests/timed.sh bash -c 'exit 7' >/dev/null || rc=$?
((rc == 7)) || { echo "check-times: timed.sh exited $rc for a command that exited 7" >&2; exit 1; }
bash tests/timed.sh >/dev/null 2>&1 && { echo "check-times: no command was not a usage error" >&2; exit 1; }
echo "check-times: exit status, nesting and the failing part's line: ok"
