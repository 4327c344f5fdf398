#pragma once
// Parameters of a switch's forwarding core (the ports have their own
// link::PortConfig). Defaults live here and nowhere else; models/config parses
// and validates them.

#include <cstdint>

namespace hcasim::sw {

enum class Forwarding { CutThrough, StoreAndForward };

// How the switch buffers what it has received before the crossbar
// (docs/switch-architectures.md):
// - InputFifo: one FIFO per input VL; only its head is routed and moved
//   (head-of-line blocking), crossbar at the output's rate (speedup 1);
// - Cioq: the same with a faster crossbar (speedup > 1), the packets it
//   brings early waiting in the output queues;
// - Voq: each input's buffer split per (output, output VL), credits still
//   per input VL; an input moves up to max_concurrent_reads packets at once.
// - Shared: the same queues in one pool of the switch's (shared_buffer_pool.hpp):
//   each input VL advertises a reserved share and a dynamic threshold's draw
//   on the rest; no limit on an input's reads (16 at once).
enum class Architecture { InputFifo, Cioq, Voq, Shared };

// switch.shared: the pool of a Shared switch.
struct SharedBufferConfig {
  uint64_t pool_bytes = 0;          // the pool; 0 = the ports' own receive buffers summed (every data VL's)
  uint64_t reserved_bytes = 8192;   // each input VL's own share of it
  double alpha = 1.0;               // the dynamic threshold's factor on the free shared space
};

struct SwitchConfig {
  Forwarding forwarding = Forwarding::CutThrough;  // forward once the LRH is in, or once the whole packet is
  uint64_t latency_ps = 100000;   // fixed forwarding latency (lookup and crossbar set-up), ps
  Architecture architecture = Architecture::InputFifo;
  double speedup = 1.0;           // crossbar rate as a multiple of the output port's data rate, >= 1
  uint32_t max_concurrent_reads = 1;  // voq: packets one input moves through the crossbar at once
  SharedBufferConfig shared;
  uint64_t hoq_life_ps = 0;       // HOQLife: longest wait at the head of an output VL queue, ps; 0 = no limit
  uint64_t switch_life_ps = 0;    // switch lifetime: longest time from arrival to transmission, ps; 0 = no limit
  uint32_t vl_stall_count = 0;    // VLStallCount: consecutive HOQ discards that stall a VL for 8 x HOQLife; 0 = never
};

}  // namespace hcasim::sw
