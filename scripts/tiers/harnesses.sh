#!/usr/bin/env bash
# Tier `harnesses`: the native harnesses (Codex CLI, OpenClaw, Hermes Agent) through
# their real binaries inside bubblewrap. Installs bubblewrap (Debian package) and the
# pinned harnesses into the harness cache ($COSEC_HARNESS_DIR, default
# ~/.cache/cosec/harnesses; idempotent, so a warm cache costs nothing), then runs the
# tests marked `#[ignore = "tier harnesses: ..."]`.
set -euo pipefail
cd "$(dirname "$0")/../.."

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

# The library's sandbox and harness tests, and the harness test files (their `docker_*`
# tests belong to scripts/tiers/docker.sh).
cargo test -p cosec --lib -- --ignored sandbox:: harness::
cargo test -p cosec \
  --test sandbox_probes --test harness_codex --test harness_hermes --test harness_openclaw \
  --test harness_acceptance --test harness_labels \
  -- --ignored --skip docker_
# `cosec policy replay`'s calibrations on one recorded run of each harness.
cargo test -p cosec --test policy_replay -- --ignored harness_
