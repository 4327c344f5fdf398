#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite, then again built with
# AddressSanitizer + UndefinedBehaviorSanitizer (at -O1: see CMakeLists.txt). Usage: scripts/test.sh [--no-sanitize]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh"
jobs="$(nproc)"

"$root/scripts/build.sh" "$root/build"
(cd "$root/build" && ctest --output-on-failure -j "$jobs")

if [ "${1:-}" != "--no-sanitize" ]; then
  "$root/scripts/build.sh" "$root/build-asan" -DHCASIM_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
  (cd "$root/build-asan" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
     ctest --output-on-failure -j "$jobs")
fi
