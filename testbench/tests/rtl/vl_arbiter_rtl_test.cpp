// vl_arbiter.sv, Verilated and driven through its transactor, against the
// model's VlArbiter (IBA 7.6.9; iba-facts 3), grant by grant: the C++ arbiter
// is the specification the RTL must meet exactly.
#include <catch2/catch.hpp>

#include <memory>
#include <random>

#include "testbench/rtl/vl_arbiter_rtl.hpp"
#include "testbench/tests/rtl/rtl_fixture.hpp"
#include "testbench/tests/rtl/rtl_variants.hpp"

using namespace hcasim;
using namespace hcasim::test;
using link::VlArbConfig;
using link::VlCandidates;
using link::WeightPolicy;

namespace {

// Draws a question: each VL below `vls` requests with probability `load`,
// with a length from `sizes`; VL15 waits with probability `vl15`.
struct Questions {
  unsigned vls = 15;
  double load = 0.6;
  double vl15 = 0.0;
  std::vector<uint32_t> sizes{1, 5, 17, 65, 66};
};

// Asks one RTL arbiter and a C++ arbiter of the same tables the same
// questions, one after the other, until `decisions` or the first difference.
class Lockstep {
 public:
  Lockstep(const char* name, const VlArbConfig& tables, rtl::VlArbiterRtl::Maker maker, Questions q, uint64_t decisions,
           uint32_t seed)
      : rtl_(std::make_unique<rtl::VlArbiterRtl>(name, tables, maker, nullptr)),
        model_(tables),
        q_(std::move(q)),
        left_(decisions),
        rng_(seed) {
    at_start([this] { next(); });
  }
  // Sets the next questions by hand instead of drawing them.
  void script(std::vector<std::pair<VlCandidates, bool>> s) { script_ = std::move(s); }

  uint64_t asked = 0;
  uint64_t granted = 0;                    // decisions that granted a VL
  uint64_t first_difference = 0;           // 1-based; 0 = none
  std::string difference;

 private:
  void next() {
    if (left_ == 0) return;
    --left_;
    if (!script_.empty()) {
      c_ = script_.front().first;
      vl15_ = script_.front().second;
      script_.erase(script_.begin());
    } else {
      c_ = {};
      std::uniform_real_distribution<double> u(0, 1);
      for (unsigned vl = 0; vl < q_.vls; ++vl)
        if (u(rng_) < q_.load) c_[vl] = q_.sizes[rng_() % q_.sizes.size()];
      vl15_ = u(rng_) < q_.vl15;
    }
    ++asked;
    rtl_->decide(c_, vl15_, [this](int got) {
      const int expected = vl15_ ? 15 : model_.grant(c_);
      granted += expected >= 0;
      if (got != expected) {
        first_difference = asked;
        difference = "requests " + rtl::describe_requests(c_, vl15_) + ": C++ " + rtl::describe_grant(expected) +
                     ", RTL " + rtl::describe_grant(got);
        return;
      }
      next();
    });
  }

  std::unique_ptr<rtl::VlArbiterRtl> rtl_;
  link::VlArbiter model_;
  Questions q_;
  uint64_t left_;
  std::mt19937 rng_;
  std::vector<std::pair<VlCandidates, bool>> script_;
  VlCandidates c_{};
  bool vl15_ = false;
};

std::vector<link::VlArbEntry> random_table(std::mt19937& rng, unsigned max_entries) {
  std::vector<link::VlArbEntry> t(rng() % (max_entries + 1));
  for (auto& e : t) {
    e.vl = static_cast<uint8_t>(rng() % 15);
    const unsigned kind = rng() % 8;  // some weight-0 entries, some tiny, most anything
    e.weight = static_cast<uint8_t>(kind == 0 ? 0 : kind == 1 ? 1 + rng() % 3 : rng() % 256);
  }
  return t;
}

VlArbConfig random_tables(std::mt19937& rng, WeightPolicy policy) {
  VlArbConfig c;
  c.high = random_table(rng, rng() % 4 == 0 ? 64 : 8);
  c.low = random_table(rng, rng() % 4 == 0 ? 64 : 8);
  const uint32_t limits[] = {0, 1, 4, 255, static_cast<uint32_t>(rng() % 256)};
  c.high_limit = limits[rng() % 5];
  c.policy = policy;
  return c;
}

VlArbConfig weights_1_3() {
  VlArbConfig c;
  c.low = {{0, 1}, {1, 3}};
  return c;
}

// Eight arbiters with random tables, 4,000 random questions each.
void random_lockstep(WeightPolicy policy, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::unique_ptr<Lockstep>> runs;
  for (int i = 0; i < 8; ++i) {
    Questions q;
    q.load = i % 3 == 0 ? 0.05 : i % 3 == 1 ? 0.3 : 0.8;  // 0.05: many idle decisions
    q.vl15 = 0.02;
    runs.push_back(std::make_unique<Lockstep>(("arb" + std::to_string(i)).c_str(), random_tables(rng, policy),
                                              rtl::verilated_vl_arbiter(), q, 4000, seed + i));
  }
  sc_core::sc_start();
  uint64_t granted = 0;
  for (const auto& r : runs) {
    INFO(r->difference);
    REQUIRE(r->first_difference == 0);
    REQUIRE(r->asked == 4000);
    granted += r->granted;
  }
  REQUIRE(granted > 8 * 500);  // questions do grant
}

}  // namespace

TEST_CASE("vl_arbiter.sv grants as the C++ arbiter - overshoot policy - random tables and requests") {
  random_lockstep(WeightPolicy::Overshoot, 11);
}

TEST_CASE("vl_arbiter.sv grants as the C++ arbiter - deficit policy - random tables and requests") {
  random_lockstep(WeightPolicy::Deficit, 23);
}

TEST_CASE("vl_arbiter.sv with full 64-entry tables and every data VL busy grants as the C++ arbiter") {
  std::mt19937 rng(5);
  VlArbConfig c;
  for (unsigned i = 0; i < 64; ++i) {
    c.high.push_back({static_cast<uint8_t>(rng() % 15), static_cast<uint8_t>(rng() % 256)});
    c.low.push_back({static_cast<uint8_t>(rng() % 15), static_cast<uint8_t>(rng() % 256)});
  }
  c.high_limit = 2;
  Questions q;
  q.load = 0.95;
  Lockstep run("arb", c, rtl::verilated_vl_arbiter(), q, 5000, 5);
  sc_core::sc_start();
  INFO(run.difference);
  REQUIRE(run.first_difference == 0);
  REQUIRE(run.asked == 5000);
}

TEST_CASE("vl_arbiter.sv grants VL15 first and leaves the data turns where they were") {
  // Weights 1:3 with one-block packets give VL0 VL1 VL1 VL1; VL15 questions in
  // between must not move that pattern.
  Lockstep run("arb", weights_1_3(), rtl::verilated_vl_arbiter(), {}, 6, 1);
  VlCandidates both{};
  both[0] = both[1] = 1;
  run.script({{both, false}, {both, true}, {both, false}, {both, true}, {both, false}, {both, false}});
  sc_core::sc_start();
  INFO(run.difference);
  REQUIRE(run.first_difference == 0);
  REQUIRE(run.asked == 6);
}

TEST_CASE("the weight-off-by-one variant of vl_arbiter.sv diverges at the second grant of weights 1:3") {
  // Spec: VL0 (weight 1) sends one block per turn, then VL1. The variant lets
  // VL0 send a second block.
  Questions q;
  q.vls = 2;
  q.load = 1.0;
  q.sizes = {1};
  Lockstep run("arb", weights_1_3(), weight_bug_vl_arbiter(), q, 100, 1);
  sc_core::sc_start();
  REQUIRE(run.first_difference == 2);
  REQUIRE(run.difference == "requests VL0 1 block, VL1 1 block: C++ VL1, RTL VL0");
}
