#!/usr/bin/env bash
# Sets up, builds the hcasim program (only the program: the test suite is scripts/test.sh's)
# and runs the default scenario (configs/b2b_hdr.json), printing a short summary. Results
# (stats.json, packets.pcap, waves.vcd) go to out/b2b_hdr.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh" "$root/build" --target hcasim
cd "$root"
exec "$root/build/hcasim" run configs/b2b_hdr.json --out out/b2b_hdr "$@"
