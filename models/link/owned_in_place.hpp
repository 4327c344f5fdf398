#pragma once
// A fixed number of objects made side by side in one allocation and
// destroyed last-made first. Finding object i is arithmetic on the base: no
// pointer to load, which on a large fabric is a cache miss of its own.
//
// Why last-made first: SystemC unregisters a destroyed port or export from
// its simulation's registry by searching it from the back and moving the last
// entry into the gap. Destroyed in the reverse of the order they were made,
// each object is found at once; in the order they were made, each search runs
// over most of the registry, and tearing down a fabric of thousands of ports
// took time quadratic in their number.

#include <cstddef>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

namespace hcasim::link {

template <class T>
class OwnedInPlace {
 public:
  explicit OwnedInPlace(std::size_t capacity)
      : items_(static_cast<T*>(::operator new(capacity * sizeof(T), std::align_val_t{alignof(T)}))),
        capacity_(capacity) {}
  OwnedInPlace(const OwnedInPlace&) = delete;
  OwnedInPlace& operator=(const OwnedInPlace&) = delete;
  ~OwnedInPlace() {
    while (size_ > 0) items_[--size_].~T();
    ::operator delete(items_, std::align_val_t{alignof(T)});
  }

  // Makes the next object in place; throws std::length_error when all are made.
  template <class... Args>
  T& emplace_back(Args&&... args) {
    if (size_ == capacity_) throw std::length_error("OwnedInPlace: all " + std::to_string(capacity_) + " made");
    T* t = new (items_ + size_) T(std::forward<Args>(args)...);
    ++size_;
    return *t;
  }
  T& operator[](std::size_t i) { return items_[i]; }
  const T& operator[](std::size_t i) const { return items_[i]; }
  std::size_t size() const { return size_; }
  T* begin() { return items_; }
  T* end() { return items_ + size_; }

 private:
  T* items_;
  std::size_t size_ = 0;
  std::size_t capacity_;
};

}  // namespace hcasim::link
