#pragma once
// The subnet administrator's request handling (the SA side of seeds/000 and
// seeds/003) as a pure, event-driven class over an SaDatabase: the caller
// hands it every arriving SA MAD with the time, sends the MADs it returns,
// and calls on_timer() at deadline_ps(). No SystemC.
//
// Rules (seeds/000, seeds/003, unless marked "model"):
// - A transaction is (requester LID, requester QP, TID); several run at once.
//   Requests are SA MADs with the R bit clear; responses carry the response
//   method. Model: Acks, Resends and KeepAlives travel with the method of
//   their direction: the request method from the requester (GetTable,
//   GetBulk, Config), the response method from the SA (GetTableResp,
//   GetBulkResp, ConfigResp).
// - The first response of a request goes processing_ps + per_record_ps x
//   records after the request (a Config: after its Last packet). With
//   keepalives on, a KeepAlive goes every keepalive_interval_ps while the
//   response is not ready (step 3 of the Multi-Packet Response Protocol);
//   the default interval is half the Segment Timeout, below the requester's
//   Response and Segment Timeouts when the flight time is within
//   SubnetTimeout.
// - Successive packets of a series go packet_gap_ps apart (within
//   ResponseTimeValue, step 4). Pacing, windows, Acks, Resends and the
//   Response Timeout of a series are the MpSender's (multi_packet.hpp).
// - Admin Data of requests (model): Get, GetTable, Delete carry a template
//   body (no RID) at byte 0 and select fields with the ComponentMask; Set
//   carries the body. Answers carry records as RID + body (ib/sa_records.hpp).
// - SubnAdmGet -> GetResp with the one matching record; none -> status
//   NoRecords, several -> TooManyRecords. AttributeID ClassPortInfo ->
//   GetResp with ClassPortInfo (72 bytes, RespTimeValue) in the Admin Data.
// - SubnAdmGetTable -> a GetTableResp series (one packet if it fits 192
//   bytes; zero matches is a single packet with Payload Length 0, status Ok).
//   Window = the request's Window, 0 -> 64.
// - SubnAdmGetBulk -> a GetBulkResp series of SaDatabase::get_bulk(). Model:
//   before each packet the SA compares change_count(); on a change it takes
//   the current stream. If the bytes already sent are unchanged in it, the
//   unsent tail is replaced by the current stream's tail (MpSender::
//   replace_tail), so the requester gets the database as it is when the Last
//   packet goes. If bytes already sent changed (a table whose header already
//   went grew or shrank), no splice can be right: the SA ends the series with
//   a GetBulkResp of status Busy (IBA 13.4.7: retry later) and the requester
//   starts a new GetBulk (sa_client.hpp does this, at most max_retries times).
// - SubnAdmSet -> GetResp with the record as stored (RID + body).
//   SubnAdmDelete -> DeleteResp, status only, Admin Data zero (model).
// - SubnAdmConfig: accepted only from SLID == master_sm_lid (seeds/003; the
//   port's PortInfo.MasterSMLID). Otherwise the SA answers the first packet it
//   sees with a ConfigResp of status ERR_REQ_DENIED (0x0700, ib::
//   kSaStatusDenied), ignores the transaction's later packets, and the
//   database is unchanged. master_sm_lid 0 (no LID is 0) refuses every Config.
//   An accepted Config is received by an MpReceiver in the ConfigRequest role
//   (Acks at each window end and after Last, with the window the SA offers);
//   on the Last packet the Edit Modifier's add / delete / edit is applied all
//   or nothing (SaDatabase), then a ConfigResp with the status and an all-zero
//   Admin Data goes (seeds/003 step 8). Edit: AttributeModifier = start RID,
//   End RID, ComponentMask; the Admin Data is one body of new field values.
// - A finished transaction is remembered for linger_ps (model; default the
//   requester's 8 x Response Timeout; forgotten at the first MAD or timer after
//   that, with no timer of its own, so a finished run leaves no event): a repeated request or Config packet is
//   answered with the same final MAD (a Set or Delete is not applied twice),
//   a Resend answers Invalid Attribute (seeds/000: the data is no longer
//   available). A Resend of a transaction the SA does not know: Invalid
//   Attribute too. A repeated request while a series runs and nothing is
//   acknowledged restarts it from segment 1 (as a Resend of 1); else ignored.
// - Unknown methods -> status Unsupported Method; unknown tables ->
//   Unsupported Method/Attribute (SaDatabase's mapping).

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "models/ib/mad.hpp"
#include "models/mgmt/mad_address.hpp"
#include "models/mgmt/multi_packet.hpp"
#include "models/mgmt/sa_database.hpp"
#include "models/mgmt/sa_timeouts.hpp"
#include "models/mgmt/sa_txn_stats.hpp"

namespace hcasim::mgmt {

struct SaServerConfig {
  uint8_t resp_time_value = 0;    // ClassPortInfo.RespTimeValue, 5 bits: 4.096 us x 2^n
  uint8_t subnet_timeout = 0;     // PortInfo.SubnetTimeout of the SA's port, 5 bits
  uint16_t window = ib::kDefaultSaWindow;  // Window in the SA's Config Acks (< 64 means 64)
  uint64_t processing_ps = 1'000'000;  // ps to prepare a first response, fixed part
  uint64_t per_record_ps = 1'000;      // ps more per record of the answer (or of the Config)
  bool keepalives = true;         // send KeepAlives while a first response is not ready
  uint64_t keepalive_interval_ps = 0;  // 0 = half the Segment Timeout
  uint64_t packet_gap_ps = 100'000;    // ps between packets of a series (< 4.096 us x 2^RespTimeValue)
  uint16_t master_sm_lid = 0;     // PortInfo.MasterSMLID of the SA's port; Configs only from it
  unsigned max_retries = kSaMaxRetries;  // Response Timeouts of a series before giving up (<= 7)
  uint64_t linger_ps = 0;         // keep finished transactions this long; 0 = 8 x Response Timeout
  size_t transfer_log_limit = 4096;  // finished transfers kept in transfers() (oldest dropped)
};

class SaServer {
 public:
  SaServer(SaDatabase& db, const SaServerConfig& cfg);
  SaServer(const SaServer&) = delete;
  SaServer& operator=(const SaServer&) = delete;

  // Every SA MAD addressed to the SA (requests, Acks, Resends, KeepAlives,
  // Config packets). MADs to send are appended to `out`.
  void on_request(const ib::SaMad& mad, const MadAddress& from, uint64_t now,
                  std::vector<SaSend>& out);
  // Call at (or after) deadline_ps().
  void on_timer(uint64_t now, std::vector<SaSend>& out);
  uint64_t deadline_ps() const;  // kMpNever when nothing is armed

  // PortInfo.MasterSMLID changed (the SM reprogrammed the SA's port).
  void set_master_sm_lid(uint16_t lid) { cfg_.master_sm_lid = lid; }

  const SaServerConfig& config() const { return cfg_; }
  uint64_t response_timeout_ps() const { return timeouts_.response_ps; }
  uint64_t segment_timeout_ps() const { return timeouts_.segment_ps; }
  size_t active() const;  // transactions not yet finished
  const SaTotals& totals() const { return totals_; }
  const std::vector<SaTransferStats>& transfers() const { return log_; }

 private:
  enum class Phase : uint8_t { Receiving, Preparing, Sending, Done };
  struct Txn {
    MadAddress peer;
    ib::SaMad req;                  // the request (a Config: its first packet seen)
    Phase phase = Phase::Preparing;
    uint64_t ready_ps = 0;          // first response may go
    uint64_t next_keepalive_ps = kMpNever;
    uint64_t next_send_ps = 0;      // pacing of a series
    uint64_t expire_ps = kMpNever;  // Done: forget then
    std::optional<MpSender> sender;      // GetTable / GetBulk series
    std::optional<MpReceiver> receiver;  // Config request
    std::optional<ib::SaMad> final_mad;  // a single-packet answer (sent at ready_ps, kept)
    bool bulk = false;
    uint64_t bulk_change = 0;       // change_count() the GetBulk data was taken at
    std::vector<uint8_t> bulk_data; // the stream as the sender holds it
    SaTransferStats st;
  };
  using Map = std::map<SaTxnKey, Txn>;

  void new_request(const ib::SaMad& mad, const MadAddress& from, uint64_t now,
                   std::vector<SaSend>& out);
  void existing(Txn& t, const ib::SaMad& mad, uint64_t now, std::vector<SaSend>& out);
  void config_packet(Txn& t, const ib::SaMad& mad, uint64_t now, std::vector<SaSend>& out);
  void apply_config(Txn& t, uint64_t now);
  void step(Txn& t, uint64_t now, std::vector<SaSend>& out);
  void send_series(Txn& t, uint64_t now, std::vector<SaSend>& out);
  bool refresh_bulk(Txn& t, uint64_t now, std::vector<SaSend>& out);
  void handle(Txn& t, const std::vector<MpAction>& acts, uint64_t now, std::vector<SaSend>& out);
  void prepare(Txn& t, uint64_t now, size_t records);
  void finish(Txn& t, uint64_t now, bool failed);
  ib::SaMad response(const Txn& t, uint16_t status) const;
  void emit(const Txn& t, const ib::SaMad& m, uint64_t now, std::vector<SaSend>& out);
  void invalid_resend(const ib::SaMad& mad, const MadAddress& from, uint64_t now,
                      std::vector<SaSend>& out);
  uint64_t txn_deadline(const Txn& t) const;

  SaDatabase& db_;
  SaServerConfig cfg_;
  SaTimeouts timeouts_;
  uint64_t linger_ps_;
  uint64_t next_expiry_ = kMpNever;  // earliest expire_ps of a finished transaction
  void forget_expired(uint64_t now);  // drops finished transactions past their linger time
  uint64_t keepalive_ps_;
  Map txns_;
  SaTotals totals_;
  std::vector<SaTransferStats> log_;
};

// The response method of a request method (Set -> GetResp; others R bit).
uint8_t sa_response_method(uint8_t request_method);

}  // namespace hcasim::mgmt
