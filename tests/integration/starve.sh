#!/usr/bin/env bash
# Starvation test (issue 15, docs/faults.md "A host that falls behind"): the
# default plan's workloads on baseline, first on a quiet host, then with
# every host core kept busy by stress-ng. Under starvation a pass run must
# lie within the gate's virtual-time threshold (plans/gate.yaml) of the
# quiet runs' mean; every other run must be class error (infrastructure,
# retried on a fresh boot), never a number off by more and never blamed on
# the DUT (fail).
#
# `make check-starve`, not in make check: it loads every core for 10-40
# minutes. Run it as root (QEMU's network namespace) on an otherwise quiet
# machine, with PSI (/proc/pressure/cpu; a kernel booted with psi=0 has
# none); it installs stress-ng from Debian when it is missing:
#     make check-starve                          # REPS=3 repetitions a side
set -uo pipefail
cd "$(dirname "$0")/../.."
HB=$PWD/build/hilbench
REPS=${REPS:-3}
root=$(mktemp -d /tmp/hb-starve.XXXXXX)
export HB_TEST_ROOT=$root HILBENCH_STORE=$root
source tests/integration/lib.sh

if ! command -v stress-ng >/dev/null; then
	echo "starve: installing stress-ng"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q stress-ng ||
		{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q stress-ng; } ||
		{ echo "starve: cannot install stress-ng (apt-get install stress-ng)" >&2; exit 2; }
fi
if [ ! -r /proc/pressure/cpu ]; then
	echo "no /proc/pressure/cpu: without PSI hilbench cannot tell a starved host (boot with psi=1)" >&2
	exit 2
fi

# plan STORE LOG: the default plan's workloads, baseline only
plan() {
	HILBENCH_STORE=$1 $HB run plans/default.yaml --strategies baseline --repeat "$REPS" \
		>"$2" 2>&1
}

plan "$root/quiet" "$root/quiet.log"
rc=$?
check "the quiet plan passes (exit $rc; log $root/quiet.log)" [ $rc = 0 ]

stress-ng --cpu "$(nproc)" --timeout 7200 >"$root/stress.log" 2>&1 &
stress=$!
trap 'kill "$stress" 2>/dev/null; wait "$stress" 2>/dev/null' EXIT
sleep 5
check "stress-ng keeps every core busy" kill -0 "$stress"
plan "$root/starved" "$root/starved.log"
rc=$?
kill "$stress"
wait "$stress" 2>/dev/null
trap - EXIT
check "the starved plan ends with 0 or 125 (exit $rc; log $root/starved.log)" \
	test "$rc" = 0 -o "$rc" = 125
check "no QEMU or tap of this test left" host_is_clean

# The verdicts, per run, from both stores and the gate's own thresholds.
out=$(python3 - "$root/quiet/hilbench.db" "$root/starved/hilbench.db" <<'PY'
import sqlite3, statistics, sys, yaml

gate = yaml.safe_load(open("plans/gate.yaml"))["gate"]["metrics"]
quiet, starved = (sqlite3.connect(p) for p in sys.argv[1:3])

def workload_file(workload):
    return yaml.safe_load(open(f"workloads/{workload}.yaml"))

def judged(workload):
    """(metric, threshold %) the gate judges this workload on, in virtual
    time: its protocol, direction and profiler (analyze/gate.c
    gate_metric_applies), where the metric has a virtual-time threshold
    (a metric may be judged in real time only: config/plan.c)"""
    w = workload_file(workload)
    return [(m["metric"], m["threshold_pct"]["virtual"]) for m in gate
            if "virtual" in m["threshold_pct"]
            and m.get("protocol", "any") in ("any", w["protocol"])
            and m.get("direction", "any") in ("any", w["direction"])
            and m.get("profile", "any") in ("any", w.get("profile", "none"))]

def value(db, run, metric):
    row = db.execute("SELECT value FROM metrics WHERE run_id=? AND name=?", (run, metric)).fetchone()
    return row and row[0]

def passes(db, workload):
    return [r for (r,) in db.execute(
        "SELECT id FROM runs WHERE class='pass' AND workload=?", (workload,))]

bad = 0
for workload in sorted({w for (w,) in starved.execute("SELECT workload FROM runs")}):
    for metric, thr in judged(workload):
        qv = [value(quiet, r, metric) for r in passes(quiet, workload)]
        qv = [v for v in qv if v is not None]
        if not qv:
            print(f"not ok - {workload} {metric}: no quiet reference")
            bad += 1
            continue
        ref = statistics.mean(qv)
        spread = max(abs(v - ref) / ref * 100 for v in qv)
        ok = spread <= thr
        bad += not ok
        print(f"{'ok' if ok else 'not ok'} - {workload} {metric}: quiet runs within "
              f"{spread:.3f} % of their mean {ref:.6g} (threshold {thr} %)")
        for run in passes(starved, workload):
            v = value(starved, run, metric)
            idle = value(starved, run, "dut_idle_per_host_s")
            psi = value(starved, run, "host_cpu_pressure_pct")
            dev = (v - ref) / ref * 100
            ok = abs(dev) <= thr
            bad += not ok
            print(f"{'ok' if ok else 'not ok'} - starved pass {run} {workload} {metric} = "
                  f"{v:.6g} ({dev:+.3f} %, threshold {thr} %; DUT idle {idle} s per host s, "
                  f"host CPU pressure {psi} %)")
for run, workload, cls, reason in starved.execute(
        "SELECT id, workload, class, reason FROM runs WHERE class != 'pass'"):
    ok = cls == "error"
    bad += not ok
    print(f"{'ok' if ok else 'not ok'} - starved {cls} {run} {workload}: {reason}")
n = starved.execute("SELECT count(*) FROM runs WHERE class='pass'").fetchone()[0]
print(f"# starved: {n} pass runs")
sys.exit(1 if bad else 0)
PY
)
rc=$?
echo "$out"
check "every starved run is within the quiet threshold or error-class" [ $rc = 0 ]

echo "# $pass passed, $fail failed (stores under $root)"
[ "$fail" = 0 ]
