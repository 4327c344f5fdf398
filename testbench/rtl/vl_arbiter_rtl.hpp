#pragma once
// The transactor of testbench/rtl/vl_arbiter.sv: turns a port's packet-level
// question (which VLs may send, how long their head packets are, whether VL15
// waits) into the block's pins and its answer back into a grant.
//
// Rules:
// - Built during elaboration with the port's resolved arbitration tables; it
//   programs them through the register interface (then waits for the commit
//   scan) ahead of the first decision.
// - decide() drives req_start (one clock), vl15_req, req and req_len, clocks
//   the block until done, and calls back with 15, the granted data VL, or -1:
//   all at the current simulated time (clock_driver.hpp).
// - The Verilated model is made by a Maker, so that a test can put a variant
//   of the RTL (another Verilated class with the same pins) in its place.

#include <systemc>

#include <cstdint>
#include <functional>
#include <memory>

#include "models/link/vl_arbiter.hpp"
#include "testbench/rtl/clock_driver.hpp"
#include "testbench/rtl/block_pins.hpp"
#include "testbench/rtl/rtl_registers.hpp"
#include "testbench/rtl/rtl_waves.hpp"

namespace hcasim::rtl {

class VlArbiterRtl : public sc_core::sc_module {
 public:
  struct Pins : RegisterPins {
    sc_core::sc_signal<bool> req_start{"req_start"};
    sc_core::sc_signal<bool> vl15_req{"vl15_req"};
    sc_core::sc_signal<uint32_t> req{"req"};
    sc_core::sc_signal<LengthBits> req_len{"req_len"};
    sc_core::sc_signal<bool> ready{"ready"};
    sc_core::sc_signal<bool> done{"done"};
    sc_core::sc_signal<bool> gnt_valid{"gnt_valid"};
    sc_core::sc_signal<uint32_t> gnt_vl{"gnt_vl"};
  };
  using Maker = std::unique_ptr<VerilatedBlock> (*)(const char* name, ClockDriver& clock, Pins& pins);

  VlArbiterRtl(const sc_core::sc_module_name& name, const link::VlArbConfig& config, Maker make, RtlWaves* waves);
  VlArbiterRtl() = delete;
  VlArbiterRtl(const VlArbiterRtl&) = delete;
  VlArbiterRtl& operator=(const VlArbiterRtl&) = delete;

  // One decision at a time.
  void decide(const link::VlCandidates& requests, bool vl15, std::function<void(int)> done);
  uint64_t cycles() const { return clock_.cycles(); }

 private:
  Pins pins_;
  ClockDriver clock_;
  std::unique_ptr<VerilatedBlock> rtl_;
  std::function<void(int)> done_;
  uint32_t mask_ = 0;
  LengthBits lengths_;
  bool vl15_ = false;
};

// The vl_arbiter.sv of this build, and a Maker for any Verilated class V with its pins.
VlArbiterRtl::Maker verilated_vl_arbiter();

template <class V>
std::unique_ptr<VerilatedBlock> make_vl_arbiter(const char* name, ClockDriver& clock, VlArbiterRtl::Pins& p) {
  auto block = std::make_unique<VerilatedModel<V>>(name);
  V& m = block->model;
  bind_common_pins(m, clock, p);
  m.req_start(p.req_start);
  m.vl15_req(p.vl15_req);
  m.req(p.req);
  m.req_len(p.req_len);
  m.ready(p.ready);
  m.done(p.done);
  m.gnt_valid(p.gnt_valid);
  m.gnt_vl(p.gnt_vl);
  return block;
}

}  // namespace hcasim::rtl
