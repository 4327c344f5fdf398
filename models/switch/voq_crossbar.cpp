#include "models/switch/voq_crossbar.hpp"

#include <cassert>
#include <stdexcept>
#include <string>

#include "models/link/credits.hpp"
#include "models/switch/forwarding_table.hpp"

namespace hcasim::sw {

namespace {
constexpr uint32_t kVl15Bit = 1u << link::kVl15;
unsigned lowest(uint32_t bits) { return static_cast<unsigned>(__builtin_ctz(bits)); }
void set_bit(uint64_t* words, unsigned i) { words[i / 64] |= uint64_t{1} << (i % 64); }
void clear_bit(uint64_t* words, unsigned i) { words[i / 64] &= ~(uint64_t{1} << (i % 64)); }

}  // namespace

VoqCrossbar::VoqCrossbar(const std::vector<link::VlArbConfig>& outputs, unsigned data_vls, unsigned max_reads)
    : ports_(static_cast<unsigned>(outputs.size())),
      slots_(data_vls + 1),
      max_reads_(max_reads),
      words_((ports_ + 63) / 64) {
  if (outputs.empty() || outputs.size() > kMaxSwitchPorts)
    throw std::invalid_argument("voq crossbar with " + std::to_string(outputs.size()) + " ports; accepted: 1.." +
                                std::to_string(kMaxSwitchPorts));
  if (max_reads == 0) throw std::invalid_argument("voq crossbar with max_reads 0; accepted: at least 1");
  if (data_vls == 0 || data_vls > link::kMaxDataVls)
    throw std::invalid_argument("voq crossbar with " + std::to_string(data_vls) + " data VLs; accepted: 1..15");
  queues_.resize(static_cast<std::size_t>(ports_) * ports_ * slots_);
  masks_.assign(static_cast<std::size_t>(ports_) * slots_ * words_, 0);
  wants_.assign(static_cast<std::size_t>(ports_) * words_, 0);
  pending_.assign(static_cast<std::size_t>(ports_) * ports_, 0);
  ins_.resize(ports_);
  outs_.reserve(ports_);
  for (const link::VlArbConfig& c : outputs) {
    outs_.emplace_back(c);
    outs_.back().served_vls = link::served_data_vls(c);
    outs_.back().per.resize(slots_);
  }
}

void VoqCrossbar::set_arbitration(unsigned output, const link::VlArbConfig& c) {
  Output& o = outs_.at(output);
  o.arbiter = link::VlArbiter(c);
  o.served_vls = link::served_data_vls(c);
}

uint64_t VoqCrossbar::bytes_for(unsigned output, unsigned out_vl) const {
  return outs_[output].per[slot_of(out_vl)].bytes;
}

int VoqCrossbar::eligible_input(unsigned output, unsigned vl, Room room) const {
  const unsigned s = slot_of(vl);
  int found = -1;
  uint32_t refused = UINT32_MAX;  // room refused for a packet this size: larger ones need not ask
  scan_cyclic(mask(output, s), words_, outs_[output].per[s].ptr, [&](unsigned in) {
    if (ins_[in].reads >= max_reads_) return false;
    const uint32_t bytes = queue(in, output, s).front()->wire_len;
    if (bytes >= refused) return false;
    if (!room(output, vl, bytes)) {
      refused = bytes;
      return false;
    }
    found = static_cast<int>(in);
    return true;
  });
  return found;
}

std::optional<VoqCrossbar::Grant> VoqCrossbar::decide(unsigned output, Room room) {
  Output& o = outs_[output];
  if (o.busy || o.vls == 0) return std::nullopt;
  if (o.vls & kVl15Bit) {  // VL15 first (iba-facts 3)
    const int in = eligible_input(output, link::kVl15, room);
    if (in >= 0) return Grant{static_cast<unsigned>(in), output, link::kVl15, nullptr, {}};
  }
  // Each data VL offers its round robin's input; the output's VL arbiter picks
  // among them (on a copy: the choice may not be granted).
  std::array<int, link::kMaxDataVls> per{};
  link::VlCandidates offered{};
  unsigned offers = 0, last = 0;
  for (uint32_t d = o.vls & ~kVl15Bit & o.served_vls; d != 0; d &= d - 1) {
    const unsigned v = lowest(d);
    per[v] = eligible_input(output, v, room);
    if (per[v] < 0) continue;
    offered[v] = link::blocks_for(queue(static_cast<unsigned>(per[v]), output, v).front()->wire_len);
    ++offers;
    last = v;
  }
  if (offers == 0) return std::nullopt;
  // One VL offers: a served VL the arbiter grants alone; no copy to ask it.
  int vl = static_cast<int>(last);
  if (offers > 1) {
    scratch_ = o.arbiter;
    vl = scratch_.grant(offered);
  }
  if (vl < 0) return std::nullopt;
  return Grant{static_cast<unsigned>(per[static_cast<unsigned>(vl)]), output, static_cast<unsigned>(vl), nullptr,
               offered};
}

std::optional<VoqCrossbar::Grant> VoqCrossbar::input_choice(unsigned input, Room room) {
  if (ins_[input].reads >= max_reads_) return std::nullopt;
  std::optional<Grant> g;
  scan_cyclic(wants(input), words_, ins_[input].ptr, [&](unsigned out) {
    if (outs_[out].busy) return false;
    // A free output had no eligible head before this input freed a read: the
    // only one it can choose now is this input's.
    g = decide(out, room);
    return g.has_value();
  });
  return g;
}

void VoqCrossbar::grant(Grant& g) {
  Output& o = outs_[g.output];
  Input& in = ins_[g.input];
  const unsigned s = slot_of(g.out_vl);
  ib::PacketQueue& q = queue(g.input, g.output, s);
  g.packet = q.pop_front();
  const uint32_t bytes = g.packet->wire_len;
  if (g.out_vl != link::kVl15) {
    [[maybe_unused]] const int vl = o.arbiter.grant(g.offered);
    assert(vl == static_cast<int>(g.out_vl));
  }
  PerVl& per = o.per[s];
  per.bytes -= bytes;
  in.bytes -= bytes;
  --in.packets;
  if (q.empty()) {
    clear_bit(mask(g.output, s), g.input);
    if (--per.count == 0) o.vls &= ~(1u << g.out_vl);
    if (--pending_[static_cast<std::size_t>(g.input) * ports_ + g.output] == 0) clear_bit(wants(g.input), g.output);
  }
  per.ptr = static_cast<uint16_t>((g.input + 1) % ports_);
  in.ptr = static_cast<uint16_t>((g.output + 1) % ports_);
  ++in.reads;
  o.busy = true;
}

std::optional<VoqCrossbar::Grant> VoqCrossbar::enqueue(unsigned input, unsigned output, unsigned out_vl,
                                                       ib::Packet* p, Room room) {
  const unsigned s = slot_of(out_vl);
  assert(s < slots_);
  ib::PacketQueue& q = queue(input, output, s);
  Output& o = outs_[output];
  if (q.empty()) {
    set_bit(mask(output, s), input);
    ++o.per[s].count;
    o.vls |= 1u << out_vl;
    if (pending_[static_cast<std::size_t>(input) * ports_ + output]++ == 0) set_bit(wants(input), output);
  }
  q.push_back(p);
  o.per[s].bytes += p->wire_len;
  ins_[input].bytes += p->wire_len;
  ++ins_[input].packets;
  if (o.busy || ins_[input].reads >= max_reads_) return std::nullopt;
  auto g = decide(output, room);
  if (g) grant(*g);
  return g;
}

VoqCrossbar::Grants VoqCrossbar::after_release(unsigned input, unsigned output, Room room) {
  assert(ins_[input].reads > 0 && outs_[output].busy);
  --ins_[input].reads;
  outs_[output].busy = false;
  Grants res;
  if (auto g = decide(output, room)) {
    grant(*g);
    res.list[res.count++] = *g;
    if (g->input == input) return res;
  }
  if (auto g = input_choice(input, room)) {
    grant(*g);
    res.list[res.count++] = *g;
  }
  return res;
}

std::optional<VoqCrossbar::Grant> VoqCrossbar::after_room(unsigned output, Room room) {
  auto g = decide(output, room);
  if (g) grant(*g);
  return g;
}

}  // namespace hcasim::sw
