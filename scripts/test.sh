#!/usr/bin/env bash
# Every test of CoSec, in order of cost: formatting and lints, the fast tier (plain
# `cargo test --workspace`: offline, nothing installed beyond Rust), then each slow tier
# script in scripts/tiers/, which installs what its tests need and runs the tests that
# plain `cargo test` leaves out (`#[ignore = "tier NAME: ..."]`).
#
#   scripts/test.sh            everything
#   scripts/test.sh --fast     formatting, lints and the fast tier only
set -euo pipefail
cd "$(dirname "$0")/.."

cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace

if [ "${1:-}" = "--fast" ]; then
  exit 0
fi

# Slow tiers, one line each. Docker comes last: once its daemon runs, a native harness
# run without --sandbox is confined by Docker rather than bubblewrap.
scripts/tiers/harnesses.sh
scripts/tiers/slurm.sh
scripts/tiers/browser.sh
scripts/tiers/local-model.sh
scripts/tiers/docker.sh
