#!/usr/bin/env python3
"""How a workload's rate settles over a run (docs/measurements.md, "How long
a run must be"): for each workload of a store's pass runs, the spread
between a strategy's repetitions of the mean of the run's first k seconds
(the DUT's iperf3 intervals, the omitted ones left out), in % of the mean,
for k = 1 .. the run's length: pooled over the strategies, or with
--per-strategy a row for each strategy with at least three runs. With
several stores a strategy's runs are grouped per store (each its own
builds), the groups pooled.

usage: tests/bench/convergence.py [--per-strategy] STORE [STORE ...]
  (a store of `hilbench compare --fixed`, whose repetitions share a boot
  unless its plan boots per repetition, or of `hilbench compare`, whose
  repetitions have a boot each)
"""
import json
import math
import sqlite3
import sys


def first_k_mean(rates, secs, k):
    return sum(r * s for r, s in zip(rates[:k], secs[:k])) / sum(secs[:k])


def load(store):
    db = sqlite3.connect(f"{store}/hilbench.db")
    runs = {}
    for rid, workload, strategy in db.execute(
            "SELECT id, workload, strategy FROM runs WHERE class = 'pass'"):
        try:
            with open(f"{store}/runs/{rid}/dut-iperf.json") as f:
                doc = json.load(f)
        except (OSError, ValueError):
            continue
        iv = [i["sum"] for i in doc.get("intervals", []) if not i["sum"].get("omitted")]
        if iv:
            runs.setdefault(workload, {}).setdefault(strategy, []).append(
                ([i["bits_per_second"] for i in iv], [i["seconds"] for i in iv]))
    return runs


def spreads(groups):
    """The pooled spread at k = 1 .. 10 over groups of repetitions."""
    n = min(len(r) for reps in groups for r, _ in reps)
    cells = []
    for k in range(1, min(n, 10) + 1):
        ss, df = 0.0, 0
        for reps in groups:
            vals = [first_k_mean(r, s, k) for r, s in reps]
            if len(vals) < 2:
                continue
            m = sum(vals) / len(vals)
            ss += sum(((v - m) / m * 100) ** 2 for v in vals)
            df += len(vals) - 1
        cells.append(f"{math.sqrt(ss / df):.2f} %" if df else "-")
    return cells


def main(argv):
    per_strategy = len(argv) > 1 and argv[1] == "--per-strategy"
    stores = argv[2:] if per_strategy else argv[1:]
    if not stores:
        sys.exit(__doc__)
    runs = {}
    for store in stores:
        for workload, by_strategy in load(store).items():
            for strategy, reps in by_strategy.items():
                runs.setdefault(workload, {}).setdefault(strategy, {})[store] = reps
    print("| workload | runs | " + " | ".join(f"{k} s" for k in range(1, 11)) + " |")
    print("| --- | --- |" + " --- |" * 10)
    for workload, by_strategy in sorted(runs.items()):
        if per_strategy:
            for strategy, by_store in sorted(by_strategy.items()):
                groups = [reps for reps in by_store.values() if len(reps) >= 3]
                if groups:
                    print(f"| {workload}, {strategy} | {sum(len(g) for g in groups)} | "
                          + " | ".join(spreads(groups)) + " |")
        else:
            groups = [reps for by_store in by_strategy.values() for reps in by_store.values()]
            print(f"| {workload} | {sum(len(g) for g in groups)} | "
                  + " | ".join(spreads(groups)) + " |")


if __name__ == "__main__":
    main(sys.argv)
