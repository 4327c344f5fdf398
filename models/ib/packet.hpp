#pragma once
// One packet as the model carries it: decoded header fields, the payload (real
// bytes when data checking or pcap needs them, otherwise only its length), and
// model metadata that is not on the wire (ids, timestamps).
//
// Two kinds travel on a link: data packets (everything with an LRH, VL15 SMPs
// included) and link flow-control packets (IBA 7.9.4; iba-facts 2), which are
// 6 bytes and never buffered. Packets come from a PacketPool and go back to it;
// nothing allocates per packet once the pool is warm.

#include <cstdint>
#include <memory>
#include <vector>

#include "models/ib/headers.hpp"

namespace hcasim::ib {

// Link flow-control packet fields (iba-facts 2). LPCRC is computed on encode.
struct FlowControl {
  uint8_t op = 0;        // 0 normal, 1 init; others reserved
  uint16_t fctbs = 0;    // 12 bits: blocks sent on the VL, mod 4096
  uint8_t vl = 0;        // 4 bits
  uint16_t fccl = 0;     // 12 bits: credit limit, mod 4096
};

constexpr unsigned kFlowControlBytes = 6;   // iba-facts 2: Op/FCTBS, VL/FCCL, LPCRC

enum class PacketKind : uint8_t { Data, FlowControl };

class PacketPool;

class Packet {
 public:
  // Member order is for the cache: what every hop reads or writes comes first
  // (one 64-byte line), then the headers (the LRH and BTH size the packet).
  PacketKind kind = PacketKind::Data;
  uint32_t payload_len = 0;          // payload bytes, pad excluded
  // Link-layer bookkeeping of the one queue holding the packet (PacketQueue):
  // a packet waits in at most one queue at a time, so the queues allocate nothing.
  uint32_t queued_bytes = 0;         // wire bytes, recorded when it was queued
  Packet* next = nullptr;            // the packet behind it in that queue; not owned
  uint64_t due_ps = 0;               // in flight: when the receiver takes it

  // Model metadata, not on the wire.
  uint64_t id = 0;                   // unique per run, assigned by the source
  uint64_t last_hop_ps = 0;          // when it last started on a link
  uint64_t tail_ps = 0;              // when its last byte reaches the receiver of that link
  uint64_t received_ps = 0;          // when it was delivered to the receiver of that link
  uint32_t flow = 0;                 // workload flow index
  uint64_t seq = 0;                  // sequence number within the flow
  uint64_t created_ps = 0;           // when the source made it
  uint64_t injected_ps = 0;          // when it entered the first transmit buffer

  Headers hdr;
  FlowControl fc;                    // valid when kind == FlowControl
  std::vector<uint8_t> payload;      // empty, or exactly payload_len real bytes

  // Bytes on the wire, LRH through VCRC (data) or the 6-byte FCP.
  uint32_t wire_bytes() const;

  // Fills lrh.pkt_len, bth.pad_cnt and (with a GRH) grh.pay_len from the headers
  // and payload_len.
  void finalize_lengths();

  // Sets every field back to its default; keeps the payload's capacity.
  void reset();

 private:
  friend class PacketPool;
};

// A free list of packets. acquire() hands out a reset packet; release() takes it
// back. The pool owns every packet it ever made.
class PacketPool {
 public:
  PacketPool() = default;
  PacketPool(const PacketPool&) = delete;
  PacketPool& operator=(const PacketPool&) = delete;

  Packet* acquire();
  void release(Packet* p);
  std::size_t allocated() const { return all_.size(); }
  std::size_t in_use() const { return all_.size() - free_.size(); }

 private:
  std::vector<std::unique_ptr<Packet>> all_;
  std::vector<Packet*> free_;
};

}  // namespace hcasim::ib
