#pragma once
// Timeouts of the SA's reliable multi-packet transaction protocol (seeds/000,
// "Timeouts"), in picoseconds. No SystemC.
//
// Rules:
// - The time unit is 4.096 us; PortInfo.SubnetTimeout and
//   ClassPortInfo.RespTimeValue are 5-bit exponents (0..31; higher bits are
//   ignored).
// - Response Timeout = 2 x packet flight time + processing time
//                    = 2 x 4.096 us x 2^SubnetTimeout + 4.096 us x 2^RespTimeValue.
//   The requester waits this long for the first response; the sender of a
//   window (request or response) waits this long for the Ack after its last
//   packet of the window, or after the Last packet.
// - Segment Timeout = packet flight time + processing time
//                   = 4.096 us x 2^SubnetTimeout + 4.096 us x 2^RespTimeValue.
//   The recipient of a multi-packet stream restarts it on every packet of the
//   stream, KeepAlive included.
// - At most seven retries of a request on Response Timeout, and at most seven
//   Resend requests for one missing segment (the actual number is vendor
//   specific; seven is the ceiling the source allows and the model's default).
// The largest value, 2 x 4.096 us x 2^31 + 4.096 us x 2^31 = 2.6e16 ps, fits
// a uint64_t.

#include <cstdint>

namespace hcasim::mgmt {

constexpr uint64_t kSaTimeUnitPs = 4'096'000;  // seeds/000: 4.096 us
constexpr unsigned kSaTimeExponentMask = 0x1F;  // SubnetTimeout / RespTimeValue are 5 bits
constexpr unsigned kSaMaxRetries = 7;   // seeds/000: a request is retried at most seven times
constexpr unsigned kSaMaxResends = 7;   // seeds/000: at most seven Resends per missing segment

// 4.096 us x 2^exponent (the exponent's 5 low bits).
constexpr uint64_t sa_time_ps(unsigned exponent) {
  return kSaTimeUnitPs << (exponent & kSaTimeExponentMask);
}

// seeds/000: (2 x (4.096 us x 2^SubnetTimeout)) + (4.096 us x 2^ResponseTimeValue).
constexpr uint64_t sa_response_timeout_ps(unsigned subnet_timeout, unsigned resp_time_value) {
  return 2 * sa_time_ps(subnet_timeout) + sa_time_ps(resp_time_value);
}

// seeds/000: (4.096 us x 2^SubnetTimeout) + (4.096 us x 2^ResponseTimeValue).
constexpr uint64_t sa_segment_timeout_ps(unsigned subnet_timeout, unsigned resp_time_value) {
  return sa_time_ps(subnet_timeout) + sa_time_ps(resp_time_value);
}

// Both periods for one (SubnetTimeout, RespTimeValue) pair.
struct SaTimeouts {
  uint64_t response_ps = sa_response_timeout_ps(0, 0);  // Response Timeout, ps
  uint64_t segment_ps = sa_segment_timeout_ps(0, 0);    // Segment Timeout, ps

  static constexpr SaTimeouts from(unsigned subnet_timeout, unsigned resp_time_value) {
    return SaTimeouts{sa_response_timeout_ps(subnet_timeout, resp_time_value),
                      sa_segment_timeout_ps(subnet_timeout, resp_time_value)};
  }
};

}  // namespace hcasim::mgmt
