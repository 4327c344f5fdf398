#include "models/hca/wqe_fetcher.hpp"

#include <algorithm>

#include "models/hca/host_formats.hpp"

namespace hcasim::hca {

using transport::QpState;

namespace {
// What the front end knows of a send WR's trip: its doorbell's times.
transport::WrTimes rung_times(uint64_t mmio_ps, uint64_t at_hca_ps) {
  transport::WrTimes t;
  t.mmio_ps = mmio_ps;
  t.at_hca_ps = at_hca_ps;
  return t;
}
}  // namespace

WqeFetcher::WqeFetcher(const HcaConfig& config, transport::TransportEngine& engine, DmaEngine& dma,
                       HcaContexts& contexts)
    : config_(config), engine_(engine), dma_(dma), contexts_(contexts) {}

void WqeFetcher::add(uint32_t qpn, transport::QpType type, const QpRings& rings) {
  if (qps_.size() <= qpn) qps_.resize(qpn + 1);
  qps_[qpn] = std::make_unique<QpHost>();
  qps_[qpn]->generation = ++generations_;
  qps_[qpn]->type = type;
  qps_[qpn]->rings = rings;
}

void WqeFetcher::remove(uint32_t qpn) {
  if (find(qpn) != nullptr) qps_[qpn].reset();
}

void WqeFetcher::reset(uint32_t qpn) {
  QpHost* q = find(qpn);
  if (q == nullptr) return;
  const uint32_t generation = ++generations_;
  const transport::QpType type = q->type;
  const QpRings rings = q->rings;
  *q = QpHost{};
  q->type = type;
  q->rings = rings;
  q->generation = generation;
}

const QpRings* WqeFetcher::rings(uint32_t qpn) const {
  return qpn < qps_.size() && qps_[qpn] != nullptr ? &qps_[qpn]->rings : nullptr;
}

uint32_t WqeFetcher::take_buffer(std::size_t bytes) {
  uint32_t i;
  if (!free_buffers_.empty()) {
    i = free_buffers_.back();
    free_buffers_.pop_back();
  } else {
    i = static_cast<uint32_t>(buffers_.size());
    buffers_.emplace_back();
  }
  buffers_[i].resize(bytes);
  return i;
}

void WqeFetcher::schedule(Event e) {
  e.seq = next_seq_++;
  if (e.at_ps <= link::now_ps() && events_.empty()) {
    handle(e);
    return;
  }
  events_.push(e);
  alarm_.notify_at(events_.top().at_ps);
}

void WqeFetcher::due() {
  const uint64_t now = link::now_ps();
  while (!events_.empty() && events_.top().at_ps <= now) {
    const Event e = events_.top();
    events_.pop();
    handle(e);
  }
  if (!events_.empty()) alarm_.notify_at(events_.top().at_ps);
}

void WqeFetcher::send_doorbell(uint32_t qpn, uint32_t counter, uint64_t at_ps) {
  const QpHost* q = find(qpn);
  if (q == nullptr) return;
  schedule({at_ps, 0, Kind::Doorbell, qpn, counter, 0, 0, q->generation, link::now_ps()});
}

void WqeFetcher::blueflame(uint32_t qpn, const uint8_t* wqe, uint32_t bytes, uint64_t at_ps) {
  const QpHost* q = find(qpn);
  if (q == nullptr) return;
  const uint32_t b = take_buffer(bytes);
  std::copy_n(wqe, bytes, buffers_[b].begin());
  schedule({at_ps, 0, Kind::BlueFlame, qpn, 0, bytes, b, q->generation, link::now_ps()});
}

void WqeFetcher::handle(const Event& e) {
  QpHost* q = find(e.qpn);
  const bool current = q != nullptr && q->generation == e.generation;
  const bool buffered = e.kind == Kind::BlueFlame || e.kind == Kind::SendWqes || e.kind == Kind::RecvWqes ||
                        e.kind == Kind::RecvRecord;
  if (current) {
    switch (e.kind) {
      case Kind::Doorbell:
        ++stats_.doorbells;
        q->rung_mmio_ps = e.mmio_ps;
        q->rung_at_hca_ps = e.at_ps;
        if (e.first - q->sq_fetched > q->rings.sq_entries) {
          ++stats_.bad_doorbells;  // more WQEs than the ring holds: the counter is wrong
          break;
        }
        q->sq_posted = e.first;
        fetch_send(e.qpn, *q);
        break;
      case Kind::BlueFlame: {
        ++stats_.blueflame_writes;
        q->rung_mmio_ps = e.mmio_ps;
        q->rung_at_hca_ps = e.at_ps;
        const uint8_t* wqe = buffers_[e.buffer].data();
        const SendWqeHeader h = read_send_header(wqe);
        const bool next = h.index == static_cast<uint16_t>(q->sq_fetched) && q->sq_posted == q->sq_fetched &&
                          q->sq_in_flight == 0 && may_fetch(e.qpn);
        const uint32_t counter = q->sq_fetched;
        if (next) {
          // Pinned in the WQE cache when there is room; else the write's
          // copy is dropped and the WQE is read from the ring when the
          // prefetch or a unit wants it (the cache keeps its size).
          if (contexts_.wqe_fetched(e.qpn, true, counter, wqe_bytes(h, e.count), link::now_ps(), true))
            ++stats_.blueflame_wqes;
          else
            ++stats_.blueflame_refused;
          ++q->sq_posted;
          ++q->sq_fetched;
          post_send_wqe(e.qpn, *q, wqe, e.count, counter, true, rung_times(e.mmio_ps, e.at_ps));
        } else {  // a doorbell for that WQE: read it from the ring
          const uint32_t ahead = static_cast<uint16_t>(h.index + 1 - static_cast<uint16_t>(q->sq_fetched));
          if (ahead > q->rings.sq_entries) {
            ++stats_.bad_doorbells;  // an index more than a ring ahead (or behind): as a doorbell's wrong counter
            break;
          }
          q->sq_posted = q->sq_fetched + ahead;
          fetch_send(e.qpn, *q);
        }
        break;
      }
      case Kind::SendWqes: post_send_wqes(e, *q); break;
      case Kind::RecvRecord: {
        --q->rq_reads;
        q->rq_posted = get_u32(buffers_[e.buffer].data());
        if (q->rq_posted - q->rq_fetched > q->rings.rq_entries) q->rq_posted = q->rq_fetched;  // a wrong counter
        if (q->rq_posted == q->rq_fetched) {  // nothing new: the request goes on without one
          if (q->rq_reads == 0) recv_reads_done(e.qpn, *q);
        } else if (q->rq_flush) {
          while (find(e.qpn) == q && q->rq_posted != q->rq_fetched) fetch_recv(e.qpn, *q);
        } else {
          fetch_recv(e.qpn, *q);
        }
        break;
      }
      case Kind::RecvWqes: {
        --q->rq_reads;
        const uint32_t stride = q->rings.rq_stride;
        for (uint32_t i = 0; i < e.count; ++i) {
          transport::RecvWr wr;
          decode_recv_wqe(buffers_[e.buffer].data() + std::size_t{i} * stride, stride, wr);
          wr.wr_id = e.first + i;
          ++stats_.recv_wqes;
          contexts_.wqe_fetched(e.qpn, false, e.first + i, stride, link::now_ps());
          engine_.post_recv(e.qpn, wr);
          if (find(e.qpn) != q) break;
        }
        if (find(e.qpn) == q && q->rq_reads == 0) recv_reads_done(e.qpn, *q);
        break;
      }
      case Kind::RecvWqeOnChip: engine_.resume_requests(e.qpn); break;
    }
  }
  if (buffered) free_buffers_.push_back(e.buffer);
}

bool WqeFetcher::may_fetch(uint32_t qpn) const {
  const transport::Qp* qp = engine_.find(qpn);
  if (qp == nullptr) return false;
  return qp->state == QpState::Rts || qp->state == QpState::Sqd || qp->state == QpState::Sqe ||
         qp->state == QpState::Err;
}

void WqeFetcher::kick(uint32_t qpn) {
  QpHost* q = find(qpn);
  if (q != nullptr) fetch_send(qpn, *q);
}

void WqeFetcher::fetch_send(uint32_t qpn, QpHost& q) {
  if (!may_fetch(qpn)) return;
  const QpRings& r = q.rings;
  const uint64_t now = link::now_ps();
  while (q.sq_posted != q.sq_fetched) {
    const uint32_t slot = q.sq_fetched & (r.sq_entries - 1);
    const uint32_t count = std::min({q.sq_posted - q.sq_fetched, config_.wqe_fetch_batch, r.sq_entries - slot});
    const std::size_t bytes = std::size_t{count} * r.sq_stride;
    const uint32_t b = take_buffer(bytes);
    const uint64_t done =
        dma_.read(r.sq_addr + uint64_t{slot} * r.sq_stride, buffers_[b].data(), bytes, DmaPurpose::Wqe, now);
    ++stats_.sq_fetches;
    ++q.sq_in_flight;
    const uint32_t first = q.sq_fetched;
    q.sq_fetched += count;
    schedule({done, 0, Kind::SendWqes, qpn, first, count, b, q.generation, q.rung_mmio_ps, q.rung_at_hca_ps});
    if (find(qpn) != &q) return;  // handled at once, and the QP is gone
  }
}

void WqeFetcher::post_send_wqes(const Event& e, QpHost& q) {
  --q.sq_in_flight;
  const uint32_t stride = q.rings.sq_stride;
  const transport::WrTimes rung = rung_times(e.mmio_ps, e.rung_ps);
  for (uint32_t i = 0; i < e.count; ++i) {
    post_send_wqe(e.qpn, q, buffers_[e.buffer].data() + std::size_t{i} * stride, stride, e.first + i, false, rung);
    if (find(e.qpn) != &q) return;
  }
}

uint32_t WqeFetcher::wqe_bytes(const SendWqeHeader& h, uint32_t bytes) {
  return std::min<uint32_t>(uint32_t{h.ds} * 16, bytes);
}

void WqeFetcher::post_send_wqe(uint32_t qpn, QpHost& q, const uint8_t* wqe, uint32_t bytes, uint32_t counter,
                               bool cached, const transport::WrTimes& rung) {
  const SendWqeHeader h = read_send_header(wqe);
  if (!cached) contexts_.wqe_fetched(qpn, true, counter, wqe_bytes(h, bytes), link::now_ps());
  transport::SendWr wr;
  const WqeError err = decode_send_wqe(wqe, bytes, q.type, wr);
  wr.wr_id = counter;
  if (err == WqeError::UnknownOpcode) return fail_wqe(qpn, counter, kBadWqeOpcode);
  if (err == WqeError::BadSize) return fail_wqe(qpn, counter, kBadWqeSize);
  if (h.qpn != qpn || h.index != static_cast<uint16_t>(counter)) return fail_wqe(qpn, counter, kBadWqeHeader);
  ++stats_.send_wqes;
  if (!engine_.post_send(qpn, wr, rung).empty()) fail_wqe(qpn, counter, kBadWqeRefused);
}

void WqeFetcher::fail_wqe(uint32_t qpn, uint32_t counter, uint32_t vendor_err) {
  ++stats_.bad_wqes;
  transport::SendWr wr;
  wr.wr_id = counter;
  engine_.post_unusable(qpn, wr, vendor_err);
}

bool WqeFetcher::need_recv_wqes(transport::Qp& qp) {
  QpHost* q = find(qp.qpn);
  if (q == nullptr || q->rings.rq_entries == 0) return false;
  if (q->rq_reads > 0) return true;
  if (q->rq_posted != q->rq_fetched) fetch_recv(qp.qpn, *q);
  else read_recv_record(qp.qpn, *q);
  // Fetched at once (a host link of no cost): the WQEs are posted; the request goes on.
  return find(qp.qpn) == q && q->rq_reads > 0;
}

bool WqeFetcher::recv_wqe_missing(transport::Qp& qp) {
  const QpHost* q = find(qp.qpn);
  if (q == nullptr) return false;
  const uint64_t now = link::now_ps();
  const uint64_t ready = contexts_.wqe(qp.qpn, false, qp.rq.front().wr.wr_id, now);
  if (ready <= now) return false;
  schedule({ready, 0, Kind::RecvWqeOnChip, qp.qpn, 0, 0, 0, q->generation});
  return true;
}

void WqeFetcher::flush_recv_wqes(transport::Qp& qp) {
  QpHost* q = find(qp.qpn);
  if (q == nullptr || q->rings.rq_entries == 0) return;
  q->rq_flush = true;
  if (q->rq_reads == 0) read_recv_record(qp.qpn, *q);
  else q->rq_record_due = true;  // the reads under way were asked before ERR: receives posted since are unknown
}

void WqeFetcher::recv_reads_done(uint32_t qpn, QpHost& q) {
  if (q.rq_flush && q.rq_record_due) {
    q.rq_record_due = false;
    read_recv_record(qpn, q);
    return;
  }
  q.rq_flush = false;
  engine_.resume_requests(qpn);
}

void WqeFetcher::read_recv_record(uint32_t qpn, QpHost& q) {
  const uint32_t b = take_buffer(4);
  const uint64_t done = dma_.read(q.rings.doorbell_record, buffers_[b].data(), 4, DmaPurpose::DoorbellRecord,
                                  link::now_ps());
  ++stats_.record_reads;
  ++q.rq_reads;
  schedule({done, 0, Kind::RecvRecord, qpn, 0, 0, b, q.generation});
}

void WqeFetcher::fetch_recv(uint32_t qpn, QpHost& q) {
  const QpRings& r = q.rings;
  const uint32_t slot = q.rq_fetched & (r.rq_entries - 1);
  const uint32_t count = std::min({q.rq_posted - q.rq_fetched, config_.wqe_fetch_batch, r.rq_entries - slot});
  const std::size_t bytes = std::size_t{count} * r.rq_stride;
  const uint32_t b = take_buffer(bytes);
  const uint64_t done = dma_.read(r.rq_addr + uint64_t{slot} * r.rq_stride, buffers_[b].data(), bytes,
                                  DmaPurpose::Wqe, link::now_ps());
  ++stats_.rq_fetches;
  ++q.rq_reads;
  const uint32_t first = q.rq_fetched;
  q.rq_fetched += count;
  schedule({done, 0, Kind::RecvWqes, qpn, first, count, b, q.generation});
}

}  // namespace hcasim::hca
