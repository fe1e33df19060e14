#!/usr/bin/env bash
# The tests. The export tests check ONNX files with Python's onnx and onnxruntime, the
# metrics test reads TensorBoard files with the tensorboard package; this
# script makes a virtual environment with them in .venv (once, from PyPI) unless
# KVARN_PYTHON names a Python that has them, then runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${KVARN_PYTHON:-}" ]; then
    if ! .venv/bin/python -c "import onnx, onnxruntime, numpy, tensorboard" 2>/dev/null; then
        python3 -m venv .venv
        .venv/bin/pip install --quiet --disable-pip-version-check onnx onnxruntime numpy tensorboard
    fi
    export KVARN_PYTHON="$PWD/.venv/bin/python"
fi
exec cargo test --workspace --locked "$@"
