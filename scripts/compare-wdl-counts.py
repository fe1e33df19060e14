#!/usr/bin/env python3
"""Compares the units a `kvarn solve --wdl` log reports with a table of counts
(docs/results/nine-solve/reference-counts.csv): won, drawn and lost positions per unit, and
beside them, where the log has them, the longest win and loss in turns to the next removal
against the table's depths (which may be measured otherwise).

    python3 scripts/compare-wdl-counts.py SOLVE_LOG [REFERENCE_CSV] [DIGESTS_CSV]

Prints a Markdown table, one row per unit in the log; exits 1 when a count differs. Also
compares each unit's SHA-256 with the committed digests of a whole solve
(docs/results/nine-solve/table-digests.csv): a rebuild must match them bit for bit.
"""

import csv
import re
import sys

LINE = re.compile(
    r"^(\d+)v(\d+): (\d+) positions, (\d+) won, (\d+) drawn, (\d+) lost;"
    r"(?: longest win (\d+), loss (\d+) turns to the next removal;)? ([\d.]+) s"
    r"(?: \(read from its file\))?(?:; sha256 ([0-9a-f]+))?"
)


def reference(path):
    rows = {}
    with open(path) as f:
        for row in csv.DictReader(line for line in f if not line.startswith("#")):
            rows[(int(row["white"]), int(row["black"]))] = row
    return rows


def digests(path):
    with open(path) as f:
        rows = csv.DictReader(line for line in f if not line.startswith("#"))
        return {(int(r["white"]), int(r["black"])): r["sha256"] for r in rows}


def main():
    log = sys.argv[1]
    ref = reference(sys.argv[2] if len(sys.argv) > 2 else "docs/results/nine-solve/reference-counts.csv")
    known = digests(sys.argv[3] if len(sys.argv) > 3 else "docs/results/nine-solve/table-digests.csv")
    digest_differences = []
    print("| unit | positions | won | drawn | lost | counts against the table | longest win, loss (turns) | the table's depths | seconds (pair) |")
    print("|---|---:|---:|---:|---:|---|---|---|---:|")
    differences = 0
    for line in open(log):
        m = LINE.match(line.strip())
        if not m:
            continue
        w, b, n, won, drawn, lost, lw, ll, secs, digest = m.groups()
        expected = known.get((int(w), int(b)))
        if digest and expected and digest != expected:
            digest_differences.append(f"{w} v {b}")
        r = ref.get((int(w), int(b)))
        verdict, depths = "no row", "–"
        if r:
            same = (won, drawn, lost) == (r["won"], r["drawn"], r["lost"])
            verdict = "same" if same else f"differs: {r['won']}, {r['drawn']}, {r['lost']}"
            differences += not same
            depths = f"{r['longest_win']}, {r['longest_loss']}"
        longest = f"{lw}, {ll}" if lw is not None else "–"
        print(f"| {w} v {b} | {int(n):,} | {int(won):,} | {int(drawn):,} | {int(lost):,} | {verdict} | {longest} | {depths} | {secs} |")
    print(f"\n{differences} units' counts differ from the table")
    print(f"{len(digest_differences)} units' SHA-256 differ from the committed digests {' '.join(digest_differences)}")
    sys.exit(1 if differences or digest_differences else 0)


if __name__ == "__main__":
    main()
