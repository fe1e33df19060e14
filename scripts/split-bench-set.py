#!/usr/bin/env python3
"""Splits a benchmark set (kvarn-bench-set JSONL) by phase and men on the board, so that an
agent can be scored on one kind of position at a time, e.g. the 3 v 4 flying endgames:

    scripts/split-bench-set.py eval/solver/benchmarks/nine-fly-endgame-heldout.jsonl OUT_DIR
    kvarn eval solver --set OUT_DIR/flying-3v4.jsonl --agent net:model=models/nine.kvmodel,simulations=800

Each part is written as OUT_DIR/PHASE-FEWERvMORE.jsonl (men of the side with fewer first),
with the set's header and a CRC-32 trailer as `kvarn bench-set` writes them, and one line
per part is printed: its name, positions and critical positions.
"""
import collections
import json
import os
import sys
import zlib

from kvarn_jsonl import Refused, read_lines


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, out = sys.argv[1], sys.argv[2]
    try:
        header, body = read_lines(src)
    except (OSError, Refused) as e:
        sys.exit(str(e))
    header, body = header.decode(), [line.decode() for line in body]
    parts = collections.defaultdict(list)
    critical = collections.Counter()
    for line in body:
        p = json.loads(line)
        board = p["position"].split()[0]
        w, b = board.count("W"), board.count("B")
        name = f"{p['phase']}-{min(w, b)}v{max(w, b)}"
        parts[name].append(line)
        if p["value"] != "loss" and len(p["preserving"]) < p["legal"]:
            critical[name] += 1
    os.makedirs(out, exist_ok=True)
    for name in sorted(parts):
        text = header + "\n" + "\n".join(parts[name]) + "\n"
        trailer = json.dumps({"crc32": f"{zlib.crc32(text.encode()):08x}"}, separators=(",", ":"))
        path = os.path.join(out, f"{name}.jsonl")
        with open(path + ".tmp", "w") as f:
            f.write(text + trailer + "\n")
        os.replace(path + ".tmp", path)
        print(f"{name}: {len(parts[name])} positions, {critical[name]} critical -> {path}")


if __name__ == "__main__":
    main()
