#!/usr/bin/env bash
# Prints the hcasim binary the benchmarks run: $HCASIM_BIN when set, else a
# Release build of the program in build-release (set up and built first; compiler errors go to
# stderr). Usage: bin="$(scripts/release-bin.sh)"
set -euo pipefail
if [ -n "${HCASIM_BIN:-}" ]; then
  echo "$HCASIM_BIN"
  exit 0
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh" >&2
# The program only: the tests are built and run by scripts/test.sh.
cmake -S "$root" -B "$root/build-release" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build-release" -j "$(nproc)" --target hcasim >/dev/null
echo "$root/build-release/hcasim"
