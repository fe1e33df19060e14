#!/usr/bin/env bash
# The AVX2 kernel path, tested on any x86-64 machine: runs the tests of the CPU network
# path (products and fused passes, inference against burn and against the reference
# outputs written on the AVX-512 path, training against burn's autodiff) under qemu's
# user-mode emulation of a CPU without AVX-512 (`qemu-x86_64 -cpu max`: AVX2 and FMA),
# and checks that they took the AVX2 path. Needs qemu-user (apt-get install qemu-user).
set -euo pipefail
cd "$(dirname "$0")/.."
QEMU=${QEMU:-qemu-x86_64}
if ! command -v "$QEMU" >/dev/null; then
    echo "scripts/test-avx2.sh needs $QEMU: apt-get install qemu-user" >&2
    exit 1
fi
executables() {
    cargo test --locked "$@" --no-run --message-format=json 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["executable"])'
}
run() {
    local bin=$1
    shift
    echo "== $(basename "$bin") $* (emulated CPU without AVX-512)"
    KVARN_EXPECT_KERNELS=avx2 "$QEMU" -cpu max "$bin" --test-threads 2 "$@"
}
model_lib=$(executables -p kvarn-model --lib)
model_network=$(executables -p kvarn-model --test network)
train_lib=$(executables -p kvarn-train --lib)
run "$model_lib" cpu::
run "$model_network" cpu_
run "$train_lib" trainer::
