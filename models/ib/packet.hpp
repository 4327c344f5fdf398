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

class alignas(64) Packet {
 public:
  // Member order is for the cache: the first 64-byte line holds everything a
  // hop reads or writes (queue links, sizes, times, the flow-control fields,
  // the id and the LRH); the rest of the headers and the metadata read once
  // per packet follow.
  PacketKind kind = PacketKind::Data;
  // Its bytes on the wire (wire_bytes()), recorded by the port that queues it
  // for transmission; a packet keeps its size from link to link, so receivers,
  // switches and queues read this instead of decoding the headers again. Code
  // that changes the headers of a packet that has been queued before sets it
  // back to 0 (reset() does).
  uint16_t wire_len = 0;
  uint32_t payload_len = 0;          // payload bytes, pad excluded
  // The one queue holding the packet (PacketQueue): a packet waits in at most
  // one queue at a time, so the queues allocate nothing. Not owned.
  Packet* next = nullptr;
  uint64_t due_ps = 0;               // in flight: when the receiver takes it
  uint64_t tail_ps = 0;              // when its last byte reaches the receiver of that link
  FlowControl fc;                    // valid when kind == FlowControl
  uint64_t id = 0;                   // unique per run, assigned by the source
  Headers hdr;                       // the LRH ends the first line

  // Model metadata, not on the wire.
  uint32_t flow = 0;                 // workload flow index
  uint64_t seq = 0;                  // sequence number within the flow
  uint64_t created_ps = 0;           // when the source made it
  uint64_t submitted_ps = 0;         // when the source port accepted it (raw traffic; transport: handed to the port)
  uint64_t request_in_ps = 0;        // transport: when the request (a response: the one it answers) reached the responder's QP
  uint32_t ssn = 0;                  // a transport request: the SSN of the WQE it carries
  uint64_t injected_ps = 0;          // when its first byte went on the wire at an HCA port (stamping ports only)
  // When it was delivered to a switch port that enforces lifetimes (the
  // switch lifetime counts from there; Port::admit), or submitted at a switch
  // (a packet the switch made). Other ports leave it as it was.
  uint64_t received_ps = 0;

  std::vector<uint8_t> payload;      // empty, or exactly payload_len real bytes

  // Bytes on the wire, LRH through VCRC (data) or the 6-byte FCP.
  uint32_t wire_bytes() const;

  // Fills lrh.pkt_len, bth.pad_cnt and (with a GRH) grh.pay_len from the headers
  // and payload_len.
  void finalize_lengths();

  // Sets every field back to its default; keeps the payload's capacity.
  void reset();
  // Sets the fields a flow-control packet uses back to their defaults and
  // makes it one; the data headers, payload and metadata are left as they are
  // (unused).
  void reset_as_flow_control();

 private:
  friend class PacketPool;
};
static_assert(sizeof(Lrh) <= 16, "the LRH ends the packet's first cache line");
static_assert(sizeof(FlowControl) == 8, "the flow-control fields take the place of one timestamp");

// A free list of packets. acquire() hands out a reset packet;
// acquire_flow_control() one reset as a flow-control packet; release() takes it
// back. The pool owns every packet it ever made; it makes them in slabs, so
// packets sit side by side in memory and each starts on a cache line.
class PacketPool {
 public:
  PacketPool() = default;
  PacketPool(const PacketPool&) = delete;
  PacketPool& operator=(const PacketPool&) = delete;

  Packet* acquire();
  Packet* acquire_flow_control();
  void release(Packet* p) { free_.push_back(p); }
  // A flow-control packet the pool keeps for its own: a port fills it to send
  // or to receive one over a link to another port, where only the fields
  // travel (link/port.hpp), so that flow control holds no packet of the pool.
  // One to send and one to receive; never released, and reset as
  // acquire_flow_control() resets.
  Packet& flow_control_scratch(bool receiving);
  bool is_scratch(const Packet* p) const { return p == &scratch_[0] || p == &scratch_[1]; }
  std::size_t allocated() const { return allocated_; }
  std::size_t in_use() const { return allocated_ - free_.size(); }

 private:
  static constexpr std::size_t kSlabPackets = 64;
  Packet* take();  // a packet from the free list or a new slab, not reset

  std::vector<std::unique_ptr<Packet[]>> slabs_;
  std::size_t allocated_ = 0;
  std::vector<Packet*> free_;
  Packet scratch_[2];  // flow_control_scratch's: to send, to receive
};

}  // namespace hcasim::ib
