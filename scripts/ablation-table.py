#!/usr/bin/env python3
"""Tabulates an ablation made by scripts/ablate-six.sh: one row per variant, each figure
the mean over its seeds with the lowest and highest seed in brackets.

    scripts/ablation-table.py OUT [VARIANT ...]   (default: every variant in OUT, by name)

Tuning figures come from the runs' summary.csv (the run's benchmark subset of the
committed tuning set), averaged over the last LAST evaluated generations (default 5) of each run;
held-out figures from OUT/NAME-sSEED/heldout.txt (the final model on the held-out set).
Variants are chosen on the tuning columns and reported on the held-out ones.
"""
import csv
import os
import re
import statistics
import sys

LAST = int(os.environ.get("LAST", "5"))


def tuning(run):
    with open(os.path.join(run, "summary.csv")) as f:
        # Only evaluated generations (loop.evaluate_every may skip some).
        rows = [r for r in csv.DictReader(f) if r.get("solver/value_accuracy")][-LAST:]

    def mean(col):
        vals = [float(r[col]) for r in rows if r.get(col)]
        return statistics.mean(vals) if vals else None

    def games(kind, good):
        n = sum(int(r[f"eval/{k}_vs_perfect_from_{kind}"]) for r in rows for k in ("wins", "draws", "losses"))
        g = sum(int(r[f"eval/{k}_vs_perfect_from_{kind}"]) for r in rows for k in good)
        return g / n if n else None

    return {
        "tuning critical": mean("solver/critical_value_keeping_moves"),
        "tuning value accuracy": mean("solver/value_accuracy"),
        "tuning drawn held": games("drawn", ("wins", "draws")),
        "tuning won won": games("won", ("wins",)),
    }


def heldout(run):
    out = {}
    with open(os.path.join(run, "heldout.txt")) as f:
        for line in f:
            cols = line.split()
            if cols and cols[0] in ("all", "placing", "moving", "removal", "flying") and len(cols) >= 9:
                pct = lambda s: float(s.rstrip("%")) / 100 if s.endswith("%") else None
                if cols[0] == "all":
                    out["value accuracy"] = pct(cols[2])
                out[f"critical {cols[0]}"] = pct(cols[6])
            m = re.match(r"from (\d+) (Draw|Win) critical positions .*: (held|won) (\d+)", line)
            if m:
                key = "drawn held" if m.group(2) == "Draw" else "won won"
                out[key] = int(m.group(4)) / int(m.group(1))
    return out


def minutes(run):
    with open(os.path.join(run, "summary.md")) as f:
        m = re.search(r"total time: ([\d.]+) min", f.read())
    return float(m.group(1)) if m else None


TABLES = [
    (
        "Tuning set (choosing): the runs' own figures over their last generations",
        [
            ("tuning critical", "critical value-keeping"),
            ("tuning value accuracy", "value accuracy"),
            ("tuning drawn held", "draws held vs perfect"),
            ("tuning won won", "wins won vs perfect"),
            ("minutes", "run minutes"),
        ],
    ),
    (
        "Held-out set (reporting): the final model",
        [
            ("critical all", "critical value-keeping"),
            ("critical placing", "placing"),
            ("critical moving", "moving"),
            ("critical removal", "removal"),
            ("value accuracy", "value accuracy"),
            ("drawn held", "draws held vs perfect"),
            ("won won", "wins won vs perfect"),
        ],
    ),
]


def cell(vals, key):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "n/a"
    f = (lambda v: f"{v:.1f}") if key == "minutes" else (lambda v: f"{100 * v:.1f}%")
    if len(vals) == 1:
        return f(vals[0])
    return f"{f(statistics.mean(vals))} ({f(min(vals))}–{f(max(vals))})"


def main():
    out = sys.argv[1]
    runs = {}
    for d in sorted(os.listdir(out)):
        m = re.fullmatch(r"(.+)-s(\d+)", d)
        path = os.path.join(out, d)
        if m and os.path.isfile(os.path.join(path, "heldout.txt")):
            runs.setdefault(m.group(1), []).append(path)
    names = sys.argv[2:] or sorted(runs)
    figures = {}
    for name in names:
        figures[name] = []
        for run in runs.get(name, []):
            f = tuning(run) | heldout(run)
            f["minutes"] = minutes(run)
            figures[name].append(f)
    for title, columns in TABLES:
        print(f"{title}:\n")
        print("| variant | seeds | " + " | ".join(label for _, label in columns) + " |")
        print("|---|---:|" + "---:|" * len(columns))
        for name in names:
            cells = [cell([f.get(k) for f in figures[name]], k) for k, _ in columns]
            print(f"| {name} | {len(figures[name])} | " + " | ".join(cells) + " |")
        print()


main()
