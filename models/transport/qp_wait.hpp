#pragma once
// What a QP with work left waits on, in words: the diagnosis a run gives when
// a workload did not finish (a verbs operation without a completion, a
// perftest that stopped short or made no progress before run.duration).
//
// Rules, in order (the first that holds is the answer):
// - In the error state: what is still queued will only be flushed.
// - Not in a sending state (RTS, SQD) with send WQEs posted: it cannot send.
// - After an RNR NAK (IBA 9.7.5.2.8): it waits for the responder to post a
//   receive WQE, resending when the RNR timer ends; with rnr_retry 7 forever.
// - Packets sent and not acknowledged (IBA 9.7.6): it waits for the ACK of
//   the oldest, with the transport timer's deadline and retries left; with
//   timeout 0 there is no timer and it waits forever.
// - As many READs and atomics outstanding as max_rd_atomic allows: it waits
//   for their responses before sending the next.
// - Send WQEs with packets not yet sent: it waits for its turn on the link.
// - Receive WQEs posted and nothing to send: it waits for a message.
// Kind None with an empty text: nothing is posted, nothing is owed.

#include <cstdint>
#include <string>

#include "models/transport/qp.hpp"

namespace hcasim::transport {

enum class QpWaitKind { None, Error, State, RnrNak, Ack, Responses, Link, Message };

struct QpWait {
  QpWaitKind kind = QpWaitKind::None;
  std::string text;  // "waits for the acknowledgement of PSN 0x000066 (...)"
};

QpWait describe_qp_wait(const Qp& qp, uint64_t now_ps);

}  // namespace hcasim::transport
