#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite, then again built with
# AddressSanitizer + UndefinedBehaviorSanitizer (at -O1: see CMakeLists.txt; all but the tests
# labelled slow), then the tests of
# partitioned runs on threads (ctest label `parallel`) built with ThreadSanitizer, then runs
# each libFuzzer harness for 8 s (scripts/fuzz.sh, docs/fuzzing.md: about a minute).
# Usage: scripts/test.sh [--no-sanitize] [--no-fuzz]
#   --no-sanitize  skips the sanitized passes and the fuzz run (which is sanitized too)
#   --no-fuzz      skips the fuzz run only
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
sanitize=1
fuzz=1
for arg in "$@"; do
  case "$arg" in
    --no-sanitize) sanitize=0; fuzz=0 ;;
    --no-fuzz) fuzz=0 ;;
    *) echo "test.sh: unknown argument '$arg'; usage: scripts/test.sh [--no-sanitize] [--no-fuzz]" >&2; exit 2 ;;
  esac
done
"$root/scripts/setup.sh"
jobs="$(nproc)"

# Line tables only (-g1) in this pass: the build is the one a user's gets (GCC, -O2), and a failing
# test's report needs no more; full debug information took a quarter of the libraries' build time.
"$root/scripts/build.sh" "$root/build" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"
(cd "$root/build" && ctest --output-on-failure -j "$jobs")

# The sanitized passes are built with clang++ (Debian's clang, which scripts/fuzz.sh needs too):
# it builds this code in about half GCC's time (the whole suite under ASan+UBSan: 12.5 min against
# 24 on two cores), while the first pass keeps the compiler a user's build gets.
if [ "$sanitize" = 1 ]; then
  "$root/scripts/build.sh" "$root/build-asan" -DHCASIM_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++
  # Without the tests labelled slow (tagged [slow]: sweeps of many runs of scenarios that
  # other tests run once, and Slurm's start): under the sanitizers they took half this pass's
  # test time, and pass 1 has run them.
  # use_stacks=0: at exit LeakSanitizer may take a SystemC coroutine's stack, already unmapped,
  # for the main thread's (its stack pointer is outside the range it has) and crash reading it
  # ("Tracer caught signal 11"): 43 of 1,119 tests on a Linux 6.18 machine. The leak check runs
  # after main has returned, when the stacks hold no roots; globals, TLS and registers are still
  # scanned.
  (cd "$root/build-asan" && ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=use_stacks=0 UBSAN_OPTIONS=print_stacktrace=1 \
     ctest -LE slow --output-on-failure -j "$jobs")

  # ThreadSanitizer: only test_parallel, the program of the test files with `parallel` tests
  # (and hcasim, which they run), not the whole suite. Any report fails the pass (halt_on_error:
  # the program exits non-zero at the first one, a test that runs hcasim sees that).
  "$root/scripts/build.sh" "$root/build-tsan" --target test_parallel \
    -DHCASIM_TSAN=ON -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++
  for program in hcasim test_parallel; do
    # grep without -q reads all of nm's output (with -q, nm's SIGPIPE would fail the pipe).
    nm "$root/build-tsan/$program" | grep -w __tsan_init >/dev/null ||
      { echo "test.sh: build-tsan/$program has no ThreadSanitizer runtime: the pass would check nothing" >&2; exit 1; }
  done
  (cd "$root/build-tsan" && TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
     ctest -L parallel --no-tests=error --output-on-failure -j "$jobs")
fi

if [ "$fuzz" = 1 ]; then
  "$root/scripts/fuzz.sh" 8
fi
