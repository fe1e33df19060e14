#!/usr/bin/env bash
# Kvarn's CPU training throughput against PyTorch on the reference network (80 inputs,
# three hidden layers of 256, 624 policy and 3 value outputs, AdamW), measured back to
# back so that the ratio holds on a noisy machine, RUNS times (default 3) for each batch
# size in BATCHES (default "256 512"). The PyTorch side is ../shared/bench's script where
# it exists (else scripts/torch_reference_train.py) with only its batch size changed.
# Needs a Python with torch (PYTHON, default python3), e.g.
#   python3 -m venv .venv-torch && .venv-torch/bin/pip install torch numpy
#   PYTHON=.venv-torch/bin/python scripts/bench-train.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
RUNS=${RUNS:-3}
BATCHES=${BATCHES:-256 512}
cargo build --release -q -p kvarn
reference=../shared/bench/torch_reference_train.py
[ -f "$reference" ] || reference=scripts/torch_reference_train.py
torch_script=$(mktemp --suffix=.py)
trap 'rm -f "$torch_script"' EXIT
echo "batch  run  pytorch steps/s  kvarn steps/s  kvarn GFLOP/s  ratio   (kvarn: $(./target/release/kvarn bench train --variant nine --batches 1 --seconds 0.01 | head -1 | sed 's/.*kernels //'))"
for bs in $BATCHES; do
    sed -E "s/^(inp,h,out,bs=.*,)256$/\1$bs/" "$reference" > "$torch_script"
    grep -q "^inp,h,out,bs=.*,$bs\$" "$torch_script" || { echo "cannot set the batch size in $reference" >&2; exit 1; }
    for run in $(seq "$RUNS"); do
        torch_out=$("$PYTHON" "$torch_script")
        kvarn_out=$(./target/release/kvarn bench train --variant nine --batches "$bs" --seconds 5)
        torch_sps=$(echo "$torch_out" | sed -n 's/.*: \([0-9.]*\) steps\/s.*/\1/p')
        kvarn_sps=$(echo "$kvarn_out" | awk '/^batch/ {print $3}')
        kvarn_gflops=$(echo "$kvarn_out" | awk '/^batch/ {print $7}')
        awk -v b="$bs" -v r="$run" -v k="$kvarn_sps" -v t="$torch_sps" -v g="$kvarn_gflops" \
            'BEGIN {printf "%5d %4d %16.1f %14.1f %14.1f %6.2f\n", b, r, t, k, g, k/t}'
    done
done
