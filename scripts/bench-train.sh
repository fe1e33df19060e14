#!/usr/bin/env bash
# Kvarn's CPU training throughput against PyTorch on the reference network (80 inputs,
# three hidden layers of 256, 624 policy and 3 value outputs, AdamW, batch 256), measured
# back to back so that the ratio holds on a noisy machine. Needs a Python with torch
# (PYTHON, default python3), e.g.
#   python3 -m venv /tmp/torch && /tmp/torch/bin/pip install torch numpy
#   PYTHON=/tmp/torch/bin/python scripts/bench-train.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
cargo build --release -q -p kvarn
reference=../shared/bench/torch_reference_train.py
[ -f "$reference" ] || reference=scripts/torch_reference_train.py
torch_out=$("$PYTHON" "$reference")
kvarn_out=$(./target/release/kvarn bench train --variant nine --batches 256 --seconds 10)
echo "$torch_out"
echo "$kvarn_out"
torch_sps=$(echo "$torch_out" | sed -n 's/.*: \([0-9.]*\) steps\/s.*/\1/p')
kvarn_sps=$(echo "$kvarn_out" | awk '/^batch/ {print $3}')
awk -v k="$kvarn_sps" -v t="$torch_sps" 'BEGIN {printf "kvarn/pytorch training steps/s: %.2f\n", k/t}'
