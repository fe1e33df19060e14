#!/usr/bin/env bash
# The shipped Nine player's measurements, as docs/results/nine/ reports them:
#   1. GAMES_200 games (default 100) against alphabeta:movetime=200 at 200 ms a move each;
#   2. GAMES_1000 games (default 20) against alphabeta:movetime=1000 at 1000 ms a move;
#   3. the held-out Nine endgame set at 800 simulations, without database probes;
#   4. how far past 200 ms its timed moves run (1000 positions).
# One thread per side, no more games at once than cores, varied openings (2 random plies,
# each opening played with colours swapped). Each part writes its output to
# OUT/<part>.txt (default OUT: docs/results/nine/evaluation) and the match records beside.
#
#   scripts/evaluate-nine.sh [MODEL] [OUT] [PARTS]
#
# PARTS is any of "match200 match1000 endgame movetime" (default all).
set -euo pipefail
cd "$(dirname "$0")/.."
model=${1:-models/nine.kvmodel}
out=${2:-docs/results/nine/evaluation}
parts=${3:-match200 match1000 endgame movetime}
games_200=${GAMES_200:-100}
games_1000=${GAMES_1000:-20}
kvarn=${KVARN:-target/release/kvarn}
[[ -x $kvarn ]] || cargo build --release -p kvarn --locked
mkdir -p "$out"
net="net:model=$model"

for part in $parts; do
    case $part in
    match200 | match1000)
        ms=${part#match}
        games=$([[ $ms == 200 ]] && echo "$games_200" || echo "$games_1000")
        "$kvarn" match --variant nine --a "$net,movetime=$ms" --b "alphabeta:movetime=$ms,threads=1" \
            --games "$games" --seed 2026 --out "$out/$part-games.jsonl" --overwrite \
            | tee "$out/$part.txt"
        ;;
    endgame)
        "$kvarn" eval solver --variant nine --part heldout --agent "$net,simulations=800" \
            | tee "$out/endgame.txt"
        ;;
    movetime)
        "$kvarn" bench movetime --variant nine --agent "$net" --movetime 200 --positions 1000 \
            | tee "$out/movetime.txt"
        ;;
    *)
        echo "unknown part $part (match200 match1000 endgame movetime)" >&2
        exit 2
        ;;
    esac
done
