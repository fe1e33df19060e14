#!/usr/bin/env bash
# The tests: the README's one test command, on a fresh Debian or Ubuntu machine with Rust.
#
# Besides cargo test, the suite drives programs from outside Rust: Python's onnx and
# onnxruntime (the export tests), tensorboard (the metrics test) and ray (the cluster
# tests), Node.js with the web page's npm packages and Chromium (the web page's tests), and
# qemu-user (the AVX2 kernel path on an emulated CPU). This script installs what is
# missing (Debian's packages as root; otherwise it names them and stops), puts the pinned
# Python packages of scripts/requirements-test.txt in a virtual environment (.venv, or
# where KVARN_VENV says; KVARN_PYTHON instead names a Python that has them), installs the
# page's npm packages as web/package-lock.json pins them, and runs every test with
# KVARN_REQUIRE_ALL=1, so that a test that would be skipped for want of one of them fails.
# Arguments go to cargo test.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's packages for what is missing.
need=()
command -v node >/dev/null && command -v npm >/dev/null || need+=(nodejs npm)
[ -x "${KVARN_CHROMIUM:-/usr/bin/chromium}" ] || need+=(chromium)
[ "$(uname -m)" != x86_64 ] || command -v qemu-x86_64 >/dev/null || need+=(qemu-user)
command -v pgrep >/dev/null || need+=(procps)
if [ -z "${KVARN_PYTHON:-}" ]; then
    command -v python3 >/dev/null || need+=(python3)
    python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
fi
if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "scripts/test.sh: installing ${need[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
    else
        echo "scripts/test.sh needs these packages: ${need[*]}" >&2
        echo "install them as root (apt-get install ${need[*]}) and run it again" >&2
        exit 1
    fi
fi

# The pinned Python packages, reinstalled whenever the pins change.
if [ -z "${KVARN_PYTHON:-}" ]; then
    venv=${KVARN_VENV:-$PWD/.venv}
    pins=$(sha256sum scripts/requirements-test.txt | cut -d' ' -f1)
    if [ "$(cat "$venv/.kvarn-pins" 2>/dev/null)" != "$pins" ]; then
        echo "scripts/test.sh: Python packages into $venv (scripts/requirements-test.txt)"
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check -r scripts/requirements-test.txt
        echo "$pins" >"$venv/.kvarn-pins"
    fi
    export KVARN_PYTHON="$venv/bin/python"
fi

# The web page's packages (onnxruntime-web, playwright-core, axe-core), as its lock file pins them.
if [ ! -d web/node_modules/onnxruntime-web ] || [ ! -d web/node_modules/playwright-core ] || [ ! -d web/node_modules/axe-core ]; then
    npm ci --prefix web --no-audit --no-fund --loglevel=error
fi

# The layering: no two modules of a crate import each other.
python3 scripts/module-cycles.py >/dev/null || python3 scripts/module-cycles.py

export KVARN_REQUIRE_ALL=1
cargo test --workspace --locked "$@"
# The Python package (python/): built into the test environment as `pip install ./python`
# builds it, then its pytest suite against the kvarn binary the tests just built. The
# environment's own programs come first on the path: maturin's build hook runs `maturin`
# by name, which an environment that is not activated would not find.
PATH="$(dirname "$KVARN_PYTHON"):$PATH" \
    "$KVARN_PYTHON" -m pip install --quiet --disable-pip-version-check --no-build-isolation ./python
KVARN="${CARGO_TARGET_DIR:-target}/debug/kvarn" "$KVARN_PYTHON" -m pytest -q python/tests
# The AVX2 kernel path under an emulated CPU without AVX-512.
if [ "$(uname -m)" = x86_64 ]; then
    scripts/test-avx2.sh
fi
