#!/usr/bin/env python3
"""Which benchmark starts each model failed to keep, side by side: reads the
thrown-away-S.jsonl files that scripts/evaluate-six.sh (`kvarn eval solver --thrown-away`)
writes, and prints a Markdown table with one row per start that some model did not keep
(a drawn start lost, a won start not won), one column per file, and how many of the
files lost it. Whether models of different settings lose the same starts or different
ones says whether a setting changes what is learnt or only which seed's gaps show.

    scripts/lost-starts.py [--kind draw|win|all] FILE ...

Each file's column is named by its run folder (and the simulations, when the files
differ in them; and the file's name, where that still leaves two columns alike). The game
number names the start only among files of one benchmark part and game count
(scripts/evaluate-six.sh: the held-out part, 100 games from each value); the files do not
record them, so the script cannot check it, but files of other rules are refused. A file
that is damaged, of another format, or given twice is refused.
"""
import argparse
import json
import os
import re
import signal
import sys

from kvarn_jsonl import Refused, json_object, read_lines

ROW_KEYS = ("start", "game", "decision", "chosen")


def read(path):
    """The header and the records of one thrown-away file, its checksum verified."""
    header_line, row_lines = read_lines(path)
    header = json_object(path, 1, header_line)
    if header.get("format") != "kvarn-thrown-away" or header.get("version") != 1:
        raise Refused(f"{path}: not a kvarn-thrown-away file of version 1")
    records = [json_object(path, n, line) for n, line in enumerate(row_lines, start=2)]
    for n, r in enumerate(records, start=2):
        missing = [k for k in ROW_KEYS if k not in r]
        if missing:
            raise Refused(f"{path}: line {n}: no {', '.join(missing)}")
    return header, records


def simulations(header):
    found = re.search(r"simulations=(\d+)", str(header.get("agent", "")))
    return found.group(1) if found else "?"


def column_names(paths, headers):
    """Run folders, with the simulations where the files differ in them, and the file
    name where two columns would still be alike."""
    runs = [os.path.basename(os.path.dirname(os.path.abspath(p))) for p in paths]
    if len({simulations(h) for h in headers}) > 1:
        runs = [f"{r} ({simulations(h)})" for r, h in zip(runs, headers)]
    if len(set(runs)) < len(runs):
        runs = [f"{r}/{os.path.basename(p)}" for r, p in zip(runs, paths)]
    return runs


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet when piped into head
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", choices=["draw", "win", "all"], default="draw",
                        help="starts of this value (default: draw)")
    parser.add_argument("files", nargs="+", help="thrown-away-S.jsonl files")
    args = parser.parse_args()
    real = [os.path.realpath(p) for p in args.files]
    if len(set(real)) < len(real):
        sys.exit("lost-starts: a file is given twice")
    try:
        loaded = [read(path) for path in args.files]
    except (OSError, Refused) as e:
        sys.exit(f"lost-starts: {e}")
    rules = {json.dumps(h.get("rules"), sort_keys=True) for h, _ in loaded}
    if len(rules) > 1:
        sys.exit(f"lost-starts: the files are of different rules: {' and '.join(sorted(rules))}")
    names = column_names(args.files, [h for h, _ in loaded])

    lost = {}  # (start kind, game) -> {column: first thrown-away record}
    for name, (_, records) in zip(names, loaded):
        for r in records:
            if args.kind in ("all", r["start"]):
                lost.setdefault((str(r["start"]), r["game"]), {})[name] = r
    if not lost:
        print("no start lost by any model")
        return

    print("| start | " + " | ".join(names) + " | lost by |")
    print("|---|" + "---:|" * len(names) + "---:|")
    for (kind, game), by in sorted(lost.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        cells = [f"{by[n]['decision']}: {by[n]['chosen']}" if n in by else "" for n in names]
        print(f"| {kind} {game} | " + " | ".join(cells) + f" | {len(by)} of {len(names)} |")
    print()
    print("Each cell: the decision (0: at the start) that first threw the value away, and the move.")


if __name__ == "__main__":
    main()
