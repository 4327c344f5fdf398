#pragma once
// The SMInfo attribute (SMP attribute 0x0020, iba-facts 6) as decoded fields,
// with encode/decode to its exact bytes. No SystemC.
//
// Rules (IBA 14.2.5.13; OpenSM ib_sm_info_t):
// - 24 bytes: GUID (bytes 0-7), SM_Key (8-15), ActCount (16-19), byte 20 =
//   Priority (7:4) and SMState (3:0), bytes 21-23 reserved (zero). Big-endian.
// - SMState: 0 NotActive, 1 Discovering, 2 Standby, 3 Master.
// - SubnSet(SMInfo) carries a control in its attribute modifier: 1 Handover,
//   2 Acknowledge, 3 Disable, 4 Standby, 5 Discover.

#include <cstdint>

namespace hcasim::ib {

enum class SmState : uint8_t { NotActive = 0, Discovering = 1, Standby = 2, Master = 3 };

enum class SmInfoControl : uint32_t { Handover = 1, Acknowledge = 2, Disable = 3, Standby = 4, Discover = 5 };

struct SmInfo {
  static constexpr unsigned kBytes = 24;
  uint64_t guid = 0;        // the SM's port GUID
  uint64_t sm_key = 0;      // returned as 0 to a requester without the key (IBA 14.2.5.13)
  uint32_t act_count = 0;   // counts the SM's SMPs; a standby watches it change
  uint8_t priority = 0;     // 0-15 (OpenSM sm_priority)
  SmState state = SmState::NotActive;
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);
  bool operator==(const SmInfo& o) const;
};

const char* to_string(SmState s);

}  // namespace hcasim::ib
