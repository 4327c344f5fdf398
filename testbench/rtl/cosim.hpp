#pragma once
// The RTL co-simulation of a run: a PortCosim for every port whose config
// asks for an RTL block (vl_arbiter or credit_manager "rtl" / "rtl+check"),
// the RTL waves when asked for, and the verdict.
//
// Rules: built during elaboration, after the fabric; a run whose ports all
// use the model's C++ builds nothing (and pays nothing).

#include <memory>
#include <string>
#include <vector>

#include "models/link/port.hpp"
#include "testbench/rtl/port_cosim.hpp"
#include "testbench/rtl/rtl_waves.hpp"

namespace hcasim::rtl {

// Whether any of these ports asks for an RTL block.
bool wants_rtl(const std::vector<link::Port*>& ports);

class Cosim {
 public:
  // vcd_path: the RTL waves' file, "" = none.
  Cosim(const std::vector<link::Port*>& ports, const CosimBlocks& blocks, const std::string& vcd_path);

  const CosimVerdict& verdict() const { return verdict_; }
  const std::vector<std::unique_ptr<PortCosim>>& ports() const { return ports_; }

 private:
  CosimVerdict verdict_;
  std::unique_ptr<RtlWaves> waves_;
  std::vector<std::unique_ptr<PortCosim>> ports_;
};

}  // namespace hcasim::rtl
