#include "testbench/workloads/raw_generator.hpp"

#include <array>
#include <cmath>
#include <stdexcept>

#include "models/ib/mad.hpp"
#include "models/ib/opcodes.hpp"
#include "models/routing/routing.hpp"

namespace hcasim::workloads {

namespace {
constexpr uint32_t kGsiQKey = 0x80010000;  // iba-facts 1: DETH Q_Key of the GSI
constexpr uint64_t kIdStride = uint64_t{1} << 40;  // packet ids: node index in the top bits
constexpr uint64_t kArrivalSeed = 0x6172726976616cull;  // arrivals draw apart from destinations
}  // namespace

RawGenerator::RawGenerator(const sc_core::sc_module_name& name, hca::Hca& hca, unsigned port,
                           const std::vector<FlowSpec>& specs, std::vector<unsigned> flows,
                           std::vector<FlowResult>& results, ib::PacketPool& pool)
    : sc_module(name),
      port_(hca.port(port)),
      hca_(hca),
      port_index_(port),
      specs_(specs),
      results_(results),
      pool_(pool),
      next_id_((flows.empty() ? 0 : specs[flows.front()].src_node + 1) * kIdStride) {
  for (unsigned f : flows) {
    const FlowSpec& s = specs[f];
    Active a;
    a.index = f;
    if (s.choice == DestChoice::Uniform || s.choice == DestChoice::HotSpot)
      a.rng = std::make_unique<std::mt19937_64>(s.seed);
    // Packet size on the wire does not depend on the sequence number.
    ib::Packet* probe = make_packet(a, 0);
    a.wire_bytes = probe->wire_bytes();
    pool_.release(probe);
    a.link_ps = port_.timing().serialization_ps(a.wire_bytes);
    const double link_ps = static_cast<double>(a.link_ps);
    if (s.load > 0) a.interval_ps = link_ps / s.load;
    else if (s.rate_bps > 0) a.interval_ps = 8.0 * a.wire_bytes * 1e12 / s.rate_bps;
    a.open_loop = a.interval_ps > 0;
    if (a.open_loop) {
      try {
        a.arrivals = ArrivalProcess(s.source, a.interval_ps, link_ps, s.seed ^ kArrivalSeed);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("flow " + s.name + ": " + e.what());
      }
    }
    active_.push_back(std::move(a));
  }
  hca.on_tx_space(port, [this] { run(); });
}

void RawGenerator::start_of_simulation() {
  if (!deferred_) begin();
}

void RawGenerator::begin() {
  deferred_ = false;
  cc_ = hca_.congestion(port_index_);
  // Lanes by the VL the port maps each flow's SL to (known now: in band the
  // SM has set the tables); a flow on path SLs by its `sl` (0): the port puts
  // each of its packets on the VL of the packet's own SL.
  std::array<int, link::kVl15 + 1> lane_of;
  lane_of.fill(-1);
  lanes_.clear();
  uint64_t first = UINT64_MAX;
  for (unsigned i = 0; i < active_.size(); ++i) {
    Active& a = active_[i];
    const FlowSpec& s = specs_[a.index];
    a.vl = s.vl15 ? link::kVl15 : port_.sl2vl()[s.sl & 0xF];
    int& lane = lane_of[a.vl & 0xF];
    if (lane < 0) {
      lane = static_cast<int>(lanes_.size());
      lanes_.emplace_back();
    }
    lanes_[static_cast<std::size_t>(lane)].members.push_back(i);
    a.next_arrival_ps = s.start_ps;
    first = std::min(first, s.start_ps);
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
    case DestChoice::Uniform: return s.dsts.lid(below((*a.rng)(), s.dsts.size()));
    case DestChoice::Cycle: {
      const uint16_t d = s.dsts.lid(a.cursor);
      a.cursor = (a.cursor + 1) % s.dsts.size();
      return d;
    }
    case DestChoice::HotSpot: {
      std::mt19937_64& rng = *a.rng;
      const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
      if ((u < s.hot_fraction && !s.hot.empty()) || s.dsts.empty()) return s.hot.lid(below(rng(), s.hot.size()));
      return s.dsts.lid(below(rng(), s.dsts.size()));
    }
  }
  return s.dlid;
}

ib::Packet* RawGenerator::make_packet(const Active& a, uint16_t dlid) {
  const FlowSpec& s = specs_[a.index];
  ib::Packet* p = pool_.acquire();
  ib::Headers& h = p->hdr;
  h.lrh.sl = s.path_sls != nullptr ? (*s.path_sls)(s.slid, dlid) : s.sl;
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

void RawGenerator::count_made(const Active& a, uint64_t at) {
  FlowResult& r = results_[a.index];
  ++r.created;
  period_offered_bytes_ += a.wire_bytes;
  if (window_.contains(at)) {
    ++r.offered;
    r.offered_bytes += a.wire_bytes;
  }
}

void RawGenerator::admit_arrivals(Active& a, uint64_t now) {
  const FlowSpec& s = specs_[a.index];
  FlowResult& r = results_[a.index];
  while (a.next_arrival_ps <= now) {
    const uint64_t t = a.next_arrival_ps;
    count_made(a, t);
    if (s.source.queue != 0 && a.queue.size() >= s.source.queue) {
      ++r.dropped_source_queue;
      if (window_.contains(t)) ++r.offered_lost;
    } else {
      a.queue.push_back(t);
      r.source_queue_high_water = std::max<uint64_t>(r.source_queue_high_water, a.queue.size());
    }
    a.next_arrival_ps = s.count != 0 && r.created >= s.count ? UINT64_MAX : t + a.arrivals.next_gap();
  }
}

bool RawGenerator::has_work(const Active& a, uint64_t now) const {
  if (a.pending != nullptr) return true;
  if (cc_ != nullptr && a.allowed_ps > now) return false;
  if (a.open_loop) return !a.queue.empty();
  const FlowSpec& s = specs_[a.index];
  return s.start_ps <= now && (s.count == 0 || results_[a.index].created < s.count);
}

bool RawGenerator::submit_one(Active& a, uint64_t now) {
  ib::Packet* p = a.pending;
  if (p == nullptr) {
    p = make_packet(a, pick_dlid(a));
    if (a.open_loop) p->created_ps = a.queue.front();
    else count_made(a, now);
  }
  p->submitted_ps = now;
  const uint64_t made = p->created_ps;
  const uint8_t sl = p->hdr.lrh.sl;
  const link::SubmitResult res = specs_[a.index].vl15 ? port_.submit_on_vl(p, link::kVl15) : port_.submit(p);
  if (res == link::SubmitResult::Busy) {
    a.pending = p;
    return false;
  }
  a.pending = nullptr;
  if (a.open_loop) a.queue.pop_front();
  FlowResult& r = results_[a.index];
  if (res == link::SubmitResult::Queued) {
    ++r.sent;
    if (cc_ != nullptr) throttle(a, sl, now);
  } else {  // dropped (and released) by the port
    ++r.dropped_at_source;
    if (window_.contains(made)) ++r.offered_lost;
  }
  return true;
}

void RawGenerator::throttle(Active& a, uint8_t sl, uint64_t now) {
  const uint32_t key = cc_->key_of(a.index, sl);
  a.allowed_ps = now + a.link_ps + cc_->delay_ps(key, sl, a.link_ps, now);
}

void RawGenerator::serve(Lane& lane, uint64_t now) {
  const std::size_t n = lane.members.size();
  std::size_t idle = 0;
  for (std::size_t k = lane.turn; idle < n; k = (k + 1) % n) {
    Active& a = active_[lane.members[k]];
    if (!has_work(a, now)) {
      ++idle;
      continue;
    }
    idle = 0;
    if (!submit_one(a, now)) {
      lane.turn = k;  // refused: first when room frees
      return;
    }
    lane.turn = (k + 1) % n;
  }
}

void RawGenerator::finish(uint64_t end_ps) {
  if (deferred_ || end_ps == 0) return;
  for (Active& a : active_)
    if (a.open_loop) admit_arrivals(a, end_ps - 1);  // made before the end
}

void RawGenerator::warm() const { port_.warm_submit(); }

void RawGenerator::run() {
  if (deferred_) return;  // room on the port before the start (management traffic)
  const uint64_t now = link::now_ps();
  for (Active& a : active_)
    if (a.open_loop) admit_arrivals(a, now);
  for (Lane& lane : lanes_) serve(lane, now);
  // Wake for the next arrival into an empty queue, or a saturating flow's
  // start; a flow with packets waiting is woken by the port's room.
  uint64_t next_wake = UINT64_MAX;
  for (const Active& a : active_) {
    if (a.pending != nullptr) continue;
    if (a.open_loop && a.queue.empty()) next_wake = std::min(next_wake, a.next_arrival_ps);
    if (!a.open_loop && specs_[a.index].start_ps > now) next_wake = std::min(next_wake, specs_[a.index].start_ps);
    if (cc_ != nullptr && a.allowed_ps > now) next_wake = std::min(next_wake, a.allowed_ps);
  }
  if (next_wake != UINT64_MAX) wake_.notify_at(next_wake);
}

}  // namespace hcasim::workloads
