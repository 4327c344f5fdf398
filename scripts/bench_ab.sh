#!/usr/bin/env bash
# Wall time per packet-hop of two hcasim builds, compared where single runs
# cannot be: on a machine whose neighbours move one run's figure by 10-40%.
# Each round runs both builds at the same time, one per core (they swap cores
# every round), so both see the same load; a round's figure is B's wall ns per
# packet-hop over A's. Prints each build's median and the median of the
# rounds' ratios: below 1 means B is faster. On this project's 2-core machines
# 24 rounds resolve about 3% (a build against itself gave 1.000 in 10 rounds,
# single rounds 0.94-1.19).
#
# --alone: each build runs by itself instead, A then B (B then A every other
# round), for builds that use both cores themselves (a worker thread, parallel
# simulation), which side by side would take each other's second core. Slower
# to resolve: the load moves between the two runs of a round (in 30-round sets
# on the EPYC the middle half of the rounds' ratios spanned 12-25%).
#
# Usage: scripts/bench_ab.sh [--alone] BIN_A BIN_B [ROUNDS [CONFIG [DURATION]]]
#   defaults: 24 rounds of configs/bench/fat_tree3_1331.json for 8us.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
usage="usage: scripts/bench_ab.sh [--alone] BIN_A BIN_B [ROUNDS [CONFIG [DURATION]]]"
alone=0
if [ "${1:-}" = "--alone" ]; then alone=1; shift; fi
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
a="$1" b="$2" rounds="${3:-24}" cfg="${4:-$root/configs/bench/fat_tree3_1331.json}" duration="${5:-8us}"
for bin in "$a" "$b"; do
  [ -x "$bin" ] || { echo "bench_ab.sh: $bin: not an executable hcasim" >&2; exit 2; }
done
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "bench_ab.sh: ROUNDS $rounds; accepted: a whole number >= 1" >&2; exit 2; }
"$a" validate "$cfg" --set "run.duration=$duration" >/dev/null  # a bad config or duration: its one-line error, exit 2
side_by_side=0  # both builds at once, one per core
if [ "$alone" = 0 ]; then
  if [ "$(nproc)" -ge 2 ]; then side_by_side=1
  else echo "bench_ab.sh: one core: the builds run one after the other, not side by side" >&2; fi
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

run_one() {  # bin core out
  if [ "$side_by_side" = 1 ]; then taskset -c "$2" "$1" run "$cfg" --quiet --set "run.duration=$duration" --out "$3" >/dev/null
  else "$1" run "$cfg" --quiet --set "run.duration=$duration" --out "$3" >/dev/null; fi
}
for i in $(seq "$rounds"); do
  ca=$((i % 2)) cb=$(((i + 1) % 2))
  if [ "$side_by_side" = 1 ]; then
    run_one "$a" "$ca" "$work/a-$i" & pa=$!
    run_one "$b" "$cb" "$work/b-$i" & pb=$!
    wait "$pa"; wait "$pb"
  elif [ "$ca" = 0 ]; then
    run_one "$b" 0 "$work/b-$i"
    run_one "$a" 0 "$work/a-$i"
  else
    run_one "$a" 0 "$work/a-$i"
    run_one "$b" 0 "$work/b-$i"
  fi
done
python3 - "$work" "$rounds" "$a" "$b" <<'PY'
import json, statistics, sys
work, rounds, a, b = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def hop(tag, i):
    return json.load(open(f"{work}/{tag}-{i}/stats.json"))["wall"]["ns_per_packet_hop"]
pairs = [(hop("a", i), hop("b", i)) for i in range(1, rounds + 1)]
ratios = [y / x for x, y in pairs]
print(f"A {a}: median {statistics.median(x for x, _ in pairs):.0f} ns per packet-hop")
print(f"B {b}: median {statistics.median(y for _, y in pairs):.0f} ns per packet-hop")
print(f"B/A: median of {rounds} rounds {statistics.median(ratios):.3f} (rounds from {min(ratios):.3f} to {max(ratios):.3f})")
PY
