#pragma once
// The SA's reliable multi-packet transaction protocol (seeds/000) as two pure,
// event-driven state machines: MpSender sends a series (the SA's GetTable /
// GetBulk / Config responses, a requester's multi-packet SubnAdmConfig
// request) and MpReceiver receives one (the requester of a GetTable / GetBulk,
// the SA receiving a Config request). Time is passed in (now_ps); actions are
// pushed into an output vector; the timer is a deadline the caller reads after
// every call (deadline_ps(), kMpNever when none) and on expiry reports with
// on_timer(now). No SystemC, no clocks, no callbacks.
//
// Rules (seeds/000 unless marked "model"):
// - Admin Data Areas are 192 bytes; a series of total T bytes has
//   N = ceil(T / 192) segments, numbered from 1; all but the last carry 192
//   bytes. Fragment Flag First (bit 0) on segment 1, Last (bit 2) on N.
// - Payload Length: on segment 1 the total T at the time segment 1 is first
//   sent; on segment N the valid bytes of its data area; reserved (0) on the
//   others.
// - A series of one packet is a single packet (model's reading of "the
//   segment number of a single-packet response is 0"): Segment Number 0,
//   Fragment Flag 0, Payload Length = its valid bytes (the field is undefined
//   for single packets; both readings, total and last valid bytes, give the
//   same number), no Ack expected: the sender is done once it is sent. T = 0 is
//   a single packet with Payload Length 0.
// - Window: the sender may send `window` packets after the last acknowledged
//   one, then pauses and arms the Response Timeout; it also arms it after the
//   Last packet. The first window of a response is the request's Window; of a
//   Config request, 64. An Ack of segment k lets it send k+1 .. k+w with w the
//   Ack's window. Config (MpRole::ConfigRequest): w < 64 means 64. Responses
//   (model): w = 0 means 64, other values are taken as they are. Data packets
//   of a response carry the sender's current window; of a request, 0.
// - Ack (bit 5): segment k acknowledges 1..k. The receiver Acks the last
//   packet of each window and the Last packet, with its configured window.
//   An Ack of segment N completes the sender.
// - Resend (bit 3, Table 33-11; the "00010000b" of the recovery text is the
//   excerpt's error): restart from segment k. If k is already acknowledged,
//   the sender answers with an error (status Invalid Attribute) and its state
//   is unchanged. Model: a Resend of k also acknowledges 1..k-1 (the receiver
//   holds everything before the segment it asks for, as it discards only later
//   ones), so a lost Ack is recovered by the receiver's next Resend as well as
//   by the sender's Response Timeout.
// - Segment error at the receiver: a packet whose segment is not one greater
//   than the last accepted, or the Segment Timeout. It discards every later
//   segment until the missing one arrives and sends a Resend of the missing
//   segment. Model: one Resend when a gap is first seen, then one per Segment
//   Timeout while the segment stays missing (not one per discarded packet);
//   at most 7 Resends for one segment, then it fails.
// - Receiver timer: a requester (start_request) waits the Response Timeout
//   for the first response; a KeepAlive re-initializes it to the Segment
//   Timeout; on expiry it retries the request (RetryRequest action, at most 7
//   times, then fails). Once the stream has started, every accepted packet,
//   duplicate or KeepAlive restarts the Segment Timeout (discarded
//   out-of-order packets do not); sending a Resend re-arms it. It stops when
//   the Last packet has been accepted.
// - Duplicates (already accepted) are ignored, except the last Acked segment,
//   which is Acked again (the Ack was lost).
// - Sender on Response Timeout: resends the unacknowledged packets (or only
//   the last one sent, MpTimeoutResend::LastPacket) at most 7 times, then
//   fails. Model: the count restarts whenever an Ack or Resend makes
//   progress.
// - The data may change mid-transfer (GetBulk): replace_tail() replaces the
//   bytes of the segments not yet sent; packets already sent are resent
//   unchanged (segment 1 keeps its first Payload Length). The receiver
//   delivers (N - 1) x 192 + the Last packet's Payload Length bytes.
// - Pacing (ResponseTimeValue between packets) is the caller's: the sender
//   only says whether a packet may go now (can_send / send_next).

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "models/ib/mad.hpp"
#include "models/mgmt/sa_timeouts.hpp"

namespace hcasim::mgmt {

constexpr uint64_t kMpNever = std::numeric_limits<uint64_t>::max();  // no deadline armed
constexpr uint16_t kMpConfigMinWindow = ib::kDefaultSaWindow;  // seeds/000: Config Ack window < 64 means 64

// Which direction the series goes: decides the window rules above.
enum class MpRole : uint8_t {
  Response,       // SA -> requester: GetTableResp / GetBulkResp / ConfigResp series
  ConfigRequest,  // requester -> SA: multi-packet SubnAdmConfig request
};

// The window a sender uses for a Window field value w (rules above).
uint16_t mp_effective_window(MpRole role, uint16_t w);

// One protocol packet: the multi-packet fields of an SA MAD and its data.
enum class MpKind : uint8_t {
  Data,       // a segment of the series (or the single packet, segment 0)
  Ack,        // Fragment Flag bit 5
  Resend,     // Fragment Flag bit 3
  KeepAlive,  // Fragment Flag bit 7
  Error,      // a response MAD with a nonzero status (Invalid Attribute for a bad Resend)
};

struct MpPacket {
  MpKind kind = MpKind::Data;
  uint32_t segment = 0;          // Segment Number
  uint32_t payload_length = 0;   // Payload Length (see rules)
  uint8_t fragment_flag = 0;     // ib::kFrag* bits
  uint16_t window = 0;           // Window
  uint16_t status = 0;           // MAD status; Error only
  std::array<uint8_t, ib::kSaDataBytes> data{};  // Admin Data Area (Data only)
};

// Copies the packet's fields (segment, payload length, fragment flag, window,
// data, and the status into hdr.status) into an SA MAD whose header, keys and
// component mask the caller has filled.
void to_mad(const MpPacket& p, ib::SaMad& m);
// Reads them back; the kind comes from the Fragment Flag (Resend, Ack,
// KeepAlive bits, in that order) and a nonzero status makes it Error.
MpPacket from_mad(const ib::SaMad& m);

// What a call asks the caller to do.
struct MpAction {
  enum class Kind : uint8_t {
    Send,          // transmit `packet` (to_mad into a MAD of the transaction)
    RetryRequest,  // receiver: send the original request again
    Deliver,       // receiver: the series is complete; bytes in MpReceiver::data()
    Complete,      // sender: every segment is acknowledged (or the single packet sent)
    Fail,          // retries or resends exhausted, or an error response: give up
  };
  Kind kind = Kind::Send;
  MpPacket packet{};  // Send only
};

// Counters for stats.json (both sides use the same struct; a side leaves the
// other's fields at zero).
struct MpStats {
  uint64_t segments_sent = 0;        // data packets sent, first copies
  uint64_t segments_resent = 0;      // data packets sent again (Resend or timeout)
  uint64_t segments_received = 0;    // data packets accepted in order
  uint64_t duplicates = 0;           // data packets already accepted
  uint64_t discarded = 0;            // out-of-order or unexpected packets dropped
  uint64_t acks_sent = 0;
  uint64_t acks_received = 0;        // Acks that advanced the window
  uint64_t stale_acks = 0;           // Acks of nothing new or of unsent segments
  uint64_t resends_sent = 0;         // Resend requests issued
  uint64_t resends_received = 0;     // Resend requests honoured
  uint64_t resends_rejected = 0;     // Resend of acknowledged / unknown data (Invalid Attribute)
  uint64_t keepalives_sent = 0;
  uint64_t keepalives_received = 0;
  uint64_t timeouts = 0;             // Response or Segment Timeouts that expired
  uint64_t retries = 0;              // requests or windows sent again after a Response Timeout
};

enum class MpTimeoutResend : uint8_t {
  Window,      // resend every unacknowledged packet (default)
  LastPacket,  // resend only the last packet sent, to draw the Ack again
};

struct MpSenderConfig {
  MpRole role = MpRole::Response;
  uint64_t response_timeout_ps = sa_response_timeout_ps(0, 0);  // ps, see sa_timeouts.hpp
  unsigned max_retries = kSaMaxRetries;  // Response Timeouts in a row before failing (<= 7)
  uint16_t window = ib::kDefaultSaWindow;  // first window of a response: the request's Window (0 = 64); a Config request always starts with 64
  MpTimeoutResend timeout_resend = MpTimeoutResend::Window;  // what goes again on a Response Timeout
};

class MpSender {
 public:
  enum class State : uint8_t { Sending, Paused, Done, Failed };

  // `data` is the concatenation of the series' Admin Data Areas.
  MpSender(const MpSenderConfig& cfg, std::vector<uint8_t> data);

  bool can_send() const { return state_ == State::Sending; }
  // Sends the next permitted packet (Send action) if can_send(); arms the
  // Response Timeout at `now_ps` after the window's last or the Last packet;
  // a single packet is followed by Complete. False if nothing may go now.
  bool send_next(uint64_t now_ps, std::vector<MpAction>& out);
  // An Ack, Resend (or anything else, counted as discarded) from the receiver.
  void on_packet(const MpPacket& p, uint64_t now_ps, std::vector<MpAction>& out);
  // Call when now_ps >= deadline_ps() (earlier calls do nothing).
  void on_timer(uint64_t now_ps, std::vector<MpAction>& out);
  // A KeepAlive packet to send (counted).
  MpPacket keepalive();

  // Replaces the data of the segments not yet sent: the new data is the first
  // committed_bytes() of the old one followed by `tail`. False (nothing
  // changed) once the Last packet has been sent.
  bool replace_tail(const std::vector<uint8_t>& tail);
  std::size_t committed_bytes() const;  // bytes of the segments sent at least once

  uint64_t deadline_ps() const { return deadline_; }
  State state() const { return state_; }
  uint32_t segments() const { return segments_; }       // N as it stands now
  uint32_t acknowledged() const { return acked_; }      // highest segment acknowledged
  uint16_t window() const { return window_; }           // current window
  std::size_t total_bytes() const { return data_.size(); }
  const MpStats& stats() const { return stats_; }

 private:
  MpPacket make_data(uint32_t seg);
  void recount();
  void pause_or_go(uint64_t now_ps);
  void acknowledge(uint32_t k, uint16_t w);

  MpSenderConfig cfg_;
  std::vector<uint8_t> data_;
  State state_ = State::Sending;
  uint32_t segments_ = 1;      // N
  uint32_t next_ = 1;          // next segment to send
  uint32_t highest_sent_ = 0;  // highest segment sent at least once
  uint32_t acked_ = 0;         // highest segment acknowledged
  uint32_t window_end_ = 0;    // last segment the window allows
  uint16_t window_ = 0;        // current effective window
  bool single_ = false;        // the series went as one packet, segment 0
  uint32_t first_payload_ = 0; // Payload Length of segment 1 as first sent
  unsigned retries_ = 0;       // Response Timeouts since the last progress
  uint64_t deadline_ = kMpNever;
  MpStats stats_;
};

struct MpReceiverConfig {
  MpRole role = MpRole::Response;
  uint64_t response_timeout_ps = sa_response_timeout_ps(0, 0);  // ps: wait for the first response
  uint64_t segment_timeout_ps = sa_segment_timeout_ps(0, 0);    // ps: wait between packets
  unsigned max_retries = kSaMaxRetries;   // request retries before failing (<= 7)
  unsigned max_resends = kSaMaxResends;   // Resends for one missing segment before failing (<= 7)
  uint16_t request_window = ib::kDefaultSaWindow;  // Window the requester puts in its request (Response role)
  uint16_t ack_window = ib::kDefaultSaWindow;      // Window put in every Ack
};

class MpReceiver {
 public:
  enum class State : uint8_t { Idle, AwaitingFirst, Receiving, Done, Failed };

  explicit MpReceiver(const MpReceiverConfig& cfg);

  // Requester: the request has been sent at now_ps; arms the Response Timeout.
  void start_request(uint64_t now_ps);
  // A Data, KeepAlive or Error packet of the transaction. In Idle (the SA
  // receiving a Config request) the first data packet starts the stream.
  void on_packet(const MpPacket& p, uint64_t now_ps, std::vector<MpAction>& out);
  // Call when now_ps >= deadline_ps() (earlier calls do nothing).
  void on_timer(uint64_t now_ps, std::vector<MpAction>& out);

  uint16_t request_window() const { return cfg_.request_window; }  // for the request MAD's Window
  uint64_t deadline_ps() const { return deadline_; }
  State state() const { return state_; }
  const std::vector<uint8_t>& data() const { return data_; }  // reassembled so far / delivered
  uint32_t announced_total() const { return announced_total_; }  // segment 1's Payload Length
  uint32_t expected() const { return expected_; }  // next segment expected
  const MpStats& stats() const { return stats_; }

 private:
  void accept(const MpPacket& p, uint64_t now_ps, std::vector<MpAction>& out);
  void send_ack(uint32_t seg, std::vector<MpAction>& out);
  void segment_error(uint64_t now_ps, std::vector<MpAction>& out);
  void fail(std::vector<MpAction>& out);

  MpReceiverConfig cfg_;
  State state_ = State::Idle;
  std::vector<uint8_t> data_;
  uint32_t expected_ = 1;       // next segment expected
  uint32_t last_acked_ = 0;     // segment of the last Ack sent
  uint32_t window_end_ = 0;     // segment after which an Ack is due
  uint32_t announced_total_ = 0;
  bool resend_pending_ = false; // a Resend of expected_ is out; later segments are discarded
  unsigned resends_ = 0;        // Resends for expected_
  unsigned retries_ = 0;        // request retries
  uint64_t deadline_ = kMpNever;
  MpStats stats_;
};

}  // namespace hcasim::mgmt
