#!/usr/bin/env bash
# RTL co-simulation benchmark (issue 6): the saturated back-to-back benchmark
# (configs/bench/b2b_saturated.json, 200,000 packets per flow) with the ports'
# VL arbiter and credit manager as the model's C++, as the Verilated RTL of
# testbench/rtl, and as that RTL under lock step. Prints wall time, ns per
# packet-hop and the slowdown against the model (best of three runs each),
# and whether stats.json is the model's apart from wall-clock figures.
#   scripts/bench_rtl.sh [COUNT]      HCASIM_BIN=path/to/hcasim to skip the Release build
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$("$root/scripts/release-bin.sh")"
cfg="$root/configs/bench/b2b_saturated.json"
count="${1:-200000}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
modes=("model model" "rtl model" "rtl+check model" "model rtl" "model rtl+check" "rtl rtl" "rtl+check rtl+check")
for m in "${modes[@]}"; do
  read -r arb cred <<<"$m"
  for i in 1 2 3; do
    "$bin" run "$cfg" --quiet --set workload.flows.0.count="$count" --set workload.flows.1.count="$count" \
      --set workload.flows.2.count="$count" --set port.vl_arbiter="$arb" --set port.credit_manager="$cred" \
      --out "$work/$arb-$cred-$i" >/dev/null
  done
done
python3 - "$work" "${modes[@]}" <<'PY'
import json, sys
work, modes = sys.argv[1], [m.split() for m in sys.argv[2:]]
def best(arb, cred):
    runs = [json.load(open(f"{work}/{arb}-{cred}-{i}/stats.json")) for i in (1, 2, 3)]
    return min(runs, key=lambda s: s["wall"]["seconds"])
def modelled(s):
    return {k: v for k, v in s.items() if k != "wall"}
base = best("model", "model")
print(f"b2b_saturated: {base['run']['packets_delivered']:,} packets, {base['run']['packet_hops']:,} packet-hops "
      f"(flow-control packets included)")
print(f"{'vl_arbiter':>11} {'credit_manager':>15} {'wall s':>7} {'ns/hop':>8} {'slowdown':>9} {'stats as model':>15}")
for arb, cred in modes:
    s = best(arb, cred)
    w = s["wall"]
    print(f"{arb:>11} {cred:>15} {w['seconds']:>7.2f} {w['ns_per_packet_hop']:>8.0f} "
          f"{w['seconds'] / base['wall']['seconds']:>8.1f}x {'yes' if modelled(s) == modelled(base) else 'NO':>15}")
PY
