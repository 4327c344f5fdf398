#include "models/switch/forwarding_table.hpp"

#include <stdexcept>
#include <string>

namespace hcasim::sw {

namespace {
constexpr unsigned kMaxDataVls = 15;         // iba-facts 3: VLCap 5 = VL0..VL14
constexpr uint32_t kLastUnicastLid = 0xBFFF; // iba-facts 4
}  // namespace

ForwardingTable::ForwardingTable(const std::vector<unsigned>& operational_vls)
    : ports_(static_cast<unsigned>(operational_vls.size())) {
  if (ports_ < 1 || ports_ > kMaxSwitchPorts)
    throw std::invalid_argument("switch with " + std::to_string(ports_) + " ports; accepted: 1.." +
                                std::to_string(kMaxSwitchPorts));
  for (unsigned vls : operational_vls)
    if (vls < 1 || vls > kMaxDataVls)
      throw std::invalid_argument("switch port with " + std::to_string(vls) + " data VLs; accepted: 1..15");
  const uint16_t zeros = intern(Sl2VlTable{});
  which_.assign(static_cast<std::size_t>(ports_ + 1) * (ports_ + 1), zeros);
  uses_[zeros] = ports_ * (ports_ + 1);
  uniform_ = zeros;
  for (unsigned out = 1; out <= ports_; ++out) {
    Sl2VlTable t{};
    for (unsigned sl = 0; sl < t.size(); ++sl) t[sl] = static_cast<uint8_t>(sl % operational_vls[out - 1]);
    const uint16_t id = intern(t);
    for (unsigned in = 0; in <= ports_; ++in) set_which(in, out, id);
  }
}

void ForwardingTable::set_which(unsigned in_port, unsigned out_port, uint16_t id) {
  uint16_t& w = which_[index(in_port, out_port)];
  if (out_port != kManagementPort) {
    --uses_[w];
    ++uses_[id];
    if (uses_[id] == ports_ * (ports_ + 1)) uniform_ = id;
    else if (uniform_ == w) uniform_ = kMixed;
  }
  w = id;
}

uint16_t ForwardingTable::intern(const Sl2VlTable& t) {
  const auto [it, fresh] = interned_.try_emplace(t, static_cast<uint16_t>(tables_.size()));
  if (fresh) {
    tables_.push_back(t);
    uses_.push_back(0);
  }
  return it->second;
}

void ForwardingTable::set_sl2vl(unsigned in_port, unsigned out_port, const Sl2VlTable& table) {
  if (in_port > ports_ || out_port > ports_)
    throw std::invalid_argument("SL-to-VL table for ports " + std::to_string(in_port) + " -> " +
                                std::to_string(out_port) + "; accepted: 0.." + std::to_string(ports_));
  for (uint8_t vl : table)
    if (vl > kVl15)
      throw std::invalid_argument("SL-to-VL entry " + std::to_string(vl) + "; accepted: 0..15 (15 = drop)");
  set_which(in_port, out_port, intern(table));
}

void ForwardingTable::set_lft_block(unsigned block, const std::array<uint8_t, kLftBlockEntries>& entries) {
  const std::size_t first = static_cast<std::size_t>(block) * kLftBlockEntries;
  if (lft_.size() < first + kLftBlockEntries) lft_.resize(first + kLftBlockEntries, kNoRoute);
  std::copy(entries.begin(), entries.end(), lft_.begin() + static_cast<std::ptrdiff_t>(first));
}

RouteDecision ForwardingTable::route(unsigned in_port, uint16_t dlid, uint8_t sl, bool vl15) const {
  RouteDecision d;
  const uint8_t out = dlid == 0 ? kNoRoute : lookup(dlid);  // iba-facts 4: DLID 0 is dropped
  if (out == kNoRoute || out > ports_) {
    // iba-facts 6: a directed-route SMP carries the permissive DLID, which
    // names the node that receives it.
    if (vl15 && dlid == kPermissiveLid) d.kind = RouteKind::Management;
    return d;  // else Drop, NoRoute
  }
  if (out == kManagementPort) {
    d.kind = RouteKind::Management;
    return d;
  }
  d.out_port = out;
  if (vl15) {
    d.kind = RouteKind::Forward;
    d.out_vl = kVl15;
    return d;
  }
  const Sl2VlTable& table = tables_[uniform_ != kMixed ? uniform_ : which_[index(in_port, out)]];
  const uint8_t vl = table[sl & 0xF];
  if (vl == kVl15) {
    d.why = link::DropReason::SlToVl15;  // seed 004 Table 25-2; iba-facts 3
    return d;
  }
  d.kind = RouteKind::Forward;
  d.out_vl = vl;
  return d;
}

void assign_lid_range(std::vector<uint8_t>& lft, uint16_t base, unsigned lmc, uint8_t port) {
  if (lmc > kMaxLmc) throw std::invalid_argument("LMC " + std::to_string(lmc) + "; accepted: 0..7");
  const uint32_t count = 1u << lmc;
  if (base == 0 || base % count != 0)
    throw std::invalid_argument("base LID " + std::to_string(base) + " with LMC " + std::to_string(lmc) +
                                "; accepted: a nonzero multiple of 2^LMC");
  if (base + count - 1 > kLastUnicastLid)
    throw std::invalid_argument("LIDs " + std::to_string(base) + ".." + std::to_string(base + count - 1) +
                                " reach past the unicast range; accepted: up to 0xBFFF");
  if (lft.size() < base + count) lft.resize(base + count, kNoRoute);
  for (uint32_t lid = base; lid < base + count; ++lid) lft[lid] = port;
}

}  // namespace hcasim::sw
