#!/usr/bin/env bash
# Nine Men's Morris's exact judge rebuilt from nothing, in one sitting on one machine:
# builds Kvarn, solves the whole moving phase (3 v 3 to 9 v 9, flying on) into
# win/draw/loss tables, checks 3 million random positions of every unit against their
# moves, compares every unit's counts with the published table and its SHA-256 with the
# committed digests, proves the start position's value with the placing search, checks
# that the perfect player wins 1,000 won positions against itself and the baseline, and
# rebuilds the committed whole-game benchmark set and banks of exact samples (each
# compared byte for byte). Resumable: run it again after a stop; a stage whose log says
# it finished is not run again.
#
#   scripts/solve-nine.sh [TABLES_DIR] [RESULTS_DIR]
#
# TABLES_DIR (default db/nine-wdl) takes about 3 GB; RESULTS_DIR (default
# docs/results/nine-solve) gets the logs that are committed: solve.log (a line a unit:
# counts, longest win and loss, seconds, SHA-256 of the table), counts.md, start.txt,
# convert.txt, whole-set.log, sample-bank.log and placing-bank.log.
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
# Whether a stage's log ends with its last line, so that a second run skips it.
finished() { [ -f "$1" ] && grep -q "$2" "$1"; }

if ! finished "$results/solve.log" "Exit status: 0"; then
    "${timed[@]}" "$kvarn" solve --variant nine --wdl --max-men 9 --out "$tables" \
        --verify 3100000 2>&1 | tee "$results/solve.log"
fi
python3 scripts/compare-wdl-counts.py "$results/solve.log" | tee "$results/counts.md"
if ! finished "$results/start.txt" "Exit status: 0"; then
    "${timed[@]}" "$kvarn" probe --variant nine --db "$tables" --hash 4096 startpos 2>&1 |
        tee "$results/start.txt"
fi
if ! finished "$results/convert.txt" "Exit status: 0"; then
    "${timed[@]}" "$kvarn" eval convert --variant nine --db "$tables" --positions 1000 2>&1 |
        tee "$results/convert.txt"
fi

# The whole-game benchmark set and the bank of exact samples, drawn again from the same
# seeds: each must equal the committed one.
rebuilt=target/nine-solve-rebuilt
mkdir -p "$rebuilt"
if ! finished "$results/whole-set.log" "equals the committed one"; then
    "$kvarn" bench-set --variant nine --db "$tables" --n 9900 --placing 2700 --placing-from 5 \
        --min-critical 2100 \
        --seed 61 --out "$rebuilt/nine-fly-whole-tuning.jsonl" \
        --heldout "$rebuilt/nine-fly-whole-heldout.jsonl" 2>&1 | tee "$results/whole-set.log"
    for part in tuning heldout; do
        cmp "$rebuilt/nine-fly-whole-$part.jsonl" "eval/solver/benchmarks/nine-fly-whole-$part.jsonl"
    done
    echo "the whole-game set rebuilt equals the committed one" | tee -a "$results/whole-set.log"
fi
if ! finished "$results/sample-bank.log" "equals the committed one"; then
    "${timed[@]}" "$kvarn" sample-bank --variant nine --db "$tables" --placing 13000 \
        --placing-from 5 --placing-limit 0 --moving 600000 --removals 100000 --seed 63 \
        --out "$rebuilt/sample-bank.kvbank" 2>&1 | tee "$results/sample-bank.log"
    cmp "$rebuilt/sample-bank.kvbank" docs/results/nine-solve/sample-bank.kvbank
    echo "the bank rebuilt equals the committed one" | tee -a "$results/sample-bank.log"
fi
if ! finished "$results/placing-bank.log" "equals the committed one"; then
    "${timed[@]}" "$kvarn" sample-bank --variant nine --db "$tables" --placing 16000 \
        --placing-from 5 --placing-limit 0 --moving 0 --removals 0 --seed 64 --hash 8192 \
        --beside docs/results/nine-solve/sample-bank.kvbank \
        --out "$rebuilt/placing-bank.kvbank" 2>&1 | tee "$results/placing-bank.log"
    cmp "$rebuilt/placing-bank.kvbank" docs/results/nine-solve/placing-bank.kvbank
    echo "the placing bank rebuilt equals the committed one" | tee -a "$results/placing-bank.log"
fi
