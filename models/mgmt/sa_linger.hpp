#pragma once
// Finished SA transactions are kept for a linger time (a repeated request or
// Last packet is answered again) and forgotten lazily: at the first MAD or
// timer after it, never by a timer of their own, so a finished run leaves no
// event behind. Shared by the SA server and client.

#include <algorithm>
#include <cstdint>

namespace hcasim::mgmt {

// Erases the transactions with finished(t) whose t.expire_ps has passed, once
// `now` reaches next_expiry (the earliest such time, kept up to date here).
template <class Map, class Finished>
void forget_expired(Map& txns, uint64_t now, uint64_t& next_expiry, Finished finished) {
  if (now < next_expiry) return;
  next_expiry = UINT64_MAX;
  for (auto it = txns.begin(); it != txns.end();) {
    if (finished(it->second)) {
      if (now >= it->second.expire_ps) {
        it = txns.erase(it);
        continue;
      }
      next_expiry = std::min(next_expiry, it->second.expire_ps);
    }
    ++it;
  }
}

}  // namespace hcasim::mgmt
