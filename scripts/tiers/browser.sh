#!/usr/bin/env bash
# Browser tier: renders an HTML report of a small real run in headless Chromium (Debian
# package) and checks the matrix table, a heatmap, the forest plot, the PVR-BCR scatter,
# the guard bars (each with its data) and a trace opened from the URL.
# COSEC_REPORT_SCREENSHOT=PATH also saves a screenshot of the page.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
  else
    echo "Chromium is required: sudo apt-get install chromium" >&2
    exit 1
  fi
fi

cargo test -p cosec --test report_compare -- --ignored chromium_
