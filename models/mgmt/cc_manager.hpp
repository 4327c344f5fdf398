#pragma once
// The congestion control manager (IBA Annex A10.3; modelled on OpenSM's
// osm_congestion_control.c): after the SM's sweep it Sets every switch's
// SwitchCongestionSetting and every CA port's CACongestionSetting and
// Congestion Control Table through their CC agents (cc_agent.hpp). Time is
// passed in and MADs come out; cc_node.hpp sends them and hands back the
// answers. No SystemC.
//
// Rules:
// - setup() (OpenSM osm_congestion_control_setup, run after a successful
//   sweep): for each target, in the order given, skipping ports marked
//   cc-unavailable: a switch gets one Set(SwitchCongestionSetting, modifier
//   0) to its LID; a CA port one Set(CACongestionSetting, modifier 0) and
//   one Set(CongestionControlTable, modifier = block) per block of
//   config.cct (blocks 0..ccti_limit / 64), to the port's base LID. Each MAD:
//   class 0x21 version 2, CC_Key = config.cc_key, TIDs from 0x7A93 up
//   (OpenSM CONGESTION_CONTROL_INITIAL_TID_VALUE), 32 bits, never 0.
// - An item whose stored setting (below) equals what would be sent is not
//   sent again (OpenSM compares with memcmp; it forces an update when the
//   port or subnet needs one, which the model does not track).
// - At most config.max_outstanding MADs are outstanding (OpenSM
//   cc_max_outstanding_mads, default 500); the rest wait in order.
// - A MAD unanswered after config.timeout_ps is sent again, up to
//   config.retries times (OpenSM binds the CC class with transaction_timeout
//   and transaction_retries, as the SM's MADs); then it has timed out: the
//   port's timeout count goes up, and a port with more than
//   kCcTimeoutThreshold (OpenSM OSM_CC_TIMEOUT_COUNT_THRESHOLD 3) is marked
//   cc-unavailable.
// - An answer (matched by TID): status 0 stores its attribute data as the
//   port's current setting (the CCT per block) and clears the port's timeout
//   count; a status with UNSUP_CLASS_VER, UNSUP_METHOD or UNSUP_METHOD_ATTR
//   (the invalid-field code 1, 2 or 3) marks the port cc-unavailable; other
//   statuses are counted as errors. An answer with an unknown TID is ignored.

#include <cstdint>
#include <deque>
#include <map>
#include <utility>
#include <vector>

#include "models/ib/cc_attributes.hpp"
#include "models/ib/cc_mad.hpp"
#include "models/mgmt/subnet_view.hpp"

namespace hcasim::mgmt {

constexpr unsigned kCcTimeoutThreshold = 3;        // OpenSM OSM_CC_TIMEOUT_COUNT_THRESHOLD
constexpr uint64_t kCcInitialTid = 0x7A93;         // OpenSM CONGESTION_CONTROL_INITIAL_TID_VALUE
constexpr unsigned kCcMaxOutstanding = 500;        // OpenSM OSM_CC_DEFAULT_MAX_OUTSTANDING_QUERIES

struct CcManagerConfig {
  uint64_t cc_key = 0;                              // CC_Key of every MAD
  unsigned max_outstanding = kCcMaxOutstanding;     // MADs on the wire at once
  uint64_t timeout_ps = 200'000'000'000;            // per try (OpenSM transaction_timeout)
  unsigned retries = 3;                             // resends after the first try (transaction_retries)
  ib::SwitchCongestionSetting switch_setting;       // every switch
  ib::CaCongestionSetting ca_setting;               // every CA port
  std::vector<ib::CongestionControlTable> cct;      // every CA port: blocks 0.. (cc_table_blocks)
};

// The Congestion Control Table as the blocks a manager Sets: blocks
// 0..ccti_limit / 64 of `entries` (CCTI 0 upward), each with CCTI_Limit.
std::vector<ib::CongestionControlTable> cc_table_blocks(const std::vector<ib::CctEntry>& entries, uint16_t ccti_limit);

// A switch (port 0) or a CA port the manager configures.
struct CcTarget {
  uint64_t port_guid = 0;   // the key of its state (a switch: its node GUID)
  uint16_t lid = 0;         // where its MADs go (base LID)
  bool is_switch = false;
};

// What a sweep found, as the manager's targets, in the view's node order
// (NodeGUID; OpenSM walks its port GUID table): a switch at its LID, each CA
// port that has a LID at its base LID.
std::vector<CcTarget> cc_targets(const SubnetView& view);

struct CcSend {
  uint16_t dlid = 0;
  ib::CcMad mad;
};

struct CcManagerStats {
  uint64_t setups = 0;        // setup() calls
  uint64_t sent = 0;          // MADs sent, resends included
  uint64_t answered = 0;      // answers matched to a MAD
  uint64_t timeouts = 0;      // tries that expired unanswered
  uint64_t failed = 0;        // MADs given up after the retries
  uint64_t errors = 0;        // answers with a non-zero status
  uint64_t skipped = 0;       // items not sent: stored setting already equal
};

// What the manager knows of one port.
struct CcPortState {
  bool unavailable = false;
  unsigned timeout_count = 0;
  bool has_switch = false, has_ca = false;
  ib::SwitchCongestionSetting switch_setting;       // the last good answer
  ib::CaCongestionSetting ca_setting;
  std::map<uint32_t, ib::CongestionControlTable> cct;  // by block
};

class CcManager {
 public:
  explicit CcManager(CcManagerConfig config) : config_(std::move(config)) {}

  void setup(const std::vector<CcTarget>& targets, uint64_t now, std::vector<CcSend>& out);
  void on_response(const ib::CcMad& resp, uint64_t now, std::vector<CcSend>& out);
  void on_timer(uint64_t now, std::vector<CcSend>& out);
  // Earliest timeout of an outstanding MAD; UINT64_MAX when none.
  uint64_t deadline_ps() const;
  bool idle() const { return outstanding_.empty() && waiting_.empty(); }

  const CcManagerStats& stats() const { return stats_; }
  const CcPortState* port(uint64_t port_guid) const;
  unsigned unavailable_ports() const;
  const CcManagerConfig& config() const { return config_; }

 private:
  struct Item {
    CcSend send;
    uint64_t port_guid = 0;
    unsigned tries = 0;
    uint64_t deadline = UINT64_MAX;
  };
  void queue(uint64_t guid, uint16_t lid, uint16_t attr, uint32_t mod, const uint8_t* data, unsigned bytes);
  void pump(uint64_t now, std::vector<CcSend>& out);
  void store(CcPortState& p, const ib::CcMad& resp);
  uint64_t next_tid();

  CcManagerConfig config_;
  std::map<uint64_t, CcPortState> ports_;   // by port GUID
  std::deque<Item> waiting_;
  std::map<uint64_t, Item> outstanding_;    // by TID
  uint64_t tid_ = kCcInitialTid;
  CcManagerStats stats_;
};

}  // namespace hcasim::mgmt
