#pragma once
// The receive space of a shared-buffer switch (switch.architecture "shared")
// as plain logic: one pool of 64-byte blocks for every input VL of the switch,
// a reserved share per input VL and a dynamic threshold on the rest
// (Choudhury and Hahne, "Dynamic queue length thresholds for shared-memory
// packet switches", IEEE/ACM ToN 1998), turned into the capacity each input
// VL advertises in its credits.
//
// Rules:
// - The pool holds total blocks; each input VL has `reserved` of them for
//   itself; the rest, shared = total - inputs x reserved, is drawn on by all.
// - An input VL's capacity is reserved + its draw on the shared part. The
//   draws together never exceed the shared part, so every credit the switch
//   has advertised is backed by a block of the pool.
// - resize(input VL, committed) sets its draw again, when the VL receives or
//   frees a packet: to alpha / (1 + alpha) of the shared space the other VLs
//   leave free (with alpha the threshold's factor: one VL alone takes that
//   share, n busy VLs settle at alpha / (1 + n alpha) each), but never below
//   what it has committed (what it holds plus what its sender may still send
//   under the credits already advertised: credits cannot be taken back) less
//   its reserved blocks. A VL that stops receiving keeps what it last
//   advertised until its sender uses it.

#include <cstdint>
#include <vector>

namespace hcasim::sw {

class SharedBufferPool {
 public:
  // Throws std::invalid_argument for no input VL, alpha not > 0, or reserved
  // blocks for all input VLs above the total.
  SharedBufferPool(uint32_t input_vls, uint64_t total_blocks, uint32_t reserved_blocks, double alpha);

  // The input VL's new capacity in blocks, given the blocks it has committed.
  uint32_t resize(uint32_t input_vl, uint32_t committed_blocks);
  uint32_t capacity(uint32_t input_vl) const { return reserved_ + draw_[input_vl]; }
  uint64_t shared_blocks() const { return shared_; }
  uint64_t drawn_blocks() const { return drawn_; }  // the draws together, <= shared_blocks()
  const uint64_t& drawn_blocks_ref() const { return drawn_; }  // stable, for a VCD
  uint64_t peak_drawn_blocks() const { return peak_drawn_; }

 private:
  uint32_t reserved_;
  double alpha_;
  uint64_t shared_;
  uint64_t drawn_ = 0, peak_drawn_ = 0;
  std::vector<uint32_t> draw_;  // by input VL
};

}  // namespace hcasim::sw
