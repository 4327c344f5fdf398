#pragma once
// What bounds a bandwidth perftest: each resource's most messages per second,
// from the test's parameters alone, and the least of them (docs/perftest.md
// "What bounds a test"). Plain C++, no SystemC.
//
// Rules (one message = one WR of `bytes`; P = its packets, message_layout.hpp):
// - cpu: a driver thread spends per WR post + BlueFlame (a list of one WR whose
//   WQE fits the BlueFlame buffer, doorbell mode blueflame) or doorbell / list,
//   plus poll / cq_moderation for its completions (host/driver.hpp); list and
//   cq_moderation are at most the WRs kept posted. The busiest thread has
//   ceil(qps / threads) QPs, so the client reaches
//   qps / (ceil(qps / threads) x per WR). send_bw's server posts a receive
//   (post) and polls its completion (poll, over cqes_per_poll) per message.
// - tx_units: a side's transmit units build one packet each at a time, and a
//   QP is on at most one unit: min(tx_units, qps) / unit time per message. The
//   client's time: write, send wqe_parse + P x packet_build; read wqe_parse +
//   packet_build (its request). The server's: RC write, send one ACK per
//   request packet (one per message with ack_coalescing and last_packet) x
//   ack_generation; read P x packet_build (its responses, no wqe_parse).
// - rx_units (only with rx_units > 0): min(rx_units, qps) / (packets received
//   per message x receive_parse) on each side.
// - link: the slower port's data rate over the busier direction's bytes per
//   message: its packets' wire bytes (LRH through VCRC, ib/layout.hpp) plus
//   framing each. Flow-control packets are left out.
// - pcie: the payload's DMA alone: a read of `bytes` where the data leaves
//   host memory (not when inline), a write where it lands, at pcie-bench's
//   rates (pcie/tlp_math.hpp reference_read_bps, reference_write_bps); not the
//   WQE, doorbell and CQE traffic, so it is an upper bound. None when ideal.
// - Of two sides, a kind keeps the lesser. A bound that costs nothing is left
//   out. The window of max_rd_atomic READs per QP needs the round trip, which
//   parameters do not give: read_bw has no window bound.

#include <cstdint>
#include <string>
#include <vector>

#include "models/config/verbs_workload_config.hpp"
#include "models/pcie/pcie_config.hpp"
#include "models/transport/transport_config.hpp"

namespace hcasim::workloads {

// A driver thread's CPU costs (host::DriverConfig's), ps.
struct HostCosts {
  uint64_t post_ps = 0;
  uint64_t doorbell_ps = 0;
  uint64_t blueflame_ps = 0;
  uint64_t poll_ps = 0;
  bool blueflame = false;       // doorbell mode "blueflame"
  uint32_t cqes_per_poll = 1;   // with CQE compression, a block's entries polled at once
};

// One side of the test: its host and HCA.
struct BoundSide {
  HostCosts cpu;
  transport::TransportConfig units;
  pcie::PcieConfig pcie;
};

struct PerftestBoundInput {
  config::PerftestKind test = config::PerftestKind::WriteBw;
  transport::QpType qp_type = transport::QpType::Rc;
  uint64_t bytes = 0;           // message size
  uint32_t mtu = 4096;          // path MTU
  uint32_t qps = 1;
  uint32_t threads = 1;
  uint32_t outstanding = 1;     // WRs kept posted per QP
  uint32_t post_list = 1;
  uint32_t cq_moderation = 1;
  uint32_t inline_size = 0;     // messages of at most this many bytes go inline
  BoundSide client, server;
  double link_bps = 0;          // data rate of the slower port's link, bits/s
  uint32_t framing_bytes = 0;   // per packet on the wire besides LRH..VCRC
};

enum class BoundKind : uint8_t { Cpu, TxUnits, RxUnits, Link, Pcie };

struct Bound {
  BoundKind kind = BoundKind::Cpu;
  bool client = true;           // the side that sets it (link: both)
  double msgs_per_s = 0;
  std::string detail;           // the formula's figures, e.g. "4 units x 70.0 ns per message"
};

// The finite bounds, in BoundKind order, one per kind.
std::vector<Bound> perftest_bounds(const PerftestBoundInput& in);
// The least of them; nullptr when there is none.
const Bound* least_bound(const std::vector<Bound>& bounds);

const char* bound_key(BoundKind k);    // "cpu", "tx_units", "rx_units", "link", "pcie"
const char* bound_title(BoundKind k);  // "CPU threads", "HCA transmit units", ... as the summary prints them

}  // namespace hcasim::workloads
