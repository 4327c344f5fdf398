#pragma once
// The switch crossbar's allocator as plain logic: which input VL moves its
// head packet to which output next.
//
// Rules:
// - A requester is an (input, VL) pair whose head packet is routed to one
//   output. An input moves one packet at a time through the crossbar and an
//   output takes one at a time; both stay busy until the transfer ends.
// - A requester is eligible when its input and its output are free and the
//   caller's predicate says so (the switch: the output VL's transmit queue has
//   room for the packet). An ineligible requester never blocks another, so a
//   full output VL does not hold up the other VLs of the same input (VL
//   isolation).
// - Allocator "output round robin with input round robin" (separable, one
//   grant per event):
//   * each output keeps a round-robin pointer over its (input, VL)
//     requesters and grants the first eligible one at or after it;
//   * each input keeps a round-robin pointer over its VLs;
//   * a grant moves both pointers just past the granted requester, so every
//     requester that stays eligible is served within one round of each side.
// - Allocation runs when something changes, and only where it can matter:
//   * a new request: granted at once if it is eligible (every other eligible
//     pairing would have been granted already);
//   * a transfer ends: the freed output picks by its round robin; if it picks
//     the freed input, the input picks instead by its own round robin over its
//     VLs (so one busy output cannot starve the input's other VLs), and the
//     output, if still free, picks again among the others; if it picks another
//     input, the freed input then picks among its VLs;
//   * an output's predicate may have changed (room freed): that output picks.

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace hcasim::sw {

class CrossbarAllocator {
 public:
  static constexpr unsigned kVlSlots = 16;  // VL0..VL14 and VL15

  struct Grant {
    unsigned input;
    unsigned vl;
    unsigned output;
  };
  struct Grants {
    std::array<Grant, 2> list{};
    unsigned count = 0;
    const Grant* begin() const { return list.data(); }
    const Grant* end() const { return list.data() + count; }
  };

  CrossbarAllocator(unsigned inputs, unsigned outputs);

  // The head of (input, vl) wants `output`. One request per (input, vl) at a time.
  void request(unsigned input, unsigned vl, unsigned output);
  bool requesting(unsigned input, unsigned vl) const { return (input_vls_[input] >> vl) & 1u; }
  unsigned requested_output(unsigned input, unsigned vl) const { return target_[slot(input, vl)]; }
  unsigned requests_for(unsigned output) const { return requests_[output]; }
  bool input_busy(unsigned input) const { return input_busy_[input] != 0; }
  bool output_busy(unsigned output) const { return output_busy_[output] != 0; }

  // Allocation steps (see the rules). `ok(input, vl, output)` is the caller's
  // part of eligibility. Each grant returned is already applied: its input and
  // output are busy and its request is withdrawn.
  template <class Ok>
  std::optional<Grant> after_request(unsigned input, unsigned vl, Ok&& ok);
  template <class Ok>
  Grants after_release(unsigned input, unsigned output, Ok&& ok);
  template <class Ok>
  std::optional<Grant> after_room(unsigned output, Ok&& ok);

  // The building blocks, public for tests.
  template <class Ok>
  std::optional<Grant> pick_for_output(unsigned output, Ok&& ok) const;
  template <class Ok>
  std::optional<Grant> pick_for_input(unsigned input, Ok&& ok) const;
  void grant(const Grant& g);
  void release(unsigned input, unsigned output);

 private:
  std::size_t slot(unsigned input, unsigned vl) const { return static_cast<std::size_t>(input) * kVlSlots + vl; }

  unsigned inputs_;
  unsigned words_;                      // 64-bit words per output's requester mask
  std::vector<uint64_t> mask_;          // outputs x words_: bit (input * 16 + vl)
  std::vector<uint32_t> out_ptr_;       // per output: next requester id to consider
  std::vector<uint32_t> requests_;      // per output: requesters waiting
  std::vector<uint16_t> input_vls_;     // per input: VLs with a request
  std::vector<uint8_t> in_ptr_;         // per input: next VL to consider
  std::vector<uint16_t> target_;        // per (input, vl): requested output
  std::vector<uint8_t> input_busy_;
  std::vector<uint8_t> output_busy_;
};

template <class Ok>
std::optional<CrossbarAllocator::Grant> CrossbarAllocator::pick_for_output(unsigned output, Ok&& ok) const {
  if (requests_[output] == 0 || output_busy(output)) return std::nullopt;
  const uint64_t* words = &mask_[static_cast<std::size_t>(output) * words_];
  const uint32_t start = out_ptr_[output];
  const unsigned first = start / 64;
  // Requester ids start.. in the first word, the following words cyclically,
  // then ids below start in the first word.
  for (unsigned k = 0; k <= words_; ++k) {
    const unsigned w = (first + k) % words_;
    uint64_t bits = words[w];
    if (k == 0) bits &= ~uint64_t{0} << (start % 64);
    if (k == words_) bits &= (uint64_t{1} << (start % 64)) - 1;
    while (bits != 0) {
      const unsigned id = w * 64 + static_cast<unsigned>(__builtin_ctzll(bits));
      bits &= bits - 1;
      const unsigned in = id / kVlSlots;
      const unsigned vl = id % kVlSlots;
      if (!input_busy(in) && ok(in, vl, output)) return Grant{in, vl, output};
    }
  }
  return std::nullopt;
}

template <class Ok>
std::optional<CrossbarAllocator::Grant> CrossbarAllocator::pick_for_input(unsigned input, Ok&& ok) const {
  const uint32_t vls = input_vls_[input];
  if (vls == 0 || input_busy(input)) return std::nullopt;
  // Rotate so that the pointer's VL is bit 0.
  const unsigned p = in_ptr_[input];
  uint32_t bits = ((vls >> p) | (vls << (kVlSlots - p))) & 0xFFFFu;
  while (bits != 0) {
    const unsigned vl = (p + static_cast<unsigned>(__builtin_ctz(bits))) % kVlSlots;
    bits &= bits - 1;
    const unsigned out = target_[slot(input, vl)];
    if (!output_busy(out) && ok(input, vl, out)) return Grant{input, vl, out};
  }
  return std::nullopt;
}

template <class Ok>
std::optional<CrossbarAllocator::Grant> CrossbarAllocator::after_request(unsigned input, unsigned vl, Ok&& ok) {
  const unsigned out = target_[slot(input, vl)];
  if (input_busy(input) || output_busy(out) || !ok(input, vl, out)) return std::nullopt;
  const Grant g{input, vl, out};
  grant(g);
  return g;
}

template <class Ok>
CrossbarAllocator::Grants CrossbarAllocator::after_release(unsigned input, unsigned output, Ok&& ok) {
  release(input, output);
  Grants out;
  const auto first = pick_for_output(output, ok);
  if (first && first->input != input) {
    grant(*first);
    out.list[out.count++] = *first;
  }
  if (auto g = pick_for_input(input, ok)) {
    grant(*g);
    out.list[out.count++] = *g;
  }
  // The output chose the freed input, which went elsewhere: the output chooses
  // again among the others (had it found no one, it still would not).
  if (first && first->input == input && !output_busy(output))
    if (auto g = pick_for_output(output, ok)) {
      grant(*g);
      out.list[out.count++] = *g;
    }
  return out;
}

template <class Ok>
std::optional<CrossbarAllocator::Grant> CrossbarAllocator::after_room(unsigned output, Ok&& ok) {
  auto g = pick_for_output(output, ok);
  if (g) grant(*g);
  return g;
}

}  // namespace hcasim::sw
