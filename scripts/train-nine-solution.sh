#!/usr/bin/env bash
# Takes the shipped Nine player (runs/nine at generation 255, models/nine.kvmodel) on
# toward the solution, and the comparison on the same budget:
#
#   scripts/train-nine-solution.sh bank GENERATIONS      exact samples of every phase of the
#                                                        game from the committed bank
#                                                        (docs/results/nine-solve/sample-bank.kvbank),
#                                                        besides everything before
#   scripts/train-nine-solution.sh selfplay GENERATIONS  self-play alone, with the endgame
#                                                        knowledge the shipped run had
#
# Each arm is a copy of the committed runs/nine (runs/nine-ARM) resumed to GENERATIONS in
# all, with a warm restart of the learning rate (0.0003, cosine over the generations to
# come, to 15%); the arms differ only in the bank's samples, so that the hours each takes
# say what the bank buys per hour. Run it again after a stop: the run goes on where it
# stopped (kvarn train --resume), and settings already recorded are not recorded twice.
# docs/results/nine-solution/README.md holds the rule, written before any measurement,
# that decides whether the bank arm's model is shipped.
set -euo pipefail
cd "$(dirname "$0")/.."
arm=${1:?"bank or selfplay"}
until=${2:?"generations in all (the committed run is at 255)"}
run=runs/nine-$arm
kvarn=${KVARN:-target/release/kvarn}
[[ -x $kvarn ]] || cargo build --release -p kvarn --locked
case $arm in
    bank) bank=20000 ;;
    selfplay) bank=0 ;;
    *) echo "unknown arm $arm: bank or selfplay" >&2; exit 2 ;;
esac
if [[ ! -f $run/manifest.json ]]; then
    mkdir -p runs
    cp -a runs/nine "$run"
fi
steps=$(( (until - 255) * 600 ))
"$kvarn" train --resume "$run" --generations "$until" --inexact \
    --set selfplay.exact_bank.path=docs/results/nine-solve/sample-bank.kvbank \
    --set selfplay.exact_bank.samples=$bank \
    --set train.learning_rate=0.0003 \
    --set "train.schedule={kind=\"cosine\", steps=$steps, min_fraction=0.15, start=153000}"
