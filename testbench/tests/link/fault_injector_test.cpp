// FaultInjector as plain logic: targeted rules, the random drop rate and the
// bit-error rate against their formulas, determinism by seed, and corruption
// caught by the receiver's decode.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "models/ib/codec.hpp"
#include "models/ib/opcodes.hpp"
#include "models/link/fault_injector.hpp"

using namespace hcasim;
using link::DropRule;
using link::FaultAction;
using link::FaultConfig;
using link::FaultInjector;

namespace {

ib::Packet packet(uint8_t opcode, uint32_t psn, uint32_t dest_qp = 0x12, uint32_t payload = 0, uint8_t vl = 0,
                  uint16_t dlid = 7) {
  ib::Packet p;
  p.hdr.lrh.vl = vl;
  p.hdr.lrh.dlid = dlid;
  p.hdr.lrh.slid = 3;
  p.hdr.bth.opcode = opcode;
  p.hdr.bth.psn = psn;
  p.hdr.bth.dest_qp = dest_qp;
  p.payload_len = payload;
  p.finalize_lengths();
  p.wire_len = static_cast<uint16_t>(p.wire_bytes());
  return p;
}

// A UD SEND-only of this payload (LRH BTH DETH payload ICRC VCRC).
ib::Packet ud(uint32_t psn, uint32_t payload) { return packet(ib::op::kUdSendOnly, psn, 0x12, payload); }

// Which of n packets (ud, PSN i) the injector drops or corrupts.
std::vector<FaultAction> verdicts(const FaultConfig& c, uint64_t seed, unsigned n, uint32_t payload = 64) {
  FaultInjector f(c, seed);
  std::vector<FaultAction> out;
  for (unsigned i = 0; i < n; ++i) out.push_back(f.judge(ud(i, payload)).action);
  return out;
}

// |observed - n p| within 5 standard deviations of a binomial(n, p).
void check_binomial(uint64_t observed, uint64_t n, double p) {
  const double mean = static_cast<double>(n) * p;
  const double sigma = std::sqrt(mean * (1 - p));
  INFO("observed " << observed << ", expected " << mean << " +- 5 x " << sigma);
  CHECK(std::abs(static_cast<double>(observed) - mean) <= 5 * sigma);
}

}  // namespace

TEST_CASE("fault injector: a rule drops the nth match and count matches from it") {
  FaultConfig c;
  DropRule r;
  r.opcode = ib::op::kRcAck;
  r.nth = 2;
  r.count = 2;
  c.drops.push_back(r);
  FaultInjector f(c, 1);
  std::vector<uint32_t> dropped;  // PSNs of the ACKs dropped
  for (uint32_t psn = 0; psn < 10; ++psn) {
    // A request then its ACK: only ACKs match.
    REQUIRE(f.judge(packet(ib::op::kRcSendOnly, psn)).action == FaultAction::Pass);
    const link::Verdict v = f.judge(packet(ib::op::kRcAck, psn));
    if (v.action != FaultAction::Pass) {
      REQUIRE(v.action == FaultAction::DropTargeted);
      REQUIRE(v.rule == 0);
      dropped.push_back(psn);
    }
  }
  REQUIRE(dropped == std::vector<uint32_t>{1, 2});  // the 2nd and 3rd ACK
  REQUIRE(f.matches(0) == 10);
  REQUIRE(f.stats().targeted == 2);
  REQUIRE(f.stats().judged == 20);
}

TEST_CASE("fault injector: every drops each match from the nth on") {
  FaultConfig c;
  DropRule r;
  r.dest_qp = 0x34;
  r.nth = 3;
  r.every = true;
  c.drops.push_back(r);
  FaultInjector f(c, 1);
  unsigned dropped = 0;
  for (uint32_t i = 0; i < 20; ++i) {
    REQUIRE(f.judge(packet(ib::op::kRcSendOnly, i, 0x12)).action == FaultAction::Pass);
    const bool drop = f.judge(packet(ib::op::kRcSendOnly, i, 0x34)).action == FaultAction::DropTargeted;
    REQUIRE(drop == (i >= 2));
    dropped += drop;
  }
  REQUIRE(dropped == 18);
}

TEST_CASE("fault injector: filters on PSN DestQP VL and DLID all have to match") {
  FaultConfig c;
  DropRule r;
  r.psn = 5;
  r.dest_qp = 0x12;
  r.vl = 1;
  r.dlid = 9;
  c.drops.push_back(r);
  FaultInjector f(c, 1);
  CHECK(f.judge(packet(ib::op::kRcSendOnly, 5, 0x12, 0, 1, 9)).action == FaultAction::DropTargeted);
  // Each filter alone failing spares the packet; so does the second match (count 1).
  CHECK(f.judge(packet(ib::op::kRcSendOnly, 6, 0x12, 0, 1, 9)).action == FaultAction::Pass);
  CHECK(f.judge(packet(ib::op::kRcSendOnly, 5, 0x13, 0, 1, 9)).action == FaultAction::Pass);
  CHECK(f.judge(packet(ib::op::kRcSendOnly, 5, 0x12, 0, 0, 9)).action == FaultAction::Pass);
  CHECK(f.judge(packet(ib::op::kRcSendOnly, 5, 0x12, 0, 1, 8)).action == FaultAction::Pass);
  CHECK(f.judge(packet(ib::op::kRcSendOnly, 5, 0x12, 0, 1, 9)).action == FaultAction::Pass);
  CHECK(f.matches(0) == 2);
  // PSNs compare on their 24 bits; a raw packet (no BTH) matches no BTH filter.
  FaultConfig d;
  DropRule any_psn0;
  any_psn0.psn = 0;
  any_psn0.every = true;
  d.drops.push_back(any_psn0);
  FaultInjector g(d, 1);
  CHECK(g.judge(packet(ib::op::kRcSendOnly, 0x1000000)).action == FaultAction::DropTargeted);
  ib::Packet raw = packet(0, 0);
  raw.hdr.lrh.lnh = ib::Lnh::Raw;
  CHECK(g.judge(raw).action == FaultAction::Pass);
}

TEST_CASE("fault injector: rules count on their own and the first that hits decides") {
  FaultConfig c;
  DropRule first, second;
  first.opcode = ib::op::kRcSendOnly;  // 1st SEND
  second.psn = 0;                      // 1st packet with PSN 0: the same one
  second.nth = 1;
  c.drops = {first, second};
  FaultInjector f(c, 1);
  const link::Verdict v = f.judge(packet(ib::op::kRcSendOnly, 0));
  CHECK(v.rule == 0);
  CHECK(f.matches(1) == 1);  // counted though rule 0 dropped it
  CHECK(f.judge(packet(ib::op::kRcAck, 0)).action == FaultAction::Pass);  // rule 1's 2nd match
  CHECK(f.stats().targeted == 1);
}

TEST_CASE("fault injector: the random drop rate holds over 100k packets") {
  for (const double rate : {0.01, 0.05, 0.5}) {
    FaultConfig c;
    c.drop_rate = rate;
    FaultInjector f(c, 42);
    for (uint32_t i = 0; i < 100000; ++i) f.judge(ud(i, 64));
    check_binomial(f.stats().random, 100000, rate);
    CHECK(f.stats().corrupted == 0);
  }
}

TEST_CASE("fault injector: the corruption probability follows 1-(1-BER)^(8B)") {
  FaultConfig c;
  c.bit_error_rate = 1e-5;
  FaultInjector f(c, 7);
  const ib::Packet p = ud(0, 1000);
  const uint32_t bytes = p.wire_len;
  const double expected = 1 - std::pow(1 - c.bit_error_rate, 8.0 * bytes);
  CHECK(f.corruption_probability(bytes) == Approx(expected).epsilon(1e-9));
  const unsigned n = 100000;
  for (unsigned i = 0; i < n; ++i) f.judge(p);
  check_binomial(f.stats().corrupted + f.stats().undetected, n, expected);
  CHECK(f.stats().undetected == 0);
  // Extremes: no errors at BER 0, every packet at BER 1.
  FaultConfig none, all;
  all.bit_error_rate = 1;
  CHECK(FaultInjector(none, 1).corruption_probability(bytes) == 0);
  CHECK(FaultInjector(all, 1).corruption_probability(bytes) == 1);
  FaultInjector g(all, 1);
  CHECK(g.judge(p).action == FaultAction::Corrupt);
  CHECK(g.stats().bits_flipped == 8ull * bytes);
}

TEST_CASE("fault injector: bit errors per corrupted packet follow the binomial given one at least") {
  // n bits, each flips with p: E[k | k >= 1] = n p / (1 - (1-p)^n).
  FaultConfig c;
  c.bit_error_rate = 1e-4;
  FaultInjector f(c, 11);
  const ib::Packet p = ud(0, 1000);
  const double n_bits = 8.0 * p.wire_len, ber = c.bit_error_rate;
  const double p_any = 1 - std::pow(1 - ber, n_bits);
  const double lambda = n_bits * ber;
  const double mean = lambda / p_any;
  const double var = (lambda * (1 - ber) + lambda * lambda) / p_any - mean * mean;  // E[k^2 | k >= 1] - mean^2
  for (unsigned i = 0; i < 20000; ++i) f.judge(p);
  const double k = static_cast<double>(f.stats().corrupted);
  const double observed = static_cast<double>(f.stats().bits_flipped) / k;
  INFO("mean flips " << observed << ", expected " << mean);
  CHECK(std::abs(observed - mean) <= 5 * std::sqrt(var / k));
}

TEST_CASE("fault injector: the same seed gives the same decisions and another seed others") {
  FaultConfig c;
  c.drop_rate = 0.05;
  c.bit_error_rate = 1e-4;
  const auto a = verdicts(c, 1234, 20000);
  CHECK(a == verdicts(c, 1234, 20000));
  CHECK(a != verdicts(c, 1235, 20000));
  // Stream seeds differ by receiving port and by base seed.
  CHECK(link::fault_stream_seed(1, "hca0.p1") != link::fault_stream_seed(1, "hca1.p1"));
  CHECK(link::fault_stream_seed(1, "hca0.p1") != link::fault_stream_seed(2, "hca0.p1"));
  CHECK(link::fault_stream_seed(1, "hca0.p1") == link::fault_stream_seed(1, "hca0.p1"));
}

TEST_CASE("fault injector: a rule changes the fate of the packets it drops and of no other") {
  FaultConfig c;
  c.drop_rate = 0.05;
  c.bit_error_rate = 1e-4;
  FaultConfig with_rule = c;
  DropRule r;
  r.psn = 100;
  with_rule.drops.push_back(r);
  const auto a = verdicts(c, 99, 5000);
  const auto b = verdicts(with_rule, 99, 5000);
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (i == 100) CHECK(b[i] == FaultAction::DropTargeted);
    else CHECK(a[i] == b[i]);
  }
}

TEST_CASE("fault injector: corruption is caught by decode as a CRC error") {
  // Every single-bit error of an encoded packet is caught: VCRC, or a length check before it.
  const ib::Packet p = packet(ib::op::kRcSendOnly, 77, 0x12, 60);
  std::vector<uint8_t> wire;
  ib::encode(p, wire);
  ib::Packet out;
  REQUIRE(ib::decode(wire.data(), wire.size(), out).ok);
  unsigned vcrc = 0;
  for (std::size_t bit = 0; bit < wire.size() * 8; ++bit) {
    std::vector<uint8_t> bad = wire;
    bad[bit / 8] ^= static_cast<uint8_t>(0x80u >> (bit % 8));
    const ib::DecodeResult r = ib::decode(bad.data(), bad.size(), out);
    INFO("bit " << bit);
    REQUIRE_FALSE(r.ok);
    vcrc += r.error == ib::DecodeError::BadVcrc;
  }
  CHECK(vcrc >= wire.size() * 8 - 16);  // all but the LRH length bits
  // Through the injector: corrupted packets carry the receiver's decode error.
  FaultConfig c;
  c.bit_error_rate = 1e-5;
  FaultInjector f(c, 5);
  uint64_t corrupt = 0;
  for (unsigned i = 0; i < 20000; ++i) {
    const link::Verdict v = f.judge(packet(ib::op::kRcSendOnly, i, 0x12, 1024));
    if (v.action != FaultAction::Corrupt) continue;
    ++corrupt;
    CHECK(v.error != ib::DecodeError::None);
  }
  REQUIRE(corrupt > 0);
  const auto& by = f.stats().by_error;
  CHECK(by[static_cast<std::size_t>(ib::DecodeError::BadVcrc)] >= corrupt * 9 / 10);
  CHECK(f.stats().undetected == 0);
}
