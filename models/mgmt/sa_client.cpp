#include "models/mgmt/sa_client.hpp"

#include <algorithm>
#include <utility>

#include "models/ib/be_bytes.hpp"
#include "models/ib/mad_attributes.hpp"
#include "models/ib/sa_records.hpp"
#include "models/mgmt/sa_database.hpp"
#include "models/mgmt/sa_linger.hpp"

namespace hcasim::mgmt {

const char* to_string(SaResult r) {
  switch (r) {
    case SaResult::Ok: return "ok";
    case SaResult::Status: return "status";
    case SaResult::Timeout: return "timeout";
    case SaResult::Failed: return "failed";
  }
  return "?";
}

size_t sa_bulk_records(const std::vector<uint8_t>& s) {
  size_t off = 0, n = 0;
  while (off + kSaBulkTableHeaderBytes <= s.size()) {
    const size_t body = ib::get_be16(s.data() + off + 2);
    const size_t count = ib::get_be32(s.data() + off + 4);
    n += count;
    off += kSaBulkTableHeaderBytes + count * (body + ib::kRidBytes);
  }
  return n;
}

size_t sa_table_records(uint16_t attr, const std::vector<uint8_t>& data) {
  const ib::RecordLayout* l = ib::sa_record_layout(attr);
  if (!l || l->body_bytes == 0) return 0;
  return data.size() / (l->body_bytes + ib::kRidBytes);
}

SaClient::SaClient(const SaClientConfig& cfg) : cfg_(cfg), next_tid_(cfg.tid_base) {}

size_t SaClient::active() const {
  size_t n = 0;
  for (const auto& kv : txns_)
    if (kv.second.phase != Phase::Done) ++n;
  return n;
}

ib::SaMad SaClient::header(uint8_t method, uint16_t attr, uint64_t tid) const {
  ib::SaMad m;
  m.hdr.mgmt_class = ib::kClassSubnAdm;
  m.hdr.class_version = ib::kSaClassVersion;
  m.hdr.method = method;
  m.hdr.tid = tid;
  m.hdr.attr_id = attr;
  return m;
}

void SaClient::emit(const ib::SaMad& m, uint64_t now, std::vector<SaSend>& out) const {
  out.push_back(SaSend{cfg_.sa, m, now});
}

// ------------------------------------------------------------ requests

uint64_t SaClient::start_query(ib::SaMad req, uint64_t now, std::vector<SaSend>& out) {
  Txn t;
  t.user_tid = req.hdr.tid;
  t.to = timeouts();
  MpReceiverConfig rc;
  rc.role = MpRole::Response;
  rc.response_timeout_ps = t.to.response_ps;
  rc.segment_timeout_ps = t.to.segment_ps;
  rc.max_retries = cfg_.max_retries;
  rc.max_resends = cfg_.max_resends;
  rc.request_window = cfg_.window;
  rc.ack_window = cfg_.window;
  if (req.hdr.method == ib::kMethodGetTable || req.hdr.method == ib::kMethodGetBulk)
    req.window = cfg_.window;
  t.req = req;
  t.rcv.emplace(rc);
  t.rcv->start_request(now);
  t.st.tid = req.hdr.tid;
  t.st.peer_lid = cfg_.sa.lid;
  t.st.method = req.hdr.method;
  t.st.attr_id = req.hdr.attr_id;
  t.st.start_ps = now;
  ++totals_.transactions;
  emit(req, now, out);
  txns_.emplace(req.hdr.tid, std::move(t));
  return req.hdr.tid;
}

namespace {
void fill(ib::SaMad& m, const std::vector<uint8_t>& d) {
  std::copy(d.begin(), d.begin() + std::min(d.size(), m.data.size()), m.data.begin());
}
}  // namespace

uint64_t SaClient::masked_query(uint8_t method, uint16_t attr, uint64_t mask, const std::vector<uint8_t>& tmpl,
                                uint64_t now, std::vector<SaSend>& out) {
  ib::SaMad m = header(method, attr, ++next_tid_);
  m.component_mask = mask;
  fill(m, tmpl);
  return start_query(m, now, out);
}

uint64_t SaClient::get(uint16_t attr, uint64_t mask, const std::vector<uint8_t>& tmpl, uint64_t now,
                       std::vector<SaSend>& out) {
  return masked_query(ib::kMethodGet, attr, mask, tmpl, now, out);
}

uint64_t SaClient::get_table(uint16_t attr, uint64_t mask, const std::vector<uint8_t>& tmpl, uint64_t now,
                             std::vector<SaSend>& out) {
  return masked_query(ib::kMethodGetTable, attr, mask, tmpl, now, out);
}

uint64_t SaClient::get_bulk(uint64_t now, std::vector<SaSend>& out) {
  return start_query(header(ib::kMethodGetBulk, 0, ++next_tid_), now, out);
}

uint64_t SaClient::set(uint16_t attr, const std::vector<uint8_t>& body, uint64_t now,
                       std::vector<SaSend>& out) {
  ib::SaMad m = header(ib::kMethodSet, attr, ++next_tid_);
  fill(m, body);
  return start_query(m, now, out);
}

uint64_t SaClient::del(uint16_t attr, uint64_t mask, const std::vector<uint8_t>& tmpl, uint64_t now,
                       std::vector<SaSend>& out) {
  return masked_query(ib::kMethodDelete, attr, mask, tmpl, now, out);
}

uint64_t SaClient::class_port_info(uint64_t now, std::vector<SaSend>& out) {
  return start_query(header(ib::kMethodGet, ib::kAttrClassPortInfo, ++next_tid_), now, out);
}

uint64_t SaClient::config(ib::EditModifier op, uint16_t attr, const std::vector<uint8_t>& records,
                          uint32_t start_rid, uint32_t end_rid, uint64_t mask, uint64_t now,
                          std::vector<SaSend>& out) {
  Txn t;
  t.req = header(ib::kMethodConfig, attr, ++next_tid_);
  t.req.hdr.attr_mod = start_rid;  // seeds/003: AttributeModifier = start RID
  t.req.end_rid = end_rid;
  t.req.edit_modifier = static_cast<uint8_t>(op);
  t.req.component_mask = mask;
  t.user_tid = t.req.hdr.tid;
  t.to = timeouts();
  MpSenderConfig sc;
  sc.role = MpRole::ConfigRequest;
  sc.response_timeout_ps = t.to.response_ps;
  sc.max_retries = cfg_.max_retries;
  t.snd.emplace(sc, records);
  t.phase = Phase::ConfigSend;
  t.next_send_ps = now;
  t.st.tid = t.user_tid;
  t.st.peer_lid = cfg_.sa.lid;
  t.st.method = ib::kMethodConfig;
  t.st.attr_id = attr;
  t.st.start_ps = now;
  t.st.bytes = records.size();
  ++totals_.transactions;
  const uint64_t tid = t.user_tid;
  Txn& slot = txns_.emplace(tid, std::move(t)).first->second;
  pump(slot, now, out);
  return tid;
}

// ------------------------------------------------------------ arrivals

void SaClient::handle(Txn& t, const std::vector<MpAction>& acts, uint64_t now, std::vector<SaSend>& out) {
  for (const MpAction& a : acts) {
    switch (a.kind) {
      case MpAction::Kind::Send: {
        ib::SaMad m = t.req;  // header, keys, Config fields; data from the packet
        m.data.fill(0);
        to_mad(a.packet, m);
        if (t.snd && (a.packet.segment == 0 || (a.packet.fragment_flag & ib::kFragLast)))
          t.last_packet = m;
        emit(m, now, out);
        break;
      }
      case MpAction::Kind::RetryRequest:
        ++t.st.request_retries;
        emit(t.req, now, out);
        break;
      case MpAction::Kind::Deliver:
        complete(t, SaResult::Ok, 0, t.rcv->data(), now);
        break;
      case MpAction::Kind::Complete:  // every Config packet acknowledged: wait for the ConfigResp
        if (t.phase == Phase::ConfigSend) {
          t.phase = Phase::ConfigWait;
          t.wait_deadline = now + t.to.response_ps;
        }
        break;
      case MpAction::Kind::Fail: {
        if (t.phase == Phase::Done) break;
        // No packet of the answer ever came: a timeout; else the transfer broke.
        const bool nothing = t.rcv && t.rcv->stats().segments_received == 0 &&
                             t.rcv->stats().resends_sent == 0;
        complete(t, nothing ? SaResult::Timeout : SaResult::Failed, 0, {}, now);
        break;
      }
    }
  }
}

void SaClient::forget_expired(uint64_t now) {
  mgmt::forget_expired(txns_, now, next_expiry_, [](const Txn& t) { return t.phase == Phase::Done; });
}

void SaClient::on_mad(const ib::SaMad& mad, const MadAddress& /*from*/, uint64_t now,
                      std::vector<SaSend>& out) {
  forget_expired(now);
  if (mad.hdr.mgmt_class != ib::kClassSubnAdm || !(mad.hdr.method & ib::kMethodResponseBit)) {
    ++totals_.discarded;
    return;
  }
  auto it = txns_.find(mad.hdr.tid);
  if (it == txns_.end()) {
    ++totals_.discarded;
    return;
  }
  Txn& t = it->second;
  const MpPacket p = from_mad(mad);
  std::vector<MpAction> acts;
  if (t.phase == Phase::Done) {  // re-Ack a repeated Last packet; ignore the rest
    if (t.rcv && p.kind == MpKind::Data) {
      t.rcv->on_packet(p, now, acts);
      for (const MpAction& a : acts)
        if (a.kind == MpAction::Kind::Send) {
          ib::SaMad m = t.req;
          m.data.fill(0);
          to_mad(a.packet, m);
          emit(m, now, out);
        }
    } else {
      ++totals_.discarded;
    }
    return;
  }
  if (t.phase == Phase::Query) {
    if (mad.hdr.status != 0) {
      if (t.req.hdr.method == ib::kMethodGetBulk && mad.hdr.status == ib::kStatusBusy &&
          t.bulk_restarts < cfg_.max_retries) {
        restart_bulk(it->first, now, out);
        return;
      }
      complete(t, SaResult::Status, mad.hdr.status, {}, now);
      return;
    }
    t.rcv->on_packet(p, now, acts);
    handle(t, acts, now, out);
    return;
  }
  // Config: the ConfigResp (a data packet, or any nonzero status) ends it.
  if (mad.hdr.status != 0 || p.kind == MpKind::Data) {
    complete(t, mad.hdr.status ? SaResult::Status : SaResult::Ok, mad.hdr.status, {}, now);
    return;
  }
  if (p.kind == MpKind::KeepAlive && t.phase == Phase::ConfigWait)
    t.wait_deadline = now + t.to.segment_ps;  // seeds/000: a KeepAlive re-arms the timer
  t.snd->on_packet(p, now, acts);
  handle(t, acts, now, out);
  pump(t, now, out);
}

void SaClient::restart_bulk(uint64_t wire_tid, uint64_t now, std::vector<SaSend>& out) {
  auto it = txns_.find(wire_tid);
  Txn old = std::move(it->second);
  txns_.erase(it);
  ++totals_.bulk_restarts;
  --totals_.transactions;  // the same transaction goes on under a new TID
  const uint64_t tid = start_query(header(ib::kMethodGetBulk, 0, ++next_tid_), now, out);
  Txn& t = txns_.at(tid);
  t.user_tid = old.user_tid;
  t.bulk_restarts = old.bulk_restarts + 1;
  add_mp(old.st.mp, old.rcv->stats());
  t.st = old.st;
}

void SaClient::pump(Txn& t, uint64_t now, std::vector<SaSend>& out) {
  while (t.phase == Phase::ConfigSend && t.snd->can_send() && now >= t.next_send_ps) {
    std::vector<MpAction> acts;
    t.snd->send_next(now, acts);
    t.next_send_ps = now + cfg_.packet_gap_ps;
    handle(t, acts, now, out);
    if (cfg_.packet_gap_ps > 0) break;
  }
}

void SaClient::complete(Txn& t, SaResult r, uint16_t status, std::vector<uint8_t> data, uint64_t now) {
  t.phase = Phase::Done;
  t.wait_deadline = kMpNever;
  t.expire_ps = now + (cfg_.linger_ps ? cfg_.linger_ps : (kSaMaxRetries + 1) * t.to.response_ps);
  next_expiry_ = std::min(next_expiry_, t.expire_ps);
  SaCompletion c;
  c.tid = t.user_tid;
  c.method = t.req.hdr.method;
  c.attr_id = t.req.hdr.attr_id;
  c.result = r;
  c.status = status;
  c.data = std::move(data);
  if (r == SaResult::Ok) {
    if (c.method == ib::kMethodGetBulk) {
      c.records = sa_bulk_records(c.data);
    } else if (c.method == ib::kMethodGet && c.attr_id == ib::kAttrClassPortInfo) {
      c.records = c.data.size() >= ib::ClassPortInfo::kBytes ? 1 : 0;
      if (c.records && cfg_.learn_resp_time) {
        ib::ClassPortInfo cpi;
        cpi.decode(c.data.data());
        cfg_.resp_time_value = cpi.resp_time_value;
      }
    } else if (c.method != ib::kMethodConfig && c.method != ib::kMethodDelete) {
      c.records = sa_table_records(c.attr_id, c.data);
    }
  }
  t.st.status = status;
  t.st.failed = r == SaResult::Timeout || r == SaResult::Failed;
  t.st.end_ps = now;
  if (c.method != ib::kMethodConfig) t.st.bytes = c.data.size();
  t.st.records = static_cast<uint32_t>(c.records);
  if (t.rcv) add_mp(t.st.mp, t.rcv->stats());
  if (t.snd) {
    add_mp(t.st.mp, t.snd->stats());
    t.st.segments = t.snd->segments();
  } else {
    t.st.segments = static_cast<uint32_t>(t.st.mp.segments_received);
  }
  t.st.keepalives = t.st.mp.keepalives_received;
  totals_.add(t.st.mp);
  totals_.retries += t.wait_retries;  // Config: Last packet sent again for the ConfigResp
  if (t.st.failed) ++totals_.failures;
  else ++totals_.completed;
  if (status != 0) ++totals_.error_status;
  c.stats = t.st;
  if (callback_) callback_(c);
  else done_.push_back(std::move(c));
}

// ------------------------------------------------------------ timers

uint64_t SaClient::txn_deadline(const Txn& t) const {
  switch (t.phase) {
    case Phase::Query: return t.rcv->deadline_ps();
    case Phase::ConfigSend:
      return std::min(t.snd->deadline_ps(), t.snd->can_send() ? t.next_send_ps : kMpNever);
    case Phase::ConfigWait: return std::min(t.wait_deadline, t.snd->deadline_ps());
    case Phase::Done: return kMpNever;  // forgotten lazily (forget_expired), no timer
  }
  return kMpNever;
}

void SaClient::on_timer(uint64_t now, std::vector<SaSend>& out) {
  forget_expired(now);
  for (auto it = txns_.begin(); it != txns_.end();) {
    Txn& t = it->second;
    if (t.phase == Phase::Done) {
      ++it;
      continue;
    }
    std::vector<MpAction> acts;
    if (t.phase == Phase::Query) {
      t.rcv->on_timer(now, acts);
      handle(t, acts, now, out);
    } else {
      if (t.snd->deadline_ps() <= now) {
        t.snd->on_timer(now, acts);
        handle(t, acts, now, out);
      }
      pump(t, now, out);
      if (t.phase == Phase::ConfigWait && t.wait_deadline <= now) {
        ++t.st.mp.timeouts;
        if (t.wait_retries >= cfg_.max_retries) {
          complete(t, SaResult::Timeout, 0, {}, now);
        } else {
          ++t.wait_retries;
          ++t.st.request_retries;
          emit(t.last_packet, now, out);  // the SA answers a repeated Last packet again
          t.wait_deadline = now + t.to.response_ps;
        }
      }
    }
    ++it;
  }
}

uint64_t SaClient::deadline_ps() const {
  uint64_t d = kMpNever;
  for (const auto& kv : txns_) d = std::min(d, txn_deadline(kv.second));
  return d;
}

}  // namespace hcasim::mgmt
