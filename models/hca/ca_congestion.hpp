#pragma once
// A channel adapter port's congestion control (IBA Annex A10.2.2): what it
// does on a FECN it receives and on a BECN, and the injection delay of each
// QP or SL. Plain C++: the HCA and the raw-traffic generator call it with the
// time; the arithmetic is cc_injection.hpp's, whose rules apply.
//
// Rules:
// - A CCTI per QP, or per SL when CACongestionSetting.Port_Control says so
//   (key_of). Each uses its SL's CACongestionSetting entry. A raw-traffic
//   flow is a QP of its own, its key its flow index (a model choice: the flows
//   of one HCA share DestQP numbers).
// - becn(): the CCTI goes up by CCTI_Increase to CCTI_Limit
//   (ib::ccti_after_becn); a CCTI reaching Trigger_Threshold counts an event.
// - The CCTI timer is free running from time zero with period CCTI_Timer x
//   1.024 us: at every multiple of the period each CCTI of that SL's entry
//   goes down by 1 toward CCTI_Min (ib::ccti_after_timer). The expiries are
//   applied when the CCTI is next read or raised, so an idle CCTI costs no
//   event.
// - delay_ps(): the delay after a packet of transmission time T is the CCT
//   entry of the current CCTI applied to T (ib::cct_injection_delay_ps); it is
//   summed per key with the count of packets it was applied to.
// - FECN: a data packet arriving with FECN set is answered with BECN to its
//   source: an RC request in the response that acknowledges it (the
//   transport engine sets it: transport/congestion_hooks.hpp), every other
//   packet with a CNP (ib::op::kCnp) to its source QP: UC and UD (no ACK),
//   and an RC response (a READ response, ACK or atomic ACK: the requester has
//   no ACK to send). fecn_answer() says which; the HCA builds the CNP
//   (statistics: fecn_received, cnps_sent, becns_sent for responses). A CNP
//   or a BECN-carrying RC response received counts cnps_received or
//   becns_received and calls becn() for the QP it is addressed to.
// - As the transport engine's CongestionHooks, a QP's injection delay is
//   delay_ps() of key_of(qpn, sl).

#include <cstdint>
#include <vector>

#include "models/ib/cc_attributes.hpp"
#include "models/ib/cc_injection.hpp"
#include "models/transport/congestion_hooks.hpp"

namespace hcasim::hca {

struct CaCcStats {
  uint64_t fecn_received = 0;   // data packets that arrived with FECN
  uint64_t becns_sent = 0;      // BECNs returned in ACKs
  uint64_t cnps_sent = 0;       // CNPs returned
  uint64_t becns_received = 0;  // ACKs with BECN
  uint64_t cnps_received = 0;   // CNPs
  uint64_t trigger_events = 0;  // CCTIs that reached Trigger_Threshold
};

// One CCTI's record.
struct CctiState {
  uint16_t ccti = 0;
  uint8_t sl = 0;
  uint64_t timer_ticks = 0;     // expiries applied so far (now / period at the last read)
  uint64_t delay_sum_ps = 0;    // injection delays applied
  uint64_t delayed_packets = 0; // packets they were applied to
  uint16_t ccti_max = 0;        // highest CCTI reached
};

enum class FecnAnswer { AckBecn, Cnp };

class CaCongestionControl final : public transport::CongestionHooks {
 public:
  explicit CaCongestionControl(unsigned table_blocks = 4) : table_(table_blocks) {}

  // Sets of CACongestionSetting and CongestionControlTable (blocks of 64).
  void set_setting(const ib::CaCongestionSetting& s) { ib::apply_ca_setting(s, setting_); }
  bool set_table_block(uint32_t block, const ib::CongestionControlTable& t) { return table_.set_block(block, t); }
  // The whole table from CCTI 0 with its CCTI_Limit (the pre-configured mode).
  void set_table(const std::vector<ib::CctEntry>& entries, uint16_t ccti_limit);
  const ib::CaCongestionSetting& setting() const { return setting_; }
  const ib::CongestionControlTableState& table() const { return table_; }

  bool per_sl() const { return (setting_.port_control & ib::kCaPortControlPerSl) != 0; }
  // The key of a QP (or raw flow) on `sl`.
  uint32_t key_of(uint32_t qp, uint8_t sl) const { return per_sl() ? sl : qp; }

  void becn(uint32_t key, uint8_t sl, uint64_t now_ps);
  uint16_t ccti(uint32_t key, uint8_t sl, uint64_t now_ps);
  uint64_t delay_ps(uint32_t key, uint8_t sl, uint64_t packet_time_ps, uint64_t now_ps);
  static FecnAnswer fecn_answer(uint8_t opcode);

  // transport::CongestionHooks.
  uint64_t injection_delay_ps(uint32_t qpn, uint8_t sl, uint64_t packet_ps, uint64_t now_ps) override {
    return delay_ps(key_of(qpn, sl), sl, packet_ps, now_ps);
  }
  void becn_sent() override { ++stats_.becns_sent; }

  // The record of a key (null when it has none); its CCTI as of its last use.
  const CctiState* state(uint32_t key) const { return key < states_.size() && used_[key] ? &states_[key] : nullptr; }
  std::size_t keys() const { return states_.size(); }
  CaCcStats& stats() { return stats_; }
  const CaCcStats& stats() const { return stats_; }

 private:
  CctiState& at(uint32_t key, uint8_t sl, uint64_t now_ps);  // with the timer's expiries applied

  ib::CaCongestionSetting setting_;
  ib::CongestionControlTableState table_;
  std::vector<CctiState> states_;
  std::vector<bool> used_;
  CaCcStats stats_;
};

}  // namespace hcasim::hca
