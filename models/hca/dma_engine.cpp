#include "models/hca/dma_engine.hpp"

#include <algorithm>

#include "models/link/timeline.hpp"

namespace hcasim::hca {

const char* to_string(DmaPurpose p) {
  switch (p) {
    case DmaPurpose::Wqe: return "wqe";
    case DmaPurpose::Gather: return "gather";
    case DmaPurpose::Scatter: return "scatter";
    case DmaPurpose::DoorbellRecord: return "doorbell_record";
    case DmaPurpose::Cqe: return "cqe";
    case DmaPurpose::Msix: return "msix";
    case DmaPurpose::Test: return "test";
    case DmaPurpose::Qpc: return "qpc";
    case DmaPurpose::Cqc: return "cqc";
    case DmaPurpose::Mpt: return "mpt";
    case DmaPurpose::Mtt: return "mtt";
    case DmaPurpose::WqeRefetch: return "wqe_refetch";
    case DmaPurpose::ContextWriteBack: return "context_write_back";
    case DmaPurpose::kCount: break;
  }
  return "unknown";
}

DmaEngine::DmaEngine(sc_core::sc_port_b<tlm::tlm_fw_transport_if<>>& port, uint64_t requester_id) : port_(port) {
  requester_.id = requester_id;
  trans_.set_extension(&requester_);
  trans_.set_streaming_width(0);
}

DmaEngine::~DmaEngine() {
  // The extensions are members, not the payload's to free.
  trans_.clear_extension(&requester_);
  if (trans_.get_extension<pcie::MsiMessage>() != nullptr) trans_.clear_extension(&msi_);
}

uint64_t DmaEngine::transfer(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, uint64_t length, uint64_t issue_ps) {
  const uint64_t now = link::now_ps();
  trans_.set_command(cmd);
  trans_.set_address(addr);
  trans_.set_data_ptr(data);
  trans_.set_data_length(static_cast<unsigned>(length));
  trans_.set_streaming_width(static_cast<unsigned>(length));
  trans_.set_byte_enable_ptr(nullptr);
  trans_.set_dmi_allowed(false);
  trans_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::sc_time::from_value(std::max(issue_ps, now) - now);
  if (port_.size() == 0) {
    ++stats_.errors;
    return now;
  }
  port_->b_transport(trans_, delay);
  if (trans_.is_response_error()) ++stats_.errors;
  return now + delay.value();
}

uint64_t DmaEngine::read(uint64_t addr, uint8_t* out, uint64_t length, DmaPurpose purpose, uint64_t issue_ps) {
  DmaCounts& c = stats_.by_purpose[static_cast<std::size_t>(purpose)];
  ++c.reads;
  c.read_bytes += length;
  return transfer(tlm::TLM_READ_COMMAND, addr, out, length, issue_ps);
}

uint64_t DmaEngine::write(uint64_t addr, const uint8_t* data, uint64_t length, DmaPurpose purpose,
                          uint64_t issue_ps) {
  DmaCounts& c = stats_.by_purpose[static_cast<std::size_t>(purpose)];
  ++c.writes;
  c.write_bytes += length;
  // The payload's data pointer is not const; a write only reads through it.
  return transfer(tlm::TLM_WRITE_COMMAND, addr, const_cast<uint8_t*>(data), length, issue_ps);
}

uint64_t DmaEngine::msix(uint64_t addr, uint32_t data, uint32_t vector, uint64_t issue_ps) {
  uint8_t bytes[4];
  for (int i = 0; i < 4; ++i) bytes[i] = static_cast<uint8_t>(data >> (8 * i));
  msi_.vector = vector;
  trans_.set_extension(&msi_);
  const uint64_t done = write(addr, bytes, sizeof bytes, DmaPurpose::Msix, issue_ps);
  trans_.clear_extension(&msi_);
  return done;
}

}  // namespace hcasim::hca
