#!/usr/bin/env bash
# Replay tier: `cosec policy replay`'s three calibrations on whole-suite runs of the
# built-in agent (a guarded run through its own policy, an unguarded `sim:comply` run
# through the default policy and through an empty one).
set -euo pipefail
cd "$(dirname "$0")/../.."

cargo test -p cosec --test policy_replay -- --ignored whole_suite
