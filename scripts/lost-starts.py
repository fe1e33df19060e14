#!/usr/bin/env python3
"""Which benchmark starts each model failed to keep, side by side: reads the
thrown-away-S.jsonl files that scripts/evaluate-six.sh (`kvarn eval solver --thrown-away`)
writes, and prints a Markdown table with one row per start that some model did not keep
(a drawn start lost, a won start not won), one column per file, and how many of the
files lost it. Whether models of different settings lose the same starts or different
ones says whether a setting changes what is learnt or only which seed's gaps show.

    scripts/lost-starts.py [--kind draw|win|all] FILE ...

Each file's column is named by its run folder (and the simulations, when the files
differ in them). The game number names the start only among files of one benchmark part
and game count (scripts/evaluate-six.sh: the held-out part, 100 games from each value);
the files do not record them, so the script cannot check it. A file that is damaged or of
another format is refused.
"""
import argparse
import json
import os
import re
import signal
import sys
import zlib


class Refused(Exception):
    pass


def read(path):
    """The header and the records of one thrown-away file, its checksum verified."""
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    lines = [line for line in lines if line]
    if len(lines) < 2:
        raise Refused(f"{path}: too short to hold a header and a checksum")
    try:
        header = json.loads(lines[0])
        trailer = json.loads(lines[-1])
    except json.JSONDecodeError as e:
        raise Refused(f"{path}: not JSON lines ({e})")
    if header.get("format") != "kvarn-thrown-away" or header.get("version") != 1:
        raise Refused(f"{path}: not a kvarn-thrown-away file of version 1")
    body = b"".join(line + b"\n" for line in lines[:-1])
    if f"{zlib.crc32(body):08x}" != trailer.get("crc32"):
        raise Refused(f"{path}: checksum does not match its contents (damaged or edited)")
    return header, [json.loads(line) for line in lines[1:-1]]


def column_name(path, header, names_sims):
    run = os.path.basename(os.path.dirname(os.path.abspath(path)))
    if not names_sims:
        return run
    sims = re.search(r"simulations=(\d+)", header.get("agent", ""))
    return f"{run} ({sims.group(1) if sims else '?'})"


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet when piped into head
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", choices=["draw", "win", "all"], default="draw",
                        help="starts of this value (default: draw)")
    parser.add_argument("files", nargs="+", help="thrown-away-S.jsonl files")
    args = parser.parse_args()
    try:
        loaded = [(path, *read(path)) for path in args.files]
    except (OSError, Refused) as e:
        sys.exit(f"lost-starts: {e}")
    sims = {re.search(r"simulations=(\d+)", h.get("agent", "")) for _, h, _ in loaded}
    names_sims = len({m.group(1) if m else None for m in sims}) > 1
    names = [column_name(path, header, names_sims) for path, header, _ in loaded]

    lost = {}  # (start kind, game) -> {column: first thrown-away record}
    for name, (_, _, records) in zip(names, loaded):
        for r in records:
            if args.kind in ("all", r["start"]):
                lost.setdefault((r["start"], r["game"]), {})[name] = r
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
