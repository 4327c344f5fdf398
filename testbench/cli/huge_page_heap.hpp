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

std::size_t reserve_huge_page_heap(std::size_t bytes);
uint64_t anon_huge_page_bytes();

}  // namespace hcasim
