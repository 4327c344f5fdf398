#pragma once
// An SM's role among the SMs of one subnet, as plain logic (no SystemC): who
// is master, and when a standby takes over from a master that stopped
// answering (IBA 14.4; OpenSM osm_sm_state_mgr.c, osm_sm.h). Time is passed in;
// the caller sends the SubnGet(SMInfo) polls and feeds back their answers.
//
// Rules:
// - wins(a, b): a has the higher priority, or the same and the lower port GUID
//   (OpenSM osm_sm_is_greater_than).
// - An SM is NotActive until start(), then Discovering. found(other) during
//   its sweep (osm_sminfo_rcv.c): a Master, whatever its priority, or a
//   Discovering or Standby SM that wins against this one makes this one
//   Standby, polling it; otherwise sweep_done() makes this one Master. (A
//   higher-priority SM that finds a master stands by; the master hands over
//   to it when a later sweep of the master's finds it: handover.)
// - A standby polls its master every polling_ps (OpenSM sminfo_polling_timeout,
//   default 10 s): at each tick, if more than retries (OpenSM
//   polling_retry_number, default 4) polls have gone unanswered it takes over
//   (Discovering, then Master when its sweep is done); else it polls once more.
//   An answer (poll_answer) clears the count when it says Master, or Standby
//   from an SM that wins against this one (osm_sminfo_rcv.c; a Discovering
//   answer does not count). So a master that fails at t,
//   its last answered poll at tick t_k <= t, is taken over from at
//   t_k + (retries + 2) * polling_ps: no earlier than t + (retries + 1) *
//   polling_ps and no later than t + (retries + 2) * polling_ps, one polling
//   period wide (takeover_bounds).
// - handover(): a master hands over to a standby that wins against it (the
//   standby is told with SubnSet(SMInfo) Handover); it becomes Standby and
//   polls the new master. handover_received(): a standby told so becomes
//   Master at once and sweeps (osm_sm_state_mgr.c).

#include <cstdint>
#include <utility>

#include "models/ib/sm_info.hpp"

namespace hcasim::mgmt {

struct SmRoleConfig {
  uint8_t priority = 0;                          // 0-15, OpenSM sm_priority (default 0)
  uint64_t polling_ps = 10'000'000'000'000;      // OpenSM sminfo_polling_timeout, 10 s
  unsigned retries = 4;                          // OpenSM polling_retry_number
};

struct SmIdentity {
  uint64_t guid = 0;
  uint8_t priority = 0;
};

bool wins(const SmIdentity& a, const SmIdentity& b);

// The window (both ends included) in which a standby takes over from a
// master that fails at t; see the rules.
std::pair<uint64_t, uint64_t> takeover_bounds(const SmRoleConfig& c, uint64_t fail_ps);

class SmRole {
 public:
  enum class Action { None, Poll, TakeOver };

  SmRole(const SmRoleConfig& config, uint64_t guid);

  void start() {
    if (state_ == ib::SmState::NotActive) state_ = ib::SmState::Discovering;
  }
  ib::SmState state() const { return state_; }
  const SmIdentity& master() const { return master_; }  // the SM this one polls (standby)
  ib::SmInfo info(uint32_t act_count) const;             // what its SMA answers

  // During this SM's sweep: another SM's SMInfo.
  void found(const ib::SmInfo& other);
  // This SM's sweep is over: Master unless found() made it Standby. Returns the new state.
  ib::SmState sweep_done();
  // A standby's polling tick (every polling_ps): what to do.
  Action tick();
  // A standby's poll was answered with `answer` (see the rules).
  void poll_answer(const ib::SmInfo& answer);
  // A master hands over to `to` (which must win against it).
  bool handover(const SmIdentity& to);
  // A SubnSet(SMInfo) Handover arrived: a standby takes over (true).
  bool handover_received();
  unsigned unanswered() const { return unanswered_; }
  uint64_t polling_ps() const { return config_.polling_ps; }

 private:
  SmRoleConfig config_;
  SmIdentity self_;
  SmIdentity master_;
  ib::SmState state_ = ib::SmState::NotActive;
  unsigned unanswered_ = 0;
};

}  // namespace hcasim::mgmt
