#!/usr/bin/env bash
# Inspect tier: installs inspect-ai (pinned) from PyPI into a virtual environment under
# ~/.cache/cosec/inspect-venv (kept between runs; COSEC_INSPECT_VENV overrides), then
# exports a whole-suite sim:comply run and a --defense proxy run with
# `cosec export inspect` and checks them with inspect-ai's own reader, samples_df and
# `inspect log dump`.
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

COSEC_INSPECT_VENV="$VENV" cargo test -p cosec --test inspect_tier -- --ignored --nocapture
