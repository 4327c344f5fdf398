#pragma once
// RTL variants built only for the tests (CMakeLists.txt: hcasim_rtl_variants).

#include "testbench/rtl/vl_arbiter_rtl.hpp"

namespace hcasim::test {

// vl_arbiter.sv built with HCASIM_RTL_BUG_WEIGHT: an entry may send while its
// used count equals its weight (one 64-byte block too many per turn).
rtl::VlArbiterRtl::Maker weight_bug_vl_arbiter();

}  // namespace hcasim::test
