#!/usr/bin/env bash
# Prints the hcasim binary the benchmarks run: $HCASIM_BIN when set, else a
# Release build of the program in build-release (set up and built first; compiler
# errors go to stderr). Usage: bin="$(scripts/release-bin.sh)"
#
# The Release build is profile-guided: an instrumented build in
# build-release-train runs short versions of the benchmark scenarios (a few
# seconds; again whenever that build changed), and build-release is compiled
# with the counts (CMakeLists.txt, HCASIM_PROFILE): 4-6% less wall time per
# packet-hop on the fat-tree benchmarks (docs/performance.md). HCASIM_PGO=0
# builds build-release without a profile; the first build after switching
# recompiles everything.
set -euo pipefail
if [ -n "${HCASIM_BIN:-}" ]; then
  echo "$HCASIM_BIN"
  exit 0
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh" >&2
build() {  # DIR [cmake args...]: the program only (the tests are scripts/test.sh's)
  local dir="$1"
  shift
  cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
  cmake --build "$dir" -j "$(nproc)" --target hcasim >/dev/null
}
if [ "${HCASIM_PGO:-1}" = 0 ]; then
  build "$root/build-release" -DHCASIM_PROFILE= -DHCASIM_PROFILE_DIR=
  echo "$root/build-release/hcasim"
  exit 0
fi

train="$root/build-release-train"
profile="$train/profile"
build "$train" -DHCASIM_PROFILE=generate "-DHCASIM_PROFILE_DIR=$profile"
if [ ! -f "$profile/trained" ] || [ "$train/hcasim" -nt "$profile/trained" ]; then
  rm -rf "$profile"
  mkdir -p "$profile"
  out="$(mktemp -d)"
  trap 'rm -rf "$out"' EXIT
  bench="$root/configs/bench"
  run() { "$train/hcasim" run "$@" --quiet --out "$out/run" >/dev/null; }
  run "$bench/fat_tree3_1331.json" --set run.duration=5us
  run "$bench/fat_tree2_1024.json" --set run.duration=5us
  # The partitioned run's own loop (one thread: the profile counters are not atomic).
  run "$bench/fat_tree3_1331_parallel.json" --set run.duration=5us --threads 1
  run "$bench/b2b_saturated.json" --set run.duration=100us
  run "$bench/qp_scaling.json" --set workload.perftest.0.iterations=20000
  touch "$profile/trained"
fi
build "$root/build-release" -DHCASIM_PROFILE=use "-DHCASIM_PROFILE_DIR=$profile"
echo "$root/build-release/hcasim"
