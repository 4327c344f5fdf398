#!/usr/bin/env bash
# Installs the Debian packages hcasim needs when they are missing (as root), or
# names them and stops (otherwise). Safe to run again: installs nothing twice.
set -euo pipefail

packages=(build-essential cmake ninja-build pkg-config libsystemc-dev catch2 nlohmann-json3-dev libsqlite3-dev sqlite3 tshark python3 verilator
          python3-jsonschema python3-matplotlib python3-pandas munge slurmctld slurmd slurm-client opensm ibsim-utils infiniband-diags
          clang libclang-rt-14-dev libibverbs-dev ibverbs-utils perftest)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "hcasim needs these Debian packages: ${missing[*]}" >&2
  echo "install them as root: apt-get install ${missing[*]}" >&2
  exit 2
fi
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
