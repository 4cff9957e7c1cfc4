#!/usr/bin/env bash
# Policy-proofs tier: `cosec policy verify` with Cedar's symbolic compiler and the cvc5
# SMT solver (Debian package; the symbolic compiler documents cvc5 1.3.1, Debian's 1.0.3
# passes its test suite but for the wording of two parse-error tests). Runs the proof
# tests plain `cargo test` leaves out, proves the default policy, and checks that each
# file of examples/defenses/ gets the verdict examples/defenses/README.md states.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ -z "${CVC5:-}" ] && ! command -v cvc5 >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cvc5
  else
    echo "cvc5 is required: sudo apt-get install cvc5 (or set CVC5=/path/to/cvc5)" >&2
    exit 1
  fi
fi

cargo test -p cosec-policies --test verify -- --ignored
cargo test -p cosec --test cli_policy_verify -- --ignored

cargo build -q -p cosec
cosec=${CARGO_TARGET_DIR:-target}/debug/cosec
"$cosec" policy verify policies/defense/default.cedar

# The README's table states each example's verdict: "proved sound" or "not sound".
for file in examples/defenses/*.cedar; do
  name=$(basename "$file")
  row=$(grep -F "| \`$name\` |" examples/defenses/README.md | grep -E 'proved sound|not sound' || true)
  case "$row" in
    *"not sound"*) want=1 ;;
    *"proved sound"*) want=0 ;;
    *) echo "tier policy-proofs: examples/defenses/README.md states no verdict for $name" >&2; exit 1 ;;
  esac
  set +e
  "$cosec" policy verify "$file" >/dev/null
  got=$?
  set -e
  if [ "$got" != "$want" ]; then
    echo "tier policy-proofs: $name: verify exited $got, the README says $want" >&2
    exit 1
  fi
  echo "tier policy-proofs: $name: verdict matches the README (exit $got)"
done
