#pragma once
// The switch crossbar's allocator as plain logic: which input VL moves its
// head packet to which output next.
//
// Rules:
// - A requester is an (input, input VL) pair whose head packet is routed to one
//   (output, output VL). An input moves one packet at a time through the
//   crossbar and an output takes one at a time; both stay busy until the
//   transfer ends.
// - A requester is eligible when its input and its output are free and the
//   caller's predicate says so (the switch: the output VL's transmit queue has
//   room for the packet; the predicate must not pass a larger packet where it
//   failed a smaller one for the same output VL, which lets one decision skip
//   calls). A requester without room never blocks another, so a full output
//   VL does not hold up the other VLs of the same input (VL isolation).
// - Allocator "VL-weighted output round robin with owed turns":
//   * an output serves VL15 first; among data VLs it asks its own copy of the
//     output port's IBA VL arbiter (link::VlArbiter, same tables), offering each
//     output VL with a candidate, so the crossbar moves VLs in the weights the
//     link sends them (when the crossbar is no faster than the link, its choice
//     is the one that counts); a data VL the tables never serve is never moved;
//   * within an output VL the output keeps a round-robin pointer over its
//     (input, VL) requesters and takes the first with room at or after it;
//   * a requester with room passed over because its input is busy (moving
//     another packet) when the output's VL is granted to a requester after
//     it in the round robin (by the output's decision, or by a freed input
//     choosing the idle output) is owed a turn; owed requesters come first.
//     (Only a grant passes anyone over: were an output VL the arbiter did not
//     pick to owe turns, an input busy at every look would be owed every turn
//     and the round robin would never move past it.) When the
//     output's turn falls on an owed requester whose input is still busy, the
//     output reserves it: it takes no other packet until that input's transfer
//     ends, and the input then serves a reservation before anything else. (In
//     an event-driven crossbar transfers end at different times, so an input
//     shared by several outputs would otherwise rarely be free when a busy
//     output decides, and could starve there.) The wait is at most one
//     transfer; it costs the output nothing while its queue has packets;
//   * each input keeps a round-robin pointer over its VLs;
//   * a grant moves the pointers just past the granted requester, except that
//     a turn paid back leaves the output's pointer where it is.
//   So no requester starves: between two of its grants, every other requester
//   of its output VL is granted at most three times (its turn, a turn paid
//   back, its next turn); requesters whose inputs serve nothing else get 1/n
//   of their output VL's grants each.
// - Allocation runs when something changes, and only where it can matter:
//   * a new request: granted at once if eligible (every other eligible pairing
//     would have been granted already);
//   * a transfer ends: if outputs reserved the freed input, it serves one of
//     them (its VL round robin) and the freed output decides; otherwise the
//     freed output decides; if it chooses the freed input, that input chooses
//     instead by its own VL round robin (so one output that always wants it
//     back cannot starve the input's other VLs): the same output = the
//     output's choice stands, another = the output decides again; if the
//     output chooses another input or reserves one, the freed input chooses
//     among its VLs;
//   * an output's predicate may have changed (room freed): that output decides.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "models/link/function_ref.hpp"
#include "models/switch/crossbar_parts.hpp"
#include "models/link/vl_arbiter.hpp"

namespace hcasim::sw {

class CrossbarAllocator {
 public:
  static constexpr unsigned kVlSlots = 16;  // VL0..VL14 and VL15

  // The caller's part of eligibility, ok(input, vl, output).
  using Ok = link::FunctionRef<bool(unsigned input, unsigned vl, unsigned output)>;

  struct Grant {
    unsigned input = 0;
    unsigned vl = 0;               // input VL
    unsigned output = 0;
    unsigned out_vl = 0;           // the request's output VL and wire bytes
    uint32_t bytes = 0;
    link::VlCandidates offered{};  // data VLs the output's arbiter chose among (charged on grant)
  };
  using Grants = GrantList<Grant>;

  static constexpr unsigned kMaxInputs = 4096;  // requester ids fit 16 bits (a switch has at most 254 ports)
  // One VL arbitration configuration per output: that port's tables as it serves
  // them (link::operational_tables: entries for VLs it does not operate weigh 0).
  CrossbarAllocator(unsigned inputs, const std::vector<link::VlArbConfig>& outputs);
  // New tables for one output (a subnet manager programmed its port); the
  // arbiter's turn state starts afresh.
  void set_arbitration(unsigned output, const link::VlArbConfig& c);

  // The head of (input, vl) wants output VL out_vl of `output`; it is `bytes`
  // long on the wire. One request per (input, vl) at a time.
  void request(unsigned input, unsigned vl, unsigned output, unsigned out_vl, uint32_t bytes);
  bool requesting(unsigned input, unsigned vl) const { return (ins_[input].vls >> vl) & 1u; }
  unsigned requested_output(unsigned input, unsigned vl) const { return req_[slot(input, vl)].output; }
  unsigned requested_vl(unsigned input, unsigned vl) const { return req_[slot(input, vl)].out_vl; }
  uint32_t requested_bytes(unsigned input, unsigned vl) const { return req_[slot(input, vl)].bytes; }
  unsigned requests_for(unsigned output) const { return outs_[output].requests; }
  // Calls f(input, vl) for every request waiting for `output`, in id order.
  template <class F>
  void for_each_request(unsigned output, F&& f) const {
    const uint64_t* m = &mask_[static_cast<std::size_t>(output) * words_];
    for (unsigned w = 0; w < words_; ++w)
      for (uint64_t b = m[w]; b != 0; b &= b - 1) {
        const unsigned id = w * 64 + static_cast<unsigned>(__builtin_ctzll(b));
        f(id / kVlSlots, id % kVlSlots);
      }
  }
  bool input_busy(unsigned input) const { return ins_[input].busy; }
  bool output_busy(unsigned output) const { return outs_[output].busy; }
  bool output_reserved(unsigned output) const { return outs_[output].reserved; }
  // Where the allocator keeps an output's state (its first line holds the
  // requests and busy flags), for a caller to prefetch.
  const void* output_state(unsigned output) const { return &outs_[output]; }

  // The allocation steps (see the rules). Each grant returned is applied: its
  // input and output are busy, its request withdrawn, the arbiter charged.
  std::optional<Grant> after_request(unsigned input, unsigned vl, Ok ok);
  Grants after_release(unsigned input, unsigned output, Ok ok);
  std::optional<Grant> after_room(unsigned output, Ok ok);
  // Prefetches what after_release(input, output) reads first; no effect on
  // the allocation.
  void warm_release(unsigned input, unsigned output) const {
    __builtin_prefetch(&ins_[input]);
    __builtin_prefetch(&outs_[output]);
    __builtin_prefetch(&mask_[static_cast<std::size_t>(output) * words_]);
    __builtin_prefetch(&owed_[static_cast<std::size_t>(output) * words_]);
  }

 private:
  struct Request {
    uint16_t output = 0;
    uint8_t out_vl = 0;
    uint32_t bytes = 0;
    uint32_t blocks = 0;  // 64-byte credit blocks, what the VL arbiter weighs
  };
  // Laid out for the cache: what a request, a decision and a grant read for
  // output VLs 0..11 is in the first line; the arbiter starts the third (its
  // first line holds what a grant reads); the reserved requester comes after.
  struct alignas(64) Output {
    explicit Output(const link::VlArbConfig& c) : arbiter(c) {}
    struct PerVl {
      uint16_t ptr = 0;    // next requester id to consider (ids < kMaxInputs x 16)
      uint16_t count = 0;  // requesters waiting
    };
    bool busy = false;
    bool reserved = false;                    // reservation holds a requester
    uint16_t vls = 0;                         // output VLs with requesters
    uint16_t served_vls = 0;                  // data VLs the arbiter's tables ever serve
    uint32_t requests = 0;
    uint32_t owed = 0;                        // requesters owed a turn
    std::array<PerVl, kVlSlots> per{};        // by output VL
    alignas(64) link::VlArbiter arbiter;
    Grant reservation;                        // waiting for this requester's input (while reserved)
  };
  static_assert(offsetof(Output, per) + 12 * sizeof(Output::PerVl) <= 64, "VLs 0..11 in the first line");
  struct Choice {
    Grant grant;
    bool reserve = false;
  };

  std::size_t slot(unsigned input, unsigned vl) const { return static_cast<std::size_t>(input) * kVlSlots + vl; }
  uint64_t* bits(std::vector<uint64_t>& v, unsigned output) { return &v[static_cast<std::size_t>(output) * words_]; }
  bool test(const std::vector<uint64_t>& v, unsigned output, std::size_t id) const {
    return (v[static_cast<std::size_t>(output) * words_ + id / 64] >> (id % 64)) & 1u;
  }
  bool available(unsigned output) const { return !outs_[output].busy && !outs_[output].reserved; }
  // A grant of (input, vl) at its output as the only VL the output offers.
  Grant sole(unsigned input, unsigned vl) const;
  // Whether the output's arbiter would ever serve this data VL.
  bool arbiter_takes(unsigned output, unsigned out_vl) const;

  // A decision changes nothing; the turns a grant owes are marked when it is
  // made (a choice not granted, such as an output VL the arbiter did not pick,
  // passes nobody over).
  std::optional<Choice> decide(unsigned output, Ok ok);
  std::optional<Choice> decide_vl(unsigned output, unsigned out_vl, Ok ok);
  // room(id): whether requester id's packet fits its output VL's queue, asking
  // `ok` only for sizes below the smallest one refused so far (the predicate's
  // contract); one check per scan of one output VL.
  auto room_check(unsigned output, Ok ok) const;
  std::optional<Grant> input_choice(unsigned input, Ok ok) const;
  std::optional<Grant> reserved_choice(unsigned input) const;
  // Grants g: its input and output busy, its request withdrawn, the arbiter
  // charged, the pointers moved; first the requesters of its output VL that it
  // passes over (from the output's pointer up to it, with room, their input
  // busy) are owed a turn. Every grant goes through here, whether the output
  // decided it or an input chose a free output: either way the others lose
  // their turn to it.
  void grant(const Grant& g, Ok ok);
  void owe_passed(const Grant& g, Ok ok);
  void reserve(const Grant& g);
  // Applies a decision: a grant is added to `out`, a reservation recorded.
  void apply(const std::optional<Choice>& c, Grants& out, Ok ok);

  // Per input, together: a request, a grant and a release read or write all
  // of it (one line holds ten inputs).
  struct Input {
    uint16_t vls = 0;       // VLs with a request
    uint16_t reserved = 0;  // VLs an output has reserved
    uint8_t ptr = 0;        // next VL to consider
    bool busy = false;      // moving a packet through the crossbar
  };
  // The vectors a request reads first lead.
  std::vector<Input> ins_;
  std::vector<Request> req_;            // per (input, vl)
  std::vector<Output> outs_;
  unsigned inputs_;
  unsigned words_;                      // 64-bit words per output mask
  std::vector<uint64_t> mask_;          // outputs x words_: bit (input * 16 + vl) = requesting
  std::vector<uint64_t> owed_;          // same layout: owed a turn
  std::vector<uint64_t> scratch_words_; // one output's owed requesters
  // A copy of an output's arbiter for a choice among its VLs that may not be
  // granted (only when several output VLs compete): one for all the outputs.
  link::VlArbiter scratch_{link::VlArbConfig{}};
};

}  // namespace hcasim::sw
