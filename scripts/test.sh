#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite, then again built with
# AddressSanitizer + UndefinedBehaviorSanitizer (at -O1: see CMakeLists.txt), then the tests of
# partitioned runs on threads (ctest label `parallel`) built with ThreadSanitizer.
# Usage: scripts/test.sh [--no-sanitize]
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

  # ThreadSanitizer: only the test programs that hold the `parallel` tests (and hcasim, which
  # they run), not the whole suite. Any report fails the pass (halt_on_error: the program
  # exits non-zero at the first one, a test that runs hcasim sees that).
  "$root/scripts/build.sh" "$root/build-tsan" --target test_scenarios --target test_cli \
    -DHCASIM_TSAN=ON -DCMAKE_BUILD_TYPE=Debug
  for program in hcasim test_scenarios test_cli; do
    ldd "$root/build-tsan/$program" | grep -q libtsan ||
      { echo "test.sh: build-tsan/$program does not link libtsan: the ThreadSanitizer pass would check nothing" >&2; exit 1; }
  done
  (cd "$root/build-tsan" && TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
     ctest -L parallel --no-tests=error --output-on-failure -j "$jobs")
fi
