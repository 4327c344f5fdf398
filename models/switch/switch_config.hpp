#pragma once
// Parameters of a switch's forwarding core (the ports have their own
// link::PortConfig). Defaults live here and nowhere else; models/config parses
// and validates them.

#include <cstdint>

namespace hcasim::sw {

enum class Forwarding { CutThrough, StoreAndForward };

struct SwitchConfig {
  Forwarding forwarding = Forwarding::CutThrough;  // forward once the LRH is in, or once the whole packet is
  uint64_t latency_ps = 100000;   // fixed forwarding latency (lookup and crossbar set-up), ps
  double speedup = 1.0;           // crossbar rate as a multiple of the output port's data rate, >= 1
  uint64_t hoq_life_ps = 0;       // HOQLife: longest wait at the head of an output VL queue, ps; 0 = no limit
  uint64_t switch_life_ps = 0;    // switch lifetime: longest time from arrival to transmission, ps; 0 = no limit
  uint32_t vl_stall_count = 0;    // VLStallCount: consecutive HOQ discards that stall a VL for 8 x HOQLife; 0 = never
};

}  // namespace hcasim::sw
