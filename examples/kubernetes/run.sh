#!/usr/bin/env bash
# Runs the sharded CoSec run on the current kubectl context: the shared volume, the
# Indexed Job of shards, then, once every index has completed, the merge Job.
#   examples/kubernetes/run.sh [TIMEOUT]   (default 24h)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
timeout="${1:-24h}"

kubectl apply -f "$here/results-pvc.yaml"
kubectl apply -f "$here/shards-job.yaml"
kubectl wait --for=condition=complete --timeout="$timeout" job/cosec-shards
kubectl apply -f "$here/merge-job.yaml"
kubectl wait --for=condition=complete --timeout=1h job/cosec-merge
kubectl logs job/cosec-merge
