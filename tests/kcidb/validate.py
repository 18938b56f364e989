#!/usr/bin/env python3
"""Validate a hilbench KCIDB export: kcidb-io's own JSON schema (vendored in
this directory, README.md says from which release), no nulls anywhere (KCIDB
forbids them), and every checkout_id/build_id pointing at an object in the
same report.
usage: validate.py REPORT.json; exit 0 valid, 1 invalid (reasons on stderr)."""
import json
import os
import sys

import jsonschema

def nulls(node, where="$"):
    if node is None:
        yield where
    elif isinstance(node, dict):
        for k, v in node.items():
            yield from nulls(v, f"{where}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from nulls(v, f"{where}[{i}]")

def main():
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "kcidb-io-v5.3.schema.json")) as f:
        schema = json.load(f)
    with open(sys.argv[1]) as f:
        report = json.load(f)
    problems = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
                for e in jsonschema.Draft7Validator(
                    schema, format_checker=jsonschema.FormatChecker()).iter_errors(report)]
    problems += [f"{w}: null (KCIDB has no nulls)" for w in nulls(report)]
    checkouts = {c["id"] for c in report.get("checkouts", [])}
    builds = {b["id"] for b in report.get("builds", [])}
    problems += [f"build {b['id']}: checkout {b['checkout_id']} not in the report"
                 for b in report.get("builds", []) if b.get("checkout_id") not in checkouts]
    problems += [f"test {t['id']}: build {t['build_id']} not in the report"
                 for t in report.get("tests", []) if t.get("build_id") not in builds]
    for p in problems:
        print(f"kcidb: {sys.argv[1]}: {p}", file=sys.stderr)
    return 1 if problems else 0

if __name__ == "__main__":
    sys.exit(main())
