#pragma once
// The one description of a switch's forwarding-core parameters (sw::SwitchConfig),
// used to read them strictly from JSON, write the resolved config and document them.

#include "models/config/config_io.hpp"
#include "models/switch/switch_config.hpp"

namespace hcasim::sw {

template <class Io>
void describe(Io& io, SharedBufferConfig& c) {
  io.bytes("pool", c.pool_bytes, 0, uint64_t{1} << 40,
          "the switch's buffer pool; 0B = its ports' receive buffers summed over their data VLs");
  io.bytes("reserved", c.reserved_bytes, 64, uint64_t{1} << 30,
          "each input VL's own share of the pool (at least one packet of the port's MTU)");
  io.real("alpha", c.alpha, 1.0 / 64, 64.0,
          "the dynamic threshold: an input VL may draw alpha / (1 + alpha) of the shared space the others leave");
}

template <class Io>
void describe(Io& io, SwitchConfig& c) {
  io.choice("forwarding", c.forwarding,
            config::Names<Forwarding>{{"cut_through", Forwarding::CutThrough},
                                      {"store_and_forward", Forwarding::StoreAndForward}},
            "cut_through forwards once the LRH is in; store_and_forward once the whole packet is");
  io.time("latency", c.latency_ps, 0, 1000000000, "fixed forwarding latency (lookup and crossbar set-up)");
  io.choice("architecture", c.architecture,
            config::Names<Architecture>{{"input_fifo", Architecture::InputFifo},
                                        {"cioq", Architecture::Cioq},
                                        {"voq", Architecture::Voq},
                                        {"shared", Architecture::Shared}},
            "input_fifo: one FIFO per input VL, its head alone moves (head-of-line blocking); cioq: the same with a "
            "crossbar speedup (default 2), early packets waiting at the outputs; voq: each input buffer split per "
            "(output, VL), credits still per input VL; shared: the same queues in one pool per switch, each input VL "
            "advertising a reserved share and a dynamic threshold's draw on the rest (docs/switch-architectures.md)");
  io.real("speedup", c.speedup, 1.0, 16.0,
          "crossbar rate as a multiple of the output port's data rate (cioq, voq and shared; input_fifo: 1)");
  io.uint("max_concurrent_reads", c.max_concurrent_reads, 1, 16,
          "voq: packets one input moves through the crossbar at once (to different outputs)");
  io.object("shared", c.shared, "architecture shared: the switch's buffer pool");
  // Cross checks and cioq's default speedup, on reading only (present() is false when writing).
  if (io.present("architecture") && c.architecture == Architecture::Cioq && !io.present("speedup")) c.speedup = 2.0;
  if (c.architecture == Architecture::InputFifo && c.speedup != 1.0)
    io.fail("speedup", "input_fifo moves packets at the output's rate; accepted: 1, or architecture \"cioq\" "
                       "(or \"voq\") for a faster crossbar");
  if (c.architecture != Architecture::Voq && c.max_concurrent_reads != 1)
    io.fail("max_concurrent_reads", "applies only to architecture \"voq\"; accepted: architecture \"voq\"");
  io.time("hoq_life", c.hoq_life_ps, 0, 10000000000000ull,
          "HOQLife: longest wait at the head of an output VL queue before discard (IBA: 4.096us x 2^value); 0ns = no limit");
  io.time("switch_life", c.switch_life_ps, 0, 10000000000000ull,
          "switch lifetime: longest time from arrival to transmission before discard; 0ns = no limit");
  io.uint("vl_stall_count", c.vl_stall_count, 0, 7,
          "VLStallCount: consecutive HOQ discards that stall a VL for 8 x hoq_life; 0 = never");
}

}  // namespace hcasim::sw
