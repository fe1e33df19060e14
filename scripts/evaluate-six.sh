#!/usr/bin/env bash
# A Six Men's Morris run's model on the held-out Six benchmark set, as docs/results/six/
# and docs/results/six-ablation/ report it: for each search size in SIMS (default
# "160 800"), value-keeping and value accuracy on the 996 positions and 100 games each
# against the perfect player from drawn and from won critical positions, the player using
# the search of configs/six.toml (best root value, repetitions inside the search drawn,
# each leaf the mean of SYMMETRIES symmetric images, default 16 as its loop.eval_symmetries;
# SYMMETRIES=1 for the position alone, as every report before that key was made; the move
# chosen by MOVE_CHOICE, default lcb as its loop.eval_move_choice, the highest lower
# confidence bound at 2 standard errors; MOVE_CHOICE=visits for the most visited move, as
# every report before that key was made). FPU sets the search's first-play urgency
# reduction (the agent's `fpu`; default: the search's own), for a run trained with
# another `search.fpu_reduction`.
#
#   scripts/evaluate-six.sh RUN [GENERATION]
#
# GENERATION defaults to the run's last model. Writes, for each S:
#   RUN/heldout-S.txt        the report, headed by its command;
#   RUN/misnamed-S.jsonl     the positions whose value the search's estimate misnamed;
#   RUN/thrown-away-S.jsonl  the first value-losing decision of each game not kept.
# Needs the Six databases in DB (default db/six; `kvarn solve --variant six --out db/six`).
set -euo pipefail
cd "$(dirname "$0")/.."
run=${1:?usage: scripts/evaluate-six.sh RUN [GENERATION]}
sims=${SIMS:-160 800}
db=${DB:-db/six}
symmetries=${SYMMETRIES:-16}
move_choice=${MOVE_CHOICE:-lcb}
case $move_choice in
    lcb) choice=",move_choice=lcb,lcb_stdevs=2" ;;
    visits) choice="" ;;
    *) echo "MOVE_CHOICE must be lcb or visits, not $move_choice" >&2; exit 2 ;;
esac
fpu=${FPU:+,fpu=$FPU}
kvarn=${KVARN:-target/release/kvarn}
[[ -x $kvarn ]] || cargo build --release -p kvarn --locked
if [[ -n ${2:-} ]]; then
    model=$run/models/gen-$(printf %04d "$2").kvmodel
else
    model=$(ls "$run"/models/gen-*.kvmodel | sort | tail -1)
fi
[[ -f $model ]] || { echo "no model $model" >&2; exit 2; }
[[ -d $db ]] || { echo "no databases in $db: kvarn solve --variant six --out $db" >&2; exit 2; }

for s in $sims; do
    args=(eval solver --variant six --part heldout
        --agent "net:model=$model,simulations=$s,root_value=best,twofold_draws=true,symmetries=$symmetries$choice$fpu"
        --games-from 100 --db "$db"
        --misnamed "$run/misnamed-$s.jsonl" --thrown-away "$run/thrown-away-$s.jsonl")
    { echo "# kvarn ${args[*]}"; "$kvarn" "${args[@]}"; } >"$run/heldout-$s.tmp"
    mv "$run/heldout-$s.tmp" "$run/heldout-$s.txt"
    grep -E "^all |^from " "$run/heldout-$s.txt"
done
