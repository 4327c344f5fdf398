#pragma once
// The pins the Verilated blocks share, and values as their SystemC pins carry
// them (Verilator maps a vector wider than 64 bits to sc_bv).

#include <systemc>

#include <vector>

#include "testbench/rtl/clock_driver.hpp"
#include "testbench/rtl/rtl_registers.hpp"

namespace hcasim::rtl {

using LengthBits = sc_dt::sc_bv<kRtlVls * kRtlLenBits>;

// Per-VL lengths as the req_len / head_len pins (pack_lengths).
inline void set_length_bits(LengthBits& bits, const link::VlCandidates& lengths) {
  const auto words = pack_lengths(lengths);
  for (unsigned i = 0; i < kLenWords; ++i) bits.set_word(static_cast<int>(i), words[i]);
}

// The register interface every block has: one write per clock.
struct RegisterPins {
  sc_core::sc_signal<bool> reg_we{"reg_we"};
  sc_core::sc_signal<uint32_t> reg_addr{"reg_addr"};
  sc_core::sc_signal<uint32_t> reg_wdata{"reg_wdata"};
};

// Queues the writes, one clock each (they do not start the clock).
inline void post_register_writes(ClockDriver& clock, RegisterPins& pins, const std::vector<RegWrite>& writes) {
  for (const RegWrite& w : writes)
    clock.post({[&pins, w] {
                  pins.reg_we.write(true);
                  pins.reg_addr.write(w.addr);
                  pins.reg_wdata.write(w.data);
                },
                nullptr, false});
}

// Binds what every Verilated block V has: clock, reset and the register interface.
template <class V>
void bind_common_pins(V& m, ClockDriver& clock, RegisterPins& p) {
  m.clk(clock.clk);
  m.rst_n(clock.rst_n);
  m.reg_we(p.reg_we);
  m.reg_addr(p.reg_addr);
  m.reg_wdata(p.reg_wdata);
}

}  // namespace hcasim::rtl
