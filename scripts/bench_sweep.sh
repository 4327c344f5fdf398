#!/usr/bin/env bash
# Subnet-management benchmark (issue 5): the SM's in-band sweep of fabrics of
# 32, 256 and 1,024 hosts (configs/bench/sweep_*.json: from all ports Down to
# every port Active with every table programmed). Prints the simulated sweep
# time, the SMPs it took (discovery and programming), the SMAs' answers, and
# the wall time and peak memory of the run.
#   scripts/bench_sweep.sh [HOSTS ...]   HCASIM_BIN=path/to/hcasim to skip the Release build
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$("$root/scripts/release-bin.sh")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(32 256 1024)
for n in "${sizes[@]}"; do
  "$bin" run "$root/configs/bench/sweep_$n.json" --quiet --out "$work/$n" >/dev/null
done
python3 - "$work" "${sizes[@]}" <<'PY'
import json, sys
work, sizes = sys.argv[1], sys.argv[2:]
print(f"{'hosts':>6} {'nodes':>6} {'links':>6} {'sweep us':>10} {'discovered us':>13} {'SMPs':>7} "
      f"{'discovery':>9} {'programming':>11} {'wall s':>7} {'peak MiB':>9}")
for n in sizes:
    d = json.load(open(f"{work}/{n}/stats.json"))
    s = d["management"]["sweep"]
    assert s["done"], s["failure"]
    print(f"{n:>6} {s['nodes']:>6} {s['links']:>6} {s['duration_us']:>10.1f} {s['discovered_us']:>13.1f} "
          f"{s['smps']:>7} {s['discovery_smps']:>9} {s['programming_smps']:>11} {d['wall']['seconds']:>7.2f} "
          f"{d['wall']['peak_rss_bytes'] / 2**20:>9.1f}")
PY
