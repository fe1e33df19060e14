#!/usr/bin/env bash
# Trains the Nine Men's Morris player the way models/nine.kvmodel was made: configs/nine.toml
# for 150 generations, then three stages that resume the run with changed settings
# (`kvarn train --resume RUN --set ...`, recorded in the run's manifest and summary):
#
#   151-200  exact samples: 50,000 positions a generation drawn from the endgame databases
#            with their exact values and value-keeping moves; half the games from random
#            3- and 4-men starts, 80% of those decisive (a win or loss at least 5 turns
#            from the end); a warm restart of the learning rate (0.0007), decaying on a
#            cosine from step 90,000 over 30,000 steps to 15%.
#
#   201-230  the same, but the decisive share may end at any distance from the end
#            (decisive_min_turns 1: the 3 v 4 flying draws it misjudged are lost by one
#            move in 4 turns); a warm restart at 0.0004, cosine from step 120,000 over
#            18,000 steps to 15%.
#
#   231-255  the endgame databases to 5 men a side (3 v 5, 4 v 5, 5 v 5; solved by the run
#            the first time, about 3 minutes and 0.5 GB), for the probes, the random starts
#            and the exact samples alike; a warm restart at 0.0004, cosine from step
#            138,000 over 15,000 steps to 15%.
#
#   scripts/train-nine.sh [RUN]        (default RUN: runs/nine)
#
# Run it again after a stop: each stage goes on where it stopped, and settings already
# recorded are not recorded twice. The committed runs/nine is the run at its last
# generation (255) without its self-play games, so a further stage goes on from it with the
# replay window starting from what exists (--inexact, recorded in the manifest). The
# shipped run took 143 minutes on 2 cores: 47 for the 150 generations of configs/nine.toml
# on the fast machine of docs/results/speed.md, then 44, 28 and 24 for the three stages on
# machines 4 to 7 times slower (kvarn bench train --variant nine --batches 512: 40-83 steps/s
# against 300).
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
    "$kvarn" train --resume "$run" --generations "$until" --inexact "$@"
}

if [[ ! -f $run/manifest.json ]]; then
    "$kvarn" train --config configs/nine.toml --out "$run"
fi
stage 150
stage 200 \
    --set selfplay.endgame.exact_samples=50000 \
    --set train.window_samples=800000 \
    --set selfplay.random_starts.share=0.5 \
    --set selfplay.endgame.decisive_starts=0.8 \
    --set selfplay.endgame.decisive_min_turns=5 \
    --set train.learning_rate=0.0007 \
    --set 'train.schedule={kind="cosine", steps=30000, min_fraction=0.15, start=90000}' \
    --set loop.evaluate_every=5
stage 230 \
    --set selfplay.endgame.decisive_min_turns=1 \
    --set train.learning_rate=0.0004 \
    --set 'train.schedule={kind="cosine", steps=18000, min_fraction=0.15, start=120000}'
stage 255 \
    --set solver.max_men=5 \
    --set selfplay.random_starts.max_men=5 \
    --set train.learning_rate=0.0004 \
    --set 'train.schedule={kind="cosine", steps=15000, min_fraction=0.15, start=138000}'
