#pragma once
// Configuration of one port's link layer (the VL resources of IBA ch. 7 and
// seed 004). Defaults live here and nowhere else; models/config parses and
// validates them.

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "models/link/vl_arbiter.hpp"

namespace hcasim::link {

constexpr unsigned kSlCount = 16;  // seed 004 Table 25-2: 16 SL entries
// The largest buffer of one VL, receive or transmit: 1 GiB (a port keeps
// buffer occupancy in 32-bit counters).
constexpr uint64_t kMaxVlBufferBytes = uint64_t{1} << 30;

// Which implementation of a port block runs (testbench/rtl): the model's C++,
// the Verilated RTL, or the RTL with the C++ predicting its every answer.
enum class Implementation { Model, Rtl, RtlCheck };

struct PortConfig {
  uint32_t data_vls = 8;                   // VLCap as a count of data VLs: 1, 2, 4, 8 or 15
  uint32_t operational_vls = 0;            // OperationalVLs as a count, <= data_vls; 0 = all of data_vls
  uint32_t mtu = 4096;                     // largest payload, bytes: 256, 512, 1024, 2048, 4096
  uint64_t vl_buffer_bytes = 65536;        // receive buffer of each data VL, bytes
  std::vector<uint64_t> vl_buffers;        // per-VL receive buffer override, bytes (empty = vl_buffer_bytes)
  uint64_t vl15_buffer_bytes = 2048;       // VL15 receive buffer, bytes (not flow-controlled)
  uint64_t tx_buffer_bytes = 65536;        // transmit buffer of each VL, bytes
  std::vector<uint32_t> sl2vl;             // SL-to-VL table, 16 entries (empty = SL mod operational VLs)
  VlArbConfig vlarb;                       // arbitration tables (empty tables = every VL in low, weight 64)
  uint64_t drain_rate_bps = 0;             // HCA ports: rate the host takes packets from the receive buffers, b/s; 0 = at once
  Implementation vl_arbiter = Implementation::Model;      // the transmit VL arbiter: C++ or RTL
  Implementation credit_manager = Implementation::Model;  // the credit test and flow-control values: C++ or RTL

  uint32_t effective_vls() const { return operational_vls != 0 ? operational_vls : data_vls; }
};

// The defaults a PortConfig leaves open, made concrete for its VL count.
std::array<uint8_t, kSlCount> resolved_sl2vl(const PortConfig& c);
VlArbConfig resolved_vlarb(const PortConfig& c);
uint64_t rx_buffer_bytes(const PortConfig& c, unsigned vl);

bool operator==(const PortConfig& a, const PortConfig& b);
inline bool operator!=(const PortConfig& a, const PortConfig& b) { return !(a == b); }

// A port configuration and the arbitration tables it resolves to, shared by
// the ports that have it (a switch's ports mostly have one): a port keeps a
// pointer, not a copy of the configuration and its tables.
struct SharedPortConfig {
  explicit SharedPortConfig(const PortConfig& c) : config(c), vlarb(resolved_vlarb(c)) {}
  PortConfig config;
  VlArbConfig vlarb;
};
// One shared record per run of equal configurations in `configs` (in order).
std::vector<std::shared_ptr<const SharedPortConfig>> share_port_configs(const std::vector<PortConfig>& configs);

}  // namespace hcasim::link
