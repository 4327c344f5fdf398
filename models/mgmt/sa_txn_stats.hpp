#pragma once
// Counters of SA transactions, for stats.json: one record per finished
// transfer and running totals, kept by the SA server (sa_server.hpp) and the
// SA client (sa_client.hpp) alike. A side leaves the other side's fields at
// zero. Plain data; the statistics writer formats it. No SystemC.

#include <cstdint>

#include "models/mgmt/multi_packet.hpp"

namespace hcasim::mgmt {

// One transaction, from its request to its end.
struct SaTransferStats {
  uint64_t tid = 0;
  uint16_t peer_lid = 0;       // the other side's LID
  uint8_t method = 0;          // request method (kMethod*)
  uint16_t attr_id = 0;
  uint16_t status = 0;         // MAD status of the answer (0 = success)
  bool failed = false;         // the protocol gave up (timeouts, resends) or it was refused
  uint64_t start_ps = 0;       // request sent (client) / first packet received (server)
  uint64_t end_ps = 0;         // completed or given up
  uint64_t bytes = 0;          // Admin Data bytes of the series (or of the request, for Config)
  uint32_t records = 0;        // records carried
  uint32_t segments = 0;       // packets of the series (1 for a single packet)
  uint64_t keepalives = 0;     // KeepAlives sent (server) or received (client)
  uint64_t request_retries = 0;  // client: requests sent again after a Response Timeout
  MpStats mp;                  // the multi-packet counters of this transaction
};

// Running totals over all transactions.
struct SaTotals {
  uint64_t transactions = 0;     // started
  uint64_t completed = 0;        // finished with an answer (any status)
  uint64_t failures = 0;         // given up: retries / resends exhausted
  uint64_t error_status = 0;     // finished with a nonzero MAD status
  uint64_t refused_configs = 0;  // server: SubnAdmConfig from a LID other than MasterSMLID
  uint64_t segments_sent = 0;
  uint64_t segments_resent = 0;
  uint64_t segments_received = 0;
  uint64_t acks_sent = 0;
  uint64_t acks_received = 0;
  uint64_t resends_sent = 0;
  uint64_t resends_received = 0;
  uint64_t resends_rejected = 0;  // Resends of data no longer held: Invalid Attribute
  uint64_t keepalives_sent = 0;
  uint64_t keepalives_received = 0;
  uint64_t timeouts = 0;          // Response / Segment Timeouts that expired
  uint64_t retries = 0;           // requests or windows sent again
  uint64_t duplicate_requests = 0;  // server: a request whose transaction already runs
  uint64_t discarded = 0;         // MADs that matched nothing (unknown TID, wrong class)
  uint64_t bulk_tail_replaced = 0;  // server: GetBulk tails replaced after a database change
  uint64_t bulk_restarts = 0;     // GetBulk restarted because sent data changed (Busy)

  // Sums another side's totals into these (stats.json adds up the clients).
  void add(const SaTotals& o) {
    transactions += o.transactions;
    completed += o.completed;
    failures += o.failures;
    error_status += o.error_status;
    refused_configs += o.refused_configs;
    duplicate_requests += o.duplicate_requests;
    discarded += o.discarded;
    bulk_tail_replaced += o.bulk_tail_replaced;
    bulk_restarts += o.bulk_restarts;
    MpStats mp;
    mp.segments_sent = o.segments_sent;
    mp.segments_resent = o.segments_resent;
    mp.segments_received = o.segments_received;
    mp.acks_sent = o.acks_sent;
    mp.acks_received = o.acks_received;
    mp.resends_sent = o.resends_sent;
    mp.resends_received = o.resends_received;
    mp.resends_rejected = o.resends_rejected;
    mp.keepalives_sent = o.keepalives_sent;
    mp.keepalives_received = o.keepalives_received;
    mp.timeouts = o.timeouts;
    mp.retries = o.retries;
    add(mp);
  }
  void add(const MpStats& s) {
    segments_sent += s.segments_sent;
    segments_resent += s.segments_resent;
    segments_received += s.segments_received;
    acks_sent += s.acks_sent;
    acks_received += s.acks_received;
    resends_sent += s.resends_sent;
    resends_received += s.resends_received;
    resends_rejected += s.resends_rejected;
    keepalives_sent += s.keepalives_sent;
    keepalives_received += s.keepalives_received;
    timeouts += s.timeouts;
    retries += s.retries;
  }
};

inline void add_mp(MpStats& to, const MpStats& s) {
  to.segments_sent += s.segments_sent;
  to.segments_resent += s.segments_resent;
  to.segments_received += s.segments_received;
  to.duplicates += s.duplicates;
  to.discarded += s.discarded;
  to.acks_sent += s.acks_sent;
  to.acks_received += s.acks_received;
  to.stale_acks += s.stale_acks;
  to.resends_sent += s.resends_sent;
  to.resends_received += s.resends_received;
  to.resends_rejected += s.resends_rejected;
  to.keepalives_sent += s.keepalives_sent;
  to.keepalives_received += s.keepalives_received;
  to.timeouts += s.timeouts;
  to.retries += s.retries;
}

}  // namespace hcasim::mgmt
