#pragma once
// One direction of a PCIe link, timed analytically: its TLPs booked on its
// busy time (link/bookings.hpp), and the time it has spent sending. Plain
// C++, no SystemC.
//
// Rules:
// - A TLP takes wire bytes x ps per byte, in the first free gap at or after
//   it is ready (a TLP issued for a later time holds up no TLP ready before
//   it).
// - Posted writes stay in the order they are booked (PCIe: a posted request
//   does not pass a posted request; a CQE write lands after its message's
//   data writes): a posted TLP starts no earlier than the end of the posted
//   TLP booked before it. Read requests and completions take the first gap.
// - Times are ps held as doubles, not rounded per TLP: at Gen3 x8 a 24-byte
//   read request takes 26.5 ps, and rounding each TLP to a whole ps would move
//   the bandwidth of small transfers by up to 2 %. Callers round once where a
//   time leaves the model (a TLM delay). At one simulated second (1e12 ps) a
//   double still resolves 1e-4 ps, far below a TLP's time.

#include <cstdint>

#include "models/link/bookings.hpp"

namespace hcasim::pcie {

class LinkDirection {
 public:
  explicit LinkDirection(double ps_per_byte) : ps_per_byte_(ps_per_byte) {}

  // Books a TLP of wire_bytes, ready at ready_ps; returns when its last byte is out.
  double send(double ready_ps, uint32_t wire_bytes, bool posted) {
    const double cost = static_cast<double>(wire_bytes) * ps_per_byte_;
    const double earliest = posted && posted_until_ps_ > ready_ps ? posted_until_ps_ : ready_ps;
    const double end = bookings_.book(earliest, cost);
    if (posted) posted_until_ps_ = end;
    if (end > busy_until_ps_) busy_until_ps_ = end;
    busy_ps_ += cost;
    return end;
  }

  // Forgets the TLPs that ended by now_ps.
  void retire(double now_ps) { bookings_.retire(now_ps); }

  double busy_until_ps() const { return busy_until_ps_; }
  double busy_ps() const { return busy_ps_; }
  double ps_per_byte() const { return ps_per_byte_; }
  // Busy intervals booked ahead (for tests).
  std::size_t bookings() const { return bookings_.intervals(); }

 private:
  double ps_per_byte_;
  link::Bookings bookings_;
  double posted_until_ps_ = 0;  // end of the last posted TLP booked
  double busy_until_ps_ = 0;    // when the last TLP booked so far is out
  double busy_ps_ = 0;          // sum of the TLPs' wire times
};

}  // namespace hcasim::pcie
