#!/usr/bin/env bash
# Kvarn's CPU inference against PyTorch on the reference network (80 inputs, three hidden
# layers of 256, 624 policy and 3 value outputs), measured back to back so that the ratio
# holds on a noisy machine. Needs a Python with torch (PYTHON, default python3), e.g.
#   python3 -m venv /tmp/torch && /tmp/torch/bin/pip install torch numpy
#   PYTHON=/tmp/torch/bin/python scripts/bench-inference.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
SECONDS_PER_BATCH=${SECONDS_PER_BATCH:-2}
cargo build --release -q -p kvarn
torch_out=$("$PYTHON" scripts/torch_reference_mlp.py)
kvarn_out=$(./target/release/kvarn bench infer --variant nine --seconds "$SECONDS_PER_BATCH")
burn_out=$(./target/release/kvarn bench infer --variant nine --seconds "$SECONDS_PER_BATCH" --burn)
echo "$torch_out"
echo "$kvarn_out"
echo "$burn_out"
echo
echo "batch   pytorch   kvarn(cpu-mlp)  ratio   kvarn(burn)  ratio"
paste <(echo "$torch_out" | awk '/^bs/ {print $2+0, $3}') \
      <(echo "$kvarn_out" | awk '/^batch/ {print $3}') \
      <(echo "$burn_out" | awk '/^batch/ {print $3}') |
  awk '{printf "%5d %9d %14d %7.2f %12d %7.2f\n", $1, $2, $3, $3/$2, $4, $4/$2}'
