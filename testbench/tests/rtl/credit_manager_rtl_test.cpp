// credit_manager.sv, Verilated and driven through its transactor, against the
// model's credit classes (IBA 7.9.4; iba-facts 2 and 3): the registers after
// every event and the credit test of random head packets, across many wraps
// of the 12-bit counters.
#include <catch2/catch.hpp>

#include <memory>
#include <random>

#include "testbench/rtl/credit_manager_rtl.hpp"
#include "testbench/tests/rtl/rtl_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;
using link::CreditEvent;
using link::VlCandidates;

namespace {

// Feeds the RTL and a CreditReference the same plausible events of a link
// (sends within the credit, flow-control packets that advertise the free
// space, arrivals and releases within the buffer), testing the credits of
// random heads every few events.
class CreditLockstep {
 public:
  CreditLockstep(std::vector<uint32_t> capacity, uint64_t events, uint32_t seed)
      : rtl_(std::make_unique<rtl::CreditManagerRtl>("credits", capacity, rtl::verilated_credit_manager(), nullptr)),
        model_(capacity),
        capacity_(capacity),
        left_(events),
        rng_(seed) {
    at_start([this] { next(); });
  }

  uint64_t events = 0;
  uint64_t tests = 0;
  uint64_t passed_tests = 0;         // VLs that passed a credit test
  std::string difference;

 private:
  void next() {
    if (!difference.empty() || left_ == 0) return;
    --left_;
    const unsigned vls = static_cast<unsigned>(capacity_.size());
    const unsigned vl = rng_() % vls;
    const rtl::CreditRegisters r = model_.registers(vl);
    uint32_t a = 0, b = 0;
    CreditEvent e;
    switch (rng_() % 5) {
      case 0:
      case 1:  // a send, mostly within the credit (the link's own peer)
        e = CreditEvent::Sent;
        a = 1 + rng_() % 66;
        break;
      case 2:  // a flow-control packet: some limit, and the peer's FCTBS
        e = CreditEvent::FlowControl;
        a = (r.fctbs + rng_() % 2100) & 0xFFF;
        b = rng_() & 0xFFF;
        break;
      case 3:
        e = CreditEvent::Received;
        a = std::min<uint32_t>(1 + rng_() % 66, capacity_[vl] - r.used);
        if (a == 0) e = CreditEvent::Released, a = 1 + rng_() % 66;
        break;
      default:
        e = CreditEvent::Released;
        a = 1 + rng_() % 66;
        break;
    }
    ++events;
    model_.apply(e, vl, a, b);
    const rtl::CreditRegisters expected = model_.registers(vl);
    rtl_->event(e, vl, a, b, [this, e, vl, a, b, expected](const rtl::CreditRegisters& got) {
      const std::string d = rtl::credit_differences(expected, got);
      if (difference.empty() && !d.empty()) difference = "after " + rtl::describe_event(e, vl, a, b) + ": " + d;
    });
    if (rng_() % 4 != 0) return next();
    // Every fourth event or so: a credit test of random heads and the read port.
    heads_ = {};
    for (unsigned v = 0; v < vls; ++v)
      if (rng_() % 2) heads_[v] = 1 + rng_() % 255;
    read_vl_ = rng_() % vls;
    ++tests;
    rtl_->test(heads_, read_vl_, [this](const rtl::CreditManagerRtl::TestResult& t) {
      // Every event so far has reached the RTL, and the model.
      const uint32_t expected = model_.may_send(heads_);
      passed_tests += static_cast<uint64_t>(__builtin_popcount(expected));
      if (difference.empty() && t.ok != expected)
        difference = "credit test of " + rtl::describe_requests(heads_) + ": C++ " + rtl::describe_vl_mask(expected) +
                     ", RTL " + rtl::describe_vl_mask(t.ok);
      const std::string d = rtl::credit_differences(model_.registers(read_vl_), t.registers);
      if (difference.empty() && !d.empty()) difference = "read port of VL" + std::to_string(read_vl_) + ": " + d;
      if (t.overflow) difference = "overflow set";
      next();
    });
  }

  std::unique_ptr<rtl::CreditManagerRtl> rtl_;
  rtl::CreditReference model_;
  std::vector<uint32_t> capacity_;
  uint64_t left_;
  std::mt19937 rng_;
  VlCandidates heads_{};
  unsigned read_vl_ = 0;
};

}  // namespace

TEST_CASE("credit_manager.sv keeps FCTBS FCCL ABR and the credit test as the C++ classes - across many wraps") {
  // 60,000 events, ~40% sends of 33 blocks on average over 4 VLs: each FCTBS
  // passes 4096 about 50 times.
  CreditLockstep run({1024, 256, 4096, 2}, 60000, 7);
  sc_core::sc_start();
  INFO(run.difference);
  REQUIRE(run.difference.empty());
  REQUIRE(run.events == 60000);
  REQUIRE(run.tests > 10000);
  REQUIRE(run.passed_tests > 1000);  // the test said yes as well as no
}

TEST_CASE("credit_manager.sv with 15 VLs and a 16 M-block buffer keeps the C++ classes' values") {
  std::vector<uint32_t> capacity(15, 1024);
  capacity[14] = (1u << 24) - 1;  // a 1 GiB buffer: the advertised limit is capped at 2048
  CreditLockstep run(capacity, 20000, 9);
  sc_core::sc_start();
  INFO(run.difference);
  REQUIRE(run.difference.empty());
  REQUIRE(run.events == 20000);
}
