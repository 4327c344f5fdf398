#pragma once
// The transport counters of one perftest message size: what the test's QPs
// (client and server sides) counted from the size's start to its end.
//
// Rules:
// - A size's counters are the sum over the test's QPs of their counters when
//   the size ends minus the same sum when it started. Sizes run one after
//   another, so every event falls in the size that was running when it
//   happened (a late duplicate of size n's last packet reaching the server
//   during size n+1 counts there).
// - request_packets, resent_packets, retries and timeouts are counted by the
//   requesters (transport/requester.hpp): a retry is one resend from a PSN
//   after a PSN sequence error NAK, a timeout or an implied NAK; its packets
//   and those of every later resend are resent_packets.
// - NAKs are those the requesters received, by kind: PSN sequence error, RNR,
//   invalid request, remote access error, remote operational error (IBA AETH
//   syndromes; iba-facts 5).

#include <cstdint>

#include "models/transport/qp.hpp"
#include "models/transport/requester.hpp"

namespace hcasim::workloads {

struct TransportCounters {
  uint64_t request_packets = 0;   // request packets sent, resends included
  uint64_t resent_packets = 0;    // of those, resent
  uint64_t retries = 0;           // resends begun (each takes one of retry_cnt)
  uint64_t timeouts = 0;          // transport timer expiries
  uint64_t psn_seq_err_naks = 0;  // NAKs received, by kind
  uint64_t rnr_naks = 0;
  uint64_t inv_req_naks = 0;
  uint64_t rem_access_naks = 0;
  uint64_t rem_op_naks = 0;

  TransportCounters& operator+=(const TransportCounters& o) {
    request_packets += o.request_packets;
    resent_packets += o.resent_packets;
    retries += o.retries;
    timeouts += o.timeouts;
    psn_seq_err_naks += o.psn_seq_err_naks;
    rnr_naks += o.rnr_naks;
    inv_req_naks += o.inv_req_naks;
    rem_access_naks += o.rem_access_naks;
    rem_op_naks += o.rem_op_naks;
    return *this;
  }
  // Counters only grow: a later total minus an earlier one.
  TransportCounters operator-(const TransportCounters& o) const {
    TransportCounters d;
    d.request_packets = request_packets - o.request_packets;
    d.resent_packets = resent_packets - o.resent_packets;
    d.retries = retries - o.retries;
    d.timeouts = timeouts - o.timeouts;
    d.psn_seq_err_naks = psn_seq_err_naks - o.psn_seq_err_naks;
    d.rnr_naks = rnr_naks - o.rnr_naks;
    d.inv_req_naks = inv_req_naks - o.inv_req_naks;
    d.rem_access_naks = rem_access_naks - o.rem_access_naks;
    d.rem_op_naks = rem_op_naks - o.rem_op_naks;
    return d;
  }
};

inline TransportCounters counters_of(const transport::QpStats& s) {
  TransportCounters c;
  c.request_packets = s.request_packets;
  c.resent_packets = s.resent_packets;
  c.retries = s.retries;
  c.timeouts = s.timeouts;
  c.psn_seq_err_naks = s.naks_received[transport::kNakPsnSequence];
  c.rnr_naks = s.rnr_naks_received;
  c.inv_req_naks = s.naks_received[transport::kNakInvalidRequest];
  c.rem_access_naks = s.naks_received[transport::kNakRemoteAccess];
  c.rem_op_naks = s.naks_received[transport::kNakRemoteOperational];
  return c;
}

}  // namespace hcasim::workloads
