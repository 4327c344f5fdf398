#pragma once
// A vector of owned SystemC objects that destroys them last-made first.
//
// Why: SystemC unregisters a destroyed port or export from its simulation's
// registry by searching it from the back and moving the last entry into the
// gap. Destroyed in the reverse of the order they were made, each object is
// found at once; in the order they were made, each search runs over most of
// the registry, and tearing down a fabric of thousands of ports took time
// quadratic in their number.

#include <memory>
#include <vector>

namespace hcasim::link {

template <class T>
class OwnedInReverse : public std::vector<std::unique_ptr<T>> {
 public:
  OwnedInReverse() = default;
  OwnedInReverse(const OwnedInReverse&) = delete;
  OwnedInReverse& operator=(const OwnedInReverse&) = delete;
  ~OwnedInReverse() {
    while (!this->empty()) this->pop_back();
  }
};

}  // namespace hcasim::link
