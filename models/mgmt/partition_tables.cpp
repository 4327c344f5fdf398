#include "models/mgmt/partition_tables.hpp"

#include <algorithm>
#include <cstdio>

#include "models/ib/pkey.hpp"
#include "models/mgmt/sma.hpp"

namespace hcasim::mgmt {

namespace {

using topology::NodeKind;

constexpr uint16_t kDefaultBase = ib::kDefaultPkeyLimited;  // the default partition, base 0x7FFF

// What one end port is a member of.
struct Held {
  std::vector<uint16_t> bases;     // in order of first appearance
  std::map<uint16_t, bool> full;   // base -> full member
  uint16_t indx0 = 0;              // base an indx0 rule puts first (0 = none)
};

std::string where(const PartitionsSpec& spec, const PartitionRule& r) {
  return spec.source + (r.line != 0 ? " line " + std::to_string(r.line) : std::string(" (implicit Default rule)"));
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

std::vector<NodePartitions> partition_tables(const PartitionsSpec& spec, const topology::Topology& graph,
                                             const std::vector<uint64_t>& guids, unsigned sm_node, unsigned sm_port) {
  const std::vector<topology::TopoNode>& nodes = graph.nodes;
  std::vector<NodePartitions> out(nodes.size());
  std::vector<std::vector<Held>> held(nodes.size());
  for (unsigned n = 0; n < nodes.size(); ++n) {
    out[n].pkeys.assign(nodes[n].ports + 1, ib::default_pkey_table());
    out[n].enforce_in.assign(nodes[n].ports + 1, false);
    out[n].enforce_out.assign(nodes[n].ports + 1, false);
    held[n].resize(nodes[n].ports + 1);
  }
  if (spec.rules.empty()) return out;

  std::vector<PartitionRule> rules = spec.rules;
  if (std::none_of(rules.begin(), rules.end(), [](const PartitionRule& r) { return ib::pkey_base(r.pkey) == kDefaultBase; })) {
    PartitionRule d;
    d.name = "Default";
    d.pkey = kDefaultBase;
    d.members = {{MemberKind::All, 0, "", Membership::Limited}, {MemberKind::Self, 0, "", Membership::Full}};
    rules.push_back(d);
  }

  for (const PartitionRule& r : rules) {
    const uint16_t base = ib::pkey_base(r.pkey);
    if (base == 0) throw std::invalid_argument(where(spec, r) + ": P_Key " + hex(r.pkey) + " is invalid (its low 15 bits are 0)");
    auto add = [&](unsigned n, unsigned port, Membership m) {
      Held& h = held[n][port];
      const bool full = m != Membership::Limited;
      auto [it, fresh] = h.full.emplace(base, full);
      if (fresh) h.bases.push_back(base);
      else it->second = it->second || full;
      if (r.indx0 && h.indx0 == 0) h.indx0 = base;
    };
    for (const PartitionMember& mem : r.members) {
      const Membership m = mem.membership.value_or(r.defmember);
      switch (mem.kind) {
        case MemberKind::All:
        case MemberKind::AllCas:
        case MemberKind::AllSwitches:
          for (unsigned n = 0; n < nodes.size(); ++n) {
            const bool sw = nodes[n].kind == NodeKind::Switch;
            if ((sw && mem.kind == MemberKind::AllCas) || (!sw && mem.kind == MemberKind::AllSwitches)) continue;
            if (sw) add(n, 0, m);
            else
              for (unsigned p = 1; p <= nodes[n].ports; ++p) add(n, p, m);
          }
          break;
        case MemberKind::Self: add(sm_node, sm_port, m); break;
        case MemberKind::Guid: {
          std::vector<std::pair<unsigned, unsigned>> found;  // (node, port)
          for (unsigned n = 0; n < nodes.size(); ++n) {
            if (nodes[n].kind == NodeKind::Switch && guids[n] == mem.guid) found.emplace_back(n, 0);
            if (nodes[n].kind == NodeKind::Hca && mem.guid > guids[n] && mem.guid - guids[n] <= nodes[n].ports)
              found.emplace_back(n, static_cast<unsigned>(mem.guid - guids[n]));
          }
          if (found.size() != 1)
            throw std::invalid_argument(where(spec, r) + ": " + (found.empty() ? "no end port" : "more than one end port") +
                                        " has GUID " + hex(mem.guid) +
                                        "; accepted: the GUID of one end port (an HCA port: NodeGUID + port number; a "
                                        "switch: its NodeGUID), or the port's name (NODE.pN)");
          add(found[0].first, found[0].second, m);
          break;
        }
        case MemberKind::Name: {
          const std::size_t dot = mem.name.rfind(".p");
          const std::string node = dot == std::string::npos ? mem.name : mem.name.substr(0, dot);
          unsigned port = 0;
          if (dot != std::string::npos) {
            const std::string digits = mem.name.substr(dot + 2);
            if (!digits.empty() && digits.size() < 4 && std::all_of(digits.begin(), digits.end(), ::isdigit))
              port = static_cast<unsigned>(std::stoul(digits));
          }
          auto it = std::find_if(nodes.begin(), nodes.end(), [&](const topology::TopoNode& t) { return t.name == node; });
          if (it == nodes.end() && dot != std::string::npos) {  // a node whose name contains ".p"
            it = std::find_if(nodes.begin(), nodes.end(), [&](const topology::TopoNode& t) { return t.name == mem.name; });
            port = 0;
          }
          const unsigned n = static_cast<unsigned>(it - nodes.begin());
          const bool ok = it != nodes.end() &&
                          (it->name == mem.name ? true : it->kind == NodeKind::Hca && port >= 1 && port <= it->ports);
          if (!ok)
            throw std::invalid_argument(where(spec, r) + ": member '" + mem.name + "' names no end port; accepted: " +
                                        "a port GUID, NODE.pN (port N of an HCA), NODE (every port of an HCA, a "
                                        "switch's management port), ALL, ALL_CAS, ALL_SWITCHES, SELF");
          if (it->name == mem.name) {
            if (it->kind == NodeKind::Switch) add(n, 0, m);
            else
              for (unsigned p = 1; p <= it->ports; ++p) add(n, p, m);
          } else {
            add(n, port, m);
          }
          break;
        }
      }
    }
  }

  for (unsigned n = 0; n < nodes.size(); ++n) {
    const bool sw = nodes[n].kind == NodeKind::Switch;
    for (unsigned p = sw ? 0 : 1; p <= (sw ? 0 : nodes[n].ports); ++p) {
      const Held& h = held[n][p];
      std::vector<uint16_t> order = h.bases;
      const uint16_t first = h.indx0 != 0 ? h.indx0 : h.full.count(kDefaultBase) != 0 ? kDefaultBase : 0;
      if (first != 0) std::stable_partition(order.begin(), order.end(), [&](uint16_t b) { return b == first; });
      if (order.size() > kPkeyTableEntries)
        throw std::invalid_argument(spec.source + ": port " + nodes[n].name + ".p" + std::to_string(p) + " is in " +
                                    std::to_string(order.size()) + " partitions; accepted: at most " +
                                    std::to_string(kPkeyTableEntries) + " (its P_KeyTable's size)");
      std::vector<uint16_t>& t = out[n].pkeys[p];
      t.clear();
      for (uint16_t b : order) t.push_back(static_cast<uint16_t>(b | (h.full.at(b) ? ib::kPkeyFullMember : 0)));
    }
  }

  if (spec.enforcement == SwitchEnforcement::Off) return out;
  const bool in = spec.enforcement != SwitchEnforcement::Out, outb = spec.enforcement != SwitchEnforcement::In;
  for (const topology::TopoLink& l : graph.links) {
    for (int side = 0; side < 2; ++side) {
      const topology::LinkEnd& s = side == 0 ? l.a : l.b;
      const topology::LinkEnd& h = side == 0 ? l.b : l.a;
      if (nodes[s.node].kind != NodeKind::Switch || nodes[h.node].kind != NodeKind::Hca) continue;
      out[s.node].pkeys[s.port] = out[h.node].pkeys[h.port];
      out[s.node].enforce_in[s.port] = in;
      out[s.node].enforce_out[s.port] = outb;
    }
  }
  return out;
}

}  // namespace hcasim::mgmt
