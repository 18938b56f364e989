#!/usr/bin/env bash
# The main job both ways, on the same warm cache (make bench; numbers, not
# a test): `hilbench compare --fixed` (every strategy `repetitions` times,
# booted as the plan's `boots:` says, one at a time) and `hilbench compare` (the default
# plan's `repeat: until-decided`), the latter twice: first with
# --fresh-reference (the reference measured too, as on a store without
# it), then as a nightly job runs it, the reference's runs of the first
# reused (run/planner.h). Prints the wall times, the ratios, and per
# strategy, workload and metric whether the verdicts agree: the fixed
# plan's runs judged by `hilbench gate` over its stored session (one look,
# the same thresholds and alpha) against the verdicts each new plan printed.
# BENCH_PLAN=NAME|FILE: another plan with a gate section (default: default).
# BENCH_STORE=DIR: keep the store there (default: a temp dir, removed).
# BENCH_JOBS=N: the new plan's --jobs (default: one board per free core).
set -euo pipefail
cd "$(dirname "$0")/.."
HB=$PWD/build/hilbench
PLAN=${BENCH_PLAN:-default}
export HILBENCH_STORE
if [ -n "${BENCH_STORE:-}" ]; then
	HILBENCH_STORE=$BENCH_STORE
	mkdir -p "$HILBENCH_STORE"
else
	HILBENCH_STORE=$(mktemp -d /tmp/hb-bench-main.XXXXXX)
	trap 'rm -rf "$HILBENCH_STORE"' EXIT
fi
# The new plan first: it builds every strategy before its first run (a
# cold cache shows there), and the fixed plan after it finds them cached.

run() {	# NAME ARGS...: the compare's output into NAME.out, its seconds into NAME.s,
	# its progress lines into NAME.log, each after the second it came at
	local name=$1 t0=$SECONDS
	shift
	{ "$HB" compare "$PLAN" "$@" 2>&1 >"$HILBENCH_STORE/$name.out" ||
		echo "bench: compare $* exited $? (runs that did not pass are in the report)" >&2; } |
		while IFS= read -r line; do echo "$((SECONDS - t0)) $line"; done >"$HILBENCH_STORE/$name.log"
	echo $((SECONDS - t0)) >"$HILBENCH_STORE/$name.s"
}
# How far the ETA was off at the middle of the plan: the first progress
# line at half the runs done, its "about M min S s left" against the time
# the plan really took from there.
eta_check() {	# NAME
	local total=$(($(cat "$HILBENCH_STORE/$1.s")))
	awk -v total="$total" '
		match($0, /\[[0-9]+\/[0-9]+ runs, about [0-9]+ (min [0-9]+ )?s left\]/) {
			split(substr($0, RSTART + 1), f, /[\/ ]/)
			done[NR] = f[1]; of[NR] = f[2]; at[NR] = $1
			t = substr($0, RSTART, RLENGTH); m = 0; s = 0
			if (t ~ /min/) { sub(/.*about /, "", t); m = t + 0; sub(/^[0-9]+ min /, "", t); s = t + 0 }
			else { sub(/.*about /, "", t); s = t + 0 }
			eta[NR] = 60 * m + s; last = f[2]
		}
		END {
			for (i = 1; i <= NR; i++) if ((i in done) && done[i] >= last / 2) {
				real = total - at[i]
				printf "at run %d of %d (%d s in): ETA %d s, took %d s more (%+.0f %%)\n",
					done[i], last, at[i], eta[i], real, real ? (eta[i] - real) * 100 / real : 0
				exit
			}
			print "no progress line past the middle"
		}' "$HILBENCH_STORE/$1.log"
}
run planned --fresh-reference ${BENCH_JOBS:+--jobs "$BENCH_JOBS"}
run fixed --fixed
run reused ${BENCH_JOBS:+--jobs "$BENCH_JOBS"}
session=$(sed -n 's/^hilbench compare: session \([^ ]*\) .*/\1/p' "$HILBENCH_STORE/fixed.out")

# A new plan's verdicts against the fixed plan's: the rows "| S | W | M |
# r/c | outcome | ..." of its report's "how many runs it took"
# (analyze/decisions.h); prints "AGREE TOTAL FIXED_OPEN THIS_OPEN OPPOSITE"
# last: of the cells that differ, those the fixed plan left inconclusive,
# those this plan did, and those both decided otherwise (the fixed plan's
# three runs leave some cells open in one bench and decide them in the
# next: docs/measurements.md, "The ETA of a cell still open").
verdicts() {	# NAME
	local agree=0 total=0 fixed_open=0 this_open=0 opposite=0
	local strategy workload metric runs outcome fixed
	while IFS='|' read -r _ strategy workload metric runs outcome _; do
		strategy=$(xargs <<<"$strategy") workload=$(xargs <<<"$workload")
		metric=$(xargs <<<"$metric") outcome=$(xargs <<<"$outcome")
		[ -n "$strategy" ] && [ "$workload" != - ] || continue
		# the gate exits 1 or 125 for a regression or an open verdict: its line counts
		fixed=$({ "$HB" gate --plan "$PLAN" --workloads "$workload" \
			--reference "session=$session,strategy=baseline" \
			--candidate "session=$session,strategy=$strategy" 2>/dev/null || true; } |
			awk -v m="$metric" '$2 == m { print $NF; exit }')
		total=$((total + 1))
		if [ "$fixed" = "$outcome" ]; then
			agree=$((agree + 1))
		else
			case "$fixed,$outcome" in
			inconclusive,*) fixed_open=$((fixed_open + 1)) ;;
			*,inconclusive) this_open=$((this_open + 1)) ;;
			*) opposite=$((opposite + 1)) ;;
			esac
			echo "bench: $1: verdicts differ: $strategy $workload $metric: fixed ${fixed:-none}, planned $outcome ($(xargs <<<"$runs") runs)" >&2
		fi
	done < <(sed -n '/^== how many runs it took ==/,/^Each decision/p' "$HILBENCH_STORE/$1.out" |
		grep '^| [a-z]' | grep -v '^| strategy')
	echo "$agree $total $fixed_open $this_open $opposite"
}
# The runs the clock rules or the infrastructure voided: each was retried,
# and each costs the plan a run (docs/faults.md).
errors() {	# NAME
	echo "$(grep -c 'error: run [^ ]*: error:' "$HILBENCH_STORE/$1.log" || true) run(s) error, retried"
}
ratio() {	# A B: A / B
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? a / b : 0 }'
}
fixed_s=$(cat "$HILBENCH_STORE/fixed.s")
echo "bench: main job, fixed plan ($PLAN, --fixed): ${fixed_s} s"
for name in planned reused; do
	s=$(cat "$HILBENCH_STORE/$name.s")
	read -r agree total fixed_open this_open opposite < <(verdicts "$name")
	what=$([ "$name" = planned ] && echo "reference measured (--fresh-reference)" ||
		echo "reference reused from the first")
	echo "bench: main job, runs until decided, $what: ${s} s, fixed / this $(ratio "$fixed_s" "$s"); verdicts: $agree of $total agree with the fixed plan's; of the rest, $fixed_open left open by the fixed plan, $this_open by this one, $opposite decided otherwise"
	echo "bench: ETA, $name: $(eta_check "$name")"
	grep -h '^[0-9]* runs, [0-9]* builds' "$HILBENCH_STORE/$name.out" | sed "s/^/bench: $name: /" || true
	echo "bench: $name: $(errors "$name")"
done
echo "bench: ETA, fixed plan: $(eta_check fixed)"
echo "bench: fixed: $(errors fixed)"
