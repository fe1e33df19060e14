#!/usr/bin/env bash
# An ablation on Six Men's Morris: each named variant of a base configuration trained with
# each seed, then its final model judged on the held-out Six benchmark set.
#
#   scripts/ablate-six.sh OUT "SEEDS" NAME="KEY=VALUE KEY=VALUE" ...
#
# e.g. scripts/ablate-six.sh runs/ablation "1 2 3" base= openings="selfplay.random_opening_plies=8"
#
# Each run goes to OUT/NAME-sSEED (trained with `kvarn train --config $BASE --set seed=SEED
# --set KEY=VALUE ...`; a finished run is kept, a stopped one resumed), and its final model
# is scored with `kvarn eval solver --part heldout` at EVAL_SIMS simulations (default 96),
# plus GAMES_FROM games (default 100) against the perfect player from drawn and from won
# critical held-out positions: OUT/NAME-sSEED/heldout.txt; AGENT_OPTIONS (e.g.
# ",twofold_draws=true") adds search options to that player. Every evaluated generation of
# every run also plays games from tuning positions (solver.games_from_positions=20).
# `scripts/ablation-table.py OUT` then tabulates the runs.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$1
seeds=$2
shift 2
base=${BASE:-configs/quickstart.toml}
eval_sims=${EVAL_SIMS:-96}
games_from=${GAMES_FROM:-100}
agent_options=${AGENT_OPTIONS:-}
kvarn=${KVARN:-target/release/kvarn}
[[ -x $kvarn ]] || cargo build --release -p kvarn --locked
mkdir -p "$out"
# Seeds outermost, so that a stopped ablation has every variant at its first seeds.
for seed in $seeds; do
    for variant in "$@"; do
        name=${variant%%=*}
        settings=${variant#*=}
        dir=$out/$name-s$seed
        if [[ ! -f $dir/manifest.json ]]; then
            sets=(--set "seed=$seed" --set "solver.games_from_positions=20")
            for kv in $settings; do sets+=(--set "$kv"); done
            echo "== $name seed $seed: ${sets[*]}"
            "$kvarn" train --config "$base" --out "$dir" "${sets[@]}" >"$dir.log" 2>&1 \
                || { echo "failed: see $dir.log"; exit 1; }
        elif ! grep -q "run now, in" "$dir.log"; then
            echo "== $name seed $seed: resumed"
            "$kvarn" train --resume "$dir" >>"$dir.log" 2>&1 || { echo "failed: see $dir.log"; exit 1; }
        fi
        if [[ ! -f $dir/heldout.txt ]]; then
            model=$(ls "$dir"/models/gen-*.kvmodel | sort | tail -1)
            "$kvarn" eval solver --variant six --part heldout \
                --agent "net:model=$model,simulations=$eval_sims$agent_options" \
                --games-from "$games_from" --db db/six >"$dir/heldout.tmp"
            mv "$dir/heldout.tmp" "$dir/heldout.txt"
            grep -E "^all|^from" "$dir/heldout.txt"
        fi
    done
done
