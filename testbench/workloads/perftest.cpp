#include "testbench/workloads/perftest.hpp"

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "models/config/units.hpp"
#include "models/transport/message_layout.hpp"
#include "testbench/workloads/data_pattern.hpp"

namespace hcasim::workloads {

namespace {
using config::PerftestKind;
using transport::WcOpcode;
using transport::WcStatus;
using transport::WrOpcode;

constexpr uint64_t kAreaBytes = config::kVerbsAreaBytes;  // each side: source slots, then destination slots

using link::now_ps;

// The swap value of cmp_swap number k: distinct, never 0 (the word's first value).
uint64_t swap_value(uint64_t k) { return (k + 1) * 0x9E3779B97F4A7C15ull; }
}  // namespace

Perftest::Perftest(const sc_core::sc_module_name& name, const PerftestSpec& spec, host::Driver& client,
                   host::Driver& server)
    : sc_module(name), spec_(spec), cfg_(spec_.config) {
  config::resolve_perftest_tool_defaults(spec_.config);  // a spec not read from a scenario
  const bool bw = config::is_bandwidth(cfg_.test);
  sizes_ = cfg_.sizes;
  iterations_ = cfg_.iterations;
  result_.halved = cfg_.test == PerftestKind::SendLat || cfg_.test == PerftestKind::WriteLat;

  params_.type = cfg_.qp_type;
  params_.mtu = cfg_.mtu;
  params_.sl = static_cast<uint8_t>(cfg_.sl);
  params_.path_sls = spec_.path_sls;
  params_.weight = cfg_.weight;
  params_.timeout = static_cast<uint8_t>(cfg_.timeout);
  params_.retry_cnt = static_cast<uint8_t>(cfg_.retry_cnt);
  params_.rnr_retry = static_cast<uint8_t>(cfg_.rnr_retry);
  params_.min_rnr_timer = static_cast<uint8_t>(cfg_.min_rnr_timer);
  params_.pkey_index = static_cast<uint16_t>(cfg_.pkey_index);
  params_.out_of_order = cfg_.out_of_order;
  params_.max_send_wr = bw ? cfg_.tx_depth : 4;
  receives_ahead_ = config::perftest_receives_ahead(cfg_);
  params_.max_recv_wr = std::max(cfg_.rx_depth, receives_ahead_);
  const uint32_t all = transport::kLocalWrite | transport::kRemoteWrite | transport::kRemoteRead |
                       transport::kRemoteAtomic;
  const uint64_t base = uint64_t{spec_.index + 1} << 40;  // each test its own addresses
  for (auto [side, driver, end] :
       {std::tuple{&client_, &client, spec_.client}, std::tuple{&server_, &server, spec_.server}}) {
    side->driver = driver;
    side->port = end.port;
    // As perftest's CQs (config::perftest_send_cq_depth): per thread, sized for the QPs it polls
    // (cq_depth, when set, instead).
    for (unsigned t = 0; t < cfg_.threads; ++t) {
      const uint64_t qps = (cfg_.qps - t + cfg_.threads - 1) / cfg_.threads;  // pairs q with q mod threads = t
      const uint32_t send_cq = make_cq(*side, t, qps * config::perftest_send_cq_depth(cfg_));
      side->send_cqs.push_back(send_cq);
      side->recv_cqs.push_back(config::perftest_has_receive_cq(cfg_) ? make_cq(*side, t, qps * receives_ahead_)
                                                                     : send_cq);
    }
    side->mr = driver->reg_mr(base, 2 * kAreaBytes, all);
    side->src = base;
    side->dst = base + kAreaBytes;
  }
  qps_.resize(cfg_.qps);
  for (unsigned q = 0; q < cfg_.qps; ++q) {
    const unsigned t = q % cfg_.threads;
    const QpEnd a = create_qp_on(client, client_.port, client_.send_cqs[t], client_.recv_cqs[t], params_);
    const QpEnd b = create_qp_on(server, server_.port, server_.send_cqs[t], server_.recv_cqs[t], params_);
    if (spec_.connect_at_begin) unconnected_.emplace_back(a, b);
    else connect(a, b);
    qps_[q].client_qpn = a.qpn;
    qps_[q].server_qpn = b.qpn;
    client_index_[a.qpn] = q;
    server_index_[b.qpn] = q;
    result_.qpns.emplace_back(a.qpn, b.qpn);
  }
  if (cfg_.test == PerftestKind::WriteBw && cfg_.qp_type == transport::QpType::Uc) watch_uc_writes();
  if (cfg_.test == PerftestKind::WriteLat) {
    for (Side* s : {&client_, &server_})
      s->driver->watch_memory(s->dst, s->dst + kAreaBytes, [this, s](uint64_t addr, uint64_t length) {
        const uint64_t last = s->dst + size_ - 1;  // the byte the host polls
        if (running_ && addr <= last && last < addr + length) {
          s->landed = true;
          poll_.notify_now();
        }
      });
  }
}

uint32_t Perftest::make_cq(Side& side, unsigned thread, uint64_t depth) {
  if (cfg_.cq_depth != 0) depth = cfg_.cq_depth;
  const uint32_t cq = side.driver->create_cq(static_cast<uint32_t>(std::min<uint64_t>(depth, UINT32_MAX)), thread);
  side.driver->on_cq_event(cq, [this] { poll_.notify_now(); });
  side.cqs.push_back(cq);
  return cq;
}

void Perftest::watch_uc_writes() {
  // A UC write completes when sent: its data is checked when its last byte lands.
  server_.driver->watch_memory(server_.dst, server_.dst + kAreaBytes, [this](uint64_t addr, uint64_t length) {
    if (!running_ || addr < server_.dst || addr >= server_.dst + kAreaBytes) return;
    const uint64_t end = addr + length - server_.dst;
    const uint64_t slot = (end - 1) / slot_bytes_;
    if (slot < uint64_t{cfg_.qps} * slots_ && end - slot * slot_bytes_ == size_) {
      landings_.push_back(slot);
      poll_.notify_now();
    }
  });
}

void Perftest::start_of_simulation() {
  if (!deferred_) begin(0);
}

void Perftest::connect(const QpEnd& a, const QpEnd& b) {
  bring_up(a, b.driver->lid(b.port), b.qpn, params_.psn_a, params_.psn_b, params_);
  bring_up(b, a.driver->lid(a.port), a.qpn, params_.psn_b, params_.psn_a, params_);
}

void Perftest::begin(uint64_t offset_ps) {
  for (const auto& [a, b] : unconnected_) connect(a, b);
  unconnected_.clear();
  if (cfg_.idle) return end_test();
  start_.notify_at(offset_ps + (cfg_.start_ps == config::kAfterPrevious ? 0 : cfg_.start_ps));
}

void Perftest::end_test() {
  if (ended_) return;
  ended_ = true;
  if (then_) then_();
}

uint64_t Perftest::slot_addr(uint64_t area, unsigned q, uint64_t k, uint32_t slots) const {
  return area + (uint64_t{q} * slots + k % slots) * slot_bytes_;
}

std::string Perftest::where(unsigned q, uint64_t wr) const {
  return "QP " + std::to_string(qps_[q].client_qpn) + " (pair " + std::to_string(q) + "), WR " + std::to_string(wr);
}

void Perftest::fail(const std::string& message) {
  constexpr std::size_t kKept = 20;
  if (result_.failures.size() < kKept)
    result_.failures.push_back(cfg_.name + ": size " + config::format_bytes(size_) + ": " + message);
  failed_ = true;
  running_ = false;
  end_test();
}

TransportCounters Perftest::counters_now() const {
  TransportCounters sum;
  for (const QpRun& q : qps_)
    for (const auto& [side, qpn] : {std::pair{&client_, q.client_qpn}, std::pair{&server_, q.server_qpn}})
      if (const transport::Qp* qp = side->driver->hca().transport().find(qpn)) sum += counters_of(qp->stats);
  return sum;
}

void Perftest::close_counters() {
  if (!counting_) return;
  counting_ = false;
  result_.sizes.back().counters = counters_now() - size_base_;
}

std::string Perftest::waits(bool* blocked) const {
  constexpr std::size_t kNamed = 4;  // QPs named; the rest counted
  std::vector<std::string> named;
  std::size_t more = 0;
  for (std::size_t i = 0; i < qps_.size(); ++i)
    for (const auto& [side, qpn, port] : {std::tuple{&client_, qps_[i].client_qpn, &cfg_.client},
                                          std::tuple{&server_, qps_[i].server_qpn, &cfg_.server}}) {
      const uint32_t cq = side->cqs[i % side->cqs.size()];
      const std::string w = describe_wait(QpEnd{side->driver, side->port, qpn, cq}, *port, blocked);
      if (w.empty()) continue;
      if (named.size() < kNamed) named.push_back(w);
      else ++more;
    }
  if (named.empty()) return "no QP has work left";
  std::string text;
  for (const std::string& w : named) text += (text.empty() ? "" : "; ") + w;
  return more == 0 ? text : text + "; and " + std::to_string(more) + " more QPs";
}

void Perftest::finish(bool cut_by_duration) {
  close_counters();  // a size the run did not finish: its counters up to the end
  if (failed_ || cfg_.idle || size_at_ >= sizes_.size() || result_.sizes.empty()) return;
  const PerftestSizeResult& r = result_.sizes.back();
  const std::string stopped =
      "stopped after " + std::to_string(r.messages) + " of " + std::to_string(iterations_ * cfg_.qps) + " messages: ";
  if (!cut_by_duration) return fail(stopped + "the run ran out of work; " + waits());
  // Cut short while completing messages: one in the last half of the size's
  // time, or in the last 100 us (far longer than a message takes on a fabric).
  constexpr uint64_t kStuckAfterPs = 100'000'000;
  const uint64_t now = now_ps();
  if (now - progress_ps_ < std::max(kStuckAfterPs, (now - r.start_ps) / 2)) return;
  bool blocked = false;
  const std::string why = waits(&blocked);
  if (!blocked) return;  // slow, not stuck: large messages on a shared link
  fail(stopped + "stuck: no message completed from " + config::format_time_ps(progress_ps_) + " to the run's end at " +
       config::format_time_ps(now) + "; " + why);
}

void Perftest::begin_size() {
  if (failed_) return;
  const bool bw = config::is_bandwidth(cfg_.test);
  const bool ud = cfg_.qp_type == transport::QpType::Ud;
  size_ = sizes_[size_at_];
  slot_bytes_ = (size_ + (ud ? kGrhBytes : 0) + 63) / 64 * 64;
  const uint64_t fit = std::max<uint64_t>(1, kSlotBudget / (slot_bytes_ * cfg_.qps));
  slots_ = bw ? static_cast<uint32_t>(std::min<uint64_t>(fit, cfg_.tx_depth)) : 1;
  post_list_ = std::min(cfg_.post_list, slots_);  // perftest refuses a list longer than tx_depth
  cq_mod_ = std::min(cfg_.cq_moderation, slots_);
  rx_slots_ = cfg_.test == PerftestKind::SendBw ? static_cast<uint32_t>(std::min<uint64_t>(fit, cfg_.rx_depth)) : 1;

  // Sources: a pattern of address and test; destinations stay zeroed.
  const auto seed = static_cast<uint8_t>(spec_.index * 31 + size_at_ * 7 + 1);
  const bool client_sends = cfg_.test != PerftestKind::ReadBw && cfg_.test != PerftestKind::ReadLat;
  const bool server_sends = !client_sends || cfg_.test == PerftestKind::SendLat || cfg_.test == PerftestKind::WriteLat;
  for (auto [side, on] : {std::pair{&client_, client_sends}, std::pair{&server_, server_sends}}) {
    if (!on || cfg_.test == PerftestKind::AtomicLat) continue;
    for (unsigned q = 0; q < cfg_.qps; ++q)
      for (uint32_t k = 0; k < slots_; ++k)
        fill_pattern(side->driver->memory(), slot_addr(side->src, q, k, slots_), size_, seed, a_);
  }
  if (cfg_.test == PerftestKind::AtomicLat) server_.driver->memory().write_u64(server_.dst, 0);
  atomic_value_ = 0;

  PerftestSizeResult r;
  r.bytes = size_;
  r.iterations = iterations_;
  r.outstanding = slots_;
  r.start_ps = now_ps();
  progress_ps_ = r.start_ps;
  result_.sizes.push_back(std::move(r));
  size_base_ = counters_now();
  counting_ = true;
  running_ = true;
  pending_ = iterations_ * cfg_.qps;
  const bool uc_write = cfg_.test == PerftestKind::WriteBw && cfg_.qp_type == transport::QpType::Uc;
  recv_pending_ = cfg_.test == PerftestKind::SendBw || uc_write ? pending_ : 0;
  landings_.clear();
  for (QpRun& q : qps_) q.posted = q.completed = q.recv_posted = q.received = 0;
  if (bw) {
    for (unsigned q = 0; q < cfg_.qps && running_; ++q) {
      QpRun& run = qps_[q];
      if (cfg_.test == PerftestKind::SendBw)
        while (run.recv_posted < std::min<uint64_t>(rx_slots_, iterations_) && running_) {
          post_recv(server_, run.server_qpn, slot_addr(server_.dst, q, run.recv_posted, rx_slots_), run.recv_posted);
          ++run.recv_posted;
        }
      post_bw(q);
    }
    return;
  }
  round_ = 0;
  if (cfg_.test == PerftestKind::SendLat) {  // as perftest: the receives posted ahead, into the one buffer
    for (Side* s : {&client_, &server_}) {  // topped up: a receive the last size left is still posted
      s->recv_posted = 0;
      const uint32_t qpn = s == &client_ ? qps_[0].client_qpn : qps_[0].server_qpn;
      while (s->recv_outstanding < receives_ahead_ && running_) repost_lat_recv(*s, qpn);
    }
  }
  ping();
}

void Perftest::end_size() {
  PerftestSizeResult& r = result_.sizes.back();
  if (!config::is_bandwidth(cfg_.test)) r.end_ps = now_ps();
  r.done = true;
  running_ = false;
  close_counters();
  if (cfg_.test == PerftestKind::AtomicLat) {
    const uint64_t word = server_.driver->memory().read_u64(server_.dst);
    if (word != atomic_value_) {
      char text[96];
      std::snprintf(text, sizeof text, "the server's word ends as 0x%llx, expected 0x%llx",
                    static_cast<unsigned long long>(word), static_cast<unsigned long long>(atomic_value_));
      return fail(text);
    }
  }
  if (++size_at_ < sizes_.size()) begin_size();
  else end_test();
}

transport::SendWr Perftest::wr(uint64_t id, WrOpcode op, uint64_t local, uint32_t len, const Side& s) const {
  transport::SendWr w;
  w.wr_id = id;
  w.opcode = op;
  w.sg_list.push_back({local, len, s.mr.lkey});
  w.send_inline = !transport::is_read_or_atomic(op) && len <= cfg_.inline_size;
  return w;
}

void Perftest::post(Side& s, uint32_t qpn, transport::SendWr& w) {
  list_.assign(1, w);
  post_list(s, qpn);
}

void Perftest::post_list(Side& s, uint32_t qpn) {
  for (transport::SendWr& w : list_) address(s, qpn, w);
  const std::string why = s.driver->post_send(qpn, list_);
  if (!why.empty()) fail("post_send on QP " + std::to_string(qpn) + ": " + why);
}

void Perftest::address(Side& s, uint32_t qpn, transport::SendWr& w) {
  if (cfg_.qp_type == transport::QpType::Ud) {
    const Side& peer = &s == &client_ ? server_ : client_;
    const auto& index = &s == &client_ ? client_index_ : server_index_;
    const QpRun& run = qps_[index.at(qpn)];
    w.ah.dlid = peer.driver->lid(peer.port);
    w.ah.sl = sl_towards(params_, s.driver->lid(s.port), w.ah.dlid);
    w.remote_qpn = &s == &client_ ? run.server_qpn : run.client_qpn;
    w.remote_qkey = params_.qkey;
  }
}

void Perftest::post_recv(Side& s, uint32_t qpn, uint64_t addr, uint64_t id) {
  transport::RecvWr r;
  r.wr_id = id;
  r.sg_list.push_back({addr, static_cast<uint32_t>(slot_bytes_), s.mr.lkey});
  const std::string why = s.driver->post_recv(qpn, r);
  if (!why.empty()) fail("post_recv on QP " + std::to_string(qpn) + ": " + why);
}

void Perftest::repost_lat_recv(Side& s, uint32_t qpn) {
  post_recv(s, qpn, s.dst, s.recv_posted);
  ++s.recv_posted;
  ++s.recv_outstanding;
}

bool Perftest::signaled(uint64_t k) const {
  return (k + 1) % cq_mod_ == 0 || k + 1 == iterations_;
}

void Perftest::post_bw(unsigned q) {
  QpRun& run = qps_[q];
  const auto len = static_cast<uint32_t>(size_);
  // As perftest: a whole list at a time, when it fits the WRs kept posted.
  while (running_ && run.posted < iterations_) {
    const uint64_t n = std::min<uint64_t>(post_list_, iterations_ - run.posted);
    if (run.posted + n - run.completed > slots_) return;
    list_.clear();
    for (uint64_t k = run.posted; k < run.posted + n; ++k) {
      transport::SendWr w;
      switch (cfg_.test) {
        case PerftestKind::WriteBw:
          w = wr(k, WrOpcode::RdmaWrite, slot_addr(client_.src, q, k, slots_), len, client_);
          w.remote_addr = slot_addr(server_.dst, q, k, slots_);
          break;
        case PerftestKind::ReadBw:
          w = wr(k, WrOpcode::RdmaRead, slot_addr(client_.dst, q, k, slots_), len, client_);
          w.remote_addr = slot_addr(server_.src, q, k, slots_);
          break;
        default: w = wr(k, WrOpcode::Send, slot_addr(client_.src, q, k, slots_), len, client_); break;
      }
      w.rkey = server_.mr.rkey;
      w.signaled = signaled(k);
      list_.push_back(std::move(w));
    }
    run.posted += n;
    post_list(client_, run.client_qpn);
  }
}

void Perftest::ping() {
  posted_ps_ = now_ps();
  const auto len = static_cast<uint32_t>(size_);
  const uint32_t qpn = qps_[0].client_qpn;
  transport::SendWr w;
  switch (cfg_.test) {
    case PerftestKind::SendLat: w = wr(lat_wr_id(), WrOpcode::Send, client_.src, len, client_); break;
    case PerftestKind::WriteLat:
      w = wr(lat_wr_id(), WrOpcode::RdmaWrite, client_.src, len, client_);
      w.remote_addr = server_.dst;
      break;
    case PerftestKind::ReadLat:
      w = wr(round_, WrOpcode::RdmaRead, client_.dst, len, client_);
      w.remote_addr = server_.src;
      break;
    default: {
      const bool add = cfg_.atomic == config::AtomicKind::FetchAdd;
      w = wr(round_, add ? WrOpcode::AtomicFetchAdd : WrOpcode::AtomicCmpSwp, client_.dst, 8, client_);
      w.remote_addr = server_.dst;
      w.compare_add = add ? round_ + 1 : atomic_value_;
      w.swap = swap_value(round_);
      break;
    }
  }
  w.rkey = server_.mr.rkey;
  if (one_way_trips()) trip_posted(false);
  post(client_, qpn, w);
}

void Perftest::pong() {
  const auto len = static_cast<uint32_t>(size_);
  transport::SendWr w = wr(lat_wr_id(), cfg_.test == PerftestKind::SendLat ? WrOpcode::Send : WrOpcode::RdmaWrite,
                           server_.src, len, server_);
  w.remote_addr = client_.dst;
  w.rkey = client_.mr.rkey;
  trip_posted(true);
  post(server_, qps_[0].server_qpn, w);
}

uint64_t Perftest::lat_wr_id() const { return uint64_t{size_at_} << 44 | round_; }  // rounds < 2^41

void Perftest::trip_posted(bool from_server) {
  Trip& t = trips_[trip_key(lat_wr_id(), from_server)];
  t.size = result_.sizes.size() - 1;
  t.start_ps = now_ps();
}

void Perftest::trip_sent(bool from_server, uint64_t wr_id, const transport::WrTimes& times) {
  const uint64_t key = trip_key(wr_id, from_server);
  const auto t = trips_.find(key);
  if (t == trips_.end()) return;
  t->second.times = times;
  t->second.sent = true;
  trip_parts(key);
}

void Perftest::trip_seen(bool from_server, uint64_t landed_ps, uint64_t arrived_ps) {
  const uint64_t key = trip_key(lat_wr_id(), from_server);
  const auto t = trips_.find(key);
  if (t == trips_.end()) return;
  t->second.seen_ps = now_ps();
  t->second.landed_ps = landed_ps;
  t->second.arrived_ps = arrived_ps;
  t->second.seen = true;
  trip_parts(key);
}

void Perftest::trip_parts(uint64_t key) {
  const Trip& t = trips_.at(key);
  if (!t.sent || !t.seen) return;
  transport::WrTimes times = t.times;  // the answer (an ACK) is not on a one-way trip
  times.response_ps = times.response_in_ps = 0;
  times.cqe_ps = t.landed_ps;
  if (times.at_responder_ps == 0) times.at_responder_ps = t.arrived_ps;  // UC, UD: no ACK tells the sender
  result_.sizes[t.size].parts.add(t.start_ps, times, t.seen_ps);
  trips_.erase(key);
}

bool Perftest::check(const std::string& what, Side& dst_side, uint64_t dst, const Side& src_side, uint64_t src,
                     uint64_t len) {
  a_.resize(len);
  b_.resize(len);
  dst_side.driver->memory().read(dst, a_.data(), len);
  src_side.driver->memory().read(src, b_.data(), len);
  const auto diff = std::mismatch(a_.begin(), a_.end(), b_.begin());
  if (diff.first != a_.end()) {
    const auto i = static_cast<uint64_t>(diff.first - a_.begin());
    char text[160];
    std::snprintf(text, sizeof text, ": data mismatch at byte %llu of %llu: 0x%02x landed, 0x%02x was sent",
                  static_cast<unsigned long long>(i), static_cast<unsigned long long>(len), *diff.first, *diff.second);
    fail(what + text);
    return false;
  }
  std::fill(a_.begin(), a_.end(), 0);
  dst_side.driver->memory().write(dst, a_.data(), len);  // the next operation on this slot must land anew
  return true;
}

void Perftest::poll() {
  for (uint32_t cq : client_.cqs) {
    wcs_.clear();
    client_.driver->poll_cq(cq, SIZE_MAX, wcs_);
    for (const transport::WorkCompletion& wc : wcs_) on_client(wc);
  }
  for (uint32_t cq : server_.cqs) {
    wcs_.clear();
    server_.driver->poll_cq(cq, SIZE_MAX, wcs_);
    for (const transport::WorkCompletion& wc : wcs_) on_server(wc);
  }
  for (std::size_t i = 0; i < landings_.size() && running_; ++i) {  // UC write_bw
    const uint64_t slot = landings_[i];
    const auto q = static_cast<unsigned>(slot / slots_);
    const uint64_t at = slot * slot_bytes_;
    const std::string what = "write landing in slot " + std::to_string(slot % slots_) + " of QP " +
                             std::to_string(qps_[q].server_qpn);
    if (!check(what, server_, server_.dst + at, client_, client_.src + at, size_))
      return;
    if (--recv_pending_ == 0 && pending_ == 0) end_size();
  }
  landings_.clear();
  if (cfg_.test != PerftestKind::WriteLat) return;
  const uint64_t len = size_;
  if (server_.landed && running_) {
    server_.landed = false;
    if (check("write " + std::to_string(round_) + " at the server", server_, server_.dst, client_, client_.src, len)) {
      trip_seen(false, now_ps());  // the host sees the last byte as it lands
      pong();
    }
  }
  if (client_.landed && running_) {
    client_.landed = false;
    if (!check("write " + std::to_string(round_) + " at the client", client_, client_.dst, server_, server_.src, len))
      return;
    trip_seen(true, now_ps());
    result_.sizes.back().round_trip_ps.add(now_ps() - posted_ps_, now_ps());
    ++result_.sizes.back().messages;
    progress_ps_ = now_ps();
    if (++round_ < iterations_) ping();
    else end_size();
  }
}

bool Perftest::one_way_trips() const {
  return cfg_.test == PerftestKind::SendLat || cfg_.test == PerftestKind::WriteLat;
}

void Perftest::on_client(const transport::WorkCompletion& wc) {
  if (one_way_trips() && wc.status == WcStatus::Success && wc.opcode != WcOpcode::Recv)
    trip_sent(false, wc.wr_id, wc.times);  // also after its size ended
  if (!running_) return;
  const unsigned q = client_index_.at(wc.qp_num);
  if (wc.status != WcStatus::Success)
    return fail(where(q, wc.wr_id) + ": " + transport::to_string(wc.opcode) + " completed with " +
                transport::to_string(wc.status));
  const uint64_t off = cfg_.qp_type == transport::QpType::Ud ? kGrhBytes : 0;
  PerftestSizeResult& r = result_.sizes.back();
  if (config::is_bandwidth(cfg_.test)) {
    QpRun& run = qps_[q];
    const uint64_t last = wc.wr_id;  // completes it and the unsignaled WRs before it
    if (last < run.completed || last >= run.posted || !signaled(last))
      return fail(where(q, last) + ": completed out of order, expected WR " + std::to_string(run.completed));
    for (uint64_t k = run.completed; k <= last; ++k) {
      const uint64_t src = slot_addr(cfg_.test == PerftestKind::ReadBw ? server_.src : client_.src, q, k, slots_);
      const uint64_t dst = slot_addr(cfg_.test == PerftestKind::ReadBw ? client_.dst : server_.dst, q, k, slots_);
      if (cfg_.test == PerftestKind::WriteBw && cfg_.qp_type == transport::QpType::Rc &&
          !check(where(q, k), server_, dst, client_, src, size_))
        return;
      if (cfg_.test == PerftestKind::ReadBw && !check(where(q, k), client_, dst, server_, src, size_)) return;
    }
    const uint64_t done = last + 1 - run.completed;
    run.completed = last + 1;
    r.messages += done;
    r.end_ps = now_ps();
    progress_ps_ = r.end_ps;
    pending_ -= done;
    post_bw(q);
    if (pending_ == 0 && recv_pending_ == 0) end_size();
    return;
  }
  switch (cfg_.test) {
    case PerftestKind::SendLat:
      if (wc.opcode != WcOpcode::Recv) return;  // the send's own completion
      if (!check("send " + std::to_string(round_) + " at the client", client_, client_.dst + off, server_, server_.src,
                 size_))
        return;
      --client_.recv_outstanding;
      if (client_.recv_posted < iterations_) repost_lat_recv(client_, qps_[0].client_qpn);
      trip_seen(true, wc.times.cqe_ps, wc.times.at_responder_ps);
      break;
    case PerftestKind::WriteLat: return;  // the write is seen landing, not completing
    case PerftestKind::ReadLat:
      if (!check("read " + std::to_string(round_), client_, client_.dst, server_, server_.src, size_)) return;
      break;
    default: {
      const uint64_t got = client_.driver->memory().read_u64(client_.dst);
      if (got != atomic_value_) {
        char text[128];
        std::snprintf(text, sizeof text, "atomic %llu returned 0x%llx, expected 0x%llx",
                      static_cast<unsigned long long>(round_), static_cast<unsigned long long>(got),
                      static_cast<unsigned long long>(atomic_value_));
        return fail(text);
      }
      atomic_value_ = cfg_.atomic == config::AtomicKind::FetchAdd ? atomic_value_ + round_ + 1 : swap_value(round_);
      client_.driver->memory().write_u64(client_.dst, 0);
      break;
    }
  }
  r.round_trip_ps.add(now_ps() - posted_ps_, now_ps());
  if (!one_way_trips()) r.parts.add(posted_ps_, wc.times, now_ps());
  ++r.messages;
  progress_ps_ = now_ps();
  if (++round_ < iterations_) ping();
  else end_size();
}

void Perftest::on_server(const transport::WorkCompletion& wc) {
  if (one_way_trips() && wc.status == WcStatus::Success && wc.opcode != WcOpcode::Recv)
    trip_sent(true, wc.wr_id, wc.times);
  if (!running_) return;
  const unsigned q = server_index_.at(wc.qp_num);
  if (wc.status != WcStatus::Success)
    return fail("server QP " + std::to_string(wc.qp_num) + ", WR " + std::to_string(wc.wr_id) + ": " +
                transport::to_string(wc.opcode) + " completed with " + transport::to_string(wc.status));
  if (wc.opcode != WcOpcode::Recv) return;
  const uint64_t off = cfg_.qp_type == transport::QpType::Ud ? kGrhBytes : 0;
  if (cfg_.test == PerftestKind::SendLat) {
    if (!check("send " + std::to_string(round_) + " at the server", server_, server_.dst + off, client_, client_.src,
               size_))
      return;
    --server_.recv_outstanding;
    if (server_.recv_posted < iterations_) repost_lat_recv(server_, qps_[0].server_qpn);
    trip_seen(false, wc.times.cqe_ps, wc.times.at_responder_ps);
    pong();
    return;
  }
  QpRun& run = qps_[q];  // send_bw
  const uint64_t j = run.received;
  if (!check("receive " + std::to_string(j) + " on server QP " + std::to_string(run.server_qpn), server_,
             slot_addr(server_.dst, q, j, rx_slots_) + off, client_, slot_addr(client_.src, q, j, slots_), size_))
    return;
  ++run.received;
  --recv_pending_;
  if (run.recv_posted < iterations_) {
    post_recv(server_, run.server_qpn, slot_addr(server_.dst, q, run.recv_posted, rx_slots_), run.recv_posted);
    ++run.recv_posted;
  }
  if (pending_ == 0 && recv_pending_ == 0) end_size();
}

}  // namespace hcasim::workloads
