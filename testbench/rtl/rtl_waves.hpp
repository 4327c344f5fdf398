#pragma once
// A VCD of the internal signals of every Verilated block of a run
// (DIR/rtl.vcd; open with waveforms/rtl_b2b.gtkw).
//
// Rules:
// - The blocks run in delta cycles at a fixed simulated time (clock_driver.hpp),
//   which a VCD cannot show, so this file has its own time axis in
//   femtoseconds: a dump at simulated time T ps lands at T x 1000 fs, or just
//   after the previous dump when that is later. So each clock edge of a
//   decision gets its own femtosecond after the picosecond it happened at, and
//   the file stays in step with the model's waves.vcd to the picosecond.
// - Blocks are added during elaboration; the file opens when the simulation
//   starts (Verilator traces only elaborated models).

#include <systemc>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

class VerilatedVcdC;

namespace hcasim::rtl {

// A Verilated model as the waves see it.
class VerilatedBlock {
 public:
  virtual ~VerilatedBlock() = default;
  virtual void trace(VerilatedVcdC& vcd) = 0;
};

class RtlWaves : public sc_core::sc_module {
 public:
  // Turns Verilator's tracing on: call before the first block is built.
  RtlWaves(const sc_core::sc_module_name& name, std::string path);
  ~RtlWaves() override;
  RtlWaves() = delete;
  RtlWaves(const RtlWaves&) = delete;
  RtlWaves& operator=(const RtlWaves&) = delete;

  void add(VerilatedBlock& block) { blocks_.push_back(&block); }
  void dump_now();  // the blocks' signals as they are now (clock_driver.hpp calls it)

 private:
  void start_of_simulation() override;

  std::string path_;
  std::vector<VerilatedBlock*> blocks_;
  std::unique_ptr<VerilatedVcdC> vcd_;
  uint64_t last_fs_ = 0;
  bool dumped_ = false;
};

}  // namespace hcasim::rtl

namespace hcasim::rtl {

// A Verilated model V (its header and verilated_vcd_c.h included where this is
// instantiated) as a VerilatedBlock.
template <class V>
class VerilatedModel final : public VerilatedBlock {
 public:
  explicit VerilatedModel(const char* name) : model(name) {}
  void trace(VerilatedVcdC& vcd) override { model.trace(&vcd, 99); }
  V model;
};

}  // namespace hcasim::rtl
