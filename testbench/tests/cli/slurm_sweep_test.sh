#!/usr/bin/env bash
# hcasim sweep --backend slurm on a real single-node Slurm (Debian's munge,
# slurmctld, slurmd and slurm-client), started here on local ports and ended
# by PID: the shipped sweep configs/experiments/b2b_buffer_cable.json gives the
# same results.csv and results.json as the local backend, byte for byte.
# Exits 77 (ctest: skipped) with the reason on stderr when Slurm cannot run
# here: a program missing, not root (slurmd must be), or the node not up.
# Usage: slurm_sweep_test.sh HCASIM SOURCE_DIR
set -euo pipefail
hcasim="$1" src="$2"
skip() { echo "SKIPPED: $*" >&2; exit 77; }
PATH="$PATH:/usr/sbin:/sbin"
for p in munged slurmctld slurmd sbatch squeue scancel sinfo; do
  command -v "$p" >/dev/null || skip "$p is not installed (Debian: munge, slurmctld, slurmd, slurm-client; scripts/setup.sh installs them)"
done
[ "$(id -u)" = 0 ] || skip "slurmd runs jobs as their users and needs root; this test runs as $(id -un)"

work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
mkdir -p "$work/munge" "$work/state" "$work/spool" "$work/log"
chmod 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 600 "$work/munge/munge.key"
munged --force --foreground --socket="$work/munge/munge.sock" --key-file="$work/munge/munge.key" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" --seed-file="$work/munge/seed" \
  >"$work/log/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$work/munge/munge.sock" ] && break; sleep 0.1; done
[ -S "$work/munge/munge.sock" ] || skip "munged did not start: $(tail -1 "$work/munge/munged.log" 2>/dev/null)"

host="$(hostname -s)"
export SLURM_CONF="$work/slurm.conf"
cat >"$SLURM_CONF" <<CONF
ClusterName=hcasim
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=hcasim Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -D -i >"$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D >"$work/log/slurmd.out" 2>&1 &
pids+=($!)
up=0
for _ in $(seq 60); do
  if sinfo -h -o %t 2>/dev/null | grep -qx idle; then up=1; break; fi
  sleep 0.5
done
[ "$up" = 1 ] || skip "the Slurm node did not come up: $(tail -2 "$work/log/slurmd.log" "$work/log/slurmctld.log" 2>/dev/null | tr '\n' ' ')"

sweep="$src/configs/experiments/b2b_buffer_cable.json"
"$hcasim" sweep "$sweep" --quiet --out "$work/local"
"$hcasim" sweep "$sweep" --backend slurm --partition hcasim --jobs 2 --out "$work/slurm"
diff "$work/local/results.csv" "$work/slurm/results.csv"
diff "$work/local/results.json" "$work/slurm/results.json"
rows=$(($(wc -l <"$work/slurm/results.csv") - 1))
[ "$rows" = 24 ] || { echo "slurm sweep: $rows rows, expected 24" >&2; exit 1; }
ls "$work/slurm/slurm/"slurm-*_*.out >/dev/null  # Slurm ran the array's tasks
echo "local and Slurm sweeps: the same $rows rows"
