#!/usr/bin/env bash
# Configures and builds hcasim.
# Usage: scripts/build.sh [BUILD_DIR] [--target NAME ...] [extra cmake args...]
#   --target NAME  build only that target and what it needs, e.g. hcasim (the program, not the
#                  test suite; scripts/run-default.sh); default: everything, tests included.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
shift || true
targets=()
cmake_args=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--target" ]; then
    [ $# -ge 2 ] || { echo "build.sh: --target needs a target name, e.g. --target hcasim" >&2; exit 2; }
    targets+=(--target "$2")
    shift 2
  else
    cmake_args+=("$1")
    shift
  fi
done
# Ninja for a new build directory (one configured before keeps its generator): it schedules the
# files of every target at once, where make waits for a target's libraries before compiling it.
generator=()
[ -f "$build/CMakeCache.txt" ] || ! command -v ninja >/dev/null || generator=(-G Ninja)
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${cmake_args[@]}" >/dev/null
cmake --build "$build" -j "$(nproc)" "${targets[@]}"
