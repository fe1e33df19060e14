#!/usr/bin/env python3
"""Compares the units a `kvarn solve --wdl` log reports with a table of counts
(docs/results/nine-solve/reference-counts.csv): won, drawn and lost positions per unit and,
where the log has them, the longest win and loss in turns to the next removal.

    python3 scripts/compare-wdl-counts.py SOLVE_LOG [REFERENCE_CSV]

Prints a Markdown table, one row per unit in the log; exits 1 on any difference.
"""

import csv
import re
import sys

LINE = re.compile(
    r"^(\d+)v(\d+): (\d+) positions, (\d+) won, (\d+) drawn, (\d+) lost;"
    r"(?: longest win (\d+), loss (\d+) turns to the next removal;)? ([\d.]+) s"
)


def reference(path):
    rows = {}
    with open(path) as f:
        for row in csv.DictReader(line for line in f if not line.startswith("#")):
            rows[(int(row["white"]), int(row["black"]))] = row
    return rows


def main():
    log = sys.argv[1]
    ref = reference(sys.argv[2] if len(sys.argv) > 2 else "docs/results/nine-solve/reference-counts.csv")
    print("| unit | positions | won | drawn | lost | longest win, loss | seconds (pair) | reference |")
    print("|---|---:|---:|---:|---:|---|---:|---|")
    differences = 0
    for line in open(log):
        m = LINE.match(line.strip())
        if not m:
            continue
        w, b, n, won, drawn, lost, lw, ll, secs = m.groups()
        r = ref.get((int(w), int(b)))
        verdict = "no row"
        if r:
            same = (won, drawn, lost) == (r["won"], r["drawn"], r["lost"])
            if lw is not None:
                same = same and (lw, ll) == (r["longest_win"], r["longest_loss"])
            verdict = "same" if same else f"differs: {r['won']}, {r['drawn']}, {r['lost']}, {r['longest_win']}/{r['longest_loss']}"
            differences += not same
        longest = f"{lw}, {ll}" if lw is not None else "–"
        print(f"| {w} v {b} | {int(n):,} | {int(won):,} | {int(drawn):,} | {int(lost):,} | {longest} | {secs} | {verdict} |")
    print(f"\n{differences} units differ from the reference")
    sys.exit(1 if differences else 0)


if __name__ == "__main__":
    main()
