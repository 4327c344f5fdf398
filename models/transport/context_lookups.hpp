#pragma once
// What the transport engines ask of their HCA's caches: when a QP's context
// or a WQE is on chip. The HCA implements it (models/hca: a QPC cache backed
// by host memory, a WQE cache backed by the QPs' rings); without one,
// contexts and WQEs are always on chip.
//
// Rules:
// - qp_context(qpn, now) returns when QP qpn's context is on chip for work
//   starting at now (now on a hit; a miss's fill done time otherwise). The
//   work updates the context (a packet sent or received changes its state).
// - wqe(qpn, send_queue, wr_id, now) returns when the WQE posted with wr_id
//   to QP qpn's send (or receive) queue is on chip for work starting at now:
//   a send WQE's first packet, a READ or atomic response scattered by its
//   WQE's list, a receive WQE taking a SEND. wqe_done says the WQE completed.
// - wqe_prefetch_depth() says how far ahead the engine prefetches send WQEs:
//   as it takes WQE i of a QP's send queue it calls wqe_prefetch for WQE
//   i + depth, when posted, with the number of WQEs posted from it on (0:
//   no prefetch).
// - wqe_reads_kept() (0: no limit) and read_sent(qpn, wr_id, outstanding):
//   the request of a READ or atomic posted with wr_id has gone while its QP
//   has `outstanding` READs and atomics posted and not completed (itself
//   included). Past the limit its WQE leaves the cache, so its response's
//   wqe() reads it again. The engine calls read_sent only when there is a
//   limit.
// - unit_context_load(qpn, now): a transmit unit starts building a packet of
//   QP qpn at now; returns the unit time it spends loading the QP's context
//   into the units' own store first (0 when the store holds it, or there is
//   no store).
// - They are function calls: they schedule nothing.

#include <cstdint>

namespace hcasim::transport {

class ContextLookups {
 public:
  virtual ~ContextLookups() = default;
  virtual uint64_t qp_context(uint32_t qpn, uint64_t now_ps) = 0;
  virtual uint64_t wqe(uint32_t qpn, bool send_queue, uint64_t wr_id, uint64_t now_ps) = 0;
  virtual void wqe_done(uint32_t qpn, bool send_queue, uint64_t wr_id) = 0;
  virtual uint64_t unit_context_load(uint32_t /*qpn*/, uint64_t /*now_ps*/) { return 0; }
  virtual uint32_t wqe_prefetch_depth() const { return 0; }
  virtual void wqe_prefetch(uint32_t /*qpn*/, uint64_t /*wr_id*/, uint32_t /*posted*/, uint64_t /*now_ps*/) {}
  virtual uint32_t wqe_reads_kept() const { return 0; }
  virtual void read_sent(uint32_t /*qpn*/, uint64_t /*wr_id*/, uint32_t /*outstanding*/) {}
};

}  // namespace hcasim::transport
