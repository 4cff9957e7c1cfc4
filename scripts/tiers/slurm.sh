#!/usr/bin/env bash
# Tier "slurm": the sharded run on a real single-node Slurm, and the Kubernetes
# manifests checked by kubectl.
#   1. installs Debian's slurm-wlm and munge (and kubernetes-client when no kubectl);
#   2. configures Slurm on 127.0.0.1 (slurmctld + slurmd, one node, a fresh munge key)
#      in a scratch folder and starts the daemons;
#   3. runs the ignored `tier slurm` test: a 4-shard array of a whole-suite
#      `sim:comply` run submitted with examples/slurm/submit.sh, the merge step
#      depending on the array, the merged summary compared with the unsharded run;
#   4. `kubectl apply --dry-run=client` of examples/kubernetes against a discovery-only
#      stub server (kubectl maps kinds through a server even in client dry-run, so
#      --validate=false: kinds and API versions are checked, not the field schema).
# Stops the daemons it started. Needs root.
set -euo pipefail
cd "$(dirname "$0")/../.."

t0=$(date +%s)
step() { echo "tier slurm: $1 ($(( $(date +%s) - t0 )) s)"; }

if [ "$(id -u)" != 0 ]; then
  echo "tier slurm: needs root (installs slurm-wlm and munge, starts their daemons)" >&2
  exit 1
fi
need=()
command -v slurmctld >/dev/null 2>&1 || need+=(slurm-wlm)
command -v munged >/dev/null 2>&1 || need+=(munge)
command -v kubectl >/dev/null 2>&1 || need+=(kubernetes-client)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
step "packages ready"

state="$(mktemp -d /tmp/cosec-slurm.XXXXXX)"
chmod 755 "$state"  # munged runs as munge and must reach its folder
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  [ -f "$state/slurmctld.pid" ] && kill "$(cat "$state/slurmctld.pid")" 2>/dev/null || true
  [ -f "$state/slurmd.pid" ] && kill "$(cat "$state/slurmd.pid")" 2>/dev/null || true
  [ -f "$state/munged.pid" ] && kill "$(cat "$state/munged.pid")" 2>/dev/null || true
}
trap cleanup EXIT

# munge: a fresh key and a daemon on its own socket.
mkdir -p "$state/munge"
dd if=/dev/urandom of="$state/munge/munge.key" bs=1024 count=1 status=none
chown -R munge:munge "$state/munge"
chmod 755 "$state/munge"  # clients must reach the socket
chmod 400 "$state/munge/munge.key"
munge_socket="$state/munge/munge.socket"
runuser -u munge -- munged --key-file="$state/munge/munge.key" --socket="$munge_socket" \
  --pid-file="$state/munge/munged.pid" --log-file="$state/munge/munged.log" \
  --seed-file="$state/munge/munged.seed"
cp "$state/munge/munged.pid" "$state/munged.pid"

# Slurm: one node on 127.0.0.1, every core, no accounting, no cgroups.
cpus=$(nproc)
mkdir -p "$state/spool/ctld" "$state/spool/d" "$state/log"
cat > "$state/slurm.conf" <<CONF
ClusterName=cosec
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
AuthInfo=socket=$munge_socket
CredType=cred/munge
StateSaveLocation=$state/spool/ctld
SlurmdSpoolDir=$state/spool/d
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
NodeName=cosec1 NodeAddr=127.0.0.1 NodeHostname=$(hostname) CPUs=$cpus State=UNKNOWN
PartitionName=cosec Nodes=cosec1 Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
export SLURM_CONF="$state/slurm.conf"
slurmctld -i
slurmd -N cosec1
for _ in $(seq 1 60); do
  if sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then break; fi
  sleep 1
done
if ! sinfo -h -o '%T' | grep -qE '^(idle|mixed|allocated)'; then
  sinfo || true
  tail -20 "$state/log/slurmctld.log" "$state/log/slurmd.log" >&2 || true
  echo "tier slurm: FAIL (the single-node Slurm did not come up)" >&2
  exit 1
fi
step "Slurm up: $(sinfo -h -o '%N %T %c CPUs')"

# The sharded run, merged, against the unsharded one (tests/scale_slurm).
cargo build -q -p cosec --bins
step "cosec built"
if COSEC_SLURM_STATE="$state" cargo test -q -p cosec --test scale_slurm -- --ignored --nocapture; then
  step "PASS: 4-shard Slurm array merged equals the unsharded whole-suite run"
else
  tail -20 "$state/log/slurmctld.log" >&2 || true
  echo "tier slurm: FAIL (sharded Slurm run)" >&2
  exit 1
fi

# The Kubernetes manifests, against a discovery-only stub server.
port=18417
python3 scripts/tiers/kube-discovery-stub.py "$port" &
pids+=($!)
for _ in $(seq 1 50); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done
for manifest in examples/kubernetes/*.yaml; do
  if ! kubectl --server="http://127.0.0.1:$port" apply --dry-run=client --validate=false -f "$manifest"; then
    echo "tier slurm: FAIL (kubectl rejected $manifest)" >&2
    exit 1
  fi
done
step "PASS: examples/kubernetes accepted by kubectl apply --dry-run=client (--validate=false, discovery stub)"
