#!/usr/bin/env bash
# The tests. The export tests check ONNX files with Python's onnx and onnxruntime, the
# metrics test reads TensorBoard files with the tensorboard package, the cluster tests
# start a local Ray cluster (the ray package), the web page's tests run its code in Node
# and headless Chromium with npm packages (web/package-lock.json); this
# script makes a virtual environment with them in .venv, or where KVARN_VENV says (once,
# from PyPI), unless KVARN_PYTHON names a Python that has them, then runs the whole test
# suite, and the CPU network path's tests once more on an emulated CPU without AVX-512.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${KVARN_PYTHON:-}" ]; then
    venv=${KVARN_VENV:-$PWD/.venv}
    if ! "$venv/bin/python" -c "import onnx, onnxruntime, numpy, tensorboard, ray" 2>/dev/null; then
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check onnx onnxruntime numpy tensorboard ray
    fi
    export KVARN_PYTHON="$venv/bin/python"
fi
# The web page's packages (onnxruntime-web, playwright-core), as its lock file pins them.
if [ ! -d web/node_modules/onnxruntime-web ] || [ ! -d web/node_modules/playwright-core ]; then
    npm ci --prefix web --no-audit --no-fund --loglevel=error
fi
cargo test --workspace --locked "$@"
# The AVX2 kernel path under an emulated CPU without AVX-512 (needs qemu-user; CI sets
# KVARN_REQUIRE_QEMU=1 so that a missing qemu fails rather than skips).
if [ "$(uname -m)" = x86_64 ]; then
    if command -v qemu-x86_64 >/dev/null || [ -n "${KVARN_REQUIRE_QEMU:-}" ]; then
        scripts/test-avx2.sh
    else
        echo "scripts/test.sh: AVX2 path not tested here: apt-get install qemu-user" >&2
    fi
fi
