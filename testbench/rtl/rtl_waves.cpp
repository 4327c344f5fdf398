#include "testbench/rtl/rtl_waves.hpp"

#include <verilated.h>
#include <verilated_vcd_c.h>

#include <algorithm>

namespace hcasim::rtl {

RtlWaves::RtlWaves(const sc_core::sc_module_name& name, std::string path)
    : sc_module(name), path_(std::move(path)) {
  Verilated::traceEverOn(true);
}

RtlWaves::~RtlWaves() {
  if (vcd_ != nullptr) vcd_->close();
}

void RtlWaves::start_of_simulation() {
  vcd_ = std::make_unique<VerilatedVcdC>();
  for (VerilatedBlock* b : blocks_) b->trace(*vcd_);
  vcd_->set_time_unit("1fs");
  vcd_->set_time_resolution("1fs");
  vcd_->open(path_.c_str());
}

void RtlWaves::dump_now() {
  if (vcd_ == nullptr) return;
  const uint64_t at = sc_core::sc_time_stamp().value() * 1000;
  last_fs_ = dumped_ ? std::max(at, last_fs_ + 1) : at;
  dumped_ = true;
  vcd_->dump(last_fs_);
}

}  // namespace hcasim::rtl
