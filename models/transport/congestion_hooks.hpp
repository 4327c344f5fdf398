#pragma once
// The transport engine's part of congestion control (IBA Annex A10.2.2;
// docs/congestion-control.md): what a QP does with FECN and BECN, and the
// injection delay between its request packets. The CCTIs and the table live
// in the HCA's port congestion control, which implements CongestionHooks.
//
// Rules:
// - Off (no hooks for the QP's port) the engine pays one branch per packet
//   started (start_packet) and one per request received (its FECN bit).
// - Destination, RC: a request that arrives with FECN makes the QP owe a BECN
//   (Qp::becn_owed); the next response the QP sends (ACK, NAK, READ
//   response, atomic ACK) carries it and becn_sent() counts it. With ACK
//   coalescing that is the ACK that covers the request. UC and UD have no
//   ACK: the HCA answers their FECN with a CNP (hca/ca_congestion.hpp).
// - Source: a QP that starts a request packet of link time T at t may start
//   its next request packet no earlier than t + T + injection_delay_ps(...)
//   (A10.2.2: the CCT entry of its CCTI applied to T). With a delay of 0 the
//   port's own serialization spaces the packets and nothing is kept. A QP
//   given a unit before its time leaves the scheduler for the PacedQueue (one
//   alarm, for the earliest) and is pushed again when its time comes.
// - Responses are not delayed: the CCT delays a QP's requests (A10.2.2), so a
//   held-back QP with a response to send goes at once.

#include <cstdint>
#include <functional>
#include <queue>
#include <tuple>
#include <vector>

namespace hcasim::transport {

class CongestionHooks {
 public:
  virtual ~CongestionHooks() = default;
  // The delay after a request packet of link time packet_ps that QP qpn
  // started on sl at now_ps (added to packet_ps).
  virtual uint64_t injection_delay_ps(uint32_t qpn, uint8_t sl, uint64_t packet_ps, uint64_t now_ps) = 0;
  // A response left with BECN set.
  virtual void becn_sent() = 0;
};

// QPs held back until their injection time: a time-ordered set, earliest
// first; equal times in the order they were added. Plain C++.
class PacedQueue {
 public:
  void add(uint64_t at_ps, uint32_t qpn) { heap_.push({at_ps, seq_++, qpn}); }
  bool empty() const { return heap_.empty(); }
  uint64_t next_ps() const { return std::get<0>(heap_.top()); }  // check empty() first
  // The earliest QP whose time is at or before now_ps, into qpn; false when none.
  bool pop_due(uint64_t now_ps, uint32_t& qpn) {
    if (heap_.empty() || next_ps() > now_ps) return false;
    qpn = std::get<2>(heap_.top());
    heap_.pop();
    return true;
  }
  std::size_t size() const { return heap_.size(); }

 private:
  using Item = std::tuple<uint64_t, uint64_t, uint32_t>;  // time, order added, QP number
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap_;
  uint64_t seq_ = 0;
};

}  // namespace hcasim::transport
