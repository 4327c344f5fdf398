#include "models/switch/crossbar_allocator.hpp"

#include <cassert>
#include <stdexcept>
#include <string>

#include "models/link/credits.hpp"

namespace hcasim::sw {

namespace {
constexpr uint32_t kVl15Bit = 1u << link::kVl15;
unsigned lowest(uint32_t bits) { return static_cast<unsigned>(__builtin_ctz(bits)); }
}  // namespace

CrossbarAllocator::CrossbarAllocator(unsigned inputs, const std::vector<link::VlArbConfig>& outputs)
    : ins_(inputs),
      req_(static_cast<std::size_t>(inputs) * kVlSlots),
      inputs_(inputs),
      words_((inputs * kVlSlots + 63) / 64),
      mask_(outputs.size() * words_, 0),
      owed_(outputs.size() * words_, 0),
      scratch_words_(words_, 0) {
  if (inputs == 0 || outputs.empty()) throw std::invalid_argument("crossbar needs at least one input and one output");
  if (inputs > kMaxInputs)
    throw std::invalid_argument("crossbar with " + std::to_string(inputs) + " inputs; accepted: at most " +
                                std::to_string(kMaxInputs));
  outs_.reserve(outputs.size());
  for (const link::VlArbConfig& c : outputs) {
    outs_.emplace_back(c);
    outs_.back().served_vls = link::served_data_vls(c);
  }
}

void CrossbarAllocator::set_arbitration(unsigned output, const link::VlArbConfig& c) {
  Output& o = outs_.at(output);
  o.arbiter = link::VlArbiter(c);
  o.served_vls = link::served_data_vls(c);
}


void CrossbarAllocator::request(unsigned input, unsigned vl, unsigned output, unsigned out_vl, uint32_t bytes) {
  const std::size_t id = slot(input, vl);
  req_[id] = {static_cast<uint16_t>(output), static_cast<uint8_t>(out_vl), bytes, link::blocks_for(bytes)};
  ins_[input].vls = static_cast<uint16_t>(ins_[input].vls | (1u << vl));
  bits(mask_, output)[id / 64] |= uint64_t{1} << (id % 64);
  Output& o = outs_[output];
  ++o.requests;
  ++o.per[out_vl].count;
  o.vls = static_cast<uint16_t>(o.vls | (1u << out_vl));
}

CrossbarAllocator::Grant CrossbarAllocator::sole(unsigned input, unsigned vl) const {
  const Request& r = req_[slot(input, vl)];
  Grant g{input, vl, r.output, r.out_vl, r.bytes, {}};
  if (r.out_vl != link::kVl15) g.offered[r.out_vl] = r.blocks;
  return g;
}

bool CrossbarAllocator::arbiter_takes(unsigned output, unsigned out_vl) const {
  return (outs_[output].served_vls >> out_vl) & 1u;
}

auto CrossbarAllocator::room_check(unsigned output, Ok ok) const {
  // Room for a packet of this size was refused: larger ones need not ask.
  return [this, output, ok, refused = UINT32_MAX](unsigned id) mutable {
    if (req_[id].bytes >= refused) return false;
    if (ok(id / kVlSlots, id % kVlSlots, output)) return true;
    refused = req_[id].bytes;
    return false;
  };
}

std::optional<CrossbarAllocator::Choice> CrossbarAllocator::decide_vl(unsigned output, unsigned out_vl, Ok ok) {
  Output& o = outs_[output];
  const uint64_t* m = bits(mask_, output);
  uint64_t* owed = bits(owed_, output);
  std::optional<Choice> found;
  auto room = room_check(output, ok);
  if (o.owed != 0) {
    // Owed requesters first: granted if their input is free, else reserved.
    for (unsigned w = 0; w < words_; ++w) scratch_words_[w] = m[w] & owed[w];
    scan_cyclic(scratch_words_.data(), words_, o.per[out_vl].ptr, [&](unsigned id) {
      if (req_[id].out_vl != out_vl || !room(id)) return false;
      const unsigned in = id / kVlSlots;
      found = Choice{sole(in, id % kVlSlots), input_busy(in)};
      return true;
    });
    if (found) return found;
  }
  scan_cyclic(m, words_, o.per[out_vl].ptr, [&](unsigned id) {
    const unsigned in = id / kVlSlots;
    if (req_[id].out_vl != out_vl || ((owed[id / 64] >> (id % 64)) & 1u) || !room(id) || input_busy(in))
      return false;
    found = Choice{sole(in, id % kVlSlots), false};
    return true;
  });
  return found;
}

std::optional<CrossbarAllocator::Choice> CrossbarAllocator::decide(unsigned output, Ok ok) {
  Output& o = outs_[output];
  if (!available(output) || o.requests == 0) return std::nullopt;
  if (o.vls & kVl15Bit)
    if (auto c = decide_vl(output, link::kVl15, ok)) return c;  // VL15 first (iba-facts 3)
  const uint32_t data = o.vls & ~kVl15Bit;
  if (data == 0) return std::nullopt;
  if ((data & (data - 1)) == 0) {
    const unsigned v = lowest(data);
    if (!arbiter_takes(output, v)) return std::nullopt;
    return decide_vl(output, v, ok);
  }
  // Several output VLs: each offers its round robin's candidate; the output's
  // VL arbiter picks among them (on a copy: the choice may not be granted).
  std::array<std::optional<Choice>, link::kMaxDataVls> per{};
  link::VlCandidates offered{};
  for (uint32_t d = data; d != 0; d &= d - 1) {
    const unsigned v = lowest(d);
    per[v] = decide_vl(output, v, ok);
    if (per[v]) offered[v] = req_[slot(per[v]->grant.input, per[v]->grant.vl)].blocks;
  }
  scratch_ = o.arbiter;  // the same table sizes as the last copy: no allocation
  const int vl = scratch_.grant(offered);
  if (vl < 0) return std::nullopt;
  Choice c = *per[static_cast<unsigned>(vl)];
  c.grant.offered = offered;
  return c;
}

std::optional<CrossbarAllocator::Grant> CrossbarAllocator::input_choice(unsigned input, Ok ok) const {
  const Input& in = ins_[input];
  const uint32_t vls = in.vls & ~static_cast<uint32_t>(in.reserved);
  if (vls == 0 || input_busy(input)) return std::nullopt;
  // Rotate so that the pointer's VL is bit 0.
  const unsigned p = in.ptr;
  for (uint32_t b = ((vls >> p) | (vls << (kVlSlots - p))) & 0xFFFFu; b != 0; b &= b - 1) {
    const unsigned vl = (p + lowest(b)) % kVlSlots;
    const Request& r = req_[slot(input, vl)];
    if (!available(r.output) || !ok(input, vl, r.output)) continue;
    if (r.out_vl != link::kVl15 && !arbiter_takes(r.output, r.out_vl)) continue;
    return sole(input, vl);
  }
  return std::nullopt;
}

std::optional<CrossbarAllocator::Grant> CrossbarAllocator::reserved_choice(unsigned input) const {
  const uint32_t vls = ins_[input].reserved;
  if (vls == 0) return std::nullopt;
  const unsigned p = ins_[input].ptr;
  const uint32_t b = ((vls >> p) | (vls << (kVlSlots - p))) & 0xFFFFu;
  const unsigned vl = (p + lowest(b)) % kVlSlots;
  const Output& o = outs_[req_[slot(input, vl)].output];
  assert(o.reserved);
  return o.reservation;
}

void CrossbarAllocator::owe_passed(const Grant& g, Ok ok) {
  Output& o = outs_[g.output];
  const std::size_t id = slot(g.input, g.vl);
  uint64_t* owed = bits(owed_, g.output);
  // Alone in its output VL, or a turn paid back: nobody is passed.
  if (o.per[g.out_vl].count <= 1 || ((owed[id / 64] >> (id % 64)) & 1u)) return;
  auto room = room_check(g.output, ok);
  scan_cyclic(bits(mask_, g.output), words_, o.per[g.out_vl].ptr, [&](unsigned other) {
    if (other == id) return true;
    if (req_[other].out_vl != g.out_vl || !input_busy(other / kVlSlots) ||
        ((owed[other / 64] >> (other % 64)) & 1u) || !room(other))
      return false;
    owed[other / 64] |= uint64_t{1} << (other % 64);
    ++o.owed;
    return false;
  });
}

void CrossbarAllocator::grant(const Grant& g, Ok ok) {
  owe_passed(g, ok);
  const std::size_t id = slot(g.input, g.vl);
  const Request& r = req_[id];
  Output& o = outs_[g.output];
  if (r.out_vl != link::kVl15) {
    [[maybe_unused]] const int vl = o.arbiter.grant(g.offered);
    assert(vl == r.out_vl);
  }
  if (o.reserved) {
    assert(o.reservation.input == g.input && o.reservation.vl == g.vl);
    o.reserved = false;
    ins_[g.input].reserved = static_cast<uint16_t>(ins_[g.input].reserved & ~(1u << g.vl));
  }
  uint64_t* owed = bits(owed_, g.output);
  if ((owed[id / 64] >> (id % 64)) & 1u) {
    // A turn paid back: the round robin goes on from where it was.
    owed[id / 64] &= ~(uint64_t{1} << (id % 64));
    --o.owed;
  } else {
    o.per[r.out_vl].ptr = static_cast<uint16_t>((id + 1) % (static_cast<std::size_t>(inputs_) * kVlSlots));
  }
  bits(mask_, g.output)[id / 64] &= ~(uint64_t{1} << (id % 64));
  --o.requests;
  if (--o.per[r.out_vl].count == 0) o.vls = static_cast<uint16_t>(o.vls & ~(1u << r.out_vl));
  o.busy = true;
  Input& in = ins_[g.input];
  in.vls = static_cast<uint16_t>(in.vls & ~(1u << g.vl));
  in.busy = true;
  in.ptr = static_cast<uint8_t>((g.vl + 1) % kVlSlots);
}

void CrossbarAllocator::reserve(const Grant& g) {
  Output& o = outs_[g.output];
  o.reservation = g;
  o.reserved = true;
  ins_[g.input].reserved = static_cast<uint16_t>(ins_[g.input].reserved | (1u << g.vl));
}

void CrossbarAllocator::apply(const std::optional<Choice>& c, Grants& out, Ok ok) {
  if (!c) return;
  if (c->reserve) {
    reserve(c->grant);
    return;
  }
  grant(c->grant, ok);
  out.list[out.count++] = c->grant;
}

std::optional<CrossbarAllocator::Grant> CrossbarAllocator::after_request(unsigned input, unsigned vl, Ok ok) {
  const Request& r = req_[slot(input, vl)];
  if (input_busy(input) || !available(r.output) || !ok(input, vl, r.output)) return std::nullopt;
  if (r.out_vl != link::kVl15 && !arbiter_takes(r.output, r.out_vl)) return std::nullopt;
  const Grant g = sole(input, vl);
  grant(g, ok);
  return g;
}

CrossbarAllocator::Grants CrossbarAllocator::after_release(unsigned input, unsigned output, Ok ok) {
  ins_[input].busy = false;
  outs_[output].busy = false;
  Grants res;
  if (const auto mine = reserved_choice(input)) {
    // An output is waiting for this input: it goes first.
    grant(*mine, ok);
    res.list[res.count++] = *mine;
    apply(decide(output, ok), res, ok);
    return res;
  }
  const auto first = decide(output, ok);
  if (!first || first->reserve || first->grant.input != input) {
    apply(first, res, ok);
    if (const auto g = input_choice(input, ok)) {
      grant(*g, ok);
      res.list[res.count++] = *g;
    }
    return res;
  }
  // The output chose this input again: the input's own round robin decides.
  const auto mine = input_choice(input, ok);
  if (!mine || mine->output == output) {
    apply(first, res, ok);
    return res;
  }
  grant(*mine, ok);
  res.list[res.count++] = *mine;
  apply(decide(output, ok), res, ok);
  return res;
}

std::optional<CrossbarAllocator::Grant> CrossbarAllocator::after_room(unsigned output, Ok ok) {
  const auto c = decide(output, ok);
  if (!c) return std::nullopt;
  if (c->reserve) {
    reserve(c->grant);
    return std::nullopt;
  }
  grant(c->grant, ok);
  return c->grant;
}

}  // namespace hcasim::sw
