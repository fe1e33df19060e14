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
#   scripts/train-nine-solution.sh wide GENERATIONS      the bank arm's generation 439 widened
#                                                        to 416 (the widest under 4 MB), with
#                                                        the placing bank beside the bank
#                                                        (docs/results/nine-solve/placing-bank.kvbank),
#                                                        a new run (runs/nine-wide) with the
#                                                        bank arm's settings, self-play in int8
#   scripts/train-nine-solution.sh tables GENERATIONS    the wide arm's generation 90 on, with
#                                                        the moving phase's win/draw/loss tables
#                                                        (db/nine-wdl, scripts/solve-nine.sh) in
#                                                        self-play: games end as the placing
#                                                        phase does, with the tables' value, and
#                                                        its searches see exact leaves (a new
#                                                        run, runs/nine-tables)
#   scripts/train-nine-solution.sh onward GENERATIONS    the comparison: the wide arm's
#                                                        generation 90 on without them
#                                                        (runs/nine-onward)
#   scripts/train-nine-solution.sh mixed GENERATIONS     the tables arm's generation 40 on,
#                                                        with the tables in half of the games
#                                                        only: the others play the moving
#                                                        phase by search (runs/nine-mixed)
#
# Each of the first two arms is a copy of the committed runs/nine (runs/nine-ARM) resumed
# to GENERATIONS in all, with a warm restart of the learning rate (0.0003, cosine over the
# generations to come, to 15%); the arms differ only in the bank's samples, so that the
# hours each takes say what the bank buys per hour. Run it again after a stop: the run goes on where it
# stopped (kvarn train --resume), and settings already recorded are not recorded twice.
# docs/results/nine-solution/README.md holds the rule, written before any measurement,
# that decides whether the bank arm's model is shipped.
set -euo pipefail
cd "$(dirname "$0")/.."
arm=${1:?"bank, selfplay, wide, tables, onward or mixed"}
until=${2:?"generations in all (the committed run is at 255)"}
run=runs/nine-$arm
kvarn=${KVARN:-target/release/kvarn}
[[ -x $kvarn ]] || cargo build --release -p kvarn --locked
# The wide arm: a new run from the bank arm's last model, widened, with the settings the
# bank arm's manifest had in force at generation 439 (its configuration and amendments)
# and both banks; run it again after a stop to go on.
wide() {
    local until=$1 run=runs/nine-wide init=target/nine-439-w416.kvmodel
    if [[ -f $run/manifest.json ]]; then
        "$kvarn" train --resume "$run" --generations "$until"
        return
    fi
    mkdir -p target
    "$kvarn" model widen runs/nine-bank/models/gen-0439.kvmodel --hidden 416 --out "$init"
    "$kvarn" train --config runs/nine-bank/config.toml --init "$init" --out "$run" \
        --generations "$until" \
        --set network.hidden=416 \
        --set selfplay.endgame.exact_samples=50000 --set train.window_samples=800000 \
        --set selfplay.random_starts.share=0.5 --set selfplay.endgame.decisive_starts=0.8 \
        --set selfplay.endgame.decisive_min_turns=1 --set loop.evaluate_every=5 \
        --set solver.max_men=5 --set selfplay.random_starts.max_men=5 \
        --set selfplay.exact_bank.path=docs/results/nine-solve/sample-bank.kvbank \
        --set 'selfplay.exact_bank.also=["docs/results/nine-solve/placing-bank.kvbank"]' \
        --set selfplay.exact_bank.samples=20000 \
        --set 'selfplay.precision="int8"' \
        --set train.learning_rate=0.0003 \
        --set "train.schedule={kind=\"cosine\", steps=$((until * 600)), min_fraction=0.15}"
}

# The tables arm and its comparison: new runs from the wide arm's generation 90 with its
# settings and a warm restart (0.0002, cosine over the generations to 15%); the tables arm
# adds the whole-game tables and leaves out what they would end at once (random endgame
# starts, games played on past the tables).
onward() {
    local arm=$1 until=$2 run=runs/nine-$1
    if [[ -f $run/manifest.json ]]; then
        "$kvarn" train --resume "$run" --generations "$until"
        return
    fi
    local extra=()
    if [[ $arm == tables ]]; then
        extra=(--set solver.whole_game_db=db/nine-wdl --set selfplay.random_starts.share=0
            --set selfplay.endgame.play_out_share=0 --set selfplay.endgame.decisive_starts=0)
    fi
    "$kvarn" train --config runs/nine-wide/config.toml \
        --init runs/nine-wide/models/gen-0090.kvmodel --out "$run" --generations "$until" \
        --set train.learning_rate=0.0002 \
        --set "train.schedule={kind=\"cosine\", steps=$((until * 600)), min_fraction=0.15}" \
        "${extra[@]}"
}

# The mixed arm: a new run from the tables arm's last model with its settings, the tables
# in half of the games (selfplay.endgame.whole_game_share) and a warm restart (0.00015,
# cosine over the generations to 15%).
mixed() {
    local until=$1 run=runs/nine-mixed
    if [[ -f $run/manifest.json ]]; then
        "$kvarn" train --resume "$run" --generations "$until"
        return
    fi
    "$kvarn" train --config runs/nine-tables/config.toml \
        --init runs/nine-tables/models/gen-0040.kvmodel --out "$run" --generations "$until" \
        --set selfplay.endgame.whole_game_share=0.5 \
        --set train.learning_rate=0.00015 \
        --set "train.schedule={kind=\"cosine\", steps=$((until * 600)), min_fraction=0.15}"
}

case $arm in
    tables | onward) onward "$arm" "$until"; exit ;;
    mixed) mixed "$until"; exit ;;
    bank) bank=20000 ;;
    selfplay) bank=0 ;;
    wide) wide "$until"; exit ;;
    *) echo "unknown arm $arm: bank, selfplay, wide, tables, onward or mixed" >&2; exit 2 ;;
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
