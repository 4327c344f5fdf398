#pragma once
// Packet lifetimes at an output port, as plain logic (iba-facts 4 "Lifetimes").
//
// Rules:
// - HOQ lifetime: a packet that has been at the head of its VL's transmit queue
//   for longer than hoq_life is discarded ("hoq_lifetime").
// - Switch lifetime: a packet that has been in the switch longer than
//   switch_life, counted from its delivery to the switch's input port, is
//   discarded when it is at the head of its output queue ("switch_lifetime").
// - VL stall: after vl_stall_count consecutive HOQ discards on a VL (no packet
//   of that VL sent in between) the VL stalls for 8 x hoq_life: everything
//   queued or arriving for it is discarded ("vl_stalled"). Afterwards it starts
//   afresh.
// - A limit of 0 disables its mechanism; vl_stall_count 0 never stalls.
// Where both limits have passed, the one that passed first names the discard.

#include <algorithm>
#include <cstdint>

namespace hcasim::link {

constexpr uint64_t kVlStallLifetimes = 8;  // iba-facts 4: a stalled VL drops everything for 8 x HOQLife

struct Lifetimes {
  uint64_t hoq_life_ps = 0;     // longest wait at the head of a transmit queue, ps; 0 = no limit
  uint64_t switch_life_ps = 0;  // longest time from arrival at the switch to transmission, ps; 0 = no limit
  uint32_t vl_stall_count = 0;  // consecutive HOQ discards that stall a VL; 0 = never

  bool enabled() const { return hoq_life_ps != 0 || switch_life_ps != 0; }

  // When the head of a queue expires: it became the head at head_since_ps and
  // arrived at the switch at received_ps. UINT64_MAX = never.
  uint64_t deadline(uint64_t head_since_ps, uint64_t received_ps) const {
    return std::min(hoq_life_ps != 0 ? head_since_ps + hoq_life_ps : UINT64_MAX,
                    switch_life_ps != 0 ? received_ps + switch_life_ps : UINT64_MAX);
  }
  // Which limit a head that expired names: true = HOQ, false = switch lifetime.
  bool hoq_expired_first(uint64_t head_since_ps, uint64_t received_ps) const {
    if (hoq_life_ps == 0) return false;
    if (switch_life_ps == 0) return true;
    return head_since_ps + hoq_life_ps <= received_ps + switch_life_ps;
  }
};

// The stall state of one VL.
class VlStall {
 public:
  // A head was discarded for its HOQ lifetime at now_ps. Returns true when the
  // VL stalls from now on.
  bool on_hoq_discard(const Lifetimes& l, uint64_t now_ps) {
    if (l.vl_stall_count == 0) return false;
    if (++consecutive_ < l.vl_stall_count) return false;
    consecutive_ = 0;
    stalled_until_ps_ = now_ps + kVlStallLifetimes * l.hoq_life_ps;
    return true;
  }
  void on_sent() { consecutive_ = 0; }
  bool stalled(uint64_t now_ps) const { return now_ps < stalled_until_ps_; }
  uint64_t stalled_until_ps() const { return stalled_until_ps_; }
  uint32_t consecutive() const { return consecutive_; }

 private:
  uint32_t consecutive_ = 0;
  uint64_t stalled_until_ps_ = 0;
};

}  // namespace hcasim::link
