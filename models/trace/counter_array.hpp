#pragma once
// An array of counters that starts 16 bits wide and widens, all at once, to 32
// and then 64 bits when an addition would overflow one of them: a histogram's
// buckets hold a few thousand samples each in most runs, so they take a quarter
// of the memory of 64-bit counters until one of them needs more.

#include <cstddef>
#include <cstdint>
#include <variant>
#include <vector>

namespace hcasim::trace {

class CounterArray {
 public:
  std::size_t size() const;
  uint64_t at(std::size_t i) const;
  // Adds n to counter i, widening every counter first if it would overflow.
  void add(std::size_t i, uint64_t n);
  // Inserts `front` zero counters before the first and `back` after the last.
  void extend(std::size_t front, std::size_t back);
  // Bytes per counter now: 2, 4 or 8.
  std::size_t width_bytes() const;
  // Heap bytes held.
  std::size_t memory_bytes() const;

 private:
  void widen();
  std::variant<std::vector<uint16_t>, std::vector<uint32_t>, std::vector<uint64_t>> counts_;
};

}  // namespace hcasim::trace
