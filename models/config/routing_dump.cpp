#include "models/config/routing_dump.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <tuple>

#include "models/mgmt/port_codes.hpp"
#include "models/routing/opensm_order.hpp"

namespace hcasim::config {

namespace {

using topology::NodeKind;

template <class... Args>
std::string printf_string(const char* format, Args... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, format, args...);
  return buf;
}

struct Port {
  unsigned node;
  unsigned port;  // 0 for a switch
};

class Dumper {
 public:
  explicit Dumper(const FabricSpec& spec) : spec_(spec), peer_(spec.nodes.size()), link_(spec.nodes.size()) {
    for (unsigned n = 0; n < spec.nodes.size(); ++n) {
      peer_[n].assign(spec.nodes[n].ports.size() + 1, {UINT32_MAX, 0});
      link_[n].assign(spec.nodes[n].ports.size() + 1, -1);
    }
    for (std::size_t i = 0; i < spec.links.size(); ++i) {
      const LinkSpec& l = spec.links[i];
      peer_[l.node_a][l.port_a + 1] = {l.node_b, l.port_b + 1};
      peer_[l.node_b][l.port_b + 1] = {l.node_a, l.port_a + 1};
      link_[l.node_a][l.port_a + 1] = link_[l.node_b][l.port_b + 1] = static_cast<int>(i);
    }
    const unsigned per_port = 1u << spec.lmc;
    for (unsigned n = 0; n < spec.nodes.size(); ++n) {
      const NodeSpec& node = spec.nodes[n];
      for (std::size_t i = 0; i < node.lids.size(); ++i) {
        if (node.lids[i] == 0) continue;
        const unsigned count = node.kind == NodeKind::Switch ? 1 : per_port;
        const unsigned port = node.kind == NodeKind::Switch ? 0 : static_cast<unsigned>(i + 1);
        top_ = std::max<unsigned>(top_, node.lids[i] + count - 1);
        if (owner_.size() <= top_) owner_.resize(top_ + 1, {UINT32_MAX, 0});
        for (unsigned k = 0; k < count; ++k) owner_[node.lids[i] + k] = {n, port};
      }
      order_.push_back(n);
    }
    std::sort(order_.begin(), order_.end(), [this](unsigned a, unsigned b) {
      const uint64_t ga = node_guid(spec_, a), gb = node_guid(spec_, b);
      return ga != gb ? routing::guid_table_less(ga, gb) : a < b;
    });
    const auto& m = spec.management;
    if (m.sm_node < spec.nodes.size() && m.sm_port >= 1 && m.sm_port <= spec.nodes[m.sm_node].lids.size())
      sm_lid_ = spec.nodes[m.sm_node].lids[m.sm_port - 1];
  }

  std::string lfts() const {
    std::string out;
    for (unsigned n : order_) {
      const NodeSpec& node = spec_.nodes[n];
      if (node.kind != NodeKind::Switch || lid(n, 0) == 0) continue;
      out += printf_string("Unicast lids [0-%u] of switch Lid %u guid 0x%016llx ('%s'):\n", top_, lid(n, 0),
                           guid(n), desc(n)) ;
      for (unsigned l = 0; l <= top_ && l < node.lft.size(); ++l) {
        const unsigned port = node.lft[l];
        if (port > node.ports.size()) continue;  // unrouted (0xFF), as OpenSM skips ports >= num_ports
        out += printf_string("0x%04x %03u # ", l, port);
        const Port o = l < owner_.size() ? owner_[l] : Port{UINT32_MAX, 0};
        if (o.node == UINT32_MAX) {
          out += "unknown node and type\n";
        } else {
          const NodeSpec& on = spec_.nodes[o.node];
          out += printf_string("%s portguid 0x%016llx: '%s'\n",
                               on.kind == NodeKind::Switch ? "Switch" : "Channel Adapter", port_guid(o),
                               desc(o.node));
        }
      }
      out += printf_string("%u lids dumped\n", top_);
    }
    return out;
  }

  std::string subnet() const {
    std::string out;
    for (unsigned n : order_) {
      if (lid_of_node(n) == 0) continue;  // not found by the SM
      for (unsigned p = 1; p < peer_[n].size(); ++p) {
        const Port far = peer_[n][p];
        if (far.node == UINT32_MAX) continue;
        out += end(n, p, false) + end(far.node, far.port, true);
        const link::LinkConfig& c = spec_.links[link_[n][p]].config;
        out += printf_string("PHY=%s LOG=ACT SPD=%s\n", width(c.width), speed(c.speed));
      }
    }
    return out;
  }

  std::string sl2vl() const {
    std::vector<Port> ports;
    for (unsigned n = 0; n < spec_.nodes.size(); ++n) {
      if (spec_.nodes[n].kind == NodeKind::Switch) {
        if (lid(n, 0) != 0) ports.push_back({n, 0});
      } else {
        for (unsigned p = 1; p <= spec_.nodes[n].ports.size(); ++p)
          if (lid(n, p) != 0) ports.push_back({n, p});
      }
    }
    std::sort(ports.begin(), ports.end(), [this](const Port& a, const Port& b) {
      const uint64_t ga = port_guid(a), gb = port_guid(b);
      return ga != gb ? routing::guid_table_less(ga, gb) : std::tie(a.node, a.port) < std::tie(b.node, b.port);
    });
    const std::string separator = "#--------------------------------------------------------";
    std::string out;
    for (const Port& e : ports) {
      const NodeSpec& node = spec_.nodes[e.node];
      const bool is_switch = node.kind == NodeKind::Switch;
      out += printf_string("%s 0x%016llx, base LID %d, \"%s\"\n", is_switch ? "Switch" : "Channel Adapter",
                           port_guid(e), lid(e.node, e.port), desc(e.node));
      out += "#in out : 0  1  2  3  4  5  6  7  8  9  10 11 12 13 14 15\n" + separator + "\n";
      const unsigned last = static_cast<unsigned>(node.ports.size());
      if (is_switch) {
        for (unsigned o = 1; o <= last; ++o) {
          if (peer_[e.node][o].node == UINT32_MAX) continue;
          for (unsigned in = 0; in <= last; ++in) out += sl2vl_line(in, o, sl2vl_table(spec_, e.node, in, o));
        }
      } else {
        out += sl2vl_line(0, 0, sl2vl_table(spec_, e.node, 0, e.port));
      }
      out += separator + "\n\n";
    }
    return out;
  }

 private:
  unsigned lid(unsigned n, unsigned port) const {
    const NodeSpec& node = spec_.nodes[n];
    const std::size_t i = node.kind == NodeKind::Switch ? 0 : port - 1;
    return i < node.lids.size() ? node.lids[i] : 0;
  }
  unsigned lid_of_node(unsigned n) const {
    const NodeSpec& node = spec_.nodes[n];
    for (uint16_t l : node.lids)
      if (l != 0) return l;
    return 0;
  }
  const char* desc(unsigned n) const {
    const NodeSpec& node = spec_.nodes[n];
    return (node.description.empty() ? node.name : node.description).c_str();
  }
  unsigned long long guid(unsigned n) const { return node_guid(spec_, n); }
  unsigned long long port_guid(const Port& e) const {
    return spec_.nodes[e.node].kind == NodeKind::Switch ? guid(e.node) : guid(e.node) + e.port;
  }
  unsigned long long system_guid(unsigned n) const {
    return spec_.nodes[n].system_guid != 0 ? spec_.nodes[n].system_guid : guid(n);
  }

  // One end of a link, as dump_topology_node prints it.
  // remote: OpenSM prints the far end's VendorID with 8 digits and its DeviceID
  // (16 bits) through a 32-bit byte swap, i.e. shifted up 16 bits.
  std::string end(unsigned n, unsigned p, bool remote) const {
    const NodeSpec& node = spec_.nodes[n];
    const bool is_switch = node.kind == NodeKind::Switch;
    const unsigned l = lid(n, p);
    std::string s = printf_string("{ %s%s Ports:%02X SystemGUID:%016llx NodeGUID:%016llx PortGUID:%016llx VenID:",
                                  is_switch ? "SW" : "CA", l != 0 && l == sm_lid_ ? "-SM" : "",
                                  static_cast<unsigned>(node.ports.size()), system_guid(n), guid(n),
                                  port_guid({n, p}));
    s += printf_string(remote ? "%08X" : "%06X", kVendorId);
    const unsigned device = remote ? kDeviceId << 16 : kDeviceId;
    s += printf_string(" DevID:%04X Rev:%08X {%s} LID:%04X PN:%02X } ", device, 0u, desc(n), l, p);
    return s;
  }

  static std::string sl2vl_line(unsigned in, unsigned out, const std::array<uint8_t, 16>& table) {
    std::string s = printf_string("%-3d %-3d :", in, out);
    for (uint8_t vl : table) s += printf_string(" %-2d", vl);
    return s + "\n";
  }

  static const char* width(link::Width w) {
    switch (mgmt::width_code(w)) {
      case 1: return "1x";
      case 2: return "4x";
      case 4: return "8x";
      case 8: return "12x";
      case 16: return "2x";
      default: return "??";
    }
  }

  // OpenSM 3.3 names the extended speeds 14, 25 and 50 (FDR, EDR, HDR); NDR is "??".
  static const char* speed(link::Speed sp) {
    const mgmt::SpeedCodes c = mgmt::speed_codes(sp);
    switch (c.ext) {
      case 1: return "14";
      case 2: return "25";
      case 4: return "50";
      case 0: break;
      default: return "??";
    }
    switch (c.speed) {
      case 1: return "2.5";
      case 2: return "5";
      case 4: return "10";
      default: return "??";
    }
  }

  static constexpr unsigned kVendorId = 0x0002C9;  // the SMA's NodeInfo.VendorID (sma.hpp NodeIdentity)
  static constexpr unsigned kDeviceId = 0;         // and its DeviceID

  const FabricSpec& spec_;
  std::vector<std::vector<Port>> peer_;
  std::vector<std::vector<int>> link_;
  std::vector<Port> owner_;
  std::vector<unsigned> order_;
  unsigned top_ = 0;
  unsigned sm_lid_ = 0;
};

}  // namespace

OpensmDumps opensm_dumps(const FabricSpec& spec) {
  const Dumper d(spec);
  return {d.lfts(), d.subnet(), d.sl2vl()};
}

void write_opensm_dumps(const FabricSpec& spec, const std::string& dir) {
  const OpensmDumps d = opensm_dumps(spec);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  for (const auto& [name, text] : {std::pair{"opensm-lfts.dump", &d.lfts}, std::pair{"opensm-subnet.lst", &d.subnet},
                                   std::pair{"opensm-sl2vl.dump", &d.sl2vl}}) {
    const std::string path = (std::filesystem::path(dir) / name).string();
    std::ofstream f(path, std::ios::binary);
    f << *text;
    if (!f) throw std::runtime_error("cannot write " + path);
  }
}

std::string path_sl_dump(const topology::Topology& t, const routing::Lids& lids, const routing::Routes& routes) {
  if (!routes.has_path_sls()) return "";
  const topology::TopologyIndex index(t);
  std::vector<uint16_t> assigned;
  for (unsigned lid = 1; lid <= lids.top; ++lid)
    if (lids.owner[lid].node != topology::kNoNode) assigned.push_back(static_cast<uint16_t>(lid));
  std::string out = std::string("# SL of the path from SLID to DLID, as the SA answers a PathRecord (") +
                    routing::engine_name(routes.algorithm) + ")\n";
  out.reserve(out.size() + assigned.size() * assigned.size() * 16);
  char line[32];
  for (uint16_t s : assigned)
    for (uint16_t d : assigned) {
      std::snprintf(line, sizeof line, "0x%04x 0x%04x %u\n", s, d, routing::path_sl(t, index, lids, routes, s, d));
      out += line;
    }
  return out;
}

}  // namespace hcasim::config
