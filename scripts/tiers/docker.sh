#!/usr/bin/env bash
# Tier "docker": the native harnesses in one-shot Docker containers (`--sandbox docker`).
#   1. installs Debian's docker.io and debootstrap when missing (needs root);
#   2. starts dockerd when no daemon answers (log in a scratch folder, stopped at the
#      end); where it cannot start (no root, no cgroups, an unprivileged container) the
#      tier is skipped with the daemon's reason;
#   3. installs the pinned native harnesses (idempotent) and builds the sandbox image
#      when it is missing or lacks an installed harness (`cosec sandbox image build
#      --if-missing`; the debootstrap root filesystem is cached in ~/.cache/cosec/sandbox
#      and the image stays in the daemon, so a warm machine rebuilds nothing);
#   4. runs the ignored `tier docker` tests (all named `docker_*`): the sandbox's own
#      tests, the escape tests of the three harnesses inside the container, and the A4
#      merge acceptance runs of codex, openclaw and hermes with `--sandbox docker`.
set -euo pipefail
cd "$(dirname "$0")/../.."

t0=$(date +%s)
step() { echo "tier docker: $1 ($(( $(date +%s) - t0 )) s)"; }
skip() {
  echo "tier docker: SKIPPED: $1" >&2
  exit 0
}

daemon_answers() { docker info >/dev/null 2>&1; }

need=()
command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "tier docker: needs root to install ${need[*]} (apt-get install ${need[*]})" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
step "packages ready"

started_pid=""
scratch=""
# Returns 0 whatever it finds: an EXIT trap's status becomes the script's.
cleanup() {
  if [ -n "$started_pid" ]; then
    kill "$started_pid" 2>/dev/null || true
    wait "$started_pid" 2>/dev/null || true
  fi
  if [ -n "$scratch" ]; then
    rm -rf "$scratch"
  fi
}
trap cleanup EXIT

if ! daemon_answers; then
  [ "$(id -u)" = 0 ] || skip "no Docker daemon answers and starting dockerd needs root"
  scratch="$(mktemp -d /tmp/cosec-dockerd.XXXXXX)"
  dockerd >"$scratch/dockerd.log" 2>&1 &
  started_pid=$!
  for _ in $(seq 60); do
    daemon_answers && break
    kill -0 "$started_pid" 2>/dev/null || break
    sleep 1
  done
  if ! daemon_answers; then
    tail -n 5 "$scratch/dockerd.log" >&2 || true
    skip "dockerd cannot start on this machine (its log above)"
  fi
fi
step "dockerd answers"

cargo build -q -p cosec --bins
cargo run -q -p cosec -- harness install all
step "harnesses installed"
cargo run -q -p cosec -- sandbox image build --if-missing
step "sandbox image ready"

cargo test -p cosec \
  --test sandbox_docker --test sandbox_probes --test harness_codex --test harness_hermes \
  --test harness_openclaw \
  --test harness_acceptance \
  -- --ignored docker_
step "done"
