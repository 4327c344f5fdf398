#include "testbench/workloads/raw_generator.hpp"

#include <cmath>

#include "models/ib/mad.hpp"
#include "models/ib/opcodes.hpp"

namespace hcasim::workloads {

namespace {
constexpr uint32_t kGsiQKey = 0x80010000;  // iba-facts 1: DETH Q_Key of the GSI
constexpr uint64_t kIdStride = uint64_t{1} << 40;  // packet ids: node index in the top bits
}  // namespace

RawGenerator::RawGenerator(const sc_core::sc_module_name& name, hca::Hca& hca, unsigned port,
                           const std::vector<FlowSpec>& specs, std::vector<unsigned> flows,
                           std::vector<FlowResult>& results, ib::PacketPool& pool)
    : sc_module(name),
      port_(hca.port(port)),
      specs_(specs),
      results_(results),
      pool_(pool),
      next_id_((flows.empty() ? 0 : specs[flows.front()].src_node + 1) * kIdStride) {
  for (unsigned f : flows) {
    Active a;
    a.index = f;
    a.rng.seed(specs[f].seed);
    active_.push_back(std::move(a));
  }
  hca.on_tx_space(port, [this] { run(); });
}

void RawGenerator::start_of_simulation() {
  if (!deferred_) begin();
}

void RawGenerator::begin() {
  deferred_ = false;
  uint64_t first = UINT64_MAX;
  for (Active& a : active_) {
    const FlowSpec& s = specs_[a.index];
    a.next_ps = s.start_ps;
    first = std::min(first, s.start_ps);
    // Packet size on the wire does not depend on the sequence number.
    ib::Packet* probe = make_packet(a, 0);
    const uint32_t bytes = probe->wire_bytes();
    pool_.release(probe);
    if (s.load > 0)
      a.interval_ps = static_cast<uint64_t>(std::llround(port_.timing().serialization_ps(bytes) / s.load));
    else if (s.rate_bps > 0)
      a.interval_ps = static_cast<uint64_t>(std::llround(8.0 * bytes * 1e12 / s.rate_bps));
  }
  if (first != UINT64_MAX) wake_.notify_at(first);
}

namespace {
// An index below n from a 64-bit random word (multiply-shift: no modulo bias worth noting).
std::size_t below(uint64_t word, std::size_t n) {
  return static_cast<std::size_t>((static_cast<unsigned __int128>(word) * n) >> 64);
}
}  // namespace

uint16_t RawGenerator::pick_dlid(Active& a) {
  const FlowSpec& s = specs_[a.index];
  switch (s.choice) {
    case DestChoice::Fixed: return s.dlid;
    case DestChoice::Uniform: return s.dlids[below(a.rng(), s.dlids.size())];
    case DestChoice::Cycle: {
      const uint16_t d = s.dlids[a.cursor];
      a.cursor = (a.cursor + 1) % s.dlids.size();
      return d;
    }
    case DestChoice::HotSpot: {
      const double u = static_cast<double>(a.rng() >> 11) * 0x1.0p-53;
      if ((u < s.hot_fraction && !s.hot_dlids.empty()) || s.dlids.empty())
        return s.hot_dlids[below(a.rng(), s.hot_dlids.size())];
      return s.dlids[below(a.rng(), s.dlids.size())];
    }
  }
  return s.dlid;
}

ib::Packet* RawGenerator::make_packet(const Active& a, uint16_t dlid) {
  const FlowSpec& s = specs_[a.index];
  ib::Packet* p = pool_.acquire();
  ib::Headers& h = p->hdr;
  h.lrh.sl = s.sl;
  h.lrh.lnh = ib::Lnh::IbaLocal;
  h.lrh.dlid = dlid;
  h.lrh.slid = s.slid;
  h.bth.opcode = ib::op::kUdSendOnly;
  h.bth.dest_qp = s.vl15 ? 0 : s.dest_qp;
  h.bth.psn = static_cast<uint32_t>(results_[a.index].sent & 0xFFFFFF);
  h.deth.q_key = kGsiQKey;
  h.deth.src_qp = s.vl15 ? 0 : s.dest_qp;
  p->payload_len = s.payload;
  if (s.vl15) {
    // A well-formed SMP, as an SMA and tshark read it: LID-routed SubnGet(NodeInfo),
    // 256 bytes, Q_Key 0 (iba-facts 6). The TID's top bit keeps it apart from an SM's.
    const uint64_t tid = (uint64_t{1} << 63) | (uint64_t{a.index} << 32) | (results_[a.index].sent & 0xFFFFFFFF);
    h.deth.q_key = ib::kSmiQKey;
    p->payload.resize(ib::kMadBytes);
    ib::encode(ib::lid_routed_get(ib::kAttrNodeInfo, 0, tid), p->payload.data());
    p->payload_len = ib::kMadBytes;
  }
  p->finalize_lengths();
  p->flow = a.index;
  p->seq = results_[a.index].sent;
  p->id = next_id_++;
  p->created_ps = link::now_ps();
  return p;
}

void RawGenerator::warm() const {
  port_.warm_submit();
  if (!active_.empty()) __builtin_prefetch(&active_[turn_ % active_.size()]);
}

void RawGenerator::run() {
  if (deferred_) return;  // room on the port before the start (management traffic)
  const uint64_t now = link::now_ps();
  uint64_t next_wake = UINT64_MAX;
  const std::size_t n = active_.size();
  for (std::size_t k = 0; k < n; ++k) {
    Active& a = active_[(turn_ + k) % n];
    const FlowSpec& s = specs_[a.index];
    FlowResult& r = results_[a.index];
    while (s.count == 0 || r.sent + r.dropped_at_source < s.count) {
      if (a.next_ps > now) {
        next_wake = std::min(next_wake, a.next_ps);
        break;
      }
      ib::Packet* p = a.pending != nullptr ? a.pending : make_packet(a, pick_dlid(a));
      const link::SubmitResult res = s.vl15 ? port_.submit_on_vl(p, link::kVl15) : port_.submit(p);
      if (res == link::SubmitResult::Busy) {
        a.pending = p;
        break;
      }
      a.pending = nullptr;
      if (res == link::SubmitResult::Queued) ++r.sent;
      else ++r.dropped_at_source;
      a.next_ps = a.interval_ps == 0 ? now : a.next_ps + a.interval_ps;
      if (a.interval_ps == 0 && n > 1) break;  // saturating flows of one port alternate
    }
  }
  turn_ = n ? (turn_ + 1) % n : 0;
  if (next_wake != UINT64_MAX) wake_.notify_at(next_wake);
}

}  // namespace hcasim::workloads
