#!/usr/bin/env bash
# Tier local-model: CoSec against a real model on this machine. Builds (once, cached in
# ~/.cache/cosec/llama) llama.cpp's server with SmolLM2-135M-Instruct, serves it on
# 127.0.0.1 for the duration of the tests, installs bubblewrap and Codex (cached), and
# runs the `tier local-model` tests of runner/tests/local_model.rs. The server is
# stopped on exit. Safe to run again: every step reuses what a previous run left.
set -euo pipefail
cd "$(dirname "$0")/../.."

PORT="${COSEC_LOCAL_MODEL_PORT:-18091}"
# Short answers keep the tier in minutes: Codex sends no output limit of its own, so
# the server's default applies (the built-in agent's is set by the test).
export COSEC_LLAMA_MAX_TOKENS="${COSEC_LLAMA_MAX_TOKENS:-64}"

if ! command -v bwrap >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap
  else
    echo "bubblewrap is required (Codex runs inside it): sudo apt-get install bubblewrap" >&2
    exit 1
  fi
fi
scripts/local-model.sh build
cargo run -q -p cosec -- harness install codex
trap 'scripts/local-model.sh stop "$PORT"' EXIT
scripts/local-model.sh start "$PORT"
COSEC_LOCAL_MODEL_URL="$(scripts/local-model.sh url "$PORT")"
export COSEC_LOCAL_MODEL_URL
cargo test -p cosec --test local_model -- --ignored --test-threads 1
