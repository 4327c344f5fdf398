#include "models/pcie/pcie_stats.hpp"

namespace hcasim::pcie {

const char* to_string(Direction d) {
  switch (d) {
    case Direction::Upstream: return "upstream";
    case Direction::Downstream: return "downstream";
  }
  return "?";
}

const char* to_string(TlpKind k) {
  switch (k) {
    case TlpKind::MmioWrite: return "mmio_write";
    case TlpKind::MmioReadRequest: return "mmio_read_request";
    case TlpKind::MmioReadCompletion: return "mmio_read_completion";
    case TlpKind::DmaReadRequest: return "dma_read_request";
    case TlpKind::DmaReadCompletion: return "dma_read_completion";
    case TlpKind::DmaWrite: return "dma_write";
    case TlpKind::Msix: return "msix";
  }
  return "?";
}

}  // namespace hcasim::pcie
