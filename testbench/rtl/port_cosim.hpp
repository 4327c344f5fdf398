#pragma once
// One port's RTL blocks in the loop (the port's vl_arbiter / credit_manager
// setting "rtl" or "rtl+check", port_config.hpp), as the port's TxCosim.
//
// Rules:
// - Arbitration "rtl": every grant of the port (VL15 and data decisions, idle
//   ones included) comes from vl_arbiter.sv. "rtl+check": a C++ VlArbiter with
//   the same tables, asked the same questions, predicts each grant.
// - Credits "rtl": the credit test of every data decision and the FCTBS and
//   FCCL of every flow-control packet come from credit_manager.sv, which sees
//   every credit event of the port. "rtl+check": the C++ credit classes, fed
//   the same events, predict the test, the values and the registers after
//   each event.
// - With both, the RTL credit test's result is what the RTL arbiter is asked.
// - In either mode an answer must keep the pin contract: a VL15 question is
//   granted VL15; a data grant names a VL that may send, or none; credit_ok is
//   set only for VLs with a packet; the overflow flag stays low.
// - The first divergence or broken contract goes to the CosimVerdict, with
//   the simulated time, the inputs, the C++ answer and the RTL's, and stops
//   the simulation; until the kernel stops, the port gets the C++ answer
//   (rtl+check) or no grant (rtl), so the model stays consistent.

#include <systemc>

#include <memory>
#include <string>
#include <vector>

#include "models/link/port.hpp"
#include "testbench/rtl/credit_manager_rtl.hpp"
#include "testbench/rtl/lockstep.hpp"
#include "testbench/rtl/vl_arbiter_rtl.hpp"

namespace hcasim::rtl {

// The Verilated blocks to use; null = this build's (verilated_blocks.cpp).
struct CosimBlocks {
  VlArbiterRtl::Maker arbiter = nullptr;
  CreditManagerRtl::Maker credits = nullptr;
};

// The co-simulation's failures: the first one stops the simulation.
class CosimVerdict {
 public:
  bool ok() const { return messages_.empty(); }
  const std::vector<std::string>& messages() const { return messages_; }
  void fail(std::string message);

 private:
  std::vector<std::string> messages_;
};

class PortCosim : public sc_core::sc_module, public link::TxCosim {
 public:
  // Arbitration and credits as the port's config says; attaches itself to the port.
  PortCosim(const sc_core::sc_module_name& name, link::Port& port, const CosimBlocks& blocks, RtlWaves* waves,
            CosimVerdict& verdict);
  PortCosim() = delete;

  void ask(const link::TxQuestion& q) override;
  void credit_event(link::CreditEvent e, unsigned vl, uint32_t a, uint32_t b) override;

  uint64_t grants() const { return grants_; }
  uint64_t rtl_cycles() const;

 private:
  void on_credit_test(const CreditManagerRtl::TestResult& r);
  void decide();
  void on_grant(int vl);
  void check_registers(uint64_t n, const std::string& event, uint64_t at_ps, const CreditRegisters& expected,
                       const CreditRegisters& actual);
  void fail(const std::string& mode, const std::string& what);

  link::Port& port_;
  CosimVerdict& verdict_;
  std::unique_ptr<VlArbiterRtl> arbiter_;
  std::unique_ptr<link::VlArbiter> arbiter_ref_;   // rtl+check
  std::unique_ptr<CreditManagerRtl> credits_;
  std::unique_ptr<CreditReference> credits_ref_;   // rtl+check
  link::TxQuestion question_;
  link::TxAnswer answer_;
  uint64_t grants_ = 0;
  uint64_t events_ = 0;
  uint64_t tests_ = 0;
};

}  // namespace hcasim::rtl
