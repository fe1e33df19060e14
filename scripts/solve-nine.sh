#!/usr/bin/env bash
# Nine Men's Morris's exact judge rebuilt from nothing, in one sitting on one machine:
# builds Kvarn, solves the whole moving phase (3 v 3 to 9 v 9, flying on) into
# win/draw/loss tables, checks 3 million random positions of every unit against their
# moves, compares every unit's counts with the published table and its SHA-256 with the
# committed digests, proves the start position's value with the placing search, and
# rebuilds the committed whole-game benchmark set (compared byte for byte). Resumable: run
# it again after a stop.
#
#   scripts/solve-nine.sh [TABLES_DIR] [RESULTS_DIR]
#
# TABLES_DIR (default db/nine-wdl) takes about 3 GB; RESULTS_DIR (default
# docs/results/nine-solve) gets the logs that are committed: solve.log (a line a unit:
# counts, longest win and loss, seconds, SHA-256 of the table), counts.md, start.txt and
# whole-set.log.
set -euo pipefail
cd "$(dirname "$0")/.."
tables=${1:-db/nine-wdl}
results=${2:-docs/results/nine-solve}
mkdir -p "$results"

cargo build --release --locked -p kvarn
kvarn=target/release/kvarn
timed=()
if [ -x /usr/bin/time ]; then
    timed=(/usr/bin/time -v)
fi
"${timed[@]}" "$kvarn" solve --variant nine --wdl --max-men 9 --out "$tables" \
    --verify 3100000 2>&1 | tee "$results/solve.log"
python3 scripts/compare-wdl-counts.py "$results/solve.log" | tee "$results/counts.md"
"${timed[@]}" "$kvarn" probe --variant nine --db "$tables" --hash 4096 startpos 2>&1 |
    tee "$results/start.txt"

# The whole-game benchmark set, drawn again from the same seed: it must equal the
# committed one (eval/solver/benchmarks/nine-fly-whole-*.jsonl).
rebuilt=$(mktemp -d)
"$kvarn" bench-set --variant nine --db "$tables" --n 9900 --placing 2700 --placing-from 5 \
    --min-critical 2100 \
    --seed 61 --out "$rebuilt/nine-fly-whole-tuning.jsonl" \
    --heldout "$rebuilt/nine-fly-whole-heldout.jsonl" 2>&1 | tee "$results/whole-set.log"
for part in tuning heldout; do
    cmp "$rebuilt/nine-fly-whole-$part.jsonl" "eval/solver/benchmarks/nine-fly-whole-$part.jsonl"
done
echo "the whole-game set rebuilt equals the committed one" | tee -a "$results/whole-set.log"
