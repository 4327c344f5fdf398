#include "models/trace/counter_array.hpp"

#include <algorithm>
#include <limits>
#include <type_traits>

namespace hcasim::trace {

std::size_t CounterArray::size() const {
  return std::visit([](const auto& c) { return c.size(); }, counts_);
}

uint64_t CounterArray::at(std::size_t i) const {
  return std::visit([i](const auto& c) { return static_cast<uint64_t>(c[i]); }, counts_);
}

void CounterArray::add(std::size_t i, uint64_t n) {
  for (;;) {
    const bool fits = std::visit(
        [i, n](auto& c) {
          using T = typename std::decay_t<decltype(c)>::value_type;
          if (!std::is_same_v<T, uint64_t> && n > uint64_t{std::numeric_limits<T>::max()} - c[i]) return false;
          c[i] = static_cast<T>(c[i] + n);
          return true;
        },
        counts_);
    if (fits) return;
    widen();
  }
}

void CounterArray::extend(std::size_t front, std::size_t back) {
  std::visit(
      [front, back](auto& c) {  // exactly the size needed: no spare capacity
        std::decay_t<decltype(c)> wider(front + c.size() + back, 0);
        std::copy(c.begin(), c.end(), wider.begin() + static_cast<std::ptrdiff_t>(front));
        c = std::move(wider);
      },
      counts_);
}

std::size_t CounterArray::width_bytes() const {
  return std::visit([](const auto& c) { return sizeof(typename std::decay_t<decltype(c)>::value_type); }, counts_);
}

std::size_t CounterArray::memory_bytes() const {
  return std::visit([](const auto& c) { return c.capacity() * sizeof(typename std::decay_t<decltype(c)>::value_type); },
                    counts_);
}

void CounterArray::widen() {
  if (auto* c16 = std::get_if<std::vector<uint16_t>>(&counts_)) {
    counts_ = std::vector<uint32_t>(c16->begin(), c16->end());
  } else if (auto* c32 = std::get_if<std::vector<uint32_t>>(&counts_)) {
    counts_ = std::vector<uint64_t>(c32->begin(), c32->end());
  }
}

}  // namespace hcasim::trace
