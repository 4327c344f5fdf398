#!/usr/bin/env bash
# Instructions and cache misses per packet-hop of a benchmark's run phase, under
# cachegrind: counts that do not depend on the machine's other load, for
# comparing two builds where wall time moves by more than the change (see the
# README's benchmark section). The run phase is the scenario run for DURATION
# minus the same scenario run for 1 ns: building, elaboration and teardown
# cancel out; formatting stats.json does not wholly (the latency quantiles of
# filled histograms and longer numbers: about 280 of the ~2,000 instructions per
# packet-hop of the default, and no cache misses to speak of), a constant that
# cancels again between two builds. The last-level cache is simulated at 4 MiB,
# 16-way.
#
# Usage: scripts/bench_cachegrind.sh [CONFIG [DURATION]]
#   default configs/bench/fat_tree3_1331.json for 5us (about a minute).
#   HCASIM_BIN selects the binary, as for bench.sh.
# Needs valgrind (Debian package valgrind).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cfg="${1:-$root/configs/bench/fat_tree3_1331.json}"
duration="${2:-5us}"
if ! command -v valgrind >/dev/null; then
  echo "bench_cachegrind.sh needs valgrind; install it as root: apt-get install valgrind" >&2
  exit 2
fi
bin="$("$root/scripts/release-bin.sh")"
"$bin" validate "$cfg" --set "run.duration=$duration" >/dev/null  # a bad config or duration: its one-line error, exit 2
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

measure() {  # name duration
  valgrind --tool=cachegrind --cache-sim=yes --LL=4194304,16,64 --cachegrind-out-file="$work/$1.cg" \
    "$bin" run "$cfg" --quiet --set "run.duration=$2" --out "$work/$1" >/dev/null 2>"$work/$1.err" ||
    { echo "cachegrind run of $cfg for $2 failed:" >&2; tail -3 "$work/$1.err" >&2; exit 1; }
}
measure run "$duration" &
measure base 1ns
wait $!
python3 - "$work" "$(basename "$cfg" .json)" "$duration" <<'PY'
import json, sys
work, name, duration = sys.argv[1:]
def totals(path):
    for line in open(path):
        if line.startswith("summary:"):
            return list(map(int, line.split()[1:]))
events = None
for line in open(f"{work}/run.cg"):
    if line.startswith("events:"):
        events = line.split()[1:]
run, base = totals(f"{work}/run.cg"), totals(f"{work}/base.cg")
d = {e: a - b for e, a, b in zip(events, run, base)}
hops = json.load(open(f"{work}/run/stats.json"))["run"]["packet_hops"]
print(f"{name} for {duration}: {hops} packet-hops in the run phase")
print(f"  instructions per packet-hop      {d['Ir'] / hops:,.0f}")
print(f"  L1 data misses per packet-hop    {(d['D1mr'] + d['D1mw']) / hops:.1f}")
print(f"  4 MiB LL misses per packet-hop   {(d['DLmr'] + d['DLmw']) / hops:.1f}")
PY
