#pragma once
// A port's VL arbitration tables as the four 32-entry VLArbitrationTable
// blocks SMPs and VLArbRecords carry (iba-facts 6: block 1 = low 0-31,
// 2 = low 32-63, 3 = high 0-31, 4 = high 32-63). The model's tables are the
// entries up to the last of non-zero weight (a weight-0 entry is never served,
// so both arbitrate alike).

#include "models/ib/mad_attributes.hpp"
#include "models/link/vl_arbiter.hpp"

namespace hcasim::mgmt {

constexpr unsigned kVlArbBlocks = 4;  // iba-facts 6

inline bool vlarb_table_block_valid(unsigned block) { return block >= 1 && block <= kVlArbBlocks; }

// Block `block` (1-4) of c; entries beyond the table have weight 0.
inline ib::VlArbBlock vlarb_table_block(const link::VlArbConfig& c, unsigned block) {
  const auto& t = block >= ib::kVlArbHighFirst ? c.high : c.low;
  const unsigned first = (block == ib::kVlArbLowSecond || block == ib::kVlArbHighSecond) ? ib::kVlArbBlockEntries : 0;
  ib::VlArbBlock b;
  for (unsigned i = 0; i < ib::kVlArbBlockEntries && first + i < t.size(); ++i)
    b.entry[i] = {static_cast<uint8_t>(t[first + i].vl & 0xF), t[first + i].weight};
  return b;
}

// c with block `block` (1-4) replaced by b.
inline void set_vlarb_table_block(link::VlArbConfig& c, unsigned block, const ib::VlArbBlock& b) {
  auto& t = block >= ib::kVlArbHighFirst ? c.high : c.low;
  const unsigned first = (block == ib::kVlArbLowSecond || block == ib::kVlArbHighSecond) ? ib::kVlArbBlockEntries : 0;
  t.resize(link::kMaxArbEntries, link::VlArbEntry{0, 0});
  for (unsigned i = 0; i < ib::kVlArbBlockEntries; ++i)
    t[first + i] = {static_cast<uint8_t>(b.entry[i].vl & 0xF), b.entry[i].weight};
  while (!t.empty() && t.back().weight == 0) t.pop_back();
}

}  // namespace hcasim::mgmt
