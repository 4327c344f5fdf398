#pragma once
// The SA client library every HCA's workloads use (the requester side of
// seeds/000 and seeds/003) as a pure, event-driven class: it builds SA
// requests addressed to the SA, hands back the MADs to send, takes every SA
// response MAD that arrives for it, and reports each finished transaction as
// an SaCompletion. The caller calls on_timer() at deadline_ps(). No SystemC.
//
// Rules (seeds/000, seeds/003, unless marked "model"):
// - TIDs: tid_base + 1, + 2, ... (model: the caller gives each client a
//   distinct tid_base, e.g. node index << 32). Responses are matched by TID.
// - Response Timeout = 2 x 4.096 us x 2^SubnetTimeout + 4.096 us x
//   2^RespTimeValue, Segment Timeout = 4.096 us x 2^SubnetTimeout + 4.096 us
//   x 2^RespTimeValue (sa_timeouts.hpp), from subnet_timeout and
//   resp_time_value taken when the request starts; a ClassPortInfo answer
//   updates resp_time_value (learn_resp_time).
// - Queries (Get, GetTable, GetBulk, Set, Delete, ClassPortInfo): one request
//   MAD, Window = `window` (GetTable / GetBulk), then an MpReceiver: Response
//   Timeout for the first response; no answer -> the same request again (same
//   TID), at most max_retries (<= 7) times, then SaResult::Timeout. A
//   KeepAlive re-arms the timer to the Segment Timeout. A multi-packet answer
//   is Acked at each window end and after Last; a missing segment gets a
//   Resend (Fragment Flag bit 3), at most max_resends (<= 7) per segment, then
//   SaResult::Failed.
// - An answer with a nonzero MAD status ends the transaction with
//   SaResult::Status and that status (NoRecords, Invalid Attribute, ...).
//   Model: a GetBulkResp with status Busy (the database changed under bytes
//   already sent, sa_server.hpp) restarts the GetBulk with a new TID, at most
//   max_retries times; the completion keeps the first TID.
// - Config: the records go as a multi-packet request through an MpSender in
//   the ConfigRequest role (window 64 until the SA's Acks say otherwise;
//   packets packet_gap_ps apart), every packet carrying AttributeID, Edit
//   Modifier, AttributeModifier = start RID, End RID and ComponentMask; at most
//   192 bytes is a single packet (segment 0). After the Last packet (or the
//   single one) the client waits a Response Timeout for the ConfigResp (a
//   KeepAlive re-arms it to the Segment Timeout); on expiry it sends the Last
//   packet again (the SA answers a repeated Last packet with the ConfigResp
//   again), at most max_retries times, then SaResult::Timeout. The ConfigResp
//   ends the transaction whatever the Acks did.
// - Model: Acks and Resends the client sends carry the request method and the
//   request's TID and AttributeID.
// - A finished transaction is kept linger_ps so that a repeated Last packet
//   is Acked again (the SA lost the Ack); later MADs of it are ignored. It is
//   forgotten at the first MAD or timer after that (no timer of its own, so a
//   finished run leaves no event).

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "models/ib/mad.hpp"
#include "models/mgmt/mad_address.hpp"
#include "models/mgmt/multi_packet.hpp"
#include "models/mgmt/sa_timeouts.hpp"
#include "models/mgmt/sa_txn_stats.hpp"

namespace hcasim::mgmt {

struct SaClientConfig {
  MadAddress sa;                  // the SA: DLID = the SM's LID, QP1, SL, P_Key, Q_Key
  uint8_t subnet_timeout = 0;     // PortInfo.SubnetTimeout of the client's port, 5 bits
  uint8_t resp_time_value = 0;    // the SA's ClassPortInfo.RespTimeValue, 5 bits
  uint16_t window = ib::kDefaultSaWindow;  // Window in GetTable / GetBulk requests and in Acks
  unsigned max_retries = kSaMaxRetries;    // request retries on Response Timeout (<= 7)
  unsigned max_resends = kSaMaxResends;    // Resends per missing segment (<= 7)
  uint64_t packet_gap_ps = 100'000;  // ps between Config request packets
  uint64_t tid_base = 0;          // TIDs are tid_base + 1, + 2, ...
  uint64_t linger_ps = 0;         // keep finished transactions; 0 = 8 x Response Timeout
  bool learn_resp_time = true;    // a ClassPortInfo answer sets resp_time_value
};

enum class SaResult : uint8_t {
  Ok,       // answer with status 0
  Status,   // answer with a nonzero MAD status (in `status`)
  Timeout,  // no answer after max_retries retries
  Failed,   // a multi-packet transfer broke (Resends or window retries exhausted)
};
const char* to_string(SaResult r);

struct SaCompletion {
  uint64_t tid = 0;               // the TID the request was issued with
  uint8_t method = 0;             // request method
  uint16_t attr_id = 0;
  SaResult result = SaResult::Ok;
  uint16_t status = 0;            // MAD status of the answer (0 unless Status)
  std::vector<uint8_t> data;      // Admin Data stream: records as RID + body (GetBulk: its stream; ClassPortInfo: 72 bytes)
  size_t records = 0;             // records in `data` (0 for Config and unknown record types)
  SaTransferStats stats;
};

class SaClient {
 public:
  explicit SaClient(const SaClientConfig& cfg);
  SaClient(const SaClient&) = delete;
  SaClient& operator=(const SaClient&) = delete;

  // Requests; each returns its TID. `tmpl` / `body`: a record body (no RID),
  // at most 192 bytes; fields selected by `mask`.
  uint64_t get(uint16_t attr, uint64_t mask, const std::vector<uint8_t>& tmpl, uint64_t now,
               std::vector<SaSend>& out);
  uint64_t get_table(uint16_t attr, uint64_t mask, const std::vector<uint8_t>& tmpl, uint64_t now,
                     std::vector<SaSend>& out);
  uint64_t get_bulk(uint64_t now, std::vector<SaSend>& out);
  uint64_t set(uint16_t attr, const std::vector<uint8_t>& body, uint64_t now, std::vector<SaSend>& out);
  uint64_t del(uint16_t attr, uint64_t mask, const std::vector<uint8_t>& tmpl, uint64_t now,
               std::vector<SaSend>& out);
  uint64_t class_port_info(uint64_t now, std::vector<SaSend>& out);
  // seeds/003: Add (bodies, no RIDs), Delete (RID + body each), Edit (one body
  // of new field values, records start_rid..end_rid, fields `mask`).
  uint64_t config(ib::EditModifier op, uint16_t attr, const std::vector<uint8_t>& records,
                  uint32_t start_rid, uint32_t end_rid, uint64_t mask, uint64_t now,
                  std::vector<SaSend>& out);

  // Every SA response MAD for this client.
  void on_mad(const ib::SaMad& mad, const MadAddress& from, uint64_t now, std::vector<SaSend>& out);
  void on_timer(uint64_t now, std::vector<SaSend>& out);
  uint64_t deadline_ps() const;  // kMpNever when nothing is armed

  // Completions: handed to the callback if one is set, else queued here.
  void set_callback(std::function<void(const SaCompletion&)> cb) { callback_ = std::move(cb); }
  std::vector<SaCompletion> take_completions() { return std::move(done_); }
  const std::vector<SaCompletion>& completions() const { return done_; }

  // A new SA (a new master, told by PortInfo.ClientReregister): requests
  // still outstanding are retried there, new ones go there.
  void set_sa(const MadAddress& sa) { cfg_.sa = sa; }
  void set_subnet_timeout(uint8_t v) { cfg_.subnet_timeout = v; }
  void set_resp_time_value(uint8_t v) { cfg_.resp_time_value = v; }
  const SaClientConfig& config() const { return cfg_; }
  SaTimeouts timeouts() const { return SaTimeouts::from(cfg_.subnet_timeout, cfg_.resp_time_value); }
  size_t active() const;
  const SaTotals& totals() const { return totals_; }

 private:
  // A request with a ComponentMask and a template record (Get, GetTable, Delete).
  uint64_t masked_query(uint8_t method, uint16_t attr, uint64_t mask, const std::vector<uint8_t>& tmpl, uint64_t now,
                        std::vector<SaSend>& out);
  enum class Phase : uint8_t { Query, ConfigSend, ConfigWait, Done };
  struct Txn {
    uint64_t user_tid = 0;
    ib::SaMad req;                   // the request, or the Config packets' header
    Phase phase = Phase::Query;
    SaTimeouts to;
    std::optional<MpReceiver> rcv;   // queries
    std::optional<MpSender> snd;     // Config
    uint64_t next_send_ps = 0;       // Config pacing
    uint64_t wait_deadline = kMpNever;  // Config: waiting for the ConfigResp
    unsigned wait_retries = 0;
    ib::SaMad last_packet;           // Config: the Last (or single) packet
    unsigned bulk_restarts = 0;
    uint64_t expire_ps = kMpNever;
    SaTransferStats st;
  };

  ib::SaMad header(uint8_t method, uint16_t attr, uint64_t tid) const;
  uint64_t start_query(ib::SaMad req, uint64_t now, std::vector<SaSend>& out);
  void emit(const ib::SaMad& m, uint64_t now, std::vector<SaSend>& out) const;
  void handle(Txn& t, const std::vector<MpAction>& acts, uint64_t now, std::vector<SaSend>& out);
  void pump(Txn& t, uint64_t now, std::vector<SaSend>& out);
  void restart_bulk(uint64_t wire_tid, uint64_t now, std::vector<SaSend>& out);
  void complete(Txn& t, SaResult r, uint16_t status, std::vector<uint8_t> data, uint64_t now);
  uint64_t txn_deadline(const Txn& t) const;

  SaClientConfig cfg_;
  uint64_t next_tid_ = 0;
  std::map<uint64_t, Txn> txns_;   // by the TID on the wire
  uint64_t next_expiry_ = kMpNever;  // earliest expire_ps of a finished transaction
  void forget_expired(uint64_t now);  // drops finished transactions past their linger time
  std::vector<SaCompletion> done_;
  std::function<void(const SaCompletion&)> callback_;
  SaTotals totals_;
};

// Records in a GetBulk stream (SaDatabase::get_bulk layout), or in a run of
// RID + body records of `attr` (0 when the record type is unknown).
size_t sa_bulk_records(const std::vector<uint8_t>& stream);
size_t sa_table_records(uint16_t attr, const std::vector<uint8_t>& data);

}  // namespace hcasim::mgmt
