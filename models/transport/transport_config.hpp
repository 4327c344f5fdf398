#pragma once
// Parameters of an HCA's transport engines: its processing units, their stage
// latencies, the QP scheduler and the per-QP limits (docs/hca-processing.md).
// Defaults live here and nowhere else; models/config reads them from the
// scenario's "transport" object.

#include <cstdint>
#include <vector>

#include "models/transport/qp_scheduler.hpp"

namespace hcasim::transport {

enum class AckReqPolicy : uint8_t {
  EveryPacket,   // AckReq on every request packet
  LastPacket,    // on the last packet of a message, and after ack_req_interval packets without one
};

// How QPs map to processing units (both directions).
enum class UnitMapping : uint8_t {
  AnyFree,  // any free unit; a QP is on at most one unit at a time, so its packets stay in order
  QpnHash,  // unit = QP number modulo the units: a QP always goes to the same unit
};

// Where weighted_round_robin takes a QP's weight from.
enum class WeightSource : uint8_t {
  Sl,  // sl_weights[the QP's SL]
  Qp,  // the QP's own (QpInit::weight; perftest's and verbs' "weight")
};

struct TransportConfig {
  // Processing units.
  uint32_t tx_units = 4;                 // transmit units; each builds one packet at a time
  uint32_t rx_units = 0;                 // receive units, each parsing one packet at a time; 0 = a pipeline (no packet waits for a unit)
  UnitMapping unit_mapping = UnitMapping::AnyFree;
  // Stage latencies, ps. The defaults are the HCA's previous four constants:
  // 20 ns a packet, 50 ns more at a message's first packet, 40 ns receive.
  uint64_t wqe_parse_ps = 50000;         // transmit unit, at a message's first packet: its WQE read and decoded
  uint64_t packet_build_ps = 20000;      // transmit unit: a request, READ response or atomic ACK packet
  uint64_t ack_generation_ps = 20000;    // transmit unit: an ACK or NAK
  uint64_t receive_parse_ps = 40000;     // receive unit: from the receive buffer to the QP's logic acting on the packet
  uint64_t completion_generation_ps = 0; // from a work request's completion to its CQE write (0: at once)
  // The QP scheduler.
  SchedulerKind scheduler = SchedulerKind::RoundRobin;
  WeightSource weights = WeightSource::Sl;  // weighted_round_robin: the SL's weight or the QP's own
  std::vector<uint32_t> sl_weights;      // weighted_round_robin: packets per turn of a QP on SL i; [] = 1 for every SL
  // Per-QP limits (max_rd_atomic is the QP's attribute).
  uint32_t max_wqes_in_flight = 0;       // send WQEs a QP has started and not completed; 0 = no limit
  // Transport.
  AckReqPolicy ack_req = AckReqPolicy::LastPacket;
  uint32_t ack_req_interval = 64;        // LastPacket: AckReq at least every this many packets (rxe: 64)
  bool ack_coalescing = false;           // responder ACKs only requests with AckReq set (false: every request, seed 002)
  bool out_of_order = false;             // every RC QP is made with QpInit::out_of_order (mlx5's OOO data placement)
  uint32_t max_unacked_psns = 1u << 23;  // requester stops new packets at this many outstanding PSNs (seed 002: 2^23)
  uint32_t tx_dma_packets = 256;         // built packets that may wait for their host-memory data at once (1 MiB of 4 KiB packets)
};

}  // namespace hcasim::transport
