// The Verilated blocks of this build. Their headers stay in this file: they
// include the old-style systemc.h, which opens namespaces globally, and come
// first, since the Verilator headers after them expect it.
#include "Vcredit_manager.h"
#include "Vvl_arbiter.h"

#include <verilated_vcd_c.h>

#include "testbench/rtl/credit_manager_rtl.hpp"
#include "testbench/rtl/vl_arbiter_rtl.hpp"

namespace hcasim::rtl {

VlArbiterRtl::Maker verilated_vl_arbiter() { return &make_vl_arbiter<Vvl_arbiter>; }
CreditManagerRtl::Maker verilated_credit_manager() { return &make_credit_manager<Vcredit_manager>; }

}  // namespace hcasim::rtl
