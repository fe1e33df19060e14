#!/usr/bin/env python3
"""The critical positions of a benchmark set where a model's search throws the value away,
with the move it chose, its search's win/draw/loss and the moves that keep the value.

    scripts/list-misses.py MODEL SET.jsonl [SIMULATIONS]

MODEL plays through `kvarn engine --model MODEL` (`go nodes SIMULATIONS`, default 800, no
database probes), so the choices are those `kvarn eval solver --set SET.jsonl --agent
net:model=MODEL,simulations=SIMULATIONS` scores. KVARN names the binary (default
target/release/kvarn). The win/draw/loss is per mille for the player to move.
"""
import json
import os
import subprocess
import sys


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    model, path = sys.argv[1], sys.argv[2]
    nodes = int(sys.argv[3]) if len(sys.argv) == 4 else 800
    kvarn = os.environ.get("KVARN", "target/release/kvarn")
    with open(path) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    rules = lines[0].get("rules", {})
    variant = rules.get("variant", "nine")
    cmd = [kvarn, "engine", "--model", model, "--variant", variant]
    engine = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    critical = misses = 0
    for row in lines[1:]:
        keep = row.get("preserving")
        if keep is None or len(keep) == row["legal"]:
            continue
        critical += 1
        move, wdl = search(engine, row["position"], nodes)
        if move in keep:
            continue
        misses += 1
        shown = " ".join(keep[:6]) + (" ..." if len(keep) > 6 else "")
        print(
            f"{row['position']}  {row['value']} (in {row.get('distance', 0)} turns)  "
            f"chose {move}, wdl {wdl}; {len(keep)} of {row['legal']} keep it: {shown}"
        )
    engine.stdin.write("quit\n")
    engine.stdin.close()
    engine.wait()
    print(f"{misses} misses of {critical} critical positions")


def search(engine, position, nodes):
    """The engine's move and its last `wdl` for the position."""
    engine.stdin.write(f"position fen {position}\ngo nodes {nodes}\n")
    engine.stdin.flush()
    wdl = "?"
    for line in engine.stdout:
        if line.startswith("info") and " wdl " in line:
            wdl = " ".join(line.split(" wdl ")[1].split()[:3])
        if line.startswith("bestmove"):
            return line.split()[1], wdl
    sys.exit("the engine stopped before answering")


if __name__ == "__main__":
    main()
