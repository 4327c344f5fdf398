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
  io.uint("tx_units", c.tx_units, 1, 1024, "transmit processing units; each builds one packet at a time");
  io.uint("rx_units", c.rx_units, 0, 1024,
          "receive processing units, each parsing one packet at a time; 0 = a pipeline (no packet waits for a unit)");
  io.choice("unit_mapping", c.unit_mapping,
            config::Names<UnitMapping>{{"any_free", UnitMapping::AnyFree}, {"qpn_hash", UnitMapping::QpnHash}},
            "how QPs map to units: any free unit (a QP on one unit at a time) or QP number modulo the units");
  io.time("wqe_parse", c.wqe_parse_ps, 0, 1000000000,
          "transmit unit time at a message's first packet: reading and decoding its WQE");
  io.time("packet_build", c.packet_build_ps, 0, 1000000000,
          "transmit unit time to build a request, READ response or atomic ACK packet");
  io.time("ack_generation", c.ack_generation_ps, 0, 1000000000, "transmit unit time to build an ACK or NAK");
  io.time("receive_parse", c.receive_parse_ps, 0, 1000000000,
          "receive unit time from the receive buffer to the QP's logic acting on a packet");
  io.time("completion_generation", c.completion_generation_ps, 0, 1000000000,
          "from a work request's completion to its CQE write");
  io.choice("scheduler", c.scheduler,
            config::Names<SchedulerKind>{{"round_robin", SchedulerKind::RoundRobin},
                                         {"weighted_round_robin", SchedulerKind::WeightedRoundRobin},
                                         {"strict_priority", SchedulerKind::StrictPriority}},
            "the QP scheduler: one packet per turn; weight packets per turn; responses and ACKs ahead of requests");
  io.choice("weights", c.weights, config::Names<WeightSource>{{"sl", WeightSource::Sl}, {"qp", WeightSource::Qp}},
            "weighted_round_robin: a QP's weight is its SL's (sl_weights) or its own (the workload's weight)");
  io.uint_list("sl_weights", c.sl_weights, 1, 255, 0, 16,
               "weighted_round_robin: packets per turn of a QP on SL 0, 1, ...; [] = 1 for every SL");
  if (!c.sl_weights.empty() && c.sl_weights.size() != 16)
    io.fail("sl_weights", std::to_string(c.sl_weights.size()) + " weights; accepted: [] or 16 weights 1-255, one per SL");
  io.uint("max_wqes_in_flight", c.max_wqes_in_flight, 0, 1u << 16,
          "send WQEs a QP has started and not completed; 0 = no limit");
  io.choice("ack_req", c.ack_req,
            config::Names<AckReqPolicy>{{"every_packet", AckReqPolicy::EveryPacket},
                                        {"last_packet", AckReqPolicy::LastPacket}},
            "AckReq on every request packet, or on a message's last packet (and every ack_req_interval packets)");
  io.uint("ack_req_interval", c.ack_req_interval, 1, 1u << 23,
          "last_packet: AckReq at least every this many request packets");
  io.boolean("out_of_order", c.out_of_order,
             "every RC QP takes requests and responses that arrive ahead of their PSN (reordered by adaptive "
             "routing) instead of NAKing them, completing in order, as if made with mlx5dv's "
             "MLX5DV_QP_CREATE_OOO_DP (docs/adaptive-routing.md); false: only the workloads' QPs that ask for it");
  io.boolean("ack_coalescing", c.ack_coalescing,
             "the responder ACKs only requests with AckReq set (false: every request)");
  io.uint("max_unacked_psns", c.max_unacked_psns, 1, 1u << 23,
          "requester stops new packets at this many outstanding PSNs (seed 002: 2^23)");
  io.uint("tx_dma_packets", c.tx_dma_packets, 1, 1u << 16,
          "built packets that may wait for their host-memory data at once (units take new work meanwhile)");
}

}  // namespace hcasim::transport
