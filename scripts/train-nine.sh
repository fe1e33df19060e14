#!/usr/bin/env bash
# Trains the Nine Men's Morris player the way models/nine.kvmodel was made: configs/nine.toml
# for 150 generations, then four stages that resume the run with changed settings
# (`kvarn train --resume RUN --set ...`, recorded in the run's manifest and summary):
#
#   151-170  decisive starts: half the random 3- and 4-men starts are drawn again until
#            the databases call them a win or loss at least 9 turns from the end;
#   171-200  a warm restart: half the games from random starts, 80% of those decisive
#            (5 turns or more), a constant learning rate of 0.0007;
#   201-250  the learning rate decays again, on a cosine from step 120,000 over 30,000 steps.
#   251-280  exact samples: 50,000 positions a generation drawn from the databases with
#            their exact values and value-keeping moves; a warm restart of the learning
#            rate (0.0007), decaying on a cosine from step 150,000 over 18,000 steps.
#
#   scripts/train-nine.sh [RUN]        (default RUN: runs/nine)
#
# Run it again after a stop: each stage goes on where it stopped, and settings already
# recorded are not recorded twice. The shipped run took 184 minutes on 2 cores, on three
# machines of different speeds (the 150 generations of configs/nine.toml 47 minutes on
# the fastest; the stages 9-125 s a generation on slower ones).
set -euo pipefail
cd "$(dirname "$0")/.."
run=${1:-runs/nine}
kvarn=${KVARN:-target/release/kvarn}
[[ -x $kvarn ]] || cargo build --release -p kvarn --locked

# stage UNTIL [--set KEY=VALUE ...]: resumes the run until generation UNTIL with the
# settings. A run already at UNTIL is left as it is and records nothing, so a finished
# stage's settings are never applied again after a later stage's.
stage() {
    local until=$1
    shift
    "$kvarn" train --resume "$run" --generations "$until" "$@"
}

if [[ ! -f $run/manifest.json ]]; then
    "$kvarn" train --config configs/nine.toml --out "$run"
fi
stage 150
stage 170 \
    --set selfplay.endgame.decisive_starts=0.5 \
    --set selfplay.endgame.decisive_min_turns=9
stage 200 \
    --set selfplay.random_starts.share=0.5 \
    --set selfplay.endgame.decisive_starts=0.8 \
    --set selfplay.endgame.decisive_min_turns=5 \
    --set train.learning_rate=0.0007 \
    --set 'train.schedule={kind="constant"}' \
    --set loop.evaluate_every=5
stage 250 \
    --set 'train.schedule={kind="cosine", steps=30000, min_fraction=0.15, start=120000}'
stage 280 \
    --set selfplay.endgame.exact_samples=50000 \
    --set train.window_samples=800000 \
    --set 'train.schedule={kind="cosine", steps=18000, min_fraction=0.15, start=150000}'
