#pragma once
// The transactor of testbench/rtl/credit_manager.sv: a port's credit events
// become one event cycle each, and a transmit decision's question (which head
// packets pass the credit test, what a flow-control packet carries) a read of
// the block's combinational outputs.
//
// Rules:
// - Built during elaboration with the port's receive buffer of each data VL
//   (blocks), which it writes to the block ahead of everything else.
// - event() is posted: it reaches the block, in order, ahead of the next
//   test(), and does not start the clock itself. `after`, when given, sees
//   that VL's registers right after the event (the lock-step check).
// - test() drives head_len and rd_vl for one clock and calls back with the
//   credit_ok bits, the registers of rd_vl and the overflow flag, at the
//   current simulated time (clock_driver.hpp).

#include <systemc>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "models/link/tx_cosim.hpp"
#include "testbench/rtl/clock_driver.hpp"
#include "testbench/rtl/lockstep.hpp"
#include "testbench/rtl/block_pins.hpp"
#include "testbench/rtl/rtl_waves.hpp"

namespace hcasim::rtl {

class CreditManagerRtl : public sc_core::sc_module {
 public:
  struct Pins : RegisterPins {
    sc_core::sc_signal<bool> ev_valid{"ev_valid"};
    sc_core::sc_signal<uint32_t> ev_op{"ev_op"};
    sc_core::sc_signal<uint32_t> ev_vl{"ev_vl"};
    sc_core::sc_signal<uint32_t> ev_a{"ev_a"};
    sc_core::sc_signal<uint32_t> ev_b{"ev_b"};
    sc_core::sc_signal<LengthBits> head_len{"head_len"};
    sc_core::sc_signal<uint32_t> credit_ok{"credit_ok"};
    sc_core::sc_signal<uint32_t> rd_vl{"rd_vl"};
    sc_core::sc_signal<uint32_t> rd_fctbs{"rd_fctbs"};
    sc_core::sc_signal<uint32_t> rd_fccl{"rd_fccl"};
    sc_core::sc_signal<uint32_t> rd_abr{"rd_abr"};
    sc_core::sc_signal<uint32_t> rd_fccl_adv{"rd_fccl_adv"};
    sc_core::sc_signal<uint32_t> rd_used{"rd_used"};
    sc_core::sc_signal<bool> overflow{"overflow"};
  };
  using Maker = std::unique_ptr<VerilatedBlock> (*)(const char* name, ClockDriver& clock, Pins& pins);
  struct TestResult {
    uint32_t ok = 0;              // bit per VL: its head passes the credit test
    CreditRegisters registers;    // of the VL asked for
    bool overflow = false;        // sticky: a received packet did not fit
  };

  CreditManagerRtl(const sc_core::sc_module_name& name, const std::vector<uint32_t>& capacity_blocks, Maker make,
                   RtlWaves* waves);
  CreditManagerRtl() = delete;
  CreditManagerRtl(const CreditManagerRtl&) = delete;
  CreditManagerRtl& operator=(const CreditManagerRtl&) = delete;

  void event(link::CreditEvent e, unsigned vl, uint32_t a, uint32_t b,
             std::function<void(const CreditRegisters&)> after);
  // One test at a time.
  void test(const link::VlCandidates& heads, unsigned vl, std::function<void(const TestResult&)> done);
  uint64_t cycles() const { return clock_.cycles(); }

 private:
  CreditRegisters read_registers() const;

  Pins pins_;
  ClockDriver clock_;
  std::unique_ptr<VerilatedBlock> rtl_;
  std::function<void(const TestResult&)> done_;
  LengthBits heads_;
  unsigned read_vl_ = 0;
};

CreditManagerRtl::Maker verilated_credit_manager();

template <class V>
std::unique_ptr<VerilatedBlock> make_credit_manager(const char* name, ClockDriver& clock, CreditManagerRtl::Pins& p) {
  auto block = std::make_unique<VerilatedModel<V>>(name);
  V& m = block->model;
  bind_common_pins(m, clock, p);
  m.ev_valid(p.ev_valid);
  m.ev_op(p.ev_op);
  m.ev_vl(p.ev_vl);
  m.ev_a(p.ev_a);
  m.ev_b(p.ev_b);
  m.head_len(p.head_len);
  m.credit_ok(p.credit_ok);
  m.rd_vl(p.rd_vl);
  m.rd_fctbs(p.rd_fctbs);
  m.rd_fccl(p.rd_fccl);
  m.rd_abr(p.rd_abr);
  m.rd_fccl_adv(p.rd_fccl_adv);
  m.rd_used(p.rd_used);
  m.overflow(p.overflow);
  return block;
}

}  // namespace hcasim::rtl
