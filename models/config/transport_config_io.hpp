#pragma once
// The one description of an HCA's transport-engine parameters
// (transport::TransportConfig), used to read them strictly from the scenario's
// "transport" object, write the resolved config and document them. Defaults
// are the struct's own initializers (models/transport/transport_config.hpp).

#include "models/config/config_io.hpp"
#include "models/transport/transport_config.hpp"

namespace hcasim::transport {

template <class Io>
void describe(Io& io, TransportConfig& c) {
  io.uint("engines", c.engines, 1, 1024, "transport engines serving the QPs; each builds one packet at a time");
  io.time("tx_packet_latency", c.tx_packet_latency_ps, 0, 1000000000,
          "engine time to build one packet (request or response)");
  io.time("tx_message_latency", c.tx_message_latency_ps, 0, 1000000000,
          "extra engine time at a message's first packet (WQE fetch)");
  io.time("rx_packet_latency", c.rx_packet_latency_ps, 0, 1000000000,
          "from the receive buffer to the QP's logic acting on a packet (pipelined)");
  io.choice("ack_req", c.ack_req,
            config::Names<AckReqPolicy>{{"every_packet", AckReqPolicy::EveryPacket},
                                        {"last_packet", AckReqPolicy::LastPacket}},
            "AckReq on every request packet, or on a message's last packet (and every ack_req_interval packets)");
  io.uint("ack_req_interval", c.ack_req_interval, 1, 1u << 23,
          "last_packet: AckReq at least every this many request packets");
  io.boolean("ack_coalescing", c.ack_coalescing,
             "the responder ACKs only requests with AckReq set (false: every request)");
  io.uint("max_unacked_psns", c.max_unacked_psns, 1, 1u << 23,
          "requester stops new packets at this many outstanding PSNs (seed 002: 2^23)");
  io.uint("tx_dma_packets", c.tx_dma_packets, 1, 1u << 16,
          "built packets that may wait for their host-memory data at once (engines take new work meanwhile)");
}

}  // namespace hcasim::transport
