// The flow-control scenarios of testbench/tests/scenarios/flow_control_test.cpp
// (a slowly draining receiver is never overrun; the 12-bit counters wrap past
// 4096 many times) with the ports' credit test and flow-control values from
// credit_manager.sv, alone and checked against the C++ after every event (the
// wrap runs only checked: rtl+check takes the same answers from the RTL, and
// it is the longest of these runs).
#include <catch2/catch.hpp>

#include "testbench/tests/scenarios/flow_control_checks.hpp"

using namespace hcasim;
using namespace hcasim::test::flow_control;
using link::Implementation;

TEST_CASE("rtl credit manager: a slowly draining receiver is never overrun and throughput follows the drain") {
  check_slow_receiver(Implementation::Rtl);
}

TEST_CASE("rtl+check credit manager: a slowly draining receiver is never overrun and throughput follows the drain") {
  check_slow_receiver(Implementation::RtlCheck);
}

TEST_CASE("rtl+check credit manager: credit counters wrap past 4096 many times without error") {
  check_credit_wrap(Implementation::RtlCheck);
}
