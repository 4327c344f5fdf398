#pragma once
// What the transport engines ask of their HCA's context caches: when a QP's
// context is on chip. The HCA implements it (models/hca: a QPC cache backed
// by host memory); without one, contexts are always on chip.
//
// Rules:
// - qp_context(qpn, now) returns when QP qpn's context is on chip for work
//   starting at now (now on a hit; a miss's fill done time otherwise). The
//   work updates the context (a packet sent or received changes its state).
// - It is a function call: it schedules nothing.

#include <cstdint>

namespace hcasim::transport {

class ContextLookups {
 public:
  virtual ~ContextLookups() = default;
  virtual uint64_t qp_context(uint32_t qpn, uint64_t now_ps) = 0;
};

}  // namespace hcasim::transport
