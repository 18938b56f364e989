#!/usr/bin/env bash
# tests/check-each.sh: tests/each.sh, which runs make check's unit tests,
# valgrind runs and fuzz targets a core at a time: every file's command
# runs even after a failure, each output comes whole, every failure is
# named and makes the exit status 1, and bad arguments are usage errors.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each prints two lines with a pause between, so that two at once would
# interleave were the outputs not held; b fails.
# shellcheck disable=SC2016 # expanded by sh -c, one file each
two_lines='echo "$0 begins"; sleep 0.1; echo "$0 ends"; [ "$0" != b ]'
rc=0
out=$(bash tests/each.sh 2 sh -c "$two_lines" -- a b c d 2>&1) || rc=$?
fail() { echo "check-each: $1; the output was:" >&2; echo "$out" >&2; exit 1; }
((rc == 1)) || fail "exit $rc where b failed, not 1"
for f in a b c d; do
	grep -A1 -x "$f begins" <<<"$out" | tail -n1 | grep -qx "$f ends" || fail "$f's lines are not together"
done
grep -qx 'each: b failed (exit 1)' <<<"$out" || fail "b's failure is not named after its output"
grep -qx 'each: 1 of 4 failed: b ' <<<"$out" || fail "no summary naming b"
bash tests/each.sh 2 true -- a b || fail "exit $? where every command passed"
for args in "2 -- a" "0 true -- a" "x true -- a" "2 true --" "2 true"; do
	rc=0
	# shellcheck disable=SC2086 # the words are the arguments
	bash tests/each.sh $args 2>/dev/null || rc=$?
	((rc == 2)) || fail "'each.sh $args' exited $rc, not 2 (usage)"
done
echo "check-each: failures named, outputs whole, usage errors: ok"
