#include "models/transport/qp_wait.hpp"

#include <cstdio>

#include "models/transport/psn.hpp"
#include "models/transport/verbs.hpp"

namespace hcasim::transport {
namespace {

std::string at_us(uint64_t ps) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3fus", static_cast<double>(ps) / 1e6);
  return text;
}

std::string hex_psn(uint32_t psn) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%06x", psn & kPsnMask);
  return text;
}

std::string count(uint64_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}
std::string count(uint64_t n, const std::string& one) { return count(n, one, one + "s"); }

// Send WQEs still to be acknowledged or answered (the completed ones wait only
// for those before them to retire).
uint64_t open_sends(const Qp& qp) {
  uint64_t n = 0;
  for (std::size_t i = 0; i < qp.sq.size(); ++i) n += !qp.sq[i].done;
  return n;
}

std::string retries_left(uint8_t left, uint8_t configured, bool seven_is_forever) {
  if (seven_is_forever && configured == 7) return "retrying forever (rnr_retry 7)";
  return count(left, "retry", "retries") + " left of " + std::to_string(configured);
}

}  // namespace

QpWait describe_qp_wait(const Qp& qp, uint64_t now_ps) {
  const uint64_t sends = open_sends(qp);
  if (qp.state == QpState::Err)
    return {QpWaitKind::Error, "is in the error state: its " + count(qp.sq.size(), "send WQE") + " and " + count(qp.rq.size(), "receive WQE") +
           " complete only as flushed"};
  if (sends > 0 && qp.state != QpState::Rts && qp.state != QpState::Sqd)
    return {QpWaitKind::State, "has " + count(sends, "send WQE") + " but cannot send in state " + to_string(qp.state)};
  if (sends > 0 && qp.rnr_waiting) {
    const std::string when = qp.rnr_until_ps > now_ps ? "resends at " + at_us(qp.rnr_until_ps) : "resends now";
    return {QpWaitKind::RnrNak, "waits for the responder (QP " + std::to_string(qp.attr.dest_qp_num) +
           ") to post a receive WQE: " + count(qp.stats.rnr_naks_received, "RNR NAK") + " so far, " + when + ", " +
           retries_left(qp.rnr_left, qp.attr.rnr_retry, true)};
  }
  if (sends > 0 && qp.type == QpType::Rc && qp.una != qp.npsn) {
    const int32_t unacked = psn_diff(qp.npsn, qp.una);
    std::string timer = qp.timer_at_ps == 0 ? "no transport timer (timeout 0): it waits forever"
                                            : "the transport timer fires at " + at_us(qp.timer_at_ps) + ", " +
                                                  retries_left(qp.retry_left, qp.attr.retry_cnt, false);
    return {QpWaitKind::Ack, "waits for the acknowledgement of PSN " + hex_psn(qp.una) + " (" + count(static_cast<uint64_t>(unacked), "packet") +
           " unacknowledged, " + count(qp.stats.timeouts, "timeout") + " so far); " + timer};
  }
  if (sends > 0 && qp.rd_atomic_outstanding >= qp.attr.max_rd_atomic && qp.attr.max_rd_atomic > 0)
    return {QpWaitKind::Responses, "waits for the responses of " + count(qp.rd_atomic_outstanding, "READ or atomic") + " (max_rd_atomic " +
           std::to_string(qp.attr.max_rd_atomic) + ")"};
  if (sends > 0)
    return {QpWaitKind::Link, "has " + count(sends, "send WQE") + " with packets to send (WQE " + std::to_string(qp.next_wqe) + ", packet " +
           std::to_string(qp.next_packet) + "): it waits for its turn to send"};
  if (!qp.rq.empty())
    return {QpWaitKind::Message, "waits for a message: " + count(qp.rq.size(), "receive WQE") + " posted" +
           (qp.type == QpType::Rc ? ", next PSN expected " + hex_psn(qp.epsn) : "")};
  return {};
}

}  // namespace hcasim::transport
