#!/usr/bin/env bash
# Shows that two hcasim builds give the same results: runs every scenario with
# both and compares what each run wrote, byte for byte: stats.json without its
# wall-clock section ("wall"), scenario.resolved.json, and packets.pcap and
# waves.vcd where the scenario writes them (the VCD without its $date block).
# For changes that must not change behaviour (a move, a refactoring).
# Prints one line per scenario; exits 1 when any differs.
#
# Usage: scripts/same_results.sh BIN_A BIN_B [SCENARIO.json ...]
#   default scenarios: every configs/*.json and configs/bench/*.json.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
[ $# -ge 2 ] || { echo "usage: scripts/same_results.sh BIN_A BIN_B [SCENARIO.json ...]" >&2; exit 2; }
a="$1" b="$2"
shift 2
for bin in "$a" "$b"; do
  [ -x "$bin" ] || { echo "same_results.sh: $bin: not an executable hcasim" >&2; exit 2; }
done
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=("$root"/configs/*.json "$root"/configs/bench/*.json)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The parts of a run's folder that must not change, one file each in $2.
normalise() {  # run_dir out_dir
  mkdir -p "$2"
  python3 - "$1/stats.json" "$2/stats.json" <<'PY'
import json, sys
stats = json.load(open(sys.argv[1]))
stats.pop("wall", None)
json.dump(stats, open(sys.argv[2], "w"), indent=1, sort_keys=True)
PY
  cp "$1/scenario.resolved.json" "$2/"
  [ ! -f "$1/packets.pcap" ] || cp "$1/packets.pcap" "$2/"
  [ ! -f "$1/waves.vcd" ] || sed '/^\$date/,/\$end/d' "$1/waves.vcd" >"$2/waves.vcd"
}

differ=0
for s in "${scenarios[@]}"; do
  name="$(basename "$s" .json)"
  case "$s" in */bench/*) name="bench/$name" ;; esac
  declare -A rc=()
  for side in a b; do
    bin="$a"
    [ "$side" = a ] || bin="$b"
    rc[$side]=0
    "$bin" run "$s" --quiet --out "$work/$side/run" >/dev/null 2>&1 || rc[$side]=$?
    [ ! -f "$work/$side/run/stats.json" ] || normalise "$work/$side/run" "$work/$side/kept"
  done
  codes="exit ${rc[a]} and ${rc[b]}"
  if [ ! -d "$work/a/kept" ] || [ ! -d "$work/b/kept" ]; then
    echo "$name: no stats.json ($codes)"
    differ=1
  elif diff -r "$work/a/kept" "$work/b/kept" >"$work/diff" && [ "${rc[a]}" = "${rc[b]}" ]; then
    echo "$name: identical: $(cd "$work/a/kept" && ls | tr '\n' ' ')($codes)"
  else
    echo "$name: DIFFERENT ($codes)"
    head -20 "$work/diff"
    differ=1
  fi
  rm -rf "$work/a" "$work/b"
done
exit "$differ"
