#pragma once
// Transparent huge pages for the simulation's heap.
//
// Why: a large fabric's working set (ports, packets, switch and checker state:
// about 220 MiB for configs/bench/fat_tree3_1331.json) is touched all over on
// every packet-hop. With 4 KiB pages most of those touches also miss the TLB,
// whose reach is a few MiB; with the heap on 2 MiB pages the fat-tree
// benchmarks run about a third faster (README, Benchmark).
//
// Rules:
// - reserve_huge_page_heap(bytes) grows glibc malloc's heap by up to `bytes`
//   of address space once (the malloc and free of one block: no memory is
//   touched), marks that range for transparent huge pages (madvise
//   MADV_HUGEPAGE, which the kernel's usual THP mode "madvise" waits for), and
//   tells malloc to keep it (no trimming) and to serve large blocks from the
//   heap as well (no mappings of their own), so that the model's allocations
//   land there. Memory beyond it gets ordinary pages. Call it first in main,
//   before anything allocates much. When `bytes` of address space cannot be
//   had it halves the request, down to 256 MiB.
// - It changes where objects sit, never what the model does: results are the
//   same with and without it.
// - It does nothing and returns 0 where THP is off ("never" or absent), in
//   sanitizer builds (their allocator is not glibc's) and with the environment
//   variable HCASIM_HUGE_PAGE_HEAP=0 (for heap profilers, whose peak would
//   otherwise be the reserve's one block). Otherwise it returns the bytes
//   marked.
// - anon_huge_page_bytes(): the process's anonymous memory on huge pages now
//   (AnonHugePages of /proc/self/smaps_rollup), for the benchmark report; 0
//   when the kernel does not say.

#include <cstddef>
#include <cstdint>

namespace hcasim {

// Deep per-size free lists for glibc malloc (its tunable
// glibc.malloc.tcache_count, read only from the environment at start-up).
//
// Why: glibc keeps 7 freed blocks per size in its thread cache; the rest go to
// "fast bins", which the next request of 1 KiB or more merges back into the
// heap. Building a large fabric and writing its results allocate and free
// millions of small blocks between such requests, and in a heap of hundreds of
// MiB every merged or re-split block is a cache miss: for a k=16 3-level fat
// tree (28,672 ports) glibc's own bookkeeping was 60% of a 16 s run, and with
// 65,535 blocks per size the run takes 6.8 s (build 2.3 -> 0.9 s, results
// 12 -> 4 s; docs/performance.md, Memory at scale).
//
// Rules: reexec_with_deep_tcache(argv) re-executes the program (/proc/self/exe,
// same arguments) with glibc.malloc.tcache_count=65535 added to GLIBC_TUNABLES,
// unless that variable already sets tcache_count (then it is the user's
// choice), HCASIM_HUGE_PAGE_HEAP=0 is set, the program runs under valgrind
// (LD_PRELOAD names its vgpreload library: the re-executed program would run
// outside the tool), or the build is sanitized. It
// returns only when it does not re-execute (or exec fails); call it first in
// main. Results are the same either way: only where blocks come from changes.
void reexec_with_deep_tcache(char* argv[]);

std::size_t reserve_huge_page_heap(std::size_t bytes);
uint64_t anon_huge_page_bytes();

}  // namespace hcasim
