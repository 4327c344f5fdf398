// OpenSM's dfsssp and sssp engines (opensm 3.3.23: osm_ucast_dfsssp.c):
// Dijkstra from every destination LID over switch-to-switch links whose
// weights count the paths already routed over them, then (dfsssp) the
// (source LID, destination LID) pairs spread over virtual layers until each
// layer's channel dependency graph has no cycle. Rules in routing.hpp.
//
// How, the same as OpenSM's:
// - Switches in OpenSM's switch-table order (guid_table_less on NodeGUIDs),
//   those the SM finds. A switch's links: its ports to other switches, in
//   port order, one per cable, each of weight P * P (P: the LIDs of the
//   fabric, HCA ports' and switches'); a switch counts 1 + the LIDs of the
//   HCA ports linked to it.
// - Destination order: switches in table order stably sorted by that count,
//   most first; each gives the HCA ports linked to it in port order; then the
//   switches themselves in the same sorted order. With a CN GUID file, its
//   ports come first (switch by switch as above), then those of an I/O GUID
//   file, then the other HCA ports (an empty file counts as none). Each LID
//   of a destination (all LMC offsets) in turn: Dijkstra from the
//   destination (an HCA port as an extra vertex with one link of weight 1 to
//   its switch) over complib's
//   4-ary heap (cl_heap: every switch inserted at "infinity" 0x7FFFFFFF in
//   table order, then the HCA; the lightest child wins ties as the last of
//   them); a switch's LFT entry is the port its tree link arrives on; then
//   every link of the tree gains, for each switch the tree reaches, that
//   switch's count, on every link between it and the destination.
// - dfsssp's layers: opensm_dfsssp_layers.cpp.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "models/routing/cl_heap.hpp"
#include "models/routing/opensm_dfsssp_layers.hpp"
#include "models/routing/opensm_order.hpp"
#include "models/routing/routing_graph.hpp"

namespace hcasim::routing::detail {

using topology::LinkEnd;
using topology::NodeKind;
using topology::Topology;
using topology::TopologyIndex;

namespace {

constexpr uint64_t kInfinity = 0x7FFFFFFF;  // osm_ucast_dfsssp.c: INF
constexpr uint32_t kNone = UINT32_MAX;

class Dfsssp {
 public:
  Dfsssp(const Topology& t, const TopologyIndex& index, const SwitchGraph& g, const Lids& lids)
      : t_(t), index_(index), g_(g), lids_(lids) {
    for (unsigned s = 0; s < g.size(); ++s)
      if (lids.base[g.node[s]][0] != 0) table_.push_back(g.node[s]);
    std::sort(table_.begin(), table_.end(), [&](unsigned a, unsigned b) {
      return guid_table_less(topology::node_guid(t, a), topology::node_guid(t, b));
    });
    const unsigned n = static_cast<unsigned>(table_.size());
    vertex_of_.assign(t.nodes.size(), 0);
    for (unsigned i = 0; i < n; ++i) vertex_of_[table_[i]] = i + 1;
    uint64_t lids_total = 0;
    for (unsigned lid = 1; lid <= lids.top; ++lid) lids_total += lids.owner[lid].node != topology::kNoNode;
    const uint64_t start_weight = lids_total * lids_total;  // P^2: shortest paths first
    links_.push_back(Link{});                                // the HCA source's link
    first_link_.assign(n + 2, 1);
    num_hca_.assign(n + 1, 0);
    for (unsigned v = 1; v <= n; ++v) {
      const unsigned node = table_[v - 1];
      first_link_[v] = static_cast<uint32_t>(links_.size());
      num_hca_[v] = 1;  // the switch's own LID (base port 0: LMC 0)
      for (unsigned p = 1; p <= t.nodes[node].ports; ++p) {
        const auto peer = index.peer(node, p);
        if (!peer || peer->node == node) continue;
        if (t.nodes[peer->node].kind != NodeKind::Switch) {
          num_hca_[v] += 1u << lids.lmc;
          continue;
        }
        if (vertex_of_[peer->node] == 0) continue;
        links_.push_back(Link{v, static_cast<uint8_t>(p), vertex_of_[peer->node], static_cast<uint8_t>(peer->port),
                              start_weight});
      }
    }
    first_link_[n + 1] = static_cast<uint32_t>(links_.size());
    used_.assign(n + 1, kNone);
    distance_.assign(n + 1, 0);
    discovered_.assign(n + 1, 0);
    where_.assign(n + 1, 0);
  }

  // The destination order (the port order list): HCA ports, then switches
  // (port 0). With OpenSM's CN and I/O GUID files (non-empty): the CN ports
  // first, then the I/O ports, then the others, each pass switch by switch.
  std::vector<LinkEnd> order(const FtreeGuids& guids) const {
    std::vector<uint32_t> sorted(table_.size());
    for (uint32_t i = 0; i < sorted.size(); ++i) sorted[i] = i + 1;
    std::stable_sort(sorted.begin(), sorted.end(), [&](uint32_t a, uint32_t b) { return num_hca_[a] > num_hca_[b]; });
    const std::vector<uint64_t> none;
    const std::vector<uint64_t>& cns = guids.cns ? *guids.cns : none;
    const std::vector<uint64_t>& ios = guids.ios ? *guids.ios : none;
    std::vector<uint64_t> mixed = cns;  // the others: ports in neither file given
    if (!ios.empty()) mixed.insert(mixed.end(), ios.begin(), ios.end());
    std::vector<LinkEnd> out;
    std::vector<char> listed;
    // add_sw_endports_to_order_list: `only` the ports in `file`, or (false) those not in it.
    const auto add_ports = [&](const std::vector<uint64_t>& file, bool only) {
      for (const uint32_t v : sorted) {
        const unsigned node = table_[v - 1];
        for (unsigned p = 1; p <= t_.nodes[node].ports; ++p) {
          const auto peer = index_.peer(node, p);
          if (!peer || t_.nodes[peer->node].kind == NodeKind::Switch) continue;
          const uint16_t base = lids_.base[peer->node][peer->port - 1];
          if (base == 0) continue;
          if (!file.empty() &&
              only != (std::find(file.begin(), file.end(), topology::port_guid(t_, *peer)) != file.end()))
            continue;
          if (listed.size() <= base) listed.resize(std::size_t{base} + 1, 0);
          if (listed[base]) continue;
          listed[base] = 1;
          out.push_back(*peer);
        }
      }
    };
    if (!cns.empty()) add_ports(cns, true);
    if (!ios.empty()) add_ports(ios, true);
    add_ports(mixed, false);
    for (const uint32_t v : sorted) out.push_back({table_[v - 1], 0});
    return out;
  }

  // The LIDs of a port of the order.
  std::pair<unsigned, unsigned> lid_range(const LinkEnd& e) const {
    if (t_.nodes[e.node].kind == NodeKind::Switch) return {lids_.base[e.node][0], lids_.base[e.node][0]};
    const unsigned base = lids_.base[e.node][e.port - 1];
    return {base, base + (1u << lids_.lmc) - 1};
  }

  void route(const std::vector<LinkEnd>& order, std::vector<std::vector<uint8_t>>& lft) {
    for (unsigned s = 0; s < g_.size(); ++s) lft[g_.node[s]].assign(std::size_t{lids_.top} + 1, kNoPath);
    for (const unsigned node : table_) lft[node][lids_.base[node][0]] = 0;
    for (const LinkEnd& dst : order) {
      const auto [first, last] = lid_range(dst);
      for (unsigned lid = first; lid <= last; ++lid) {
        dijkstra(dst);
        for (uint32_t v = 1; v < used_.size(); ++v)
          if (used_[v] != kNone) lft[table_[v - 1]][lid] = links_[used_[v]].to_port;
        add_weights();
      }
    }
  }

 private:
  struct Link {
    uint32_t from = 0;
    uint8_t from_port = 0;
    uint32_t to = 0;
    uint8_t to_port = 0;
    uint64_t weight = 0;
  };

  void dijkstra(const LinkEnd& dst) {
    const uint32_t n = static_cast<uint32_t>(table_.size());
    ClHeap heap(where_, where_.size());
    for (uint32_t v = 1; v <= n; ++v) {
      used_[v] = kNone;
      distance_[v] = kInfinity;
      discovered_[v] = 0;
      heap.insert(kInfinity, v);
    }
    uint32_t source;
    if (t_.nodes[dst.node].kind == NodeKind::Switch) {
      source = vertex_of_[dst.node];
      first_link_[0] = first_link_[1];  // no links from vertex 0
    } else {
      const LinkEnd sw = *index_.peer(dst.node, dst.port);
      links_[0] = Link{0, static_cast<uint8_t>(dst.port), vertex_of_[sw.node], static_cast<uint8_t>(sw.port), 1};
      first_link_[0] = 0;
      used_[0] = kNone;
      discovered_[0] = 0;
      heap.insert(kInfinity, 0);
      source = 0;
    }
    distance_[source] = 0;
    discovered_[source] = 1;
    heap.modify_key(0, where_[source]);
    for (uint32_t cur = heap.extract_root(); cur != kNone; cur = heap.extract_root()) {
      discovered_[cur] = 1;
      const uint32_t end = cur == 0 ? 1 : first_link_[cur + 1];
      for (uint32_t l = first_link_[cur]; l < end; ++l) {
        const Link& link = links_[l];
        if (discovered_[link.to] || distance_[cur] + link.weight >= distance_[link.to]) continue;
        used_[link.to] = l;
        distance_[link.to] = distance_[cur] + link.weight;
        heap.modify_key(distance_[link.to], where_[link.to]);
      }
    }
  }

  // update_weights: every switch the tree reaches adds its count to each link on its way.
  void add_weights() {
    for (uint32_t v = 1; v < used_.size(); ++v) {
      if (used_[v] == kNone) continue;
      for (uint32_t j = v; used_[j] != kNone; j = links_[used_[j]].from) links_[used_[j]].weight += num_hca_[v];
    }
  }

  const Topology& t_;
  const TopologyIndex& index_;
  const SwitchGraph& g_;
  const Lids& lids_;
  std::vector<unsigned> table_;        // vertex - 1 -> switch node, in switch-table order
  std::vector<uint32_t> vertex_of_;    // node -> vertex (1..n), 0 for none
  std::vector<Link> links_;            // [0]: the HCA source's; then each switch's, in port order
  std::vector<uint32_t> first_link_;   // vertex -> its first link; [n + 1]: the end
  std::vector<uint32_t> num_hca_;      // vertex -> its LIDs and those of its HCA ports
  std::vector<uint32_t> used_;         // vertex -> its tree link, kNone for none
  std::vector<uint64_t> distance_;
  std::vector<char> discovered_;
  std::vector<std::size_t> where_;     // vertex -> heap slot
};

}  // namespace

std::string opensm_dfsssp(const Topology& t, const TopologyIndex& index, const SwitchGraph& g, const Lids& lids,
                          unsigned vls, bool remove_deadlocks, const FtreeGuids& guids,
                          std::vector<std::vector<uint8_t>>& lft, SwitchPairSls& counts, LidPairSls& sls) {
  Dfsssp engine(t, index, g, lids);
  const std::vector<LinkEnd> order = engine.order(guids);
  engine.route(order, lft);
  if (!remove_deadlocks) return "";
  const unsigned vl_avail = std::max(1u, std::min(15u, vls));  // get_avail_vl_in_subn
  return dfsssp_layers(t, index, lids, lft, order, vl_avail, counts, sls);
}

}  // namespace hcasim::routing::detail
