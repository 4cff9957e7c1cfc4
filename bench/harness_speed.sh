#!/usr/bin/env bash
# Native harness speed, before and after a change, in one sitting: the same scenarios
# through the built-in agent (the baseline) and through each native harness with two
# `cosec` binaries, one run after the other per harness so both see the same load.
#
#   bench/harness_speed.sh BEFORE_COSEC AFTER_COSEC OUT_DIR [SCENARIO...]
#
# Default scenarios: the two Dyn96 merge A4 ones. Every run: `sim:comply`, no defense,
# no judge, bubblewrap, one trial at a time. Prints bench/harness_speed.py's table.
set -euo pipefail
[ $# -ge 3 ] || { sed -n 2,9p "$0"; exit 2; }
before=$1 after=$2 out=$3
shift 3
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(dy-merge-inter-owner-a4-s7 dy-merge-inter-third-a4-s7)
args=(--model sim:comply --defense none --judge none --sandbox bwrap --jobs 1 --retries 0)
for s in "${scenarios[@]}"; do args+=(--scenario "$s"); done
mkdir -p "$out"

run() { # binary label harness
  rm -rf "${out:?}/$2"
  "$1" run --harness "$3" "${args[@]}" --out "$out/$2" >"$out/$2.log" 2>&1 ||
    { echo "harness_speed: $2 failed; see $out/$2.log" >&2; exit 1; }
}

run "$after" builtin builtin
for harness in codex hermes openclaw; do
  run "$before" "$harness-before" "$harness"
  run "$after" "$harness-after" "$harness"
done
"$(dirname "$0")/harness_speed.py" "$out/builtin" \
  "$out"/codex-before "$out"/codex-after "$out"/hermes-before "$out"/hermes-after \
  "$out"/openclaw-before "$out"/openclaw-after
