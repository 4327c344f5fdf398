#pragma once
// Link signalling rates, line codes and serialization time.
//
// Per-lane signalling rate and line code by generation (iba-facts 2, "Speeds"):
//   SDR 2.5, DDR 5, QDR 10 Gb/s with 8b/10b;
//   FDR 14.0625, EDR 25.78125 Gb/s with 64b/66b;
//   HDR 53.125, NDR 106.25 Gb/s carrying 50 and 100 Gb/s of data: 256b/257b
//   transcoding with RS(544,514) FEC, an efficiency of (256/257)*(514/544).
// Data rate = lanes x signalling x efficiency. Serialization of a packet takes
// (wire bytes + framing bytes) x 8 / data rate; propagation is added on top.

#include <cstdint>
#include <string>

#include "models/link/fault_injector.hpp"

namespace hcasim::link {

enum class Speed { Sdr, Ddr, Qdr, Fdr, Edr, Hdr, Ndr };
enum class Width { X1 = 1, X2 = 2, X4 = 4, X8 = 8, X12 = 12 };

double lane_signalling_bps(Speed s);
double line_code_efficiency(Speed s);
double data_rate_bps(Speed s, Width w);
const char* to_string(Speed s);
const char* to_string(Width w);

constexpr uint64_t kPsPerSecond = 1000000000000ull;

struct LinkConfig {
  Speed speed = Speed::Hdr;          // generation: SDR ... NDR
  Width width = Width::X4;           // lanes: 1x, 2x, 4x, 8x, 12x
  uint32_t framing_bytes = 2;        // bytes per packet on the wire besides LRH..VCRC (start + end delimiter)
  double length_m = 2.0;             // cable length, metres (used when propagation_ps is 0)
  uint64_t ps_per_m = 5000;          // propagation per metre, ps (about 2/3 c)
  uint64_t propagation_ps = 0;       // fixed propagation delay, ps; 0 = from length_m
  uint64_t fc_period_ps = 4096000;   // minimum gap between flow-control packets of one VL, ps
  FaultConfig faults;                // fault injection, applied at the receiver of each direction (fault_injector.hpp)
};

// std::llround for 0 <= x < 2^53, inline (llround is a call into libm, and a
// hop computes several times): the whole part and the remainder are exact.
inline uint64_t round_ps(double x) {
  const auto whole = static_cast<uint64_t>(x);
  return whole + (x - static_cast<double>(whole) >= 0.5 ? 1 : 0);
}

// Timing of one direction of a link, precomputed from its config.
class LinkTiming {
 public:
  explicit LinkTiming(const LinkConfig& c);
  // Time to put a packet of this many bytes on the wire, framing included.
  uint64_t serialization_ps(uint32_t wire_bytes) const { return bytes_ps(wire_bytes + framing_); }
  // Time these bytes alone take on the wire (no framing): e.g. a packet's head.
  uint64_t bytes_ps(uint32_t bytes) const { return round_ps(static_cast<double>(bytes) * ps_per_byte_); }
  uint64_t propagation_ps() const { return propagation_ps_; }
  double data_rate_bps() const { return rate_bps_; }
  uint32_t framing_bytes() const { return framing_; }

 private:
  double ps_per_byte_;
  double rate_bps_;
  uint64_t propagation_ps_;
  uint32_t framing_;
};

}  // namespace hcasim::link
