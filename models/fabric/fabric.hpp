#pragma once
// Builds the modules of a fabric from a resolved description and owns them.
// This stage knows HCAs joined by links (the back-to-back pattern); switches and
// generated topologies extend FabricSpec later.
//
// Rules: ports get consecutive LIDs from 1 in node order (LMC 0); both ends of
// a link must operate the same number of data VLs (what a subnet manager sets
// OperationalVLs to); a port is on at most one link.

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/hca/hca.hpp"
#include "models/link/link_timing.hpp"
#include "models/link/port_config.hpp"

namespace hcasim::fabric {

struct NodeSpec {
  std::string name;
  std::vector<link::PortConfig> ports;
};

struct LinkSpec {
  unsigned node_a = 0, port_a = 0;  // indices
  unsigned node_b = 0, port_b = 0;
  link::LinkConfig config;
};

struct FabricSpec {
  std::vector<NodeSpec> hcas;
  std::vector<LinkSpec> links;
};

// Two single-port HCAs, hca0 and hca1, joined by one link.
FabricSpec back_to_back(const link::PortConfig& a, const link::PortConfig& b, const link::LinkConfig& link);

// Why a FabricSpec cannot be built, or "" when it can. `where` names the link.
std::string check_fabric(const FabricSpec& spec);

class Fabric {
 public:
  // Throws std::invalid_argument with check_fabric's message when the spec is inconsistent.
  Fabric(const FabricSpec& spec, ib::PacketPool& pool);
  Fabric(const Fabric&) = delete;
  Fabric& operator=(const Fabric&) = delete;

  unsigned hca_count() const { return static_cast<unsigned>(hcas_.size()); }
  hca::Hca& hca(unsigned i) { return *hcas_[i]; }
  const FabricSpec& spec() const { return spec_; }
  // Every port in node order, then port order.
  const std::vector<link::Port*>& ports() const { return ports_; }
  // "hca0.p1" style name of a port (the SystemC hierarchical name).
  link::Port* find_port(const std::string& name) const;

 private:
  FabricSpec spec_;
  std::vector<std::unique_ptr<hca::Hca>> hcas_;
  std::vector<link::Port*> ports_;
};

}  // namespace hcasim::fabric
