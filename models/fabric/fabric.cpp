#include "models/fabric/fabric.hpp"

#include <set>
#include <utility>

namespace hcasim::fabric {

FabricSpec back_to_back(const link::PortConfig& a, const link::PortConfig& b, const link::LinkConfig& link) {
  FabricSpec s;
  s.hcas.push_back({"hca0", {a}});
  s.hcas.push_back({"hca1", {b}});
  s.links.push_back({0, 0, 1, 0, link});
  return s;
}

std::string check_fabric(const FabricSpec& spec) {
  std::set<std::pair<unsigned, unsigned>> used;
  for (std::size_t i = 0; i < spec.links.size(); ++i) {
    const LinkSpec& l = spec.links[i];
    const std::string where = "link " + std::to_string(i);
    for (auto [n, p] : {std::pair{l.node_a, l.port_a}, std::pair{l.node_b, l.port_b}}) {
      if (n >= spec.hcas.size() || p >= spec.hcas[n].ports.size())
        return where + ": no such node or port; accepted: a node and port of the fabric";
      if (!used.insert({n, p}).second)
        return where + ": " + spec.hcas[n].name + " port " + std::to_string(p + 1) + " is already on a link; accepted: one link per port";
    }
    const link::PortConfig& a = spec.hcas[l.node_a].ports[l.port_a];
    const link::PortConfig& b = spec.hcas[l.node_b].ports[l.port_b];
    if (a.effective_vls() != b.effective_vls())
      return where + ": the ends operate " + std::to_string(a.effective_vls()) + " and " +
             std::to_string(b.effective_vls()) + " data VLs; accepted: the same operational_vls on both ports";
  }
  return "";
}

Fabric::Fabric(const FabricSpec& spec, ib::PacketPool& pool) : spec_(spec) {
  if (const std::string why = check_fabric(spec); !why.empty()) throw std::invalid_argument(why);
  uint16_t lid = 1;
  for (const NodeSpec& n : spec.hcas) {
    hcas_.push_back(std::make_unique<hca::Hca>(n.name.c_str(), n.ports, lid, pool));
    lid = static_cast<uint16_t>(lid + n.ports.size());
    for (unsigned p = 0; p < hcas_.back()->port_count(); ++p) {
      hcas_.back()->port(p).set_id(static_cast<unsigned>(ports_.size()));
      ports_.push_back(&hcas_.back()->port(p));
    }
  }
  for (const LinkSpec& l : spec.links)
    link::Port::connect(hcas_[l.node_a]->port(l.port_a), hcas_[l.node_b]->port(l.port_b), l.config);
}

link::Port* Fabric::find_port(const std::string& name) const {
  for (link::Port* p : ports_)
    if (name == p->name()) return p;
  return nullptr;
}

}  // namespace hcasim::fabric
