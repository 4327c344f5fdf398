#include "models/mgmt/multi_packet.hpp"

#include <algorithm>

namespace hcasim::mgmt {

namespace {

constexpr uint32_t kSeg = ib::kSaDataBytes;

MpPacket control(MpKind kind, uint8_t flag, uint32_t segment) {
  MpPacket p;
  p.kind = kind;
  p.fragment_flag = flag;
  p.segment = segment;
  return p;
}

MpAction send(MpPacket p) {
  MpAction a;
  a.kind = MpAction::Kind::Send;
  a.packet = std::move(p);
  return a;
}

MpAction event(MpAction::Kind k) {
  MpAction a;
  a.kind = k;
  return a;
}

}  // namespace

uint16_t mp_effective_window(MpRole role, uint16_t w) {
  if (role == MpRole::ConfigRequest) return std::max(w, kMpConfigMinWindow);
  return w == 0 ? ib::kDefaultSaWindow : w;
}

void to_mad(const MpPacket& p, ib::SaMad& m) {
  m.segment = p.segment;
  m.payload_length = p.payload_length;
  m.fragment_flag = p.fragment_flag;
  m.window = p.window;
  m.hdr.status = p.status;
  m.data = p.data;
}

MpPacket from_mad(const ib::SaMad& m) {
  MpPacket p;
  p.segment = m.segment;
  p.payload_length = m.payload_length;
  p.fragment_flag = m.fragment_flag;
  p.window = m.window;
  p.status = m.hdr.status;
  p.data = m.data;
  if (m.hdr.status != 0) p.kind = MpKind::Error;
  else if (m.fragment_flag & ib::kFragResend) p.kind = MpKind::Resend;
  else if (m.fragment_flag & ib::kFragAck) p.kind = MpKind::Ack;
  else if (m.fragment_flag & ib::kFragKeepAlive) p.kind = MpKind::KeepAlive;
  else p.kind = MpKind::Data;
  return p;
}

// ---------------------------------------------------------------- sender

MpSender::MpSender(const MpSenderConfig& cfg, std::vector<uint8_t> data)
    : cfg_(cfg), data_(std::move(data)) {
  // seeds/000: a Config request's first burst uses the default window, 64.
  window_ = cfg_.role == MpRole::ConfigRequest ? ib::kDefaultSaWindow
                                               : mp_effective_window(cfg_.role, cfg_.window);
  window_end_ = window_;
  recount();
}

void MpSender::recount() {
  uint32_t n = static_cast<uint32_t>((data_.size() + kSeg - 1) / kSeg);
  n = std::max<uint32_t>(n, 1);
  if (highest_sent_ > 0) n = std::max(n, highest_sent_ + 1);  // the Last packet is still to go
  segments_ = n;
}

size_t MpSender::committed_bytes() const {
  return std::min<size_t>(static_cast<size_t>(highest_sent_) * kSeg, data_.size());
}

MpPacket MpSender::make_data(uint32_t seg) {
  MpPacket p;
  p.kind = MpKind::Data;
  const size_t begin = single_ ? 0 : static_cast<size_t>(seg - 1) * kSeg;
  const size_t end = std::min(data_.size(), begin + kSeg);
  if (end > begin) std::copy(data_.begin() + begin, data_.begin() + end, p.data.begin());
  if (single_) {
    p.segment = 0;
    p.payload_length = static_cast<uint32_t>(end - begin);
    return p;
  }
  p.segment = seg;
  if (seg == 1) {
    p.fragment_flag |= ib::kFragFirst;
    p.payload_length = first_payload_;
  }
  if (seg == segments_) {
    p.fragment_flag |= ib::kFragLast;
    p.payload_length = static_cast<uint32_t>(end > begin ? end - begin : 0);
  }
  if (cfg_.role == MpRole::Response) p.window = window_;
  return p;
}

void MpSender::pause_or_go(uint64_t now_ps) {
  if (next_ > std::min(window_end_, segments_)) {
    state_ = State::Paused;
    deadline_ = now_ps + cfg_.response_timeout_ps;
  } else {
    state_ = State::Sending;
    deadline_ = kMpNever;
  }
}

bool MpSender::send_next(uint64_t now_ps, std::vector<MpAction>& out) {
  if (!can_send()) return false;
  if (highest_sent_ == 0) {
    single_ = segments_ == 1;
    first_payload_ = static_cast<uint32_t>(data_.size());
  }
  const uint32_t seg = next_;
  out.push_back(send(make_data(seg)));
  if (seg > highest_sent_) {
    ++stats_.segments_sent;
    highest_sent_ = seg;
  } else {
    ++stats_.segments_resent;
  }
  ++next_;
  if (single_) {
    state_ = State::Done;
    deadline_ = kMpNever;
    out.push_back(event(MpAction::Kind::Complete));
    return true;
  }
  pause_or_go(now_ps);
  return true;
}

void MpSender::acknowledge(uint32_t k, uint16_t w) {
  acked_ = k;
  window_ = mp_effective_window(cfg_.role, w);
  window_end_ = acked_ + window_;
  retries_ = 0;
  next_ = std::max(next_, acked_ + 1);
}

void MpSender::on_packet(const MpPacket& p, uint64_t now_ps, std::vector<MpAction>& out) {
  if (state_ == State::Failed) {
    ++stats_.discarded;
    return;
  }
  switch (p.kind) {
    case MpKind::Ack: {
      if (state_ == State::Done || p.segment <= acked_ || p.segment > highest_sent_) {
        ++stats_.stale_acks;
        return;
      }
      ++stats_.acks_received;
      acknowledge(p.segment, p.window);
      if (acked_ == segments_) {
        state_ = State::Done;
        deadline_ = kMpNever;
        out.push_back(event(MpAction::Kind::Complete));
        return;
      }
      pause_or_go(now_ps);
      return;
    }
    case MpKind::Resend: {
      const uint32_t k = p.segment;
      if (state_ == State::Done || k == 0 || k <= acked_ || k > highest_sent_ + 1 || k > segments_) {
        // seeds/000: the payload is no longer available -> Invalid Attribute.
        ++stats_.resends_rejected;
        MpPacket e = control(MpKind::Error, 0, k);
        e.status = ib::kStatusInvalidAttribute;
        out.push_back(send(e));
        return;
      }
      ++stats_.resends_received;
      if (k - 1 > acked_) {  // model: the receiver holds 1..k-1
        acked_ = k - 1;
        window_end_ = acked_ + window_;
        retries_ = 0;
      }
      next_ = k;
      pause_or_go(now_ps);
      return;
    }
    case MpKind::KeepAlive:
      ++stats_.keepalives_received;
      return;
    default:
      ++stats_.discarded;
      return;
  }
}

void MpSender::on_timer(uint64_t now_ps, std::vector<MpAction>& out) {
  if (deadline_ == kMpNever || now_ps < deadline_ || state_ != State::Paused) return;
  ++stats_.timeouts;
  if (retries_ >= cfg_.max_retries) {
    state_ = State::Failed;
    deadline_ = kMpNever;
    out.push_back(event(MpAction::Kind::Fail));
    return;
  }
  ++retries_;
  ++stats_.retries;
  next_ = cfg_.timeout_resend == MpTimeoutResend::Window ? acked_ + 1 : highest_sent_;
  state_ = State::Sending;
  deadline_ = kMpNever;
}

MpPacket MpSender::keepalive() {
  ++stats_.keepalives_sent;
  return control(MpKind::KeepAlive, ib::kFragKeepAlive, 0);
}

bool MpSender::replace_tail(const std::vector<uint8_t>& tail) {
  if (state_ == State::Done || state_ == State::Failed) return false;
  if (highest_sent_ > 0 && highest_sent_ >= segments_) return false;  // the Last packet went
  data_.resize(committed_bytes());
  data_.insert(data_.end(), tail.begin(), tail.end());
  recount();
  return true;
}

// -------------------------------------------------------------- receiver

MpReceiver::MpReceiver(const MpReceiverConfig& cfg) : cfg_(cfg) {
  const uint16_t first = cfg_.role == MpRole::Response ? cfg_.request_window : ib::kDefaultSaWindow;
  window_end_ = mp_effective_window(cfg_.role, first);
}

void MpReceiver::start_request(uint64_t now_ps) {
  state_ = State::AwaitingFirst;
  retries_ = 0;
  deadline_ = now_ps + cfg_.response_timeout_ps;
}

void MpReceiver::fail(std::vector<MpAction>& out) {
  state_ = State::Failed;
  deadline_ = kMpNever;
  out.push_back(event(MpAction::Kind::Fail));
}

void MpReceiver::send_ack(uint32_t seg, std::vector<MpAction>& out) {
  MpPacket a = control(MpKind::Ack, ib::kFragAck, seg);
  a.window = cfg_.ack_window;
  out.push_back(send(a));
  ++stats_.acks_sent;
  last_acked_ = seg;
  window_end_ = seg + mp_effective_window(cfg_.role, cfg_.ack_window);
}

void MpReceiver::segment_error(uint64_t now_ps, std::vector<MpAction>& out) {
  if (resends_ >= cfg_.max_resends) {
    fail(out);
    return;
  }
  ++resends_;
  ++stats_.resends_sent;
  resend_pending_ = true;
  out.push_back(send(control(MpKind::Resend, ib::kFragResend, expected_)));
  deadline_ = now_ps + cfg_.segment_timeout_ps;
}

void MpReceiver::accept(const MpPacket& p, uint64_t now_ps, std::vector<MpAction>& out) {
  ++stats_.segments_received;
  resend_pending_ = false;
  resends_ = 0;
  if (p.segment == 1) announced_total_ = p.payload_length;
  if (p.fragment_flag & ib::kFragLast) {
    const uint32_t valid = std::min(p.payload_length, kSeg);
    data_.insert(data_.end(), p.data.begin(), p.data.begin() + valid);
    ++expected_;
    state_ = State::Done;
    deadline_ = kMpNever;
    send_ack(p.segment, out);
    out.push_back(event(MpAction::Kind::Deliver));
    return;
  }
  data_.insert(data_.end(), p.data.begin(), p.data.end());
  ++expected_;
  if (p.segment == window_end_) send_ack(p.segment, out);
  deadline_ = now_ps + cfg_.segment_timeout_ps;
}

void MpReceiver::on_packet(const MpPacket& p, uint64_t now_ps, std::vector<MpAction>& out) {
  if (state_ == State::Failed) {
    ++stats_.discarded;
    return;
  }
  switch (p.kind) {
    case MpKind::Error:
      if (state_ == State::Done) {
        ++stats_.discarded;
        return;
      }
      fail(out);
      return;
    case MpKind::KeepAlive:
      ++stats_.keepalives_received;
      if (state_ == State::AwaitingFirst || state_ == State::Receiving)
        deadline_ = now_ps + cfg_.segment_timeout_ps;
      return;
    case MpKind::Data:
      break;
    default:
      ++stats_.discarded;
      return;
  }
  const uint32_t seg = p.segment;
  if (state_ == State::Done) {
    ++stats_.duplicates;
    if (seg != 0 && seg == last_acked_) send_ack(seg, out);
    return;
  }
  if (seg == 0) {  // a single packet: the whole response or request
    if (expected_ != 1) {
      ++stats_.discarded;
      return;
    }
    ++stats_.segments_received;
    const uint32_t valid = std::min(p.payload_length, kSeg);
    data_.assign(p.data.begin(), p.data.begin() + valid);
    state_ = State::Done;
    deadline_ = kMpNever;
    out.push_back(event(MpAction::Kind::Deliver));
    return;
  }
  state_ = State::Receiving;
  if (seg == expected_) {
    accept(p, now_ps, out);
  } else if (seg < expected_) {
    ++stats_.duplicates;
    deadline_ = now_ps + cfg_.segment_timeout_ps;
    if (seg == last_acked_) send_ack(seg, out);  // the Ack was lost
  } else {
    ++stats_.discarded;
    if (!resend_pending_) segment_error(now_ps, out);
  }
}

void MpReceiver::on_timer(uint64_t now_ps, std::vector<MpAction>& out) {
  if (deadline_ == kMpNever || now_ps < deadline_) return;
  ++stats_.timeouts;
  if (state_ == State::AwaitingFirst) {
    if (retries_ >= cfg_.max_retries) {
      fail(out);
      return;
    }
    ++retries_;
    ++stats_.retries;
    out.push_back(event(MpAction::Kind::RetryRequest));
    deadline_ = now_ps + cfg_.response_timeout_ps;
    return;
  }
  if (state_ == State::Receiving) segment_error(now_ps, out);
}

}  // namespace hcasim::mgmt
