#pragma once
// A switch's adaptive routing (AR) as plain logic: per packet, one port of
// the DLID's AR group, the minimum-hop ports towards its destination
// (docs/adaptive-routing.md). NVIDIA's switches choose among an AR group's
// ports per packet ("free") or bind a flow to one until it has been idle for
// an ageing time ("bounded", 30 us by default); their group tables are not
// public, so the rules here are hcasim's.
//
// Rules:
// - A data packet is routed adaptively when AR is on, its SL is in the SL
//   mask and the switch has a group for its DLID; otherwise the LFT routes
//   it (so do VL15 packets and packets to switches' own LIDs).
// - Choice among the group's ports, by `load(port)` (the caller's queued bytes
//   towards that port on the packet's output VL):
//   - least_queued: the least loaded port; ties go round the group from the
//     port after the last choice (a rotating start, so an idle fabric spreads);
//   - random: one port, uniformly (a seeded splitmix64 stream per switch);
//   - least_queued_of_k: k ports drawn with replacement, the least loaded of
//     them (the first drawn on a tie): "the power of k choices".
// - free: every packet chooses. bounded: a flow (SLID, DLID) chooses when it
//   has no port yet or its last packet passed more than `ageing` ago;
//   otherwise it keeps its port, so a burst never reorders here.
// - Statistics: `routed` counts adaptively routed packets, `reroutes` those
//   whose port differs from the previous packet of the same flow through this
//   switch (each may overtake or be overtaken: a possible reordering).
// - In band (ib/ar_attributes.hpp), a switch built AR-capable starts with mode
//   off and no group; the SM's Sets give it its groups (a group is a port set,
//   a LID names a group), then its settings. A LID whose group has no port is
//   routed by the LFT. New settings forget every flow. At most kArGroupCap
//   groups (group 0, "none", included).

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "models/link/splitmix.hpp"

namespace hcasim::sw {

enum class ArMode : uint8_t { Off, Free, Bounded };
enum class ArChoice : uint8_t { LeastQueued, Random, LeastQueuedOfK };

constexpr unsigned kArGroupCap = 2048;  // model: groups a switch holds (ArInfo.GroupCap)

struct AdaptiveRoutingConfig {
  ArMode mode = ArMode::Off;
  uint16_t sl_mask = 0xFFFF;          // bit s: SL s is routed adaptively
  ArChoice choice = ArChoice::LeastQueued;
  uint32_t k = 2;                     // least_queued_of_k: ports drawn per choice (>= 1)
  uint64_t ageing_ps = 30'000'000;    // bounded: a flow idle this long chooses again (NVIDIA's default 30 us)
  uint64_t seed = 0;                  // the run's seed; each switch mixes in its own salt
};

// A switch's AR groups: the group of each DLID, and each group's ports.
struct ArGroupTable {
  std::vector<uint16_t> of_lid;             // LID -> group; 0 = none (the LFT routes it)
  std::vector<std::vector<uint8_t>> ports;  // group -> its port numbers, ascending; group 0 empty
  uint16_t group(uint16_t dlid) const { return dlid < of_lid.size() ? of_lid[dlid] : 0; }
};

struct ArStats {
  uint64_t routed = 0;    // packets routed adaptively
  uint64_t reroutes = 0;  // of those, a flow's packet on another port than its previous
};

class AdaptiveRouter {
 public:
  // Throws std::invalid_argument for k of 0, more than kArGroupCap groups, a
  // group with no port, or a LID naming a group that does not exist. Mode off:
  // no packet is routed adaptively until set_settings turns it on.
  AdaptiveRouter(const AdaptiveRoutingConfig& config, ArGroupTable groups, uint64_t salt);

  // The group of a data packet, or 0 when the LFT routes it.
  uint16_t group(uint16_t dlid, uint8_t sl) const {
    if ((sl_mask_ >> (sl & 0xF) & 1) == 0) return 0;
    const uint16_t g = groups_.group(dlid);
    return groups_.ports[g].empty() ? 0 : g;
  }
  // In band (see the rules). set_settings keeps the seed; throws for k of 0.
  // set_group and set_lid_groups throw for a group at or above kArGroupCap.
  void set_settings(const AdaptiveRoutingConfig& settings);
  void set_group(uint16_t g, std::vector<uint8_t> ports);
  void set_lid_groups(uint16_t first_lid, const uint16_t* groups, unsigned count);
  // The port (number) of group g (nonzero) for a packet of flow (slid, dlid)
  // at time now_ps; load(port) -> queued bytes.
  template <class Load>
  uint8_t choose(uint16_t g, uint16_t slid, uint16_t dlid, uint64_t now_ps, Load&& load);

  const ArStats& stats() const { return stats_; }
  const AdaptiveRoutingConfig& config() const { return config_; }
  const ArGroupTable& groups() const { return groups_; }
  // Flows this switch remembers (bounded mode's bindings and reroute counting).
  std::size_t flows() const { return flows_.size(); }

 private:
  struct Flow {
    uint8_t port = 0;        // its last port; 0 = none yet
    uint64_t last_ps = 0;    // its last packet
  };
  template <class Load>
  uint8_t pick(uint16_t g, Load&& load);
  void reach_group(uint16_t g);  // groups 0..g exist (new ones empty)

  AdaptiveRoutingConfig config_;
  uint16_t sl_mask_ = 0;                        // the SLs routed adaptively; 0 while mode is off
  ArGroupTable groups_;
  link::SplitMix64 rng_;
  std::vector<uint8_t> next_start_;             // group -> where least_queued's tie search starts
  std::unordered_map<uint32_t, Flow> flows_;    // (slid << 16 | dlid) -> its record
  ArStats stats_;
};

template <class Load>
uint8_t AdaptiveRouter::pick(uint16_t g, Load&& load) {
  const std::vector<uint8_t>& group = groups_.ports[g];
  const auto n = static_cast<uint32_t>(group.size());
  if (n == 1) return group[0];
  if (config_.choice == ArChoice::Random) return group[rng_.below(n)];
  if (config_.choice == ArChoice::LeastQueuedOfK) {
    uint8_t best = group[rng_.below(n)];
    uint64_t least = load(best);
    for (uint32_t i = 1; i < config_.k; ++i) {
      const uint8_t p = group[rng_.below(n)];
      const uint64_t l = load(p);
      if (l < least) best = p, least = l;
    }
    return best;
  }
  // least_queued: round the group from its rotating start; an idle port ends the search.
  uint8_t& start = next_start_[g];
  uint32_t best = start;
  uint64_t least = load(group[best]);
  for (uint32_t i = 1; i < n && least != 0; ++i) {
    const uint32_t at = (start + i) % n;
    const uint64_t l = load(group[at]);
    if (l < least) best = at, least = l;
  }
  start = static_cast<uint8_t>((best + 1) % n);
  return group[best];
}

template <class Load>
uint8_t AdaptiveRouter::choose(uint16_t g, uint16_t slid, uint16_t dlid, uint64_t now_ps, Load&& load) {
  ++stats_.routed;
  Flow& f = flows_[uint32_t{slid} << 16 | dlid];
  if (config_.mode == ArMode::Bounded && f.port != 0 && now_ps - f.last_ps <= config_.ageing_ps) {
    f.last_ps = now_ps;
    return f.port;
  }
  const uint8_t port = pick(g, load);
  if (f.port != 0 && f.port != port) ++stats_.reroutes;
  f.port = port;
  f.last_ps = now_ps;
  return port;
}

}  // namespace hcasim::sw
