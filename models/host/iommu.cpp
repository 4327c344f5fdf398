#include "models/host/iommu.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/link/timeline.hpp"
#include "models/pcie/pcie_extensions.hpp"

namespace hcasim::host {

namespace {
unsigned page_shift(uint64_t page_bytes) {
  if (page_bytes == 0 || (page_bytes & (page_bytes - 1)) != 0)
    throw std::invalid_argument("iommu: page size " + std::to_string(page_bytes) + " is not a power of two");
  unsigned s = 0;
  while ((uint64_t{1} << s) < page_bytes) ++s;
  return s;
}
}  // namespace

Iommu::Iommu(const sc_core::sc_module_name& name, const IommuConfig& config)
    : sc_module(name), config_(config), page_shift_(page_shift(config.page_bytes)),
      iotlb_(config.iotlb, [this](uint64_t page, uint64_t start) { return walk(page, start); }, nullptr) {
  in.register_b_transport(this, &Iommu::b_transport);
  in.register_transport_dbg(this, &Iommu::transport_dbg);
}

uint64_t Iommu::walk(uint64_t page, uint64_t start_ps) {
  uint64_t t = start_ps + config_.miss_penalty_ps;
  const uint64_t now = link::now_ps();
  for (uint32_t l = 0; l < config_.walk_levels; ++l) {
    const unsigned below = kIoPageTableBits * (config_.walk_levels - 1 - l);
    const uint64_t index = below >= 64 ? 0 : page >> below;
    walk_trans_.set_command(tlm::TLM_READ_COMMAND);
    walk_trans_.set_address(kIoPageTables + (uint64_t{l} << 44) + index * kIoPageEntryBytes);
    walk_trans_.set_data_ptr(entry_);
    walk_trans_.set_data_length(kIoPageEntryBytes);
    walk_trans_.set_streaming_width(kIoPageEntryBytes);
    walk_trans_.set_byte_enable_ptr(nullptr);
    walk_trans_.set_dmi_allowed(false);
    walk_trans_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sc_core::sc_time::from_value(t - now);
    out->b_transport(walk_trans_, delay);
    t = now + delay.value();
    ++stats_.walk_reads;
  }
  return t;
}

void Iommu::b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  const uint64_t length = t.get_data_length();
  if (t.get_command() == tlm::TLM_IGNORE_COMMAND || length == 0 || t.get_extension<pcie::MsiMessage>() != nullptr) {
    out->b_transport(t, delay);
    return;
  }
  const uint64_t now = link::now_ps();
  const uint64_t issue = now + delay.value();
  uint64_t ready = issue;
  const uint64_t first = t.get_address() >> page_shift_, last = (t.get_address() + length - 1) >> page_shift_;
  for (uint64_t p = first; p <= last; ++p) ready = std::max(ready, iotlb_.access(p, false, issue));
  ++stats_.translations;
  delay = sc_core::sc_time::from_value(ready - now);
  out->b_transport(t, delay);
}

unsigned int Iommu::transport_dbg(tlm::tlm_generic_payload& t) { return out->transport_dbg(t); }

}  // namespace hcasim::host
