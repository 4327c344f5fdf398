#pragma once
// Connects two QPs the way a connection manager (or a perftest run over
// sockets) does: create a CQ and a QP on each HCA, then RESET -> INIT -> RTR ->
// RTS with each side's address vector and start PSNs (iba-facts 5: the
// attributes each transition needs). The workloads and the tests share it.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "models/hca/memory_regions.hpp"
#include "models/host/driver.hpp"
#include "models/routing/routing.hpp"
#include "models/transport/verbs.hpp"

namespace hcasim::workloads {

constexpr uint32_t kGrhBytes = 40;  // a UD receive buffer starts with room for the GRH (IBA 11.4.1.1)

struct ConnectionParams {
  transport::QpType type = transport::QpType::Rc;
  uint32_t mtu = 4096;                // path MTU, bytes
  uint8_t sl = 0;
  // sl "path": each end's SL is the one the SA answers for the path from its
  // LID to its peer's (sl_towards), `sl` unused; null: `sl` both ways.
  std::shared_ptr<const routing::PathSlTable> path_sls;
  uint32_t weight = 1;                // weighted_round_robin with weights "qp": packets per turn (QpInit::weight)
  uint32_t psn_a = 0;                 // A's send start PSN (= B's expected PSN)
  uint32_t psn_b = 0;                 // B's send start PSN
  uint8_t timeout = 14;               // Local ACK timeout (Ttr = 4.096 us x 2^timeout; 0 = off)
  uint8_t retry_cnt = 7;
  uint8_t rnr_retry = 7;              // 7 = retry forever
  uint8_t min_rnr_timer = 1;          // RNR NAK timer code each responder returns (1 = 0.01 ms)
  uint8_t max_rd_atomic = 16;         // READs and atomics outstanding as requester
  uint8_t max_dest_rd_atomic = 16;    // READs and atomics kept as responder (0 = none accepted)
  uint16_t pkey_index = 0;            // the QPs' P_Key: this index of their port's P_KeyTable
  uint32_t access = transport::kLocalWrite | transport::kRemoteWrite | transport::kRemoteRead |
                    transport::kRemoteAtomic;
  uint32_t qkey = 0x11111111;         // UD
  uint32_t max_send_wr = 1024;
  uint32_t max_recv_wr = 1024;
  uint32_t cq_depth = 4096;
  bool out_of_order = false;          // RC: both QPs place data out of order (QpInit::out_of_order)
};

// The SL an end at `self_lid` sends to `peer_lid` on: the path's SL under
// sl "path", else `p.sl`.
inline uint8_t sl_towards(const ConnectionParams& p, uint16_t self_lid, uint16_t peer_lid) {
  return p.path_sls != nullptr ? (*p.path_sls)(self_lid, peer_lid) : p.sl;
}

struct QpEnd {
  host::Driver* driver = nullptr;
  unsigned port = 0;                  // 0-based
  uint32_t qpn = 0;
  uint32_t cq = 0;                    // send completions (and receive ones, unless the QP has its own receive CQ)
};

// A QP of params.type on `port` whose send completions go to CQ `cq` and its
// receive completions to `recv_cq` (the same CQ when not given; several QPs
// may share one CQ, as perftest's do); the QP stays in RESET.
QpEnd create_qp_on(host::Driver& h, unsigned port, uint32_t cq, const ConnectionParams& params);
QpEnd create_qp_on(host::Driver& h, unsigned port, uint32_t cq, uint32_t recv_cq, const ConnectionParams& params);

// "QP 17 on hca0.p1 waits for ..." (transport/qp_wait.hpp) at the current
// time, with what holds its port (link down, not Active, no credits on its
// VL) when it has packets to send or to be acknowledged; "" when the QP owes
// nothing or is gone. `blocked`, when given, is set when something other
// than the traffic's own pace holds the QP: the error state, a state that
// cannot send, an RNR NAK, a transport timeout, or its port.
std::string describe_wait(const QpEnd& e, const std::string& port_name, bool* blocked = nullptr);

// Throws std::runtime_error with modify_qp's reason if a transition is refused.
std::pair<QpEnd, QpEnd> connect(host::Driver& a, unsigned port_a, host::Driver& b, unsigned port_b,
                                const ConnectionParams& params);

// Brings one QP to RTS; RC and UC also need the peer's LID and QP number.
void bring_up(const QpEnd& self, uint16_t peer_lid, uint32_t peer_qpn, uint32_t send_psn, uint32_t expect_psn,
              const ConnectionParams& params);

}  // namespace hcasim::workloads
