#!/usr/bin/env python3
"""Resamples stored runs through the gate's sequential procedure.

usage: tests/gate-sim.py [--floor PCT] [--change-runs N] [--reference-runs N]
                         [--workload W --metric M --threshold PCT] STORE...
       tests/gate-sim.py [options] --values FILE

--values FILE takes the runs from FILE instead, a line "STRATEGY VALUE"
each: values no store keeps, such as a window of a run other than the
plan's (docs/measurements.md, "TCP DUT-TX's window").

Takes every pass run of WORKLOAD (tcp-dut-tx) in virtual time from the
stores' hilbench.db that had its boot to itself for that workload (a
repetition of compare's planned sessions, not --fixed's runs sharing a
boot), and for each strategy but the reference draws, with replacement,
the reference's runs and the candidate's one at a time through the
decision of analyze/gate.c (gate_decide(): Welch, or a prediction
interval for one run, each side's variance raised to the floor; looks at
alpha / the most looks; plans/default.yaml's no-change pass rule), as
plans/default.yaml runs it: N reference runs (6 unless --reference-runs
says; the looks, and so each look's alpha, follow N), one candidate run,
then one more while open, up to six. With --futility F an open look
also ends inconclusive when the chance that the cap decides is below F
(analyze/gate.c, gate_decide_chance(); docs/gate.md, "Futility"), as
plans/default.yaml's 0.1 does; without it no look is futile. The
reference's runs past N once the candidate has as many are not
modelled, so the runs counted are those a decision takes without them. Prints per
strategy how often each verdict came and the mean candidate runs.

Needs python3-scipy (Debian). An analysis aid for docs/gate.md, not a
test of the product: tests/unit/test_gate.c tests the C code.
"""
import argparse
import collections
import math
import random
import sqlite3

from scipy import stats

ap = argparse.ArgumentParser()
ap.add_argument("--floor", type=float, default=0, help="spread_floor_pct")
ap.add_argument("--change-runs", type=int, default=1, help="change_repetitions")
ap.add_argument("--reference-runs", type=int, default=6, help="the reference's runs, 2 to 6")
ap.add_argument("--workload", default="tcp-dut-tx")
ap.add_argument("--metric", default="mbps")
ap.add_argument("--threshold", type=float, default=10)
ap.add_argument("--reference", default="baseline")
ap.add_argument("--draws", type=int, default=2000)
ap.add_argument("--futility", type=float, default=0, help="the plan's futility, 0 for none")
ap.add_argument("--values", help="a file of 'STRATEGY VALUE' lines instead of stores")
ap.add_argument("stores", nargs="*")
a = ap.parse_args()

ALPHA, NREF, FIRST, CAP = 0.05, a.reference_runs, 1, 6
if not 2 <= NREF <= CAP:
    ap.error(f"--reference-runs {NREF}: give 2 to {CAP}")
LOOK_ALPHA = ALPHA / ((CAP - NREF) + (CAP - FIRST) + 1)

if bool(a.values) == bool(a.stores):
    ap.error("give STORE... or --values FILE, one of them")
runs = collections.defaultdict(list)
if a.values:
    with open(a.values) as f:
        for number, line in enumerate(f, 1):
            words = line.split()
            if not words:
                continue
            try:
                strategy, value = words
                runs[strategy].append(float(value))
            except ValueError:
                ap.error(f"{a.values}:{number}: want 'STRATEGY VALUE', got {line.strip()!r}")
for store in a.stores:
    db = sqlite3.connect(f"file:{store}/hilbench.db?mode=ro", uri=True)
    q = """select r.strategy, m.value from runs r join metrics m on m.run_id = r.id
           where r.workload = ? and m.name = ? and r.class = 'pass' and r.timing = 'virtual'
             and (select count(*) from runs o where o.boot_id = r.boot_id
                  and o.workload = r.workload) = 1"""
    for strategy, value in db.execute(q, (a.workload, a.metric)):
        runs[strategy].append(value)


def mean_var(x):
    m = sum(x) / len(x)
    return m, (sum((y - m) ** 2 for y in x) / (len(x) - 1) if len(x) > 1 else math.nan)


def decide(ref, cand):
    mr, vr = mean_var(ref)
    mc, vc = mean_var(cand)
    floor = (a.floor / 100 * abs(mr)) ** 2
    if len(ref) > 1:
        vr = max(vr, floor)
    if len(cand) > 1:
        vc = max(vc, floor)
    d = mc - mr
    if len(ref) > 1 and len(cand) > 1:
        x, y = vc / len(cand), vr / len(ref)
        se2 = x + y
        df = se2 * se2 / (x * x / (len(cand) - 1) + y * y / (len(ref) - 1)) if se2 else math.nan
    else:
        v = vr if len(ref) > 1 else vc
        se2 = v * (1 / len(ref) + 1 / len(cand))
        df = (len(ref) if len(ref) > 1 else len(cand)) - 1
    if se2 == 0:
        lo = hi = d
        p = 1 if d == 0 else 0
    else:
        se = math.sqrt(se2)
        q = stats.t.ppf(1 - LOOK_ALPHA / 2, df)
        lo, hi, p = d - q * se, d + q * se, 2 * stats.t.sf(abs(d) / se, df)
    scale = 100 / abs(mr)
    if p < LOOK_ALPHA and abs(d * scale) >= a.threshold:
        if len(ref) >= a.change_runs and len(cand) >= a.change_runs:
            return "improved" if d > 0 else "REGRESSED"
    elif lo * scale > -a.threshold and hi * scale < a.threshold:
        return "pass"
    return "open"


def between(lo, hi, mean, sd):
    """P(lo <= X < hi) for X ~ N(mean, sd^2)."""
    if not lo < hi:
        return 0
    if sd == 0:
        return 1 if lo <= mean < hi else 0
    return stats.norm.cdf(hi, mean, sd) - stats.norm.cdf(lo, mean, sd)


def at_cap_var(n, v):
    """The variance of a side's mean at the cap, n runs of it so far."""
    if n >= CAP:
        return 0
    rest = CAP - n
    return (rest / CAP) ** 2 * v / n + rest * v / CAP ** 2


def decide_chance(ref, cand):
    """gate_decide_chance(), PASS_NO_CHANGE, higher is better."""
    if len(ref) + len(cand) < 3:
        return math.nan
    mr, vr = mean_var(ref)
    mc, vc = mean_var(cand)
    ss = (vr * (len(ref) - 1) if len(ref) > 1 else 0) + (vc * (len(cand) - 1) if len(cand) > 1 else 0)
    v = max(ss / (len(ref) + len(cand) - 2), (a.floor / 100 * abs(mr)) ** 2)
    scale = 100 / abs(mr)
    gain = (mc - mr) * scale
    sd = math.sqrt(at_cap_var(len(ref), v) + at_cap_var(len(cand), v)) * scale
    hw = stats.t.ppf(1 - LOOK_ALPHA / 2, 2 * CAP - 2) * math.sqrt(2 * v / CAP) * scale
    change = max(a.threshold, hw)
    inner = max(0, a.threshold - hw)
    return 1 - (between(inner, change, gain, sd) + between(-change, -inner, gain, sd))


def one(strategy):
    ref = random.choices(runs[a.reference], k=NREF)
    cand = random.choices(runs[strategy], k=FIRST)
    while True:
        outcome = decide(ref, cand)
        if outcome != "open":
            return outcome, len(cand)
        if len(cand) >= CAP or decide_chance(ref, cand) < a.futility:
            return "inconclusive", len(cand)
        cand.append(random.choice(runs[strategy]))


random.seed(1)
print(f"{a.values or a.workload + ' ' + a.metric}: threshold {a.threshold} %, futility {a.futility}, floor {a.floor} %, a change on {a.change_runs} run(s); "
      f"runs per strategy: " + ", ".join(f"{s} {len(v)}" for s, v in sorted(runs.items())))
total = 0.0
for strategy in sorted(runs):
    if strategy == a.reference:
        continue
    seen, taken = collections.Counter(), 0
    for _ in range(a.draws):
        outcome, n = one(strategy)
        seen[outcome] += 1
        taken += n
    total += taken / a.draws
    print(f"  {strategy:20s} runs {taken / a.draws:4.2f}  " +
          "  ".join(f"{k} {100 * v / a.draws:4.1f} %" for k, v in sorted(seen.items())))
print(f"  candidate runs, all strategies: {total:.1f}")
