#!/usr/bin/env bash
# Does the Nine network lack samples or capacity? Trains the bank arm's last model
# (runs/nine-bank, generation 439) on the committed bank almost alone, at its own width
# or widened (function-preserving, `kvarn model widen`), and scores each generation on
# the bank's own rows (what it trains on) and on the held-out whole-game set (what it
# does not):
#
#   scripts/fit-nine-bank.sh train WIDTH GENERATIONS   runs/nine-fit-WIDTH, one core
#                                                      (run two widths side by side)
#   scripts/fit-nine-bank.sh score WIDTH GENERATION    the raw network of that generation
#                                                      on both sets, a line
#
# Each generation: 100,000 bank samples (evenly over placing, moving, flying and
# removals), 32 self-play games, 600 steps of 512 at a constant learning rate of 0.0003;
# no endgame samples, no evaluation. Run `train` again after a stop to go on.
# docs/results/nine-solution/README.md ("Samples or capacity?") reports what it gave.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:?"train or score"}
width=${2:?"the hidden width: 384, or more to widen"}
kvarn=${KVARN:-target/release/kvarn}
[[ -x $kvarn ]] || cargo build --release -p kvarn --locked
run=runs/nine-fit-$width
bank=docs/results/nine-solve/sample-bank.kvbank
bank_set=target/nine-bank-set.jsonl

case $what in
train)
    until=${3:?"generations in all"}
    export RAYON_NUM_THREADS=1
    if [[ -f $run/manifest.json ]]; then
        exec "$kvarn" train --resume "$run" --generations "$until"
    fi
    init=runs/nine-bank/models/gen-0439.kvmodel
    if [[ $width != 384 ]]; then
        mkdir -p target
        "$kvarn" model widen "$init" --hidden "$width" --out "target/nine-439-w$width.kvmodel"
        init=target/nine-439-w$width.kvmodel
    fi
    exec "$kvarn" train --config runs/nine-bank/config.toml --init "$init" --out "$run" \
        --generations "$until" \
        --set network.hidden="$width" \
        --set loop.games_per_generation=32 --set selfplay.threads=1 \
        --set selfplay.games_per_thread=32 \
        --set selfplay.exact_bank.path="$bank" --set selfplay.exact_bank.samples=100000 \
        --set selfplay.endgame.exact_samples=0 \
        --set train.learning_rate=0.0003 --set 'train.schedule={kind="constant"}' \
        --set train.window_samples=1000000 --set loop.evaluate_every=1000 \
        --set 'selfplay.precision="int8"'
    ;;
score)
    generation=$(printf %04d "${3:?"the generation to score"}")
    model=$run/models/gen-$generation.kvmodel
    if [[ $width == 384 && $generation == 0000 ]]; then
        model=runs/nine-bank/models/gen-0439.kvmodel
    fi
    [[ -f $bank_set ]] || "$kvarn" sample-bank --check "$bank" --as-set "$bank_set" >/dev/null
    agent=net:model=$model,simulations=1,precision=f32
    # The first table's rows by phase: value accuracy (column 3) and critical keeping
    # (column 7).
    table() {
        awk '$1 ~ /^(all|placing|moving|flying|removal)$/ && n < 5 {n++; printf " %s %s/%s", $1, $3, $7}'
    }
    echo "$model: bank (trained on)$("$kvarn" eval solver --set "$bank_set" --agent "$agent" | table);" \
        "held-out$("$kvarn" eval solver --variant nine --whole --agent "$agent" | table)"
    ;;
*)
    echo "unknown $what: train or score" >&2
    exit 2
    ;;
esac
