// Fills the SA database from a SubnetView (rules in sa_population.hpp).
#include "models/mgmt/sa_population.hpp"

#include <algorithm>

#include "models/ib/be_bytes.hpp"
#include "models/ib/pkey.hpp"
#include "models/ib/sa_records.hpp"
#include "models/mgmt/vlarb_blocks.hpp"

namespace hcasim::mgmt {
namespace {

using topology::LinkEnd;
using topology::NodeKind;

bool is_switch(const SubnetView& v, unsigned n) { return v.topology.nodes[n].kind == NodeKind::Switch; }

// The LID a record names for (node, port): a switch's LID, an HCA port's base
// LID; 0 when there is none.
uint16_t node_lid(const SubnetView& v, unsigned n, unsigned port) {
  if (n >= v.lids.base.size()) return 0;
  const std::vector<uint16_t>& b = v.lids.base[n];
  if (is_switch(v, n)) return b.empty() ? 0 : b[0];
  return port >= 1 && port <= b.size() ? b[port - 1] : 0;
}

uint64_t port_guid(const SubnetView& v, unsigned n, unsigned port) {
  const uint64_t guid = n < v.nodes.size() ? v.nodes[n].node_info.node_guid : 0;
  return is_switch(v, n) ? guid : guid + port;  // sma.hpp NodeIdentity: HCA port n = GUID + n
}

// Writes records with set, or with add into a table that was empty when the
// fill began: a view gives each key once, so there is nothing to replace and
// the key lookup is saved (it is most of the cost of a large fill).
class Writer {
 public:
  Writer(SaDatabase& db, SaFillStats& stats) : db_(db), stats_(stats) {
    for (uint16_t attr : {ib::kAttrNodeRecord, ib::kAttrPortInfoRecord, ib::kAttrLinkRecord, ib::kAttrPathRecord,
                          ib::kAttrSl2VlRecord, ib::kAttrVlArbRecord})
      if (db.size(attr) == 0) fresh_.push_back(attr);
  }
  // Room for n records of a table the fill adds to (a table it sets into keeps its size).
  void reserve(uint16_t attr, size_t n) {
    if (fresh(attr)) db_.reserve(attr, n);
  }
  template <typename Record>
  bool put(const Record& r) {
    uint8_t body[Record::kBytes];
    r.encode(body);
    const SaDbStatus s = fresh(Record::kAttrId) ? db_.add(Record::kAttrId, body, sizeof body) : db_.set(Record::kAttrId, body, sizeof body);
    if (s == SaDbStatus::Ok) return true;
    ++stats_.errors;
    return false;
  }

 private:
  // The table was empty when the fill began.
  bool fresh(uint16_t attr) const { return std::find(fresh_.begin(), fresh_.end(), attr) != fresh_.end(); }

  SaDatabase& db_;
  SaFillStats& stats_;
  std::vector<uint16_t> fresh_;
};

void fill_nodes(const SubnetView& v, Writer& w, SaFillStats& st) {
  for (unsigned n = 0; n < v.topology.nodes.size() && n < v.nodes.size(); ++n) {
    ib::NodeRecord r;
    r.node_info = v.nodes[n].node_info;
    r.node_desc.text = v.topology.nodes[n].name;
    const unsigned first = is_switch(v, n) ? 0 : 1;
    const unsigned last = is_switch(v, n) ? 0 : v.topology.nodes[n].ports;
    for (unsigned p = first; p <= last; ++p) {
      r.lid = node_lid(v, n, p);
      if (r.lid == 0) continue;
      r.node_info.port_guid = port_guid(v, n, p);
      st.node_records += w.put(r);
    }
  }
}

void fill_ports(const SubnetView& v, Writer& w, SaFillStats& st) {
  for (unsigned n = 0; n < v.topology.nodes.size() && n < v.nodes.size(); ++n) {
    const std::vector<ib::PortInfo>& pis = v.nodes[n].port_info;
    for (unsigned p = is_switch(v, n) ? 0 : 1; p < pis.size() && p <= v.topology.nodes[n].ports; ++p) {
      ib::PortInfoRecord r;
      r.end_port_lid = node_lid(v, n, p);
      if (r.end_port_lid == 0) continue;
      r.port_num = static_cast<uint8_t>(p);
      r.port_info = pis[p];
      st.port_info_records += w.put(r);
    }
  }
}

void fill_links(const SubnetView& v, Writer& w, SaFillStats& st) {
  for (const topology::TopoLink& l : v.topology.links) {
    for (const auto& [from, to] : {std::pair{l.a, l.b}, std::pair{l.b, l.a}}) {
      ib::LinkRecord r;
      r.from_lid = node_lid(v, from.node, from.port);
      r.to_lid = node_lid(v, to.node, to.port);
      if (r.from_lid == 0 || r.to_lid == 0) continue;
      r.from_port = static_cast<uint8_t>(from.port);
      r.to_port = static_cast<uint8_t>(to.port);
      st.link_records += w.put(r);
    }
  }
}

void fill_sl2vl(const SubnetView& v, Writer& w, SaFillStats& st) {
  for (unsigned n = 0; n < v.topology.nodes.size() && n < v.nodes.size(); ++n) {
    for (const auto& [ports, table] : v.nodes[n].sl2vl) {
      ib::Sl2VlRecord r;
      r.in_port = ports.first;
      r.out_port = ports.second;
      r.lid = node_lid(v, n, ports.second);
      if (r.lid == 0) continue;
      std::copy(table.begin(), table.end(), r.table.vl.begin());
      st.sl2vl_records += w.put(r);
    }
  }
}

void fill_vlarb(const SubnetView& v, Writer& w, SaFillStats& st) {
  for (unsigned n = 0; n < v.topology.nodes.size() && n < v.nodes.size(); ++n) {
    const std::vector<link::VlArbConfig>& arb = v.nodes[n].vlarb;
    for (unsigned p = 1; p < arb.size() && p <= v.topology.nodes[n].ports; ++p) {
      const uint16_t lid = node_lid(v, n, p);
      if (lid == 0) continue;
      for (uint16_t block = ib::kVlArbLowFirst; block <= ib::kVlArbHighSecond; ++block) {
        ib::VlArbRecord r;
        r.lid = lid;
        r.out_port = static_cast<uint8_t>(p);
        r.block = static_cast<uint8_t>(block);
        r.table = vlarb_table_block(arb[p], block);
        st.vlarb_records += w.put(r);
      }
    }
  }
}

struct HcaPort {
  LinkEnd port;
  uint16_t base = 0;
  std::array<uint8_t, 16> gid{};
};

std::vector<HcaPort> hca_ports(const SubnetView& v) {
  std::vector<HcaPort> out;
  for (unsigned n = 0; n < v.topology.nodes.size(); ++n) {
    if (is_switch(v, n)) continue;
    for (unsigned p = 1; p <= v.topology.nodes[n].ports; ++p) {
      const uint16_t base = node_lid(v, n, p);
      if (base != 0) out.push_back({{n, p}, base, port_gid(v, {n, p})});
    }
  }
  return out;
}

// The P_Key of the paths from one port to another; 0 = they share no partition.
uint16_t path_pkey(const SubnetView& v, LinkEnd src, LinkEnd dst) {
  auto table = [&v](LinkEnd e) -> const std::vector<uint16_t>* {
    const std::vector<std::vector<uint16_t>>& t = v.nodes[e.node].pkeys;
    return e.port < t.size() ? &t[e.port] : nullptr;
  };
  const std::vector<uint16_t>* s = table(src);
  const std::vector<uint16_t>* d = table(dst);
  if (s == nullptr && d == nullptr) return kPathPkey;
  const std::vector<uint16_t> fallback = ib::default_pkey_table();
  for (uint16_t key : s != nullptr ? *s : fallback)
    if (ib::pkey_table_accepts(d != nullptr ? *d : fallback, key)) return key;
  return 0;
}

ib::PathRecord path_record(const SubnetView& v, const topology::TopologyIndex& index, const HcaPort& src,
                           unsigned src_off, const HcaPort& dst, unsigned dst_off, const PathParams& pp,
                           bool reversible, uint16_t pkey) {
  ib::PathRecord r;
  r.sgid = src.gid;
  r.dgid = dst.gid;
  r.slid = static_cast<uint16_t>(src.base + src_off);
  r.dlid = static_cast<uint16_t>(dst.base + dst_off);
  r.hop_limit = kPathHopLimit;
  r.reversible = reversible;
  r.numb_path = kPathNumbPath;
  r.pkey = pkey;
  // An engine that hands out SLs (lash) answers for the pair, as OpenSM's path_sl hook does.
  r.sl = !v.routes.has_path_sls() ? v.path_sl : routing::path_sl(v.topology, index, v.lids, v.routes, r.slid, r.dlid);
  r.mtu_selector = ib::kSelectorExactly;
  r.mtu = pp.mtu;
  r.rate_selector = ib::kSelectorExactly;
  r.rate = pp.rate;
  r.pkt_life_selector = ib::kSelectorExactly;
  r.pkt_life = v.packet_life;
  r.preference = src_off == dst_off ? 0 : 2;  // OpenSM pr_rcv_get_port_pair_paths preference groups
  return r;
}

void fill_paths(const SubnetView& v, Writer& w, SaFillStats& st) {
  const std::vector<HcaPort> ports = hca_ports(v);
  const size_t np = ports.size();
  const unsigned per_port = 1u << v.lids.lmc;
  PathTracer tracer(v);
  // reach[(d * per_port + off) * np + s]: port s reaches LID `off` of port d.
  std::vector<bool> reach(np * per_port * np);
  for (size_t d = 0; d < np; ++d) {
    for (unsigned off = 0; off < per_port; ++off) {
      tracer.set_destination(static_cast<uint16_t>(ports[d].base + off));
      const size_t row = (d * per_port + off) * np;
      for (size_t s = 0; s < np; ++s) reach[row + s] = s != d && tracer.from(ports[s].port).ok;
    }
  }
  // A record per source LID of each reachable (source port, destination LID): at most that many.
  w.reserve(ib::kAttrPathRecord, static_cast<size_t>(std::count(reach.begin(), reach.end(), true)) * per_port);
  for (size_t d = 0; d < np; ++d) {
    for (unsigned doff = 0; doff < per_port; ++doff) {
      tracer.set_destination(static_cast<uint16_t>(ports[d].base + doff));
      for (size_t s = 0; s < np; ++s) {
        if (s == d) continue;
        const PathParams pp = tracer.from(ports[s].port);
        if (!pp.ok) {
          st.unreachable_pairs += per_port;
          continue;
        }
        const uint16_t pkey = path_pkey(v, ports[s].port, ports[d].port);
        if (pkey == 0) continue;  // no shared partition: no path
        for (unsigned soff = 0; soff < per_port; ++soff) {
          const bool rev = reach[(s * per_port + soff) * np + d];
          if (!w.put(path_record(v, tracer.index(), ports[s], soff, ports[d], doff, pp, rev, pkey))) continue;
          ++st.path_records;
          st.non_reversible += !rev;
          st.path_hops += pp.hops;
          st.max_hops = std::max(st.max_hops, pp.hops);
        }
      }
    }
  }
}

}  // namespace

void declare_sa_tables(SaDatabase& db) {
  const std::pair<uint16_t, uint64_t> tables[] = {
      {ib::kAttrNodeRecord, kNodeRecordKey}, {ib::kAttrPortInfoRecord, kPortInfoRecordKey},
      {ib::kAttrLinkRecord, kLinkRecordKey}, {ib::kAttrPathRecord, kPathRecordKey},
      {ib::kAttrSl2VlRecord, kSl2VlRecordKey}, {ib::kAttrVlArbRecord, kVlArbRecordKey}};
  for (const auto& [attr, key] : tables) {
    if (!db.has_table(attr)) db.declare_table(*ib::sa_record_layout(attr), key);
  }
}

std::array<uint8_t, 16> port_gid(const SubnetView& v, LinkEnd port) {
  std::array<uint8_t, 16> gid{};
  uint64_t prefix = 0;
  if (port.node < v.nodes.size() && port.port < v.nodes[port.node].port_info.size())
    prefix = v.nodes[port.node].port_info[port.port].gid_prefix;
  if (prefix == 0) prefix = kDefaultGidPrefix;
  ib::put_be64(gid.data(), prefix);
  ib::put_be64(gid.data() + 8, port_guid(v, port.node, port.port));
  return gid;
}

SaFillStats fill_sa_database(SaDatabase& db, const SubnetView& view) {
  declare_sa_tables(db);
  SaFillStats st;
  Writer w(db, st);
  fill_nodes(view, w, st);
  fill_ports(view, w, st);
  fill_links(view, w, st);
  fill_sl2vl(view, w, st);
  fill_vlarb(view, w, st);
  fill_paths(view, w, st);
  return st;
}

std::vector<ib::PathRecord> path_records_between(const SubnetView& view, PathTracer& tracer, LinkEnd src,
                                                 LinkEnd dst) {
  std::vector<ib::PathRecord> out;
  if (src == dst) return out;
  const HcaPort s{src, node_lid(view, src.node, src.port), port_gid(view, src)};
  const HcaPort d{dst, node_lid(view, dst.node, dst.port), port_gid(view, dst)};
  if (s.base == 0 || d.base == 0) return out;
  const uint16_t pkey = path_pkey(view, src, dst);
  if (pkey == 0) return out;
  const unsigned per_port = 1u << view.lids.lmc;
  for (unsigned soff = 0; soff < per_port; ++soff) {
    for (unsigned doff = 0; doff < per_port; ++doff) {
      const bool rev = tracer.trace(dst, static_cast<uint16_t>(s.base + soff)).ok;
      const PathParams pp = tracer.trace(src, static_cast<uint16_t>(d.base + doff));
      if (pp.ok) out.push_back(path_record(view, tracer.index(), s, soff, d, doff, pp, rev, pkey));
    }
  }
  return out;
}

std::vector<ib::PathRecord> path_records_between(const SubnetView& view, LinkEnd src, LinkEnd dst) {
  PathTracer tracer(view);
  return path_records_between(view, tracer, src, dst);
}

}  // namespace hcasim::mgmt
