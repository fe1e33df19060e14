#!/usr/bin/env bash
# Ships a run's model in the repository: the model file, its ONNX export with the model
# card, and the run's summary, CSV, plot and configuration as results.
#
#   scripts/ship-model.sh NAME RUN [GENERATION]
#
# writes models/NAME.kvmodel, models/NAME-onnx/{model.onnx,model-card.json} and
# docs/results/NAME/{summary.md,summary.csv,strength.svg,config.toml}. GENERATION defaults
# to the run's last model. Example: scripts/ship-model.sh nine runs/nine
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $# -lt 2 || $# -gt 3 ]]; then
    echo "usage: $0 NAME RUN [GENERATION]" >&2
    exit 2
fi
name=$1
run=$2
if [[ ! -f "$run/manifest.json" ]]; then
    echo "error: $run holds no run (no manifest.json)" >&2
    exit 1
fi
if [[ $# -eq 3 ]]; then
    model=$(printf '%s/models/gen-%04d.kvmodel' "$run" "$3")
else
    model=$(ls "$run"/models/gen-*.kvmodel | sort | tail -n 1)
fi
if [[ ! -f "$model" ]]; then
    echo "error: no model $model" >&2
    exit 1
fi

kvarn=${KVARN:-target/release/kvarn}
if [[ ! -x "$kvarn" ]]; then
    cargo build --release -p kvarn --locked
fi

mkdir -p models "docs/results/$name"
cp "$model" "models/$name.kvmodel.tmp"
mv "models/$name.kvmodel.tmp" "models/$name.kvmodel"
rm -rf "models/$name-onnx"
"$kvarn" export --format onnx --model "models/$name.kvmodel" --out "models/$name-onnx"
for f in summary.md summary.csv strength.svg config.toml; do
    cp "$run/$f" "docs/results/$name/$f"
done
"$kvarn" model info "models/$name.kvmodel" 2>/dev/null || true
echo "shipped $model as models/$name.kvmodel (+ models/$name-onnx/, docs/results/$name/)"
