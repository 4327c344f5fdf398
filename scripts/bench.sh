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
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$("$root/scripts/release-bin.sh")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

configs=("$@")
[ ${#configs[@]} -eq 0 ] && configs=("$root"/configs/bench/*.json)
for cfg in "${configs[@]}"; do
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

[ $# -eq 0 ] || exit 0
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
