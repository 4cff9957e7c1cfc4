#!/usr/bin/env bash
# The proxy's latency while a run verifies finished trials beside it: runs the whole
# suite with the guard on and several trials at a time (so trials are verified while
# others call the model), once with each `cosec` binary given, rounds interleaved, and
# prints per binary the median and p99 (nearest rank) of the model calls' latency as
# the trace records it (arrival to answer, inside the proxy).
#
#   bench/latency_under_run.sh BEFORE_COSEC AFTER_COSEC
#   ROUNDS=3 JOBS=4 MODEL=sim:comply bench/latency_under_run.sh ...
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 COSEC [COSEC...]" >&2; exit 2; }
rounds="${ROUNDS:-3}"
jobs="${JOBS:-4}"
model="${MODEL:-sim:comply}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for round in $(seq 1 "$rounds"); do
  i=0
  for bin in "$@"; do
    i=$((i + 1))
    "$bin" run --model "$model" --defense proxy --judge none --jobs "$jobs" \
      --progress plain --out "$work/b$i-r$round" >/dev/null 2>&1
  done
done

i=0
for bin in "$@"; do
  i=$((i + 1))
  python3 - "$bin" "$work"/b$i-r* <<'PY'
import json, math, sys
from pathlib import Path
name, runs = sys.argv[1], sys.argv[2:]
lat = []
for run in runs:
    for trace in Path(run).glob("trials/*/hidden/trace.jsonl"):
        for line in trace.read_text().splitlines():
            e = json.loads(line)
            if e.get("type") == "model_call":
                lat.append(e["latency_us"])
lat.sort()
rank = lambda p: lat[max(1, math.ceil(p * len(lat) / 100)) - 1]
print(f"{name}: {len(lat)} model calls over {len(runs)} runs, median {rank(50)} us, p99 {rank(99)} us")
PY
done
