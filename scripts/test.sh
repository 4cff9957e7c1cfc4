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

# Runs one step and prints its wall time, so every log shows what each tier costs.
timed() {
  local start
  start=$(date +%s)
  "$@"
  echo "test.sh: $* took $(( $(date +%s) - start )) s"
}

timed cargo fmt --all --check
timed cargo clippy --workspace --all-targets -- -D warnings
timed cargo test --workspace
# The placement fuzzer's long run (the fast tier above runs 200 random placements).
timed env COSEC_PLACEMENT_CASES=10000 cargo test -p cosec-proxy --test guard_placement \
  -- nothing_planted_anywhere_passes_a_denying_turn --nocapture
# The located reading against the full one on 500 long generated texts (the fast tier
# runs 40).
timed env COSEC_LOCATED_CASES=500 cargo test -p cosec --test located -- --nocapture
# Values leaked in pieces, at the sizes BENCHMARKS.md records (the fast tier runs 40
# splits per shape, 10,000 ordinary groups for the verifier and 1,000 for the guard).
timed env COSEC_SPLIT_CASES=100 COSEC_SPLIT_GROUPS=30000 COSEC_SPLIT_GUARD_GROUPS=20000 \
  cargo test -p cosec --test assembled -- --nocapture

if [ "${1:-}" = "--fast" ]; then
  exit 0
fi

# Slow tiers, one line each. Docker comes last: once its daemon runs, a native harness
# run without --sandbox is confined by Docker rather than bubblewrap.
timed scripts/tiers/policy-proofs.sh
timed scripts/tiers/replay.sh
timed scripts/tiers/harnesses.sh
timed scripts/tiers/slurm.sh
timed scripts/tiers/browser.sh
timed scripts/tiers/inspect.sh
timed scripts/tiers/local-model.sh
timed scripts/tiers/docker.sh
