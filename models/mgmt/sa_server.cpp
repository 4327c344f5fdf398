#include "models/mgmt/sa_server.hpp"

#include <algorithm>
#include <utility>

#include "models/ib/mad_attributes.hpp"
#include "models/mgmt/sa_linger.hpp"

namespace hcasim::mgmt {

uint8_t sa_response_method(uint8_t request_method) {
  if (request_method == ib::kMethodSet) return ib::kMethodGetResp;  // SubnAdmSet answers GetResp
  return static_cast<uint8_t>(request_method | ib::kMethodResponseBit);
}

SaServer::SaServer(SaDatabase& db, const SaServerConfig& cfg)
    : db_(db),
      cfg_(cfg),
      timeouts_(SaTimeouts::from(cfg.subnet_timeout, cfg.resp_time_value)),
      linger_ps_(cfg.linger_ps ? cfg.linger_ps : (kSaMaxRetries + 1) * timeouts_.response_ps),
      keepalive_ps_(cfg.keepalive_interval_ps ? cfg.keepalive_interval_ps
                                              : std::max<uint64_t>(1, timeouts_.segment_ps / 2)) {}

size_t SaServer::active() const {
  size_t n = 0;
  for (const auto& kv : txns_)
    if (kv.second.phase != Phase::Done) ++n;
  return n;
}

ib::SaMad SaServer::response(const Txn& t, uint16_t status) const {
  ib::SaMad m;
  m.hdr = t.req.hdr;
  m.hdr.method = sa_response_method(t.req.hdr.method);
  m.hdr.status = status;
  m.sa_key = t.req.sa_key;
  m.sm_key = t.req.sm_key;
  m.edit_modifier = t.req.edit_modifier;
  m.end_rid = t.req.end_rid;
  m.component_mask = t.req.component_mask;
  return m;
}

void SaServer::emit(const Txn& t, const ib::SaMad& m, uint64_t now, std::vector<SaSend>& out) {
  out.push_back(SaSend{t.peer, m, now});
}

void SaServer::invalid_resend(const ib::SaMad& mad, const MadAddress& from, uint64_t now,
                              std::vector<SaSend>& out) {
  // seeds/000: a Resend of data no longer available -> Invalid Attribute.
  ib::SaMad m;
  m.hdr = mad.hdr;
  m.hdr.method = sa_response_method(mad.hdr.method);
  m.hdr.status = ib::kStatusInvalidAttribute;
  m.segment = mad.segment;
  ++totals_.resends_rejected;
  out.push_back(SaSend{from, m, now});
}

void SaServer::prepare(Txn& t, uint64_t now, size_t records) {
  t.phase = Phase::Preparing;
  t.ready_ps = now + cfg_.processing_ps + cfg_.per_record_ps * records;
  t.next_keepalive_ps = kMpNever;
  if (cfg_.keepalives && now + keepalive_ps_ < t.ready_ps) t.next_keepalive_ps = now + keepalive_ps_;
}

void SaServer::finish(Txn& t, uint64_t now, bool failed) {
  t.phase = Phase::Done;
  t.expire_ps = now + linger_ps_;
  next_expiry_ = std::min(next_expiry_, t.expire_ps);
  t.next_keepalive_ps = kMpNever;
  t.st.end_ps = now;
  t.st.failed = failed;
  if (t.sender) {
    add_mp(t.st.mp, t.sender->stats());
    t.st.segments = t.sender->segments();
  }
  if (t.receiver) add_mp(t.st.mp, t.receiver->stats());
  totals_.add(t.st.mp);
  if (failed) ++totals_.failures;
  else ++totals_.completed;
  if (t.st.status != 0) ++totals_.error_status;
  if (cfg_.transfer_log_limit > 0) {
    if (log_.size() >= cfg_.transfer_log_limit) log_.erase(log_.begin());
    log_.push_back(t.st);
  }
}

// ------------------------------------------------------------ arrivals

void SaServer::forget_expired(uint64_t now) {
  mgmt::forget_expired(txns_, now, next_expiry_, [](const Txn& t) { return t.phase == Phase::Done; });
}

void SaServer::on_request(const ib::SaMad& mad, const MadAddress& from, uint64_t now,
                          std::vector<SaSend>& out) {
  forget_expired(now);
  if (mad.hdr.mgmt_class != ib::kClassSubnAdm || (mad.hdr.method & ib::kMethodResponseBit)) {
    ++totals_.discarded;  // not a request to the SA
    return;
  }
  auto it = txns_.find(sa_txn_key(from, mad.hdr.tid));
  if (it == txns_.end()) {
    new_request(mad, from, now, out);
    return;
  }
  existing(it->second, mad, now, out);
}

void SaServer::new_request(const ib::SaMad& mad, const MadAddress& from, uint64_t now,
                           std::vector<SaSend>& out) {
  const MpPacket p = from_mad(mad);
  if (p.kind == MpKind::Resend) {  // a transaction the SA no longer holds
    invalid_resend(mad, from, now, out);
    return;
  }
  if (p.kind != MpKind::Data) {  // an Ack or KeepAlive of nothing known
    ++totals_.discarded;
    return;
  }
  Txn t;
  t.peer = from;
  t.req = mad;
  t.st.tid = mad.hdr.tid;
  t.st.peer_lid = from.lid;
  t.st.method = mad.hdr.method;
  t.st.attr_id = mad.hdr.attr_id;
  t.st.start_ps = now;
  ++totals_.transactions;
  const uint16_t attr = mad.hdr.attr_id;
  const uint8_t* tmpl = mad.data.data();
  const size_t tlen = mad.data.size();
  auto single = [&](uint16_t status, const std::vector<uint8_t>& data, size_t records) {
    ib::SaMad m = response(t, status);
    std::copy(data.begin(), data.begin() + std::min(data.size(), m.data.size()), m.data.begin());
    m.payload_length = static_cast<uint32_t>(std::min(data.size(), m.data.size()));
    t.final_mad = m;
    t.st.status = status;
    t.st.bytes = m.payload_length;
    t.st.records = static_cast<uint32_t>(records);
    t.st.segments = 1;
    prepare(t, now, records);
  };
  auto series = [&](std::vector<uint8_t> data, size_t records) {
    MpSenderConfig sc;
    sc.role = MpRole::Response;
    sc.response_timeout_ps = timeouts_.response_ps;
    sc.max_retries = cfg_.max_retries;
    sc.window = mad.window;  // 0 -> 64 (mp_effective_window)
    t.st.bytes = data.size();
    t.st.records = static_cast<uint32_t>(records);
    t.sender.emplace(sc, std::move(data));
    prepare(t, now, records);
  };

  switch (mad.hdr.method) {
    case ib::kMethodGet: {
      if (attr == ib::kAttrClassPortInfo) {
        ib::ClassPortInfo cpi;
        cpi.resp_time_value = static_cast<uint8_t>(cfg_.resp_time_value & kSaTimeExponentMask);
        std::vector<uint8_t> d(ib::ClassPortInfo::kBytes);
        cpi.encode(d.data());
        single(ib::kStatusOk, d, 1);
        break;
      }
      SaRecord r;
      const SaDbStatus s = db_.get(attr, mad.component_mask, tmpl, tlen, r);
      std::vector<uint8_t> d;
      if (s == SaDbStatus::Ok) append_sa_record(d, r.rid, r.body.data(), r.body.size());
      single(to_mad_status(s), d, s == SaDbStatus::Ok ? 1 : 0);
      break;
    }
    case ib::kMethodGetTable: {
      std::vector<uint8_t> d;
      size_t n = 0;
      const SaDbStatus s = db_.encode_table(attr, mad.component_mask, tmpl, tlen, d, &n);
      if (s != SaDbStatus::Ok) single(to_mad_status(s), {}, 0);
      else series(std::move(d), n);
      break;
    }
    case ib::kMethodGetBulk: {
      t.bulk = true;
      t.bulk_change = db_.change_count();
      t.bulk_data = db_.get_bulk();
      series(t.bulk_data, db_.total_records());
      break;
    }
    case ib::kMethodSet: {
      uint32_t rid = 0;
      const SaDbStatus s = db_.set(attr, tmpl, tlen, &rid);
      SaRecord r;
      std::vector<uint8_t> d;
      if (s == SaDbStatus::Ok && db_.get_by_rid(attr, rid, r) == SaDbStatus::Ok)
        append_sa_record(d, r.rid, r.body.data(), r.body.size());
      single(to_mad_status(s), d, s == SaDbStatus::Ok ? 1 : 0);
      break;
    }
    case ib::kMethodDelete: {
      size_t n = 0;
      const SaDbStatus s = db_.del(attr, mad.component_mask, tmpl, tlen, &n);
      single(to_mad_status(s), {}, n);
      break;
    }
    case ib::kMethodConfig: {
      if (cfg_.master_sm_lid == 0 || from.lid != cfg_.master_sm_lid) {
        // seeds/003: only the master SM may change the database.
        ++totals_.refused_configs;
        t.st.status = ib::kSaStatusDenied;
        t.final_mad = response(t, ib::kSaStatusDenied);
        emit(t, *t.final_mad, now, out);
        finish(t, now, false);
        txns_.emplace(sa_txn_key(from, mad.hdr.tid), std::move(t));
        return;
      }
      MpReceiverConfig rc;
      rc.role = MpRole::ConfigRequest;
      rc.response_timeout_ps = timeouts_.response_ps;
      rc.segment_timeout_ps = timeouts_.segment_ps;
      rc.ack_window = cfg_.window;
      t.receiver.emplace(rc);
      t.phase = Phase::Receiving;
      auto& slot = txns_.emplace(sa_txn_key(from, mad.hdr.tid), std::move(t)).first->second;
      config_packet(slot, mad, now, out);
      return;
    }
    default:
      single(ib::kStatusUnsupportedMethod, {}, 0);
      break;
  }
  auto& slot = txns_.emplace(sa_txn_key(from, mad.hdr.tid), std::move(t)).first->second;
  step(slot, now, out);
}

void SaServer::existing(Txn& t, const ib::SaMad& mad, uint64_t now, std::vector<SaSend>& out) {
  const MpPacket p = from_mad(mad);
  const bool config = t.req.hdr.method == ib::kMethodConfig;
  if (t.phase == Phase::Done) {
    if (p.kind == MpKind::Resend) {
      invalid_resend(mad, t.peer, now, out);
      return;
    }
    if (p.kind != MpKind::Data) {
      ++totals_.discarded;
      return;
    }
    ++totals_.duplicate_requests;
    if (config && t.receiver) {  // re-Ack a repeated Last packet (the Ack was lost)
      std::vector<MpAction> acts;
      t.receiver->on_packet(p, now, acts);
      handle(t, acts, now, out);
    }
    // A repeated request, or a Config's repeated Last / single packet: the
    // requester missed the answer; send it again.
    const bool ends = !config || mad.segment == 0 || (mad.fragment_flag & ib::kFragLast);
    if (t.final_mad && ends) emit(t, *t.final_mad, now, out);
    return;
  }
  if (config) {
    config_packet(t, mad, now, out);
    return;
  }
  if (p.kind == MpKind::Data) {
    ++totals_.duplicate_requests;
    // A repeated request while a series runs with nothing acknowledged: the
    // requester got nothing; restart from segment 1 (model).
    if (t.phase == Phase::Sending && t.sender && t.sender->acknowledged() == 0 &&
        t.sender->committed_bytes() > 0) {
      MpPacket r;
      r.kind = MpKind::Resend;
      r.fragment_flag = ib::kFragResend;
      r.segment = 1;
      std::vector<MpAction> acts;
      t.sender->on_packet(r, now, acts);
      handle(t, acts, now, out);
      send_series(t, now, out);
    }
    return;
  }
  if (t.phase != Phase::Sending || !t.sender) {
    if (p.kind == MpKind::Resend) invalid_resend(mad, t.peer, now, out);
    else ++totals_.discarded;
    return;
  }
  std::vector<MpAction> acts;
  t.sender->on_packet(p, now, acts);
  handle(t, acts, now, out);
  if (t.phase == Phase::Sending) send_series(t, now, out);
}

void SaServer::config_packet(Txn& t, const ib::SaMad& mad, uint64_t now, std::vector<SaSend>& out) {
  // The operation's fields (Edit Modifier, AttributeID, start / end RID,
  // ComponentMask) are taken from the first packet (or the single one).
  if (mad.segment <= 1 && (mad.segment == 0 || (mad.fragment_flag & ib::kFragFirst))) {
    const uint64_t tid = t.req.hdr.tid;
    t.req = mad;
    t.req.hdr.tid = tid;
  }
  std::vector<MpAction> acts;
  t.receiver->on_packet(from_mad(mad), now, acts);
  handle(t, acts, now, out);
  if (t.phase == Phase::Preparing) step(t, now, out);  // the ConfigResp may be due at once
}

void SaServer::apply_config(Txn& t, uint64_t now) {
  const std::vector<uint8_t>& d = t.receiver->data();
  const uint16_t attr = t.req.hdr.attr_id;
  const auto mod = static_cast<ib::EditModifier>(t.req.edit_modifier);
  SaDbStatus s = SaDbStatus::BadLength;
  const bool total_ok = t.req.segment == 0 || t.receiver->announced_total() == d.size();
  if (total_ok) {
    switch (mod) {
      case ib::EditModifier::Add: s = db_.config_add(attr, d.data(), d.size()); break;
      case ib::EditModifier::Delete: s = db_.config_delete(attr, d.data(), d.size()); break;
      case ib::EditModifier::Edit:
        s = db_.config_edit(attr, t.req.hdr.attr_mod, t.req.end_rid, t.req.component_mask, d.data(),
                            d.size());
        break;
      default: s = SaDbStatus::BadLength; break;  // no such Edit Modifier: request invalid
    }
  }
  size_t records = 0;
  if (const ib::RecordLayout* l = db_.layout(attr)) {
    const size_t rb = l->body_bytes + (mod == ib::EditModifier::Delete ? ib::kRidBytes : 0);
    records = rb ? d.size() / rb : 0;
  }
  t.st.bytes = d.size();
  t.st.records = static_cast<uint32_t>(records);
  t.st.status = to_mad_status(s);
  // seeds/003 step 8: ConfigResp, Admin Data all zero, the status.
  t.final_mad = response(t, t.st.status);
  t.final_mad->payload_length = 0;
  t.final_mad->segment = 0;
  t.final_mad->fragment_flag = 0;
  t.final_mad->window = 0;
  prepare(t, now, records);
}

// ------------------------------------------------------------ actions

void SaServer::handle(Txn& t, const std::vector<MpAction>& acts, uint64_t now, std::vector<SaSend>& out) {
  for (const MpAction& a : acts) {
    switch (a.kind) {
      case MpAction::Kind::Send: {
        ib::SaMad m = response(t, 0);
        to_mad(a.packet, m);
        emit(t, m, now, out);
        break;
      }
      case MpAction::Kind::Deliver:
        apply_config(t, now);
        break;
      case MpAction::Kind::Complete:
        if (t.phase != Phase::Done) finish(t, now, false);
        break;
      case MpAction::Kind::Fail:
        if (t.phase != Phase::Done) finish(t, now, true);
        break;
      case MpAction::Kind::RetryRequest:
        break;  // the SA never waits for a first response
    }
  }
}

bool SaServer::refresh_bulk(Txn& t, uint64_t now, std::vector<SaSend>& out) {
  if (db_.change_count() == t.bulk_change) return true;
  const size_t committed = t.sender->committed_bytes();
  if (committed >= t.sender->total_bytes() && committed > 0) return true;  // the Last packet went
  std::vector<uint8_t> cur = db_.get_bulk();
  t.bulk_change = db_.change_count();
  const bool prefix_kept = cur.size() >= committed &&
                           std::equal(cur.begin(), cur.begin() + committed, t.bulk_data.begin());
  if (prefix_kept) {
    const std::vector<uint8_t> tail(cur.begin() + committed, cur.end());
    if (t.sender->replace_tail(tail)) {
      t.bulk_data = std::move(cur);
      t.st.bytes = t.bulk_data.size();
      t.st.records = static_cast<uint32_t>(db_.total_records());
      ++totals_.bulk_tail_replaced;
    }
    return true;
  }
  // Bytes already sent changed: end the series with Busy; the requester retries.
  ib::SaMad m = response(t, ib::kStatusBusy);
  t.st.status = ib::kStatusBusy;
  t.final_mad = m;
  emit(t, m, now, out);
  ++totals_.bulk_restarts;
  finish(t, now, false);
  return false;
}

void SaServer::send_series(Txn& t, uint64_t now, std::vector<SaSend>& out) {
  while (t.phase == Phase::Sending && t.sender->can_send() && now >= t.next_send_ps) {
    if (t.bulk && !refresh_bulk(t, now, out)) return;
    std::vector<MpAction> acts;
    t.sender->send_next(now, acts);
    t.next_send_ps = now + cfg_.packet_gap_ps;
    handle(t, acts, now, out);
    if (cfg_.packet_gap_ps > 0) break;
  }
}

void SaServer::step(Txn& t, uint64_t now, std::vector<SaSend>& out) {
  switch (t.phase) {
    case Phase::Receiving: {
      std::vector<MpAction> acts;
      t.receiver->on_timer(now, acts);
      handle(t, acts, now, out);
      break;
    }
    case Phase::Preparing: {
      if (t.next_keepalive_ps <= now && t.next_keepalive_ps < t.ready_ps && now < t.ready_ps) {
        // seeds/000 step 3: the first response is not ready; keep the requester waiting.
        ib::SaMad m = response(t, 0);
        m.fragment_flag = ib::kFragKeepAlive;
        emit(t, m, now, out);
        ++t.st.keepalives;
        ++t.st.mp.keepalives_sent;
        t.next_keepalive_ps += keepalive_ps_;
        if (t.next_keepalive_ps >= t.ready_ps) t.next_keepalive_ps = kMpNever;
      }
      if (now < t.ready_ps) break;
      if (t.final_mad) {
        emit(t, *t.final_mad, now, out);
        finish(t, now, false);
        break;
      }
      t.phase = Phase::Sending;
      t.next_send_ps = now;
      send_series(t, now, out);
      break;
    }
    case Phase::Sending: {
      if (t.sender->deadline_ps() <= now) {
        std::vector<MpAction> acts;
        t.sender->on_timer(now, acts);
        handle(t, acts, now, out);
      }
      send_series(t, now, out);
      break;
    }
    case Phase::Done:
      break;
  }
}

uint64_t SaServer::txn_deadline(const Txn& t) const {
  switch (t.phase) {
    case Phase::Receiving: return t.receiver->deadline_ps();
    case Phase::Preparing: return std::min(t.ready_ps, t.next_keepalive_ps);
    case Phase::Sending:
      return std::min(t.sender->deadline_ps(), t.sender->can_send() ? t.next_send_ps : kMpNever);
    case Phase::Done: return kMpNever;  // forgotten lazily (forget_expired), no timer
  }
  return kMpNever;
}

void SaServer::on_timer(uint64_t now, std::vector<SaSend>& out) {
  forget_expired(now);
  for (auto& kv : txns_)
    if (txn_deadline(kv.second) <= now) step(kv.second, now, out);
}

uint64_t SaServer::deadline_ps() const {
  uint64_t d = kMpNever;
  for (const auto& kv : txns_) d = std::min(d, txn_deadline(kv.second));
  return d;
}

}  // namespace hcasim::mgmt
