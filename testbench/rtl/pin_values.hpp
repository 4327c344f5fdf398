#pragma once
// Values as the Verilated blocks' SystemC pins carry them (Verilator maps a
// vector wider than 64 bits to sc_bv).

#include <systemc>

#include "testbench/rtl/rtl_registers.hpp"

namespace hcasim::rtl {

using LengthBits = sc_dt::sc_bv<kRtlVls * kRtlLenBits>;

// Per-VL lengths as the req_len / head_len pins (pack_lengths).
inline void set_length_bits(LengthBits& bits, const link::VlCandidates& lengths) {
  const auto words = pack_lengths(lengths);
  for (unsigned i = 0; i < kLenWords; ++i) bits.set_word(static_cast<int>(i), words[i]);
}

}  // namespace hcasim::rtl
