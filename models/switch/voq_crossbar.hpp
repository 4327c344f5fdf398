#pragma once
// The crossbar of a switch with virtual output queues (switch.architecture
// "voq") as plain logic: each input keeps one queue per (output, output VL),
// and which queue's head moves to which output next.
//
// Rules:
// - A routed packet joins the queue of its (input, output, output VL) at once,
//   so a packet waiting for a busy output never holds up one behind it that
//   goes elsewhere (no head-of-line blocking between outputs). The queues are
//   bookkeeping over the input port's receive buffer: the packet's buffer
//   space (its input VL's credits) stays taken until its transfer ends (the
//   caller releases it), so the IBA still sees credits per input VL.
// - An input moves up to max_reads packets at once (to different outputs; a
//   read is one transfer), an output takes one at a time; both stay busy until
//   the transfer ends.
// - A queue's head is eligible when its input has a read free, its output is
//   free and the caller's room(output, out_vl, bytes) says so (the output VL's
//   transmit queue has room). A queue without room never blocks another.
// - Allocation (event driven, a round-robin matching in the manner of iSLIP,
//   kept maximal at every instant): an output chooses VL15 first; among data
//   VLs it asks its own copy of the output port's IBA VL arbiter, offering each
//   VL with an eligible head; within the VL it takes the first eligible input
//   at or after its round-robin pointer. An input with a read free chooses
//   among the free outputs its queues want, round robin from its own pointer,
//   each such output then choosing as above. A grant moves the output VL's
//   pointer just past the input and the input's just past the output (iSLIP's
//   update on acceptance, which keeps the pointers apart under uniform load).
// - Allocation runs when something changes, and only where it can matter:
//   * a packet queued: its output chooses, if free and the input has a read free;
//   * a transfer ends: the freed output chooses; then, unless it chose the freed
//     input, the freed input chooses among the free outputs;
//   * room freed at an output: that output chooses, if free.
//   After each step no free output has an eligible head (the matching is
//   maximal), so each step grants at most one packet per freed resource.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "models/ib/packet.hpp"
#include "models/ib/packet_queue.hpp"
#include "models/link/function_ref.hpp"
#include "models/switch/crossbar_parts.hpp"
#include "models/link/vl_arbiter.hpp"

namespace hcasim::sw {

class VoqCrossbar {
 public:
  // The caller's room(output, out_vl, bytes).
  using Room = link::FunctionRef<bool(unsigned output, unsigned out_vl, uint32_t bytes)>;

  struct Grant {
    unsigned input = 0;
    unsigned output = 0;
    unsigned out_vl = 0;
    ib::Packet* packet = nullptr;  // taken out of its queue
    link::VlCandidates offered{};  // data VLs the output's arbiter chose among (charged on grant)
  };
  using Grants = GrantList<Grant>;

  // inputs = outputs = the switch's ports; data_vls: the most data VLs any
  // output operates (queues are kept for VLs 0 .. data_vls - 1 and VL15).
  // Throws std::invalid_argument for no port, more than 254, max_reads 0 or
  // data_vls outside 1..15.
  VoqCrossbar(const std::vector<link::VlArbConfig>& outputs, unsigned data_vls, unsigned max_reads);
  void set_arbitration(unsigned output, const link::VlArbConfig& c);

  // Queues p (its wire bytes are p->wire_len) from `input` for (output,
  // out_vl) and grants what that makes eligible.
  std::optional<Grant> enqueue(unsigned input, unsigned output, unsigned out_vl, ib::Packet* p, Room room);
  // A transfer from input to output ended.
  Grants after_release(unsigned input, unsigned output, Room room);
  // Room may have been freed at an output.
  std::optional<Grant> after_room(unsigned output, Room room);

  unsigned ports() const { return ports_; }
  unsigned max_reads() const { return max_reads_; }
  bool output_busy(unsigned output) const { return outs_[output].busy; }
  unsigned reads(unsigned input) const { return ins_[input].reads; }
  unsigned queued_packets(unsigned input) const { return ins_[input].packets; }
  // Where that count lives (stable for the crossbar's life), for a VCD.
  const uint32_t& queued_packets_ref(unsigned input) const { return ins_[input].packets; }
  uint64_t queued_bytes(unsigned input) const { return ins_[input].bytes; }
  // Packets queued for (output, out_vl) from every input, and their bytes.
  uint64_t bytes_for(unsigned output, unsigned out_vl) const;
  // Calls f(input, out_vl, head) for every non-empty queue of `output`.
  template <class F>
  void for_each_head(unsigned output, F&& f) const {
    for (unsigned s = 0; s < slots_; ++s)
      for (unsigned in = 0; in < ports_; ++in) {
        const ib::PacketQueue& q = queue(in, output, s);
        if (!q.empty()) f(in, vl_of(s), q.front());
      }
  }

 private:
  struct PerVl {
    uint16_t ptr = 0;      // next input to consider
    uint16_t count = 0;    // inputs with a non-empty queue
    uint64_t bytes = 0;    // queued for this (output, VL)
  };
  struct Output {
    explicit Output(const link::VlArbConfig& c) : arbiter(c) {}
    bool busy = false;
    uint16_t served_vls = 0;    // data VLs the arbiter's tables ever serve
    uint32_t vls = 0;           // VLs (bit = VL number, 15 included) with a non-empty queue
    std::vector<PerVl> per;     // by slot
    link::VlArbiter arbiter;
  };
  struct Input {
    uint16_t reads = 0;         // transfers in progress
    uint16_t ptr = 0;           // next output to consider
    uint32_t packets = 0;
    uint64_t bytes = 0;
  };

  unsigned slot_of(unsigned vl) const { return vl == link::kVl15 ? slots_ - 1 : vl; }
  unsigned vl_of(unsigned slot) const { return slot == slots_ - 1 ? link::kVl15 : slot; }
  std::size_t index(unsigned in, unsigned out, unsigned slot) const {
    return (static_cast<std::size_t>(in) * ports_ + out) * slots_ + slot;
  }
  ib::PacketQueue& queue(unsigned in, unsigned out, unsigned slot) { return queues_[index(in, out, slot)]; }
  const ib::PacketQueue& queue(unsigned in, unsigned out, unsigned slot) const { return queues_[index(in, out, slot)]; }
  uint64_t* mask(unsigned out, unsigned slot) { return &masks_[(static_cast<std::size_t>(out) * slots_ + slot) * words_]; }
  const uint64_t* mask(unsigned out, unsigned slot) const {
    return &masks_[(static_cast<std::size_t>(out) * slots_ + slot) * words_];
  }
  uint64_t* wants(unsigned in) { return &wants_[static_cast<std::size_t>(in) * words_]; }

  // The first eligible input of (output, vl) from the VL's pointer, or -1.
  int eligible_input(unsigned output, unsigned vl, Room room) const;
  // The output's choice (nothing changes), when it is free.
  std::optional<Grant> decide(unsigned output, Room room);
  // The freed input's choice among the free outputs its queues want.
  std::optional<Grant> input_choice(unsigned input, Room room);
  // Applies g: the packet leaves its queue, input and output busy, pointers moved, arbiter charged.
  void grant(Grant& g);

  unsigned ports_, slots_, max_reads_, words_;
  std::vector<ib::PacketQueue> queues_;  // by (input, output, slot)
  std::vector<uint64_t> masks_;          // by (output, slot): bit = input with a non-empty queue
  std::vector<uint64_t> wants_;          // by input: bit = output with a non-empty queue from it
  std::vector<uint16_t> pending_;        // by (input, output): its non-empty queues
  std::vector<Output> outs_;
  std::vector<Input> ins_;
  link::VlArbiter scratch_{link::VlArbConfig{}};  // a copy of an output's arbiter for a choice not yet granted
};

}  // namespace hcasim::sw
