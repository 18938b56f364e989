#!/usr/bin/env bash
# tests/fuzz/check-one.sh SECONDS BUILD TARGET: make fuzz-check's run of one
# libFuzzer target for SECONDS on its seed corpus, BUILD/fuzz/corpus/<name>
# (the second directory: libFuzzer writes what it discovers to the first, a
# temporary one, thrown away). A crash, leak or sanitizer report fails it
# and leaves the input as BUILD/fuzz/<name>-crash-* (the log's last lines
# are printed; the whole is BUILD/fuzz/<name>.log); a pass prints a line of
# its stats.
set -uo pipefail
(($# == 3)) || { echo "usage: tests/fuzz/check-one.sh SECONDS BUILD TARGET" >&2; exit 2; }
secs=$1 b=$2 target=$3
name=${target##*/fuzz_}
log=$b/fuzz/$name.log
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
if ! "$target" -max_total_time="$secs" -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$b/fuzz/$name-" "$tmp" "$b/fuzz/corpus/$name" >"$log" 2>&1; then
	tail -n 40 "$log"
	echo "fuzz: $name failed; reproduce with $target $b/fuzz/$name-<crash|leak|timeout|oom>-*" >&2
	exit 1
fi
stat() { awk -v k="stat::$1:" '$1 == k { print $2 }' "$log"; }
echo "fuzz: $name: $(stat number_of_executed_units) runs in $secs s, $(stat average_exec_per_sec)/s, ok"
