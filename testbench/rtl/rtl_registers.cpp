#include "testbench/rtl/rtl_registers.hpp"

#include <stdexcept>
#include <string>

namespace hcasim::rtl {

std::vector<RegWrite> arbiter_program(const link::VlArbConfig& c) {
  if (c.high.size() > kRtlDepth || c.low.size() > kRtlDepth)
    throw std::out_of_range("VL arbitration table longer than the RTL's " + std::to_string(kRtlDepth) + " entries");
  std::vector<RegWrite> w;
  for (std::size_t i = 0; i < c.high.size(); ++i)
    w.push_back({kArbHighEntry + static_cast<uint32_t>(i), arbiter_entry_word(c.high[i])});
  for (std::size_t i = 0; i < c.low.size(); ++i)
    w.push_back({kArbLowEntry + static_cast<uint32_t>(i), arbiter_entry_word(c.low[i])});
  w.push_back({kArbHighSize, static_cast<uint32_t>(c.high.size())});
  w.push_back({kArbLowSize, static_cast<uint32_t>(c.low.size())});
  w.push_back({kArbHighLimit, c.high_limit});
  w.push_back({kArbControl, c.policy == link::WeightPolicy::Deficit ? kArbControlDeficit : 0});
  return w;
}

std::vector<RegWrite> credit_program(const std::vector<uint32_t>& capacity_blocks) {
  if (capacity_blocks.size() > kRtlVls)
    throw std::out_of_range(std::to_string(capacity_blocks.size()) + " VLs; the RTL has " + std::to_string(kRtlVls));
  std::vector<RegWrite> w;
  for (std::size_t vl = 0; vl < capacity_blocks.size(); ++vl) {
    if (capacity_blocks[vl] >= (1u << kRtlBufferBits))
      throw std::out_of_range("a receive buffer of " + std::to_string(capacity_blocks[vl]) +
                              " blocks is beyond the RTL's " + std::to_string(kRtlBufferBits) + "-bit counters");
    w.push_back({static_cast<uint32_t>(vl), capacity_blocks[vl]});
  }
  return w;
}

std::array<uint32_t, kLenWords> pack_lengths(const link::VlCandidates& lengths) {
  std::array<uint32_t, kLenWords> words{};
  for (unsigned vl = 0; vl < kRtlVls; ++vl) {
    const uint32_t len = lengths[vl];
    if (len > kRtlMaxLen)
      throw std::out_of_range("a packet of " + std::to_string(len) + " blocks on VL " + std::to_string(vl) +
                              " is beyond the RTL's " + std::to_string(kRtlLenBits) + "-bit lengths");
    const unsigned bit = vl * kRtlLenBits;
    words[bit / 32] |= len << (bit % 32);
    if (bit % 32 + kRtlLenBits > 32) words[bit / 32 + 1] |= len >> (32 - bit % 32);
  }
  return words;
}

link::VlCandidates select(const link::VlCandidates& lengths, uint32_t mask) {
  link::VlCandidates out{};
  for (unsigned vl = 0; vl < link::kMaxDataVls; ++vl)
    if (mask & (1u << vl)) out[vl] = lengths[vl];
  return out;
}

}  // namespace hcasim::rtl
