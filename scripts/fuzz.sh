#!/usr/bin/env bash
# Builds the libFuzzer harnesses (testbench/fuzz, docs/fuzzing.md) with clang++, ASan and
# UBSan into build-fuzz/, and runs each for SECONDS on a copy of its seed corpus.
#
# Usage: scripts/fuzz.sh [SECONDS] [--only NAME] [--merge SEED_DIR]
#   SECONDS          run time per harness (default 60); 0 builds only (and merges, with --merge)
#   --only NAME      one harness (packet, fcp, mad, sa_reassembly, host_formats, hca_mmio,
#                    ibnetdiscover, scenario); may be repeated
#   --merge SEED_DIR after the runs, minimise the repository's corpus together with
#                    what the runs found and SEED_DIR/<harness>/ (libFuzzer -merge=1) and
#                    write the result into testbench/fuzz/corpus/<harness>/; without it the
#                    repository's corpus is never written
# Prints one line per harness: executions, exec/s, cov and ft (libFuzzer's edge and feature
# counts), peak RSS and findings. Exits 1 if any harness found a crash, leak, timeout or
# out-of-memory (naming the reproducer), 2 on bad arguments.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build-fuzz"
all=(packet fcp mad sa_reassembly host_formats ibnetdiscover scenario hca_mmio)
seconds=60
only=()
merge=""
while [ $# -gt 0 ]; do
  case "$1" in
    --only) [ $# -ge 2 ] || { echo "fuzz.sh: --only needs a harness: ${all[*]}" >&2; exit 2; }
            only+=("$2"); shift 2 ;;
    --merge) [ $# -ge 2 ] || { echo "fuzz.sh: --merge needs a seed directory (may be empty)" >&2; exit 2; }
             merge="$(cd "$2" && pwd)"; shift 2 ;;
    *[!0-9]*|"") echo "fuzz.sh: unknown argument '$1'; usage: scripts/fuzz.sh [SECONDS] [--only NAME] [--merge SEED_DIR]" >&2
                 exit 2 ;;
    *) seconds="$1"; shift ;;
  esac
done
harnesses=("${only[@]:-${all[@]}}")
for h in "${harnesses[@]}"; do
  [[ " ${all[*]} " == *" $h "* ]] || { echo "fuzz.sh: no harness '$h'; accepted: ${all[*]}" >&2; exit 2; }
done
command -v clang++ >/dev/null || { echo "fuzz.sh: needs clang++ and libFuzzer: apt-get install clang libclang-rt-14-dev" >&2; exit 2; }

start=$(date +%s)
generator=()  # Ninja for a new build directory, as scripts/build.sh
[ -f "$build/CMakeCache.txt" ] || ! command -v ninja >/dev/null || generator=(-G Ninja)
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++ -DHCASIM_FUZZ=ON >/dev/null
targets=()
for h in "${harnesses[@]}"; do targets+=(--target "fuzz_$h"); done
cmake --build "$build" -j "$(nproc)" "${targets[@]}" >"$build/fuzz-build.log" 2>&1 ||
  { tail -30 "$build/fuzz-build.log" >&2; echo "fuzz.sh: build failed ($build/fuzz-build.log)" >&2; exit 2; }
echo "fuzz.sh: built ${#harnesses[@]} harnesses in $(( $(date +%s) - start )) s"
[ "$seconds" -gt 0 ] || [ -n "$merge" ] || exit 0

# detect_leaks: LeakSanitizer runs at the end of each input; malloc_limit_mb = rss_limit_mb.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:symbolize=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
failed=0
[ "$seconds" -eq 0 ] || printf '%-14s %12s %9s %7s %7s %8s  %s\n' harness executions exec/s cov ft rss_mb findings
for h in "${harnesses[@]}"; do
  run="$build/fuzz-run/$h"
  rm -rf "$run"
  mkdir -p "$run/corpus" "$run/artifacts"
  cp "$root/testbench/fuzz/corpus/$h/"* "$run/corpus/" 2>/dev/null || true
  log="$run/fuzz.log"
  rc=0
  if [ "$seconds" -gt 0 ]; then
    # The scenario harness loads whole fabrics, and the memory estimate accepts some as large as
    # a dragonfly of 16,065 switches: 44 s and 1.5 GB to load under ASan on a busy machine.
    limits=(-timeout=30 -rss_limit_mb=2048)
    [ "$h" != scenario ] || limits=(-timeout=120 -rss_limit_mb=4096)
    "$build/fuzz_$h" "$run/corpus" -max_total_time="$seconds" "${limits[@]}" -seed=1 \
      -print_final_stats=1 -artifact_prefix="$run/artifacts/" >"$log" 2>&1 || rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    found=$(ls "$run/artifacts" | grep -E '^(crash|leak|timeout|oom)-' || true)
    if [ "$rc" -ne 0 ] || [ -n "$found" ]; then
      failed=1
      what="FOUND (exit $rc): ${found:+$run/artifacts/$found}; log $log"
    else
      what="none"
    fi
    printf '%-14s %12s %9s %7s %7s %8s  %s\n' "$h" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${rss:-?}" "$what"
  fi
  if [ -n "$merge" ]; then
    dest="$root/testbench/fuzz/corpus/$h"
    mkdir -p "$run/merged" "$dest" "$merge/$h"
    "$build/fuzz_$h" -merge=1 -timeout=30 "$run/merged" "$dest" "$run/corpus" "$merge/$h" \
      >"$run/merge.log" 2>&1
    rm -f "$dest"/*
    cp "$run/merged/"* "$dest/"
    echo "  corpus: $(ls "$dest" | wc -l) files, $(cat "$dest"/* | wc -c) bytes in testbench/fuzz/corpus/$h"
  fi
done
echo "fuzz.sh: $(( $(date +%s) - start )) s in all"
exit $failed
