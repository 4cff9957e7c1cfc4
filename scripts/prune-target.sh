#!/usr/bin/env bash
# Frees disk in a reused Cargo target folder before a build: a full disk makes the
# linker die with a bus error halfway through the tests, which names nothing useful.
# Removes test and binary executables superseded by a newer build of the same name and
# the incremental caches; fails with the numbers when the disk is still too full.
#
#   scripts/prune-target.sh [TARGET_DIR] [MIN_FREE_GB]
set -euo pipefail

target="${1:-${CARGO_TARGET_DIR:-target}}"
min_free_gb="${2:-15}"
mkdir -p "$target"

free_gb() { df -Pk "$target" | awk 'NR == 2 { print int($4 / 1048576) }'; }

before=$(free_gb)
for profile_dir in "$target"/*/; do
  deps="$profile_dir/deps"
  [ -d "$deps" ] || continue
  # Newest first; an executable whose name (without Cargo's hash) was already seen
  # is an older build of the same test or binary.
  declare -A seen=()
  while IFS= read -r file; do
    base="$(basename "$file")"
    case "$base" in *.*) continue ;; esac
    [ -x "$file" ] || continue
    name="${base%-*}"
    if [ -n "${seen[$name]:-}" ]; then
      rm -f "$file" "$file.d"
    else
      seen[$name]=1
    fi
  done < <(ls -t "$deps"/* 2>/dev/null)
  unset seen
  rm -rf "$profile_dir/incremental"
done
after=$(free_gb)
echo "prune-target: $target: ${before} GB free before, ${after} GB after"
if [ "$after" -lt "$min_free_gb" ]; then
  echo "prune-target: only ${after} GB free on the disk holding $target; a build of the" \
    "tests needs about ${min_free_gb} GB. Free space (or remove $target) and run again." >&2
  exit 1
fi
