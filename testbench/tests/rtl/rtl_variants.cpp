// The Verilated header first: it brings systemc.h, which the Verilator headers
// after it expect.
#include "Vvl_arbiter_bug.h"

#include <verilated_vcd_c.h>

#include "testbench/tests/rtl/rtl_variants.hpp"

namespace hcasim::test {

rtl::VlArbiterRtl::Maker weight_bug_vl_arbiter() { return &rtl::make_vl_arbiter<Vvl_arbiter_bug>; }

}  // namespace hcasim::test
