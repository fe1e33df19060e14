#!/usr/bin/env bash
# Checks that the GPU backend compiles (burn's wgpu, which also drives NVIDIA data-centre
# GPUs through Vulkan). No GPU is needed to check; a clean check takes about 15 minutes on
# 2 cores, which is why CI leaves it to this script. The CUDA backend (`--features cuda`)
# downloads an LLVM bundle while it builds and so needs network access.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo check -p kvarn-model --features wgpu
cargo check -p kvarn --features kvarn-model/wgpu
