#!/usr/bin/env bash
# Inspect tier: installs inspect-ai (pinned) from PyPI into a virtual environment under
# ~/.cache/cosec/inspect-venv (kept between runs; COSEC_INSPECT_VENV overrides), then
# exports a whole-suite sim:comply run and a --defense proxy run with
# `cosec export inspect` and checks them with inspect-ai's own reader, samples_df and
# `inspect log dump`; then serves the logs of two small runs with `inspect view` on
# 127.0.0.1 and checks in headless Chromium (Debian package) that both evals and a
# sample's scores are on the page.
set -euo pipefail
cd "$(dirname "$0")/../.."

INSPECT_AI_VERSION=0.3.285
VENV="${COSEC_INSPECT_VENV:-$HOME/.cache/cosec/inspect-venv}"

installed() {
  [ -x "$VENV/bin/inspect" ] &&
    [ "$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("inspect_ai"))' 2>/dev/null)" = "$INSPECT_AI_VERSION" ]
}

if ! installed; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "inspect-ai==$INSPECT_AI_VERSION" pandas pyarrow
fi

if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
  else
    echo "Chromium is required: sudo apt-get install chromium" >&2
    exit 1
  fi
fi

COSEC_INSPECT_VENV="$VENV" cargo test -p cosec --test inspect_tier -- --ignored --nocapture --test-threads=1
