#include "models/mgmt/sa_node.hpp"

#include <algorithm>
#include <stdexcept>

namespace hcasim::mgmt {

namespace {

using link::now_ps;

}  // namespace

SaAgent::SaAgent(MadNode& node, unsigned port, ib::PacketPool& pool)
    : node_(node), port_(port), pool_(pool), send_alarm_([this] { send_due(); }),
      local_alarm_([this] { local_due(); }), server_alarm_([this] { server_timer(); }),
      client_alarm_([this] { client_timer(false); }), peer_alarm_([this] { client_timer(true); }) {
  node_.on_gmp([this](ib::Packet* p, unsigned in) { on_packet(p, in); });
}

SaAgent::~SaAgent() { node_.on_gmp({}); }

SaServer& SaAgent::start_server(const SaServerConfig& cfg) {
  server_alarm_.cancel();
  server_ = std::make_unique<SaServer>(db_, cfg);
  return *server_;
}

SaClient& SaAgent::start_client(const SaClientConfig& cfg) {
  client_alarm_.cancel();
  client_ = std::make_unique<SaClient>(cfg);
  return *client_;
}

SaClient& SaAgent::start_peer_client(const SaClientConfig& cfg) {
  peer_alarm_.cancel();
  peer_ = std::make_unique<SaClient>(cfg);
  return *peer_;
}

void SaAgent::set_callback(std::function<void(const SaCompletion&)> cb) { need(false).set_callback(std::move(cb)); }

void SaAgent::set_peer_callback(std::function<void(const SaCompletion&)> cb) {
  need(true).set_callback(std::move(cb));
}

SaClient& SaAgent::need(bool peer) {
  SaClient* c = peer ? peer_.get() : client_.get();
  if (c == nullptr)
    throw std::logic_error(peer ? "SaAgent: no peer client (only the master SA's port has one)"
                                : "SaAgent: the client is not started (the SM's sweep has not finished)");
  return *c;
}

uint64_t SaAgent::request(bool peer, const std::function<uint64_t(SaClient&, uint64_t, std::vector<SaSend>&)>& f) {
  SaClient& c = need(peer);
  std::vector<SaSend> out;
  const uint64_t tid = f(c, now_ps(), out);
  flush(out);
  return tid;
}

uint64_t SaAgent::get(uint16_t attr, uint64_t mask, const std::vector<uint8_t>& tmpl) {
  return request(false, [&](SaClient& c, uint64_t now, std::vector<SaSend>& out) {
    return c.get(attr, mask, tmpl, now, out);
  });
}

uint64_t SaAgent::get_table(uint16_t attr, uint64_t mask, const std::vector<uint8_t>& tmpl) {
  return request(false, [&](SaClient& c, uint64_t now, std::vector<SaSend>& out) {
    return c.get_table(attr, mask, tmpl, now, out);
  });
}

uint64_t SaAgent::get_bulk() {
  return request(false, [](SaClient& c, uint64_t now, std::vector<SaSend>& out) { return c.get_bulk(now, out); });
}

uint64_t SaAgent::class_port_info() {
  return request(false,
                 [](SaClient& c, uint64_t now, std::vector<SaSend>& out) { return c.class_port_info(now, out); });
}

uint64_t SaAgent::config(ib::EditModifier op, uint16_t attr, const std::vector<uint8_t>& records, uint32_t start_rid,
                         uint32_t end_rid, uint64_t mask, bool peer) {
  return request(peer, [&](SaClient& c, uint64_t now, std::vector<SaSend>& out) {
    return c.config(op, attr, records, start_rid, end_rid, mask, now, out);
  });
}

void SaAgent::on_packet(ib::Packet* p, unsigned in) {
  if (in != port_) {
    ++stats_.other_port;
    pool_.release(p);
    return;
  }
  ib::SaMad mad;
  if (!ib::decode(p->payload.data(), mad)) {
    ++stats_.undecodable;
    pool_.release(p);
    return;
  }
  MadAddress from;
  from.lid = p->hdr.lrh.slid;
  from.sl = p->hdr.lrh.sl;
  from.pkey = p->hdr.bth.p_key;
  from.qpn = p->hdr.deth.src_qp;
  from.qkey = p->hdr.deth.q_key;
  pool_.release(p);
  dispatch(mad, from);
}

void SaAgent::dispatch(const ib::SaMad& mad, const MadAddress& from) {
  ++stats_.mads_in;
  std::vector<SaSend> out;
  const uint64_t now = now_ps();
  if ((mad.hdr.method & ib::kMethodResponseBit) == 0) {
    if (server_ == nullptr) {
      ++stats_.unhandled;
      return;
    }
    server_->on_request(mad, from, now, out);
  } else {
    SaClient* c = (mad.hdr.tid & kPeerTidBit) != 0 ? peer_.get() : client_.get();
    if (c == nullptr) {
      ++stats_.unhandled;
      return;
    }
    c->on_mad(mad, from, now, out);
  }
  flush(out);
}

void SaAgent::flush(std::vector<SaSend>& out) {
  const uint64_t now = now_ps();
  for (SaSend& s : out) {
    if (s.at_ps <= now) {
      transmit(s);
    } else {
      later_.emplace(s.at_ps, std::move(s));
    }
  }
  out.clear();
  if (!later_.empty()) send_alarm_.notify_at(later_.begin()->first);
  rearm();
}

void SaAgent::transmit(const SaSend& s) {
  ++stats_.mads_out;
  const uint16_t me = lid();
  if (s.to.lid == me) {
    ++stats_.local;
    MadAddress from = s.to;
    from.lid = me;
    from.qpn = ib::kQp1;
    local_.emplace_back(s.mad, from);
    local_alarm_.notify_at(now_ps());
    return;
  }
  scratch_.assign(ib::kMadBytes, 0);
  ib::encode(s.mad, scratch_.data());
  ib::Packet* p = node_.make_packet(me, s.to.lid, s.to.sl, s.to.qpn, ib::kQp1, scratch_.data());
  p->hdr.bth.p_key = s.to.pkey;
  p->hdr.deth.q_key = s.to.qkey;
  node_.send(port_, p);
}

void SaAgent::send_due() {
  const uint64_t now = now_ps();
  std::vector<SaSend> due;
  while (!later_.empty() && later_.begin()->first <= now) {
    due.push_back(std::move(later_.begin()->second));
    later_.erase(later_.begin());
  }
  for (const SaSend& s : due) transmit(s);
  if (!later_.empty()) send_alarm_.notify_at(later_.begin()->first);
}

void SaAgent::local_due() {
  std::vector<std::pair<ib::SaMad, MadAddress>> batch;
  batch.swap(local_);
  for (const auto& [mad, from] : batch) dispatch(mad, from);
}

void SaAgent::server_timer() {
  if (server_ == nullptr) return;
  std::vector<SaSend> out;
  server_->on_timer(now_ps(), out);
  flush(out);
}

void SaAgent::client_timer(bool peer) {
  SaClient* c = peer ? peer_.get() : client_.get();
  if (c == nullptr) return;
  std::vector<SaSend> out;
  c->on_timer(now_ps(), out);
  flush(out);
}

void SaAgent::rearm() {
  const uint64_t now = now_ps();
  auto set = [now](link::Alarm& a, uint64_t deadline) {
    a.cancel();
    if (deadline != kMpNever) a.notify_at(std::max(deadline, now));
  };
  if (server_ != nullptr) set(server_alarm_, server_->deadline_ps());
  if (client_ != nullptr) set(client_alarm_, client_->deadline_ps());
  if (peer_ != nullptr) set(peer_alarm_, peer_->deadline_ps());
}

}  // namespace hcasim::mgmt
