#!/usr/bin/env bash
# Kvarn's CPU inference against PyTorch on the reference network (80 inputs, three hidden
# layers of 256, 624 policy and 3 value outputs), measured back to back so that the ratio
# holds on a noisy machine, RUNS times (default 3). The PyTorch side is ../shared/bench's
# script where it exists, else scripts/torch_reference_mlp.py. Needs a Python with torch
# (PYTHON, default python3), e.g.
#   python3 -m venv .venv-torch && .venv-torch/bin/pip install torch numpy
#   PYTHON=.venv-torch/bin/python scripts/bench-inference.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
RUNS=${RUNS:-3}
SECONDS_PER_BATCH=${SECONDS_PER_BATCH:-2}
cargo build --release -q -p kvarn
reference=../shared/bench/torch_reference_mlp.py
[ -f "$reference" ] || reference=scripts/torch_reference_mlp.py
for run in $(seq "$RUNS"); do
    torch_out=$("$PYTHON" "$reference")
    kvarn_out=$(./target/release/kvarn bench infer --variant nine --seconds "$SECONDS_PER_BATCH")
    burn_out=$(./target/release/kvarn bench infer --variant nine --seconds "$SECONDS_PER_BATCH" --burn)
    echo "run $run: $(echo "$torch_out" | grep -m1 '^torch'); kvarn $(echo "$kvarn_out" | head -1 | sed 's/.*kernels/kernels/')"
    echo "batch   pytorch   kvarn(cpu-mlp)  GFLOP/s  ratio   kvarn(burn)  ratio"
    paste <(echo "$torch_out" | awk '/^bs/ {print $2+0, $3}') \
          <(echo "$kvarn_out" | awk '/^batch/ {print $3, $7}') \
          <(echo "$burn_out" | awk '/^batch/ {print $3}') |
      awk '{printf "%5d %9d %14d %8.1f %6.2f %12d %7.2f\n", $1, $2, $3, $4, $3/$2, $5, $5/$2}'
done
