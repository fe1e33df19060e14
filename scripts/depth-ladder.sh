#!/usr/bin/env bash
# Plays the alpha-beta baseline at several depths against each other and prints one line a
# pair: deeper should score better. Usage:
#   scripts/depth-ladder.sh [variant] [games per pair] [depths...]
#   scripts/depth-ladder.sh nine 100 2 4 6 8
set -euo pipefail
cd "$(dirname "$0")/.."
variant=${1:-nine}
games=${2:-100}
shift $(( $# > 2 ? 2 : $# ))
depths=("${@:-2 4 6 8}")
read -r -a depths <<< "${depths[*]}"
cargo build --release -q -p kvarn
out=runs/ladder-$variant
mkdir -p "$out"
for ((i = 0; i < ${#depths[@]}; i++)); do
    for ((j = i + 1; j < ${#depths[@]}; j++)); do
        a=${depths[j]} b=${depths[i]}
        echo "== depth $a vs depth $b, $games games of $variant"
        ./target/release/kvarn match --variant "$variant" --games "$games" --opening-plies 4 \
            --a "alphabeta:depth=$a" --b "alphabeta:depth=$b" --out "$out/d$a-vs-d$b.jsonl" --overwrite \
            | grep -v '^alphabeta:depth=[0-9]* vs'
    done
done
