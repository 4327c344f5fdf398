#pragma once
// The HCA's DMA: reads and writes of host memory, and MSI-X messages, as
// transactions of the TLM-2.0 base protocol on the HCA's initiator socket (to
// the PCIe link, then host memory), counted by what they are for.
//
// Rules:
// - One transaction per call: a whole WQE batch, gather piece, CQE or
//   doorbell record (the link splits it into TLPs). b_transport with the
//   annotated delay of the issue time (now or later); nothing waits: the
//   call returns when the access is done (reads: the data is at the HCA;
//   writes: the data is in host memory), in ps.
// - Every transaction carries the HCA's requester id (pcie::InitiatorId); an
//   MSI-X write carries pcie::MsiMessage with its vector.
// - A transaction answered with an error response, or made while the socket
//   is bound to nothing, is counted (errors) and its read bytes are left as
//   they were.

#include <tlm>

#include <array>
#include <cstdint>

#include "models/pcie/pcie_extensions.hpp"

namespace hcasim::hca {

enum class DmaPurpose : uint8_t {
  Wqe, Gather, Scatter, DoorbellRecord, Cqe, Msix, Test,
  Qpc, Cqc, Mpt, Mtt, WqeRefetch, ContextWriteBack,  // context and WQE cache fills, and dirty contexts written back
  kCount
};
// "wqe", "gather", "scatter", "doorbell_record", "cqe", "msix", "test", "qpc", "cqc", "mpt", "mtt", "wqe_refetch",
// "context_write_back"
const char* to_string(DmaPurpose p);

struct DmaCounts {
  uint64_t reads = 0, read_bytes = 0;
  uint64_t writes = 0, write_bytes = 0;
};

struct DmaStats {
  std::array<DmaCounts, static_cast<std::size_t>(DmaPurpose::kCount)> by_purpose{};
  uint64_t errors = 0;  // transactions answered with an error response
  const DmaCounts& of(DmaPurpose p) const { return by_purpose[static_cast<std::size_t>(p)]; }
};

class DmaEngine {
 public:
  // port: the initiator socket's port (bound or not).
  DmaEngine(sc_core::sc_port_b<tlm::tlm_fw_transport_if<>>& port, uint64_t requester_id);
  DmaEngine(const DmaEngine&) = delete;
  DmaEngine& operator=(const DmaEngine&) = delete;
  ~DmaEngine();

  // issue_ps: when the transaction starts (>= now).
  uint64_t read(uint64_t addr, uint8_t* out, uint64_t length, DmaPurpose purpose, uint64_t issue_ps);
  uint64_t write(uint64_t addr, const uint8_t* data, uint64_t length, DmaPurpose purpose, uint64_t issue_ps);
  // A posted 4-byte write of `data` to `addr` (the vector's MSI-X table entry).
  uint64_t msix(uint64_t addr, uint32_t data, uint32_t vector, uint64_t issue_ps);

  const DmaStats& stats() const { return stats_; }

 private:
  uint64_t transfer(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, uint64_t length, uint64_t issue_ps);

  sc_core::sc_port_b<tlm::tlm_fw_transport_if<>>& port_;
  tlm::tlm_generic_payload trans_;
  pcie::InitiatorId requester_;
  pcie::MsiMessage msi_;
  DmaStats stats_;
};

}  // namespace hcasim::hca
