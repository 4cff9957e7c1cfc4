#!/usr/bin/env bash
# Submits a CoSec run to Slurm as N shards and a merge step:
#   examples/slurm/submit.sh RUN_DIR N [cosec run flags...]
# e.g. examples/slurm/submit.sh /shared/runs/study 4 --model sim:comply --judge none
#
# RUN_DIR must be on storage that every node sees. The shards go into RUN_DIR/shards/K,
# the merged run into RUN_DIR/merged. Set COSEC to the cosec binary if it is not on
# PATH, SBATCH_FLAGS for site options (partition, account, time, cpus), and
# COSEC_SUBMIT_WAIT=1 to return only when the merge has finished (its exit status is
# the merge's).
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 RUN_DIR N [cosec run flags...]" >&2
  exit 2
fi
run_dir="$(mkdir -p "$1" && cd "$1" && pwd)"
n="$2"
shift 2
here="$(cd "$(dirname "$0")" && pwd)"
export COSEC_RUN_DIR="$run_dir"
read -r -a site <<< "${SBATCH_FLAGS:-}"

array=$(sbatch --parsable --export=ALL "${site[@]}" --chdir="$run_dir" \
  --array="0-$((n - 1))" "$here/shard.sbatch" "$@")
array="${array%%;*}"
echo "shards: job $array (array 0-$((n - 1)))"
wait=()
[ "${COSEC_SUBMIT_WAIT:-0}" = 1 ] && wait=(--wait)
merge=$(sbatch --parsable --export=ALL "${site[@]}" --chdir="$run_dir" \
  --dependency="afterok:$array" --kill-on-invalid-dep=yes "${wait[@]}" "$here/merge.sbatch")
echo "merge: job ${merge%%;*} (after the shards succeed) -> $run_dir/merged"
