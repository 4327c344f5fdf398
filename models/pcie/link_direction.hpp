#pragma once
// One direction of a PCIe link, timed analytically: the time it is busy until
// and the time it has spent sending. Plain C++, no SystemC.
//
// Rules:
// - A TLP starts when it is ready and the direction is free, whichever is
//   later, and takes wire bytes x ps per byte; TLPs of one direction go out in
//   the order they are sent (one queue, as a PCIe transmitter keeps posted
//   writes and completions of one stream in order).
// - Times are ps held as doubles, not rounded per TLP: at Gen3 x8 a 24-byte
//   read request takes 26.5 ps, and rounding each TLP to a whole ps would move
//   the bandwidth of small transfers by up to 2 %. Callers round once where a
//   time leaves the model (a TLM delay). At one simulated second (1e12 ps) a
//   double still resolves 1e-4 ps, far below a TLP's time.

#include <cstdint>

namespace hcasim::pcie {

class LinkDirection {
 public:
  explicit LinkDirection(double ps_per_byte) : ps_per_byte_(ps_per_byte) {}

  // Sends a TLP of wire_bytes, ready at ready_ps; returns when its last byte is out.
  double send(double ready_ps, uint32_t wire_bytes) {
    const double start = ready_ps > busy_until_ps_ ? ready_ps : busy_until_ps_;
    const double cost = static_cast<double>(wire_bytes) * ps_per_byte_;
    busy_until_ps_ = start + cost;
    busy_ps_ += cost;
    return busy_until_ps_;
  }

  double busy_until_ps() const { return busy_until_ps_; }
  double busy_ps() const { return busy_ps_; }
  double ps_per_byte() const { return ps_per_byte_; }

 private:
  double ps_per_byte_;
  double busy_until_ps_ = 0;  // when the last TLP sent so far is out
  double busy_ps_ = 0;        // sum of the TLPs' wire times
};

}  // namespace hcasim::pcie
