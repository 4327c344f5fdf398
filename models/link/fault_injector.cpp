#include "models/link/fault_injector.hpp"

#include <cmath>

namespace hcasim::link {

namespace {
constexpr uint64_t kFaultSalt = 0x6661756C74ull;      // "fault": keeps these streams apart from others seeded alike
constexpr uint32_t kPsnMask = 0xFFFFFF;               // iba-facts 1: PSN and DestQP are 24 bits
}  // namespace

const char* to_string(RuleAction a) {
  switch (a) {
    case RuleAction::Drop: return "drop";
    case RuleAction::Delay: return "delay";
    case RuleAction::Duplicate: return "duplicate";
  }
  return "?";
}

bool DropRule::operator==(const DropRule& o) const {
  return action == o.action && delay_ps == o.delay_ps && mad == o.mad && nth == o.nth && count == o.count && every == o.every && opcode == o.opcode && psn == o.psn &&
         dest_qp == o.dest_qp && vl == o.vl && dlid == o.dlid;
}

bool FaultConfig::operator==(const FaultConfig& o) const {
  return drop_rate == o.drop_rate && bit_error_rate == o.bit_error_rate && seed == o.seed && drops == o.drops;
}

uint64_t fault_stream_seed(uint64_t base_seed, std::string_view receiver) {
  return splitmix64_mix(splitmix64_mix(base_seed ^ kFaultSalt) + kSplitMixIncrement * (fnv1a(receiver) | 1));
}

FaultInjector::FaultInjector(FaultConfig config, uint64_t stream_seed)
    : config_(std::move(config)),
      rng_{stream_seed},
      log_keep_(std::log1p(-config_.bit_error_rate)),
      matched_(config_.drops.size(), 0),
      hit_(config_.drops.size(), 0) {}

uint64_t FaultInjector::next() { return rng_.next(); }

double FaultInjector::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

uint64_t FaultInjector::bit_gap() {
  // P(gap = k) = BER (1 - BER)^k, by inversion; log_keep_ = -inf (BER 1) gives 0.
  const double gap = std::floor(std::log1p(-uniform()) / log_keep_);
  return gap < 0x1.0p62 ? static_cast<uint64_t>(gap) : UINT64_MAX;
}

double FaultInjector::corruption_probability(uint32_t wire_bytes) const {
  return -std::expm1(8.0 * static_cast<double>(wire_bytes) * log_keep_);
}

bool FaultInjector::rule_matches(const DropRule& r, const ib::Packet& p) const {
  const ib::Headers& h = p.hdr;
  const bool has_bth = h.lrh.lnh == ib::Lnh::IbaLocal || h.lrh.lnh == ib::Lnh::IbaGlobal;
  if ((r.opcode || r.psn || r.dest_qp) && !has_bth) return false;
  if (r.opcode && h.bth.opcode != *r.opcode) return false;
  if (r.psn && (h.bth.psn & kPsnMask) != *r.psn) return false;
  if (r.dest_qp && (h.bth.dest_qp & kPsnMask) != *r.dest_qp) return false;
  if (r.vl && (h.lrh.vl & 0xF) != *r.vl) return false;
  if (r.dlid && h.lrh.dlid != *r.dlid) return false;
  return !r.mad.given() || r.mad.matches(p);
}

Verdict FaultInjector::judge(const ib::Packet& p) {
  ++stats_.judged;
  Verdict v;
  for (std::size_t i = 0; i < config_.drops.size(); ++i) {
    const DropRule& r = config_.drops[i];
    if (!rule_matches(r, p)) continue;
    const uint64_t n = ++matched_[i];
    if (v.action == FaultAction::Pass && n >= r.nth && (r.every || n - r.nth < r.count)) {
      ++hit_[i];
      v.rule = static_cast<int>(i);
      switch (r.action) {
        case RuleAction::Drop: v.action = FaultAction::DropTargeted; break;
        case RuleAction::Delay:
          v.action = FaultAction::Delay;
          v.delay_ps = r.delay_ps;
          break;
        case RuleAction::Duplicate: v.action = FaultAction::Duplicate; break;
      }
    }
  }
  // Every random draw is made whatever the verdict so far (see the rules).
  const bool lost = config_.drop_rate > 0 && uniform() < config_.drop_rate;
  flips_.clear();
  if (config_.bit_error_rate > 0) {
    const uint64_t bits = 8ull * (p.wire_len != 0 ? p.wire_len : p.wire_bytes());
    for (uint64_t at = bit_gap(); at < bits;) {
      flips_.push_back(at);
      const uint64_t gap = bit_gap();
      if (gap >= bits - at - 1) break;
      at += 1 + gap;
    }
  }
  switch (v.action) {
    case FaultAction::DropTargeted: ++stats_.targeted; return v;
    case FaultAction::Delay: ++stats_.delayed; return v;
    case FaultAction::Duplicate: ++stats_.duplicated; return v;
    default: break;
  }
  if (lost) {
    ++stats_.random;
    v.action = FaultAction::DropRandom;
    return v;
  }
  if (!flips_.empty()) {
    const ib::DecodeError e = corrupt(p);
    if (e == ib::DecodeError::None) {
      ++stats_.undetected;
    } else {
      ++stats_.corrupted;
      ++stats_.by_error[static_cast<std::size_t>(e)];
      stats_.bits_flipped += flips_.size();
      v.action = FaultAction::Corrupt;
      v.error = e;
    }
  }
  return v;
}

ib::DecodeError FaultInjector::corrupt(const ib::Packet& p) {
  ib::encode(p, wire_);
  for (uint64_t bit : flips_)
    if (bit / 8 < wire_.size()) wire_[bit / 8] ^= static_cast<uint8_t>(0x80u >> (bit % 8));  // bit 0 = MSB of byte 0
  const ib::DecodeResult r = ib::decode(wire_.data(), wire_.size(), decoded_);
  return r.ok ? ib::DecodeError::None : r.error;
}

}  // namespace hcasim::link
