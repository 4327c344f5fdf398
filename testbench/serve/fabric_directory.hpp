#pragma once
// ibsim's control side over a built fabric (ibsim_control.hpp's
// NodeDirectory): nodes by name or NodeDescription, their attributes as their
// own SMAs give them, IsSM through the SMA's CapabilityMask.
//
// Rules:
// - A node is found by its scenario name or its NodeDescription; "" is the
//   default node: the first HCA (ibsim's default port is the first CA's).
// - Attributes come from Sma::read, as a SubnGet on the client's port would
//   answer them, without counting an SMP.
// - Needs management in band (the nodes' MadNodes); the constructor throws
//   std::invalid_argument without it.

#include "models/fabric/fabric.hpp"
#include "testbench/serve/ibsim_control.hpp"

namespace hcasim::serve {

class FabricDirectory : public ibsim::NodeDirectory {
 public:
  explicit FabricDirectory(fabric::Fabric& fabric);
  int find(const std::string& name) const override;
  std::string name(int node) const override;
  bool is_switch(int node) const override;
  unsigned ports(int node) const override;
  std::array<uint8_t, 64> get(int node, unsigned port, uint16_t attr, uint32_t modifier) const override;
  void set_is_sm(int node, unsigned port, bool on) override;

 private:
  mgmt::MadNode& node(int n) const;
  fabric::Fabric& fabric_;
};

}  // namespace hcasim::serve
