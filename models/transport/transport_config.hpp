#pragma once
// Parameters of an HCA's transport engines. Defaults live here and nowhere
// else; models/config reads them from the scenario's "transport" object.

#include <cstdint>

namespace hcasim::transport {

enum class AckReqPolicy : uint8_t {
  EveryPacket,   // AckReq on every request packet
  LastPacket,    // on the last packet of a message, and after ack_req_interval packets without one
};

struct TransportConfig {
  uint32_t engines = 4;                  // engines serving the QPs' transmit work; each builds one packet at a time
  uint64_t tx_packet_latency_ps = 20000; // engine time to build one packet (request or response), ps
  uint64_t tx_message_latency_ps = 50000;// extra engine time at a message's first packet (WQE fetch), ps
  uint64_t rx_packet_latency_ps = 40000; // from the receive buffer to the QP's logic acting on a packet, ps (pipelined)
  AckReqPolicy ack_req = AckReqPolicy::LastPacket;
  uint32_t ack_req_interval = 64;        // LastPacket: AckReq at least every this many packets (rxe: 64)
  bool ack_coalescing = false;           // responder ACKs only requests with AckReq set (false: every request, seed 002)
  uint32_t max_unacked_psns = 1u << 23;  // requester stops new packets at this many outstanding PSNs (seed 002: 2^23)
  uint32_t tx_dma_packets = 256;         // built packets that may wait for their host-memory data at once (1 MiB of 4 KiB packets)
};

}  // namespace hcasim::transport
