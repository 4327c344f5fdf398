#pragma once
// A raw-packet flow: what the generator sends, and what the recorder measured.

#include <cstdint>
#include <string>

#include "models/trace/histogram.hpp"

namespace hcasim::workloads {

struct FlowSpec {
  std::string name;
  unsigned src_node = 0;       // index of the source HCA
  unsigned src_port = 0;       // port index on it
  unsigned dst_node = 0;
  uint16_t dlid = 0;
  uint16_t slid = 0;
  uint32_t dest_qp = 0;
  uint8_t sl = 0;
  bool vl15 = false;           // send on VL15 (management) to QP0
  uint32_t payload = 4096;     // bytes per packet
  double rate_bps = 0;         // offered rate of packet bytes (LRH..VCRC); 0 with load 0 = saturate
  double load = 0;             // offered load as a fraction of the source link; 0 = use rate_bps
  uint64_t count = 0;          // packets to send; 0 = until the run ends
  uint64_t start_ps = 0;
};

struct FlowResult {
  uint64_t sent = 0;                 // accepted by the source port
  uint64_t dropped_at_source = 0;    // refused by the source port (MTU, SL to VL15)
  uint64_t delivered = 0;
  uint64_t delivered_bytes = 0;      // wire bytes
  uint64_t delivered_payload = 0;
  uint64_t first_delivery_ps = 0;
  uint64_t last_delivery_ps = 0;
  trace::Histogram latency_ps;       // created -> taken by the destination host
};

}  // namespace hcasim::workloads
