#!/usr/bin/env bash
# QP-scaling benchmark (issue 4): ib_write_bw of 64-byte messages with 1, 64,
# 1,024 and 16,384 active QP pairs (configs/bench/qp_scaling.json, qps and
# iterations set per run so every run moves about the same number of messages),
# then the same QPs created and connected but idle. Prints message rate,
# packet-hops/s, wall time per message, peak memory, and the memory of one QP
# context: (peak RSS idle with N pairs - idle with 1 pair) / (2 (N - 1)).
# Wall time per message is given twice: over the whole run (which includes
# each QP's first touch of its buffers and queues, spread over fewer messages
# per QP as QPs grow) and marginal, from a second run with twice the messages:
# (wall2 - wall1) / (messages2 - messages1), the steady-state cost. Timed
# events per message: the model's wakeups (stats.json run.wakeups, handlers
# the timeline ran) over the messages, the cost a machine's speed does not move.
#   scripts/bench_qps.sh [N ...]      HCASIM_BIN=path/to/hcasim to skip the Release build
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$("$root/scripts/release-bin.sh")"
cfg="$root/configs/bench/qp_scaling.json"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
counts=("$@")
[ ${#counts[@]} -eq 0 ] && counts=(1 64 1024 16384)
total=262144  # messages per run
for n in 1 "${counts[@]}"; do
  "$bin" run "$cfg" --quiet --set workload.perftest.0.qps="$n" --set workload.perftest.0.idle=true \
    --out "$work/idle-$n" >/dev/null
done
for n in "${counts[@]}"; do
  iters=$(( total / n > 16 ? total / n : 16 ))
  for k in 1 2; do
    "$bin" run "$cfg" --quiet --set workload.perftest.0.qps="$n" \
      --set workload.perftest.0.iterations=$(( k * iters )) --out "$work/run$k-$n" >/dev/null
  done
done
python3 - "$work" "${counts[@]}" <<'PY'
import json, sys
work, counts = sys.argv[1], [int(n) for n in sys.argv[2:]]
load = lambda p: json.load(open(f"{work}/{p}/stats.json"))
base = load("idle-1")["wall"]["peak_rss_bytes"]
print(f"{'QPs':>6} {'messages':>9} {'wall s':>7} {'Mmsg/s wall':>11} {'ns/msg':>8} {'marginal':>8} {'hops/s':>12} "
      f"{'events/msg':>10} {'sim Mpps':>9} {'peak MiB':>9} {'idle MiB':>9} {'B/QP idle':>9}")
for n in counts:
    s, s2, idle = load(f"run1-{n}"), load(f"run2-{n}"), load(f"idle-{n}")
    size = s["perftest"][0]["sizes"][0]
    msgs, wall = size["messages"], s["wall"]["seconds"]
    msgs2, wall2 = s2["perftest"][0]["sizes"][0]["messages"], s2["wall"]["seconds"]
    marginal = (wall2 - wall) * 1e9 / (msgs2 - msgs)
    per_qp = (idle["wall"]["peak_rss_bytes"] - base) / (2 * (n - 1)) if n > 1 else float("nan")
    print(f"{n:>6} {msgs:>9} {wall:>7.2f} {msgs / wall / 1e6:>11.3f} {wall * 1e9 / msgs:>8.0f} {marginal:>8.0f} "
          f"{s['wall']['packet_hops_per_s']:>12,.0f} {s['run']['wakeups'] / msgs:>10.2f} {size['msg_rate_Mpps']:>9.2f} "
          f"{s['wall']['peak_rss_bytes'] / 2**20:>9.1f} {idle['wall']['peak_rss_bytes'] / 2**20:>9.1f} {per_qp:>9.0f}")
PY
