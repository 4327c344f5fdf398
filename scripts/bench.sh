#!/usr/bin/env bash
# Benchmarks: builds a Release binary, runs each configs/bench/*.json (or the files
# given), and prints packets/s, packet-hops/s, wall ns per packet-hop, the cost of
# one timed SC_METHOD notification measured right after on the same machine, their
# ratio, build time (routing, credit-loop check, elaboration) and peak memory.
# Each figure is the best of three runs, so a busy machine inflates it less; the
# three runs' own figures follow in brackets. Targets: at most 10 timed-event
# costs per packet-hop; a 1,024-host fabric builds in under 10 s and runs in
# under 4 GiB. The *_parallel scenarios split the fabric into partitions run on
# threads of their own (README, Parallel simulation), one per core.
# With no files given, a last section routes large fabrics (configs/bench/routing/:
# 3-level fat trees k = 16, 22, 34 and the a=20 h=10 dragonfly) with `hcasim validate
# --timings`: the whole validate, routing and the credit-loop check, best of three.
# Targets (issue 50): the dragonfly validates in under 2 s; k = 34 builds (routing,
# check and elaboration) in under 10 s.
# Last, the scale rows (or only them: bench.sh --scale [K ...]):
# configs/bench/scale/fat_tree3_uniform.json, a 3-level fat tree with uniform raw
# traffic (2 packets of 4 KiB per host), at k = 16, 22 and 34 (the largest 3-level
# fat tree a subnet's LIDs allow: 39,304 hosts), each run once: peak memory, build
# time, bytes per port ((peak - the k=2 tree's peak) / ports added) and the size of
# stats.json (docs/performance.md, Memory at scale). Targets: k=34 under 2 GiB,
# stats.json under 1 MB.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$("$root/scripts/release-bin.sh")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

scale_only=0
if [ "${1:-}" = "--scale" ]; then
  scale_only=1
  shift
fi
configs=()
scale_ks=(16 22 34)
if [ $scale_only = 1 ]; then
  [ $# -gt 0 ] && scale_ks=("$@")
else
  configs=("$@")
  [ ${#configs[@]} -eq 0 ] && configs=("$root"/configs/bench/*.json) || scale_ks=()
fi
for cfg in "${configs[@]+"${configs[@]}"}"; do
  name="$(basename "$cfg" .json)"
  events=()
  for i in 1 2 3; do
    "$bin" run "$cfg" --quiet --out "$work/$name-$i" >/dev/null
    events+=("$("$bin" calibrate | sed -E 's/.*: ([0-9.]+) ns/\1/')")
  done
  python3 - "$work/$name" "$name" "${events[@]}" <<'PY'
import json, sys
runs = [json.load(open(f"{sys.argv[1]}-{i}/stats.json")) for i in (1, 2, 3)]
s = min(runs, key=lambda x: x["wall"]["seconds"])
events = [float(e) for e in sys.argv[3:]]
event_ns = min(events)
w, r = s["wall"], s["run"]
name = sys.argv[2]
hop_ns = w["ns_per_packet_hop"]
hops = [x["wall"]["ns_per_packet_hop"] for x in runs]
listed = lambda values, fmt: ", ".join(format(v, fmt) for v in values)
print(f"{name}: {r['packets_delivered']} packets, {r['packet_hops']} packet-hops in {w['seconds']:.3f} s")
print(f"  packets/s          {r['packets_delivered'] / w['seconds']:,.0f}")
print(f"  packet-hops/s      {w['packet_hops_per_s']:,.0f}")
# The best run of each, then every run, in order: the spread shows how much the
# machine's other load moved them (README, Benchmark).
print(f"  ns per packet-hop  {hop_ns:.1f}   (runs: {listed(hops, '.1f')})")
print(f"  timed event        {event_ns:.1f} ns   (each after its run: {listed(events, '.1f')})")
print(f"  ratio              {hop_ns / event_ns:.2f} timed-event costs per packet-hop (target <= 10)"
      f"   (run by run: {listed([h / e for h, e in zip(hops, events)], '.2f')})")
if r.get("partitions", 1) > 1:  # parallel simulation (README): the wall time is of all its threads at once
    print(f"  parallel           {r['partitions']} partitions on {w['threads']} threads, {r['cut_links']} cut links, "
          f"windows of {r['window_ps'] / 1e3:.3f} ns")
print(f"  build time         {w['build_seconds']:.2f} s (routing, credit-loop check, elaboration)")
print(f"  peak memory        {w['peak_rss_bytes'] / 2**20:.1f} MiB")
if "huge_page_bytes" in w:  # binaries before it was reported lack it
    print(f"  on huge pages      {w['huge_page_bytes'] / 2**20:.1f} MiB (transparent huge pages: testbench/cli/huge_page_heap.hpp)")
PY
done

if [ $scale_only = 0 ] && [ $# -eq 0 ]; then
python3 - "$bin" "$root"/configs/bench/routing/*.json <<'PY'
import os, re, subprocess, sys, time
timings = re.compile(r"timings: routing ([0-9.e+-]+) s .*credit-loop check ([0-9.e+-]+) s")
print("routing: hcasim validate --timings (no elaboration), wall seconds, best of three")
print(f"  {'fabric':<22} {'validate':>9} {'routing':>9} {'credit-loop check':>18}")
for cfg in sys.argv[2:]:
    runs = []
    for _ in range(3):
        start = time.perf_counter()
        p = subprocess.run([sys.argv[1], "validate", cfg, "--timings"], capture_output=True, text=True)
        wall = time.perf_counter() - start
        m = timings.search(p.stdout)
        if p.returncode not in (0, 1) or not m:  # 1: a credit loop (minhop on the dragonfly has them)
            sys.exit(f"{cfg}: hcasim validate failed: {p.stderr.strip()}")
        runs.append((wall, float(m[1]), float(m[2])))
    best = [min(r[i] for r in runs) for i in range(3)]
    name = os.path.basename(cfg)[:-len(".json")]
    print(f"  {name:<22} {best[0]:>8.2f}s {best[1]:>8.2f}s {best[2]:>17.2f}s")
PY
fi

# The scale rows: one run per size, k=2 first for the program's own memory.
[ ${#scale_ks[@]} -eq 0 ] && exit 0
scale="$root/configs/bench/scale/fat_tree3_uniform.json"
echo "scale: 3-level fat trees, uniform raw traffic (2 packets of 4 KiB per host)"
for k in 2 "${scale_ks[@]}"; do
  "$bin" run "$scale" --quiet --set "topology.k=$k" --out "$work/scale-$k" >/dev/null
done
python3 - "$work" "${scale_ks[@]}" <<'PY'
import json, os, sys
work, ks = sys.argv[1], [int(k) for k in sys.argv[2:]]
def stats(k):
    return json.load(open(f"{work}/scale-{k}/stats.json"))
def ports(k):  # k^3 HCA ports and 3k^2 switches of 2k ports
    return k ** 3 + 3 * k * k * 2 * k
base = stats(2)["wall"]["peak_rss_bytes"]
print(f"  {'k':>3} {'hosts':>7} {'ports':>8} {'peak MiB':>9} {'build s':>8} {'run s':>7} {'B/port':>7} {'stats.json KB':>14}")
for k in ks:
    w = stats(k)["wall"]
    per_port = (w["peak_rss_bytes"] - base) / (ports(k) - ports(2))
    print(f"  {k:>3} {k ** 3:>7,} {ports(k):>8,} {w['peak_rss_bytes'] / 2**20:>9,.0f} {w['build_seconds']:>8.1f} "
          f"{w['seconds']:>7.1f} {per_port:>7,.0f} {os.path.getsize(f'{work}/scale-{k}/stats.json') / 1e3:>14,.1f}")
print(f"  (B/port: the peak above the k=2 tree's {base / 2**20:.0f} MiB, over the ports added; target: k=34 under 2 GiB)")
PY
