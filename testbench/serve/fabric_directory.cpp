#include "testbench/serve/fabric_directory.hpp"

#include <stdexcept>

#include "models/ib/mad_attributes.hpp"

namespace hcasim::serve {

FabricDirectory::FabricDirectory(fabric::Fabric& fabric) : fabric_(fabric) {
  if (fabric.mad_node(0) == nullptr)
    throw std::invalid_argument("serve: the fabric has no management agents (management.mode preconfigured)");
}

mgmt::MadNode& FabricDirectory::node(int n) const { return *fabric_.mad_node(static_cast<unsigned>(n)); }

int FabricDirectory::find(const std::string& name) const {
  const auto& nodes = fabric_.spec().nodes;
  for (unsigned i = 0; i < nodes.size(); ++i) {
    if (name.empty() ? nodes[i].kind == topology::NodeKind::Hca : nodes[i].name == name || nodes[i].description == name)
      return static_cast<int>(i);
  }
  return -1;
}

std::string FabricDirectory::name(int n) const { return fabric_.spec().nodes.at(static_cast<unsigned>(n)).name; }

bool FabricDirectory::is_switch(int n) const { return node(n).sma().is_switch(); }

unsigned FabricDirectory::ports(int n) const { return node(n).sma().port_count(); }

std::array<uint8_t, 64> FabricDirectory::get(int n, unsigned port, uint16_t attr, uint32_t modifier) const {
  return node(n).sma().read(attr, modifier, port);
}

void FabricDirectory::set_is_sm(int n, unsigned port, bool on) {
  mgmt::Sma& sma = node(n).sma();
  if (on) sma.add_capability(port, ib::kPortCapIsSm);
  else sma.remove_capability(port, ib::kPortCapIsSm);
}

}  // namespace hcasim::serve
