#!/usr/bin/env bash
# Makes the character nodes /dev/infiniband/uverbs0 .. uverbs<N-1> that libibverbs opens for the
# HCAs of hcasim serve --verbs (docs/verbs-apps.md): nodes with /dev/null's numbers (1:3), which the
# sysfs tree the server writes names as each device's "dev". An existing node with other numbers (a
# real RDMA device) is left alone and named. Needs root (mknod); says so otherwise.
# Usage: scripts/verbs_devices.sh [N]   (default 16)
# Exit: 0 done, 1 a node could not be made, 2 bad usage.
set -euo pipefail
n="${1:-16}"
if ! [[ "$n" =~ ^[0-9]+$ ]] || [ "$n" -lt 1 ] || [ "$n" -gt 4096 ]; then
  echo "verbs_devices.sh: N '$n': accepted: a count from 1 to 4096" >&2
  exit 2
fi
dir=/dev/infiniband
missing=()
for ((i = 0; i < n; i++)); do
  node="$dir/uverbs$i"
  if [ -e "$node" ]; then
    if [ "$(stat -c '%t:%T' "$node")" != "1:3" ]; then
      echo "verbs_devices.sh: $node exists with other numbers ($(stat -c '%t:%T' "$node"), hex): a real RDMA device? left alone" >&2
    fi
    continue
  fi
  missing+=("$node")
done
[ "${#missing[@]}" -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "verbs_devices.sh: making ${#missing[@]} nodes in $dir needs root: run 'sudo $0 $n'" >&2
  exit 1
fi
mkdir -p "$dir"
for node in "${missing[@]}"; do
  mknod -m 0666 "$node" c 1 3
done
