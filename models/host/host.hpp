#pragma once
// One host with its HCA: host memory, the PCIe link and the driver, wired to
// an HCA as a virtual platform would (DESIGN.md, "The HCA's host side"):
//
//   driver.mmio -> link.host_in,  link.device_out -> hca.mmio  (MMIO, BAR0)
//   hca.dma -> link.device_in,    link.host_out -> memory.socket  (DMA, MSI-X)
//
// With the IOMMU enabled it sits in the root complex, between the link and
// memory: link.host_out -> iommu.in, iommu.out -> memory.socket.
//
// A user's own platform binds its own CPU model and memory the same way.

#include <systemc>

#include <memory>

#include "models/hca/hca.hpp"
#include "models/host/driver.hpp"
#include "models/host/host_memory.hpp"
#include "models/host/iommu.hpp"
#include "models/pcie/pcie_config.hpp"
#include "models/pcie/pcie_link.hpp"

namespace hcasim::host {

struct HostConfig {
  pcie::PcieConfig pcie;
  HostMemoryConfig memory;
  DriverConfig driver;
  IommuConfig iommu;
};

class Host : public sc_core::sc_module {
 public:
  Host(const sc_core::sc_module_name& name, const HostConfig& config, hca::Hca& hca)
      : sc_module(name), memory("memory", config.memory), link("pcie", config.pcie),
        driver("driver", config.driver, memory, hca) {
    driver.mmio.bind(link.host_in);
    link.device_out.bind(hca.mmio);
    hca.dma.bind(link.device_in);
    if (config.iommu.enabled) {
      iommu = std::make_unique<Iommu>("iommu", config.iommu);
      link.host_out.bind(iommu->in);
      iommu->out.bind(memory.socket);
    } else {
      link.host_out.bind(memory.socket);
    }
  }
  Host() = delete;
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  HostMemory memory;
  pcie::PcieLink link;
  Driver driver;
  std::unique_ptr<Iommu> iommu;  // null when disabled
};

}  // namespace hcasim::host
