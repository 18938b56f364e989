#!/usr/bin/env bash
# tests/timed.sh CMD [ARG...]: runs CMD, then prints "# time: NAME: N s"
# (a TAP comment) and exits with CMD's status. NAME is the command without
# a leading `bash` or make's path.
#
# With HB_CHECK_TIMES naming a file (make check sets it), the line also goes
# there, indented by how many timed.sh runs enclose this one: make check
# prints the file at its end, so a CI log of some 48,000 lines says where
# its minutes went. A part's line follows those of the parts inside it.
set -uo pipefail
(($#)) || { echo "usage: tests/timed.sh CMD [ARG...]" >&2; exit 2; }

case $1 in
bash) name="${*:2}" ;;
make | */make) name="make ${*:2}" ;;
*) name="$*" ;;
esac
depth=${HB_TIMED_DEPTH:-0}
start=$(date +%s)
HB_TIMED_DEPTH=$((depth + 1)) "$@"
rc=$?
took=$(($(date +%s) - start))
line="$name: $took s"
((rc == 0)) || line+=" (exit $rc)"
echo "# time: $line"
if [[ ${HB_CHECK_TIMES:-} ]]; then
	printf '%*s%s\n' $((2 * depth)) '' "$line" >>"$HB_CHECK_TIMES" ||
		echo "timed.sh: cannot append to $HB_CHECK_TIMES (HB_CHECK_TIMES); the time above is not in make check's summary" >&2
fi
exit "$rc"
