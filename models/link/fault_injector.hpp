#pragma once
// Per-link fault injection as plain logic (no SystemC): for each data packet
// that arrives over one direction of a link, decides whether it passes, is
// lost, or arrives corrupted. The receiving port asks on arrival, before any
// other check, and discards what is not Pass.
//
// Rules:
// - Judged: data packets (everything with an LRH, VL15 included). Flow-control
//   packets never are (the model's choice): they carry no transport data, and
//   a lost one is healed by the next one's FCTBS anyway, so faulting them
//   would only shift credit timing. A discarded packet does not count in the
//   receiver's ABR (credits.hpp), so the credits stay correct and the sender's
//   next flow-control packet resynchronises them.
// - Order for one packet: the targeted rules, then the random drop, then the
//   bit errors; the first that hits decides. The random draws are made for
//   every judged packet whatever the rules decide, so a rule changes the fate
//   of the packets it hits and of no other.
// - Targeted rule: counts the packets that match all of its filters (BTH
//   opcode, PSN, DestQP; LRH VL, DLID; the MAD fields of mad_filter.hpp; an
//   absent filter matches anything, a packet without a BTH, LNH raw or IP,
//   matches no BTH filter, and a packet that carries no MAD no MAD filter),
//   from 1. It hits matches nth .. nth+count-1, or, with `every`, every match
//   from the nth on. Each rule counts on its own, packets other rules hit
//   included, and each link direction on its own: a rule given to every link
//   of a switched path hits the nth match of each hop.
// - A hit does the rule's action: drop (the packet is lost), delay (the
//   receiver hands it to its upper layer delay_ps later than it would) or
//   duplicate (the upper layer gets a copy right after it). The port carries
//   out delay and duplicate (port.hpp); the injector only decides.
// - Random drop: each packet is lost with probability drop_rate.
// - Bit errors: each bit of the packet's wire bytes (LRH..VCRC, B bytes; the
//   framing delimiters are not modelled as bits) flips independently with
//   probability BER, so a packet is corrupted with probability
//   1 - (1 - BER)^(8B). The injector draws the position of the first flipped
//   bit (geometric: the packet is corrupted when it falls inside it) and the
//   gaps to the next ones, encodes the packet (codec.hpp), flips those bits
//   and decodes the bytes: the verdict carries the DecodeError the receiver
//   finds (the VCRC, checked first after the length, catches every single-bit
//   error; BadIcrc or a length or header error otherwise). A corruption both
//   CRCs miss (odds near 2^-48) decodes clean: the packet passes, counted as
//   undetected. Only corrupted packets pay for the encode.
// - Determinism: each direction of a link has its own splitmix64 stream,
//   seeded by fault_stream_seed(config seed, receiving port's name); a run is
//   reproducible and one link's faults do not depend on other links' traffic.

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "models/ib/codec.hpp"
#include "models/ib/packet.hpp"
#include "models/link/mad_filter.hpp"
#include "models/link/splitmix.hpp"

namespace hcasim::link {

// What a targeted rule does to the packets it hits.
enum class RuleAction : uint8_t { Drop, Delay, Duplicate };
const char* to_string(RuleAction a);

// One targeted rule (kept under its historical name: "drops" in the config);
// the filters left empty match any packet.
struct DropRule {
  RuleAction action = RuleAction::Drop;
  uint64_t delay_ps = 0;            // Delay: how much later the upper layer gets the packet; > 0
  uint64_t nth = 1;                 // 1-based: the first matching packet hit
  uint64_t count = 1;               // consecutive matches hit from the nth on
  bool every = false;               // hit every match from the nth on (count unused)
  std::optional<uint8_t> opcode;    // BTH opcode (opcodes.hpp); empty = any
  std::optional<uint32_t> psn;      // BTH PSN, 24 bits; empty = any
  std::optional<uint32_t> dest_qp;  // BTH DestQP, 24 bits; empty = any
  std::optional<uint8_t> vl;        // LRH VL on this link, 0-15; empty = any
  std::optional<uint16_t> dlid;     // LRH DLID; empty = any
  MadFilter mad;                    // MAD fields (mad_filter.hpp); empty = any
  bool operator==(const DropRule& o) const;
};

struct FaultConfig {
  double drop_rate = 0;          // probability that a data packet is lost, 0-1
  double bit_error_rate = 0;     // BER: probability that one bit on the wire flips, 0-1
  uint64_t seed = 0;             // base seed of the fault streams; 0 = the run's seed (scenario runs)
  std::vector<DropRule> drops;   // targeted drops, for exact tests
  // Whether anything can be faulted (a port with nothing keeps no injector).
  bool enabled() const { return drop_rate > 0 || bit_error_rate > 0 || !drops.empty(); }
  bool operator==(const FaultConfig& o) const;
};

// The seed of the stream of the link direction that ends at `receiver` (a port
// name): splitmix64 of the base seed, salted, mixed with the name's FNV-1a.
uint64_t fault_stream_seed(uint64_t base_seed, std::string_view receiver);

enum class FaultAction : uint8_t { Pass, DropTargeted, DropRandom, Corrupt, Delay, Duplicate };

struct Verdict {
  FaultAction action = FaultAction::Pass;
  ib::DecodeError error = ib::DecodeError::None;  // Corrupt: what the receiver's decode found
  int rule = -1;                                  // DropTargeted, Delay, Duplicate: index of the rule that hit it
  uint64_t delay_ps = 0;                          // Delay: the rule's delay
};

constexpr std::size_t kDecodeErrorCount = static_cast<std::size_t>(ib::DecodeError::ReservedFcpOp) + 1;

struct FaultStats {
  uint64_t judged = 0;       // data packets judged
  uint64_t targeted = 0;     // dropped by a rule
  uint64_t delayed = 0;      // delayed by a rule
  uint64_t duplicated = 0;   // delivered twice by a rule
  uint64_t random = 0;       // dropped by drop_rate
  uint64_t corrupted = 0;    // caught by the receiver's decode
  uint64_t undetected = 0;   // corrupted but decoded clean: passed
  uint64_t bits_flipped = 0; // in the packets counted as corrupted
  std::array<uint64_t, kDecodeErrorCount> by_error{};  // corrupted, by DecodeError
};

class FaultInjector {
 public:
  FaultInjector(FaultConfig config, uint64_t stream_seed);

  Verdict judge(const ib::Packet& p);

  const FaultConfig& config() const { return config_; }
  const FaultStats& stats() const { return stats_; }
  uint64_t matches(std::size_t rule) const { return matched_[rule]; }  // packets the rule matched so far
  uint64_t hits(std::size_t rule) const { return hit_[rule]; }         // packets the rule acted on so far
  // 1 - (1 - BER)^(8 x wire_bytes), computed without cancellation.
  double corruption_probability(uint32_t wire_bytes) const;

 private:
  uint64_t next();       // splitmix64
  double uniform();      // [0, 1), 53 bits
  uint64_t bit_gap();    // bits before the next flipped one (geometric); UINT64_MAX = beyond any packet
  bool rule_matches(const DropRule& r, const ib::Packet& p) const;
  ib::DecodeError corrupt(const ib::Packet& p);  // flips flips_ in p's wire bytes and decodes them

  FaultConfig config_;
  SplitMix64 rng_;
  double log_keep_ = 0;              // log(1 - BER)
  std::vector<uint64_t> matched_;    // per rule
  std::vector<uint64_t> hit_;        // per rule
  std::vector<uint64_t> flips_;      // bit positions of this packet's errors
  std::vector<uint8_t> wire_;        // scratch: the encoded packet
  ib::Packet decoded_;               // scratch: the receiver's decode
  FaultStats stats_;
};

}  // namespace hcasim::link
