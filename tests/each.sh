#!/usr/bin/env bash
# tests/each.sh JOBS CMD [ARG...] -- FILE...: runs `CMD ARG... FILE` for
# every FILE, JOBS at a time (make check's unit tests, valgrind and fuzz
# targets: single-threaded processes, one a core). Each one's output is
# printed whole when it ends, never two interleaved; FILEs start in their
# order. Exits 1 after naming every FILE whose command failed, 0 if none.
set -uo pipefail
usage() { echo "usage: tests/each.sh JOBS CMD [ARG...] -- FILE..." >&2; exit 2; }
if (($# < 3)) || ! [[ $1 =~ ^[1-9][0-9]*$ ]]; then usage; fi
jobs=$1
shift
cmd=()
while (($#)) && [[ $1 != -- ]]; do cmd+=("$1"); shift; done
if (($# < 2)) || ((${#cmd[@]} == 0)); then usage; fi
shift

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/failed"
# One FILE: its output to a file, then printed under a lock; a failure
# noted. Exit 0 for xargs, which would stop at a 255.
one() {
	local tmp=$1 out rc
	shift
	out=$(mktemp "$tmp/out.XXXXXX") || return 1
	"$@" >"$out" 2>&1
	rc=$?
	{
		flock 9
		cat "$out"
		if ((rc)); then
			echo "each: ${*: -1} failed (exit $rc)"
			echo "${*: -1}" >>"$tmp/failed"
		fi
	} 9>"$tmp/lock"
	rm -f "$out"
}
export -f one
printf '%s\0' "$@" | xargs -0 -n1 -P "$jobs" bash -c 'one "$@"' one "$tmp" "${cmd[@]}" || exit 1
if [[ -s $tmp/failed ]]; then
	echo "each: $(wc -l <"$tmp/failed") of $# failed: $(tr '\n' ' ' <"$tmp/failed")" >&2
	exit 1
fi
