#pragma once
// An N-port IBA switch built from the same port link layer as the HCA
// (seed 004 "Example Scenario" steps 5-10; iba-facts 3 and 4).
//
// Rules (the implementation states the details next to the code):
// - Each port has per-VL receive buffers with credits (the link layer's) and
//   per-VL output queues served by that port's IBA VL arbiter.
// - Forwarding: LFT lookup on the DLID; no entry, kNoRoute or a DLID beyond the
//   table = drop "no_route" at the input port; output port 0 = the switch's own
//   management port (counted, consumed). Output VL from the (input port, output
//   port) SL-to-VL table; SL mapped to VL15 = drop at the input port. A payload
//   over the output port's MTU = drop at the output port.
// - Crossbar and allocator, cut-through / store-and-forward, latency, speedup,
//   HOQ and switch lifetimes: see switch_config.hpp and switch.cpp.

#include <systemc>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "models/ib/packet.hpp"
#include "models/link/port.hpp"
#include "models/switch/switch_config.hpp"

namespace hcasim::sw {

constexpr uint8_t kNoRoute = 0xFF;  // iba-facts 4: an unrouted LFT entry

struct SwitchStats {
  uint64_t forwarded = 0;       // packets moved through the crossbar
  uint64_t to_management = 0;   // packets whose LFT entry is port 0
};

class Switch : public sc_core::sc_module {
 public:
  // ports[i] configures port number i + 1.
  Switch(const sc_core::sc_module_name& name, const SwitchConfig& config, const std::vector<link::PortConfig>& ports,
         uint16_t lid, ib::PacketPool& pool);
  Switch() = delete;
  Switch(const Switch&) = delete;
  Switch& operator=(const Switch&) = delete;
  ~Switch() override;

  unsigned port_count() const;
  link::Port& port(unsigned number);              // 1..port_count()
  const link::Port& port(unsigned number) const;
  uint16_t lid() const { return lid_; }
  const SwitchConfig& config() const { return config_; }
  const SwitchStats& stats() const;

  // Forwarding state, installed by the builder at time zero (or later by an SM).
  void set_lft(std::vector<uint8_t> lft);        // output port by DLID
  // SL-to-VL table for packets entering at in_port (0 = from the management
  // port) and leaving at out_port.
  void set_sl2vl(unsigned in_port, unsigned out_port, const std::array<uint8_t, 16>& table);

 private:
  struct Impl;
  SwitchConfig config_;
  uint16_t lid_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hcasim::sw
