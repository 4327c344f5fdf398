// The huge-page heap (testbench/cli/huge_page_heap.hpp): after the reservation,
// malloc serves even a block it would otherwise map on its own from the range
// marked for transparent huge pages.

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "testbench/cli/huge_page_heap.hpp"
#include "testbench/cli/sanitizers.hpp"

namespace {

constexpr std::size_t kMiB = std::size_t(1) << 20;

std::string thp_mode() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(f, line);
  const auto open = line.find('['), close = line.find(']');
  return open == std::string::npos || close == std::string::npos ? "" : line.substr(open + 1, close - open - 1);
}

// The VmFlags of the mapping holding `address` (/proc/self/smaps), "" if none.
std::string vm_flags_at(const void* address) {
  const auto a = reinterpret_cast<uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> begin >> dash >> end && dash == '-') inside = begin <= a && a < end;
    else if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

}  // namespace

TEST_CASE("huge-page heap: a large block after the reservation sits in a range marked for huge pages") {
  const std::size_t marked = hcasim::reserve_huge_page_heap(std::size_t(1) << 30);
#if defined(HCASIM_UNDER_ASAN)
  REQUIRE(marked == 0);  // the sanitizer's allocator is not glibc's
#else
  const std::string mode = thp_mode();
  INFO("THP mode: " << mode);
  if (mode != "always" && mode != "madvise") {
    REQUIRE(marked == 0);
    return;
  }
  // The block's whole huge pages: 1 GiB less at most one page at each end.
  REQUIRE(marked >= (std::size_t(1) << 30) - 4 * kMiB);
  REQUIRE(marked % (2 * kMiB) == 0);
  // 64 MiB is above glibc's largest mmap threshold (32 MiB): without the
  // reservation it would be a mapping of its own, with ordinary pages.
  char* block = static_cast<char*>(std::malloc(64 * kMiB));
  REQUIRE(block != nullptr);
  const std::string flags = vm_flags_at(block + 32 * kMiB);
  INFO(flags);
  CHECK(flags.find(" hg") != std::string::npos);  // MADV_HUGEPAGE
  std::free(block);
#endif
}
