#include "testbench/cli/huge_page_heap.hpp"
#include "testbench/cli/sanitizers.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace hcasim {

namespace {

constexpr std::size_t kHugePage = std::size_t(2) << 20;    // x86-64 transparent huge page
constexpr std::size_t kSmallestReserve = std::size_t(256) << 20;

// Whether the kernel would give this process transparent huge pages where it
// asks for them: the bracketed mode is "always" or "madvise".
bool thp_available() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(f, modes);
  return modes.find("[always]") != std::string::npos || modes.find("[madvise]") != std::string::npos;
}

// HCASIM_HUGE_PAGE_HEAP=0: a heap profiler (heaptrack, valgrind massif) would
// otherwise report the reserve's one block as the process's peak.
bool off_by_environment() {
  const char* v = std::getenv("HCASIM_HUGE_PAGE_HEAP");
  return v != nullptr && std::string(v) == "0";
}

constexpr const char* kTcacheTunable = "glibc.malloc.tcache_count";

}  // namespace

void reexec_with_deep_tcache(char* argv[]) {
#if defined(HCASIM_UNDER_ASAN) || defined(HCASIM_UNDER_TSAN)  // their allocator is not glibc's
  (void)argv;
#else
  if (off_by_environment()) return;
  // Under valgrind (its preloaded library in LD_PRELOAD) the re-executed
  // program would run outside the tool.
  const char* preload = std::getenv("LD_PRELOAD");
  if (preload != nullptr && std::string(preload).find("vgpreload") != std::string::npos) return;
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  const std::string set = tunables != nullptr ? tunables : "";
  if (set.find(kTcacheTunable) != std::string::npos) return;  // the user's, or ours after the exec
  const std::string value = (set.empty() ? "" : set + ":") + kTcacheTunable + "=65535";
  if (setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
  // The exec failed (no /proc): run on with the default free lists.
#endif
}

std::size_t reserve_huge_page_heap(std::size_t bytes) {
#if defined(HCASIM_UNDER_ASAN) || defined(HCASIM_UNDER_TSAN)  // their allocator is not glibc's
  (void)bytes;
  return 0;
#else
  if (!thp_available() || off_by_environment()) return 0;
  // Large blocks from the heap, not mappings of their own; freed memory stays
  // in the heap (the reserved range must outlive the free below).
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, -1);
  for (; bytes >= kSmallestReserve; bytes /= 2) {
    void* block = std::malloc(bytes);
    if (block == nullptr) continue;
    // The huge pages that fit inside the block.
    const auto begin = (reinterpret_cast<uintptr_t>(block) + kHugePage - 1) & ~(kHugePage - 1);
    const auto end = (reinterpret_cast<uintptr_t>(block) + bytes) & ~(kHugePage - 1);
    const bool marked = madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE) == 0;
    std::free(block);  // back to the heap's top, where the next allocations come from
    return marked ? end - begin : 0;
  }
  return 0;
#endif
}

uint64_t anon_huge_page_bytes() {
  std::ifstream f("/proc/self/smaps_rollup");
  std::string line;
  while (std::getline(f, line)) {
    std::istringstream in(line);
    std::string key;
    uint64_t kib = 0;
    if (in >> key >> kib && key == "AnonHugePages:") return kib * 1024;
  }
  return 0;
}

}  // namespace hcasim
