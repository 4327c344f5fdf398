#pragma once
// The transport layer's timer and credit encodings, as plain functions.
//
// - Transport timer (seed 002 "The Timeout Formula"): Ttr = 4.096 us x
//   2^LocalAckTimeout; 0 disables the timer; a timeout is detected no sooner
//   than Ttr and no later than 4 Ttr. The model checks timers on a tick of
//   Ttr / 4 (timer_check_ps).
// - RNR NAK timer codes (seed 001 Table 17-6): the minimum delay before a
//   requester retries after an RNR NAK.
// - AETH credit codes (iba-facts 5, from rdmavt): the number of receive WQEs a
//   responder advertises in an ACK; code 31 = no credit count (unlimited).

#include <cstdint>

namespace hcasim::transport {

constexpr uint64_t kTimerUnitPs = 4'096'000;  // seed 002: 4.096 us

// Ttr in ps for a 5-bit Local ACK Timeout; 0 when the timer is disabled.
constexpr uint64_t transport_timer_ps(uint8_t local_ack_timeout) {
  return local_ack_timeout == 0 ? 0 : kTimerUnitPs << (local_ack_timeout & 31);
}

// When a timer with this deadline is checked: the deadline rounded up to a
// multiple of Ttr / 4, like a hardware timer scan with a tick of Ttr / 4. A
// timeout is then detected within [Ttr, 1.25 Ttr] of the last packet, inside
// the [Ttr, 4 Ttr] the sources allow, and the timers of many QPs share a few
// check times instead of one each. Requires a non-zero timeout code.
constexpr uint64_t timer_check_ps(uint64_t deadline_ps, uint8_t local_ack_timeout) {
  constexpr uint64_t kTickUnitPs = kTimerUnitPs / 4;  // Ttr / 4 = kTickUnitPs x 2^timeout
  const unsigned shift = local_ack_timeout & 31;
  const uint64_t tick = kTickUnitPs << shift;
  // ceil(d / tick) = floor(floor((d + tick - 1) / 2^shift) / kTickUnitPs)
  return ((deadline_ps + tick - 1) >> shift) / kTickUnitPs * tick;
}

// seed 001 Table 17-6, in units of 10 us (0.01 ms).
constexpr uint32_t kRnrDelayTensOfUs[32] = {
    65536, 1,   2,   3,   4,   6,    8,    12,   16,   24,   32,    48,    64,    96,    128,   192,
    256,   384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152};
constexpr uint64_t rnr_delay_ps(uint8_t code) { return uint64_t{kRnrDelayTensOfUs[code & 31]} * 10'000'000; }

// iba-facts 5: credit code -> receive WQEs (rdmavt's table); 31 = invalid / unlimited.
constexpr uint32_t kCreditCodeCount[31] = {0,   1,   2,   3,    4,    6,    8,    12,   16,    24,    32,
                                           48,  64,  96,  128,  192,  256,  384,  512,  768,   1024,  1536,
                                           2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768};
constexpr uint8_t kCreditCodeUnlimited = 31;
// The largest code whose count does not exceed `free_wqes`.
constexpr uint8_t encode_credits(uint32_t free_wqes) {
  uint8_t code = 0;
  while (code + 1 < 31 && kCreditCodeCount[code + 1] <= free_wqes) ++code;
  return code;
}
constexpr uint32_t decode_credits(uint8_t code) { return code >= 31 ? UINT32_MAX : kCreditCodeCount[code]; }

}  // namespace hcasim::transport
