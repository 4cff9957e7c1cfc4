#!/usr/bin/env bash
# Every test of CoSec on a fresh machine: installs what the tests need, then runs them.
#   - bubblewrap (Debian package), the sandbox that confines native harnesses;
#   - the native harnesses (Codex CLI, OpenClaw with its Node 24, Hermes Agent) at
#     pinned versions, into the harness cache ($COSEC_HARNESS_DIR, default
#     ~/.cache/cosec/harnesses); idempotent, so a warm cache costs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v bwrap >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap
  else
    echo "bubblewrap is required: sudo apt-get install bubblewrap" >&2
    exit 1
  fi
fi

cargo run -q -p cosec -- harness install all
cargo test --workspace
