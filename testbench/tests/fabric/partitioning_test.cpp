// Partitions for parallel simulation: every node in one, the work balanced
// within one switch of an equal share, and few cut links on fabrics with an
// obvious split.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>

#include "models/config/scenario.hpp"
#include "models/fabric/partitioning.hpp"

using namespace hcasim;
using namespace hcasim::config;
using namespace hcasim::fabric;
using hcasim::topology::NodeKind;

namespace {

FabricSpec generated(const nlohmann::json& topology) {
  nlohmann::json root = {{"topology", topology}};
  return fabric_spec(load_scenario(root));
}

// Each partition's work (ports) is within one switch's ports of total / parts.
void check_balance(const FabricSpec& spec, const std::vector<unsigned>& of_node, unsigned parts) {
  REQUIRE(of_node.size() == spec.nodes.size());
  std::vector<uint64_t> load(parts, 0);
  uint64_t total = 0, largest = 0;
  for (unsigned i = 0; i < spec.nodes.size(); ++i) {
    REQUIRE(of_node[i] < parts);
    load[of_node[i]] += spec.nodes[i].ports.size();
    total += spec.nodes[i].ports.size();
    largest = std::max<uint64_t>(largest, spec.nodes[i].ports.size());
  }
  const double share = static_cast<double>(total) / parts;
  for (unsigned p = 0; p < parts; ++p) {
    INFO("partition " << p << " of " << parts << ": " << load[p] << " ports, share " << share);
    CHECK(std::abs(static_cast<double>(load[p]) - share) <= static_cast<double>(largest));
  }
}

}  // namespace

TEST_CASE("one partition puts every node in partition 0") {
  const FabricSpec spec = generated({{"pattern", "fat_tree"}, {"k", 4}, {"levels", 2}});
  const std::vector<unsigned> of_node = partition_nodes(spec, 1);
  REQUIRE(std::all_of(of_node.begin(), of_node.end(), [](unsigned p) { return p == 0; }));
  REQUIRE(cut_links(spec, of_node) == 0);
}

TEST_CASE("back to back in two partitions: one HCA each, the one link cut") {
  const FabricSpec spec = generated({{"pattern", "back_to_back"}});
  const std::vector<unsigned> of_node = partition_nodes(spec, 2);
  REQUIRE(of_node == std::vector<unsigned>{0, 1});
  REQUIRE(cut_links(spec, of_node) == 1);
}

TEST_CASE("a 3-level fat tree splits by pods: balanced work, no host link cut, half the top links cut") {
  // k = 4: 64 hosts, 16 switches per level, pods of 4 leaves and 4 middle switches.
  const unsigned k = 4;
  const FabricSpec spec = generated({{"pattern", "fat_tree"}, {"k", k}, {"levels", 3}});
  const std::vector<unsigned> of_node = partition_nodes(spec, 2);
  check_balance(spec, of_node, 2);
  unsigned host_links = 0, lower = 0, top = 0;
  const unsigned hosts = k * k * k, per_level = k * k;
  for (const LinkSpec& l : spec.links) {
    if (of_node[l.node_a] == of_node[l.node_b]) continue;
    const unsigned upper = std::max(l.node_a, l.node_b);
    if (std::min(l.node_a, l.node_b) < hosts) ++host_links;
    else if (upper < hosts + 2 * per_level) ++lower;
    else ++top;
  }
  // Pods of 16 hosts split evenly: 2 per side; each leaf and middle switch
  // goes with its pod, and the top switches (one link to each pod's middle
  // switches) are shared out, so each cuts the links to the other side's pods.
  CHECK(host_links == 0);
  CHECK(lower == 0);
  CHECK(top == per_level * k / 2);
}

TEST_CASE("torus and dragonfly split into 2 to 4 partitions with balanced work") {
  for (const nlohmann::json& topology :
       {nlohmann::json{{"pattern", "torus"}, {"x", 4}, {"y", 4}, {"hosts_per_switch", 2}},
        nlohmann::json{{"pattern", "dragonfly"}, {"a", 4}, {"p", 2}, {"h", 2}}}) {
    const FabricSpec spec = generated(topology);
    for (unsigned parts = 2; parts <= 4; ++parts) {
      INFO(topology.dump() << " in " << parts);
      const std::vector<unsigned> of_node = partition_nodes(spec, parts);
      check_balance(spec, of_node, parts);
      CHECK(cut_links(spec, of_node) < spec.links.size() / 2);
    }
  }
}

TEST_CASE("an odd number of leaves keeps each leaf's hosts together") {
  // k = 5, 3 levels: 125 hosts on 25 leaves; an even split of the hosts would
  // fall inside leaf 12.
  const FabricSpec spec = generated({{"pattern", "fat_tree"}, {"k", 5}, {"levels", 3}});
  const std::vector<unsigned> of_node = partition_nodes(spec, 2);
  check_balance(spec, of_node, 2);
  for (const LinkSpec& l : spec.links) {
    if (spec.nodes[l.node_a].kind == NodeKind::Hca || spec.nodes[l.node_b].kind == NodeKind::Hca) {
      INFO(spec.nodes[l.node_a].name << " - " << spec.nodes[l.node_b].name);
      CHECK(of_node[l.node_a] == of_node[l.node_b]);
    }
  }
}
