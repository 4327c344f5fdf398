#pragma once
// The one description of a switch's forwarding-core parameters (sw::SwitchConfig),
// used to read them strictly from JSON, write the resolved config and document them.

#include "models/config/config_io.hpp"
#include "models/switch/switch_config.hpp"

namespace hcasim::sw {

template <class Io>
void describe(Io& io, SwitchConfig& c) {
  io.choice("forwarding", c.forwarding,
            config::Names<Forwarding>{{"cut_through", Forwarding::CutThrough},
                                      {"store_and_forward", Forwarding::StoreAndForward}},
            "cut_through forwards once the LRH is in; store_and_forward once the whole packet is");
  io.time("latency", c.latency_ps, 0, 1000000000, "fixed forwarding latency (lookup and crossbar set-up)");
  io.real("speedup", c.speedup, 1.0, 16.0, "crossbar rate as a multiple of the output port's data rate");
  io.time("hoq_life", c.hoq_life_ps, 0, 10000000000000ull,
          "HOQLife: longest wait at the head of an output VL queue before discard (IBA: 4.096us x 2^value); 0ns = no limit");
  io.time("switch_life", c.switch_life_ps, 0, 10000000000000ull,
          "switch lifetime: longest time from arrival to transmission before discard; 0ns = no limit");
  io.uint("vl_stall_count", c.vl_stall_count, 0, 7,
          "VLStallCount: consecutive HOQ discards that stall a VL for 8 x hoq_life; 0 = never");
}

}  // namespace hcasim::sw
