#pragma once
// Sideband attributes of a transaction through the PCIe link, as TLM-2.0
// extensions (ignorable: a target that does not know them works unchanged).
//
// - InitiatorId: the requester id, as Accellera's common-practice
//   `initiator_id` (a uint64) that Xilinx libsystemctlm-soc's genattr
//   extension carries; for PCIe the requester's bus/device/function.
// - MsiMessage: marks a posted write from the device as an MSI-X message
//   (PCIe Base Spec, MSI-X: a memory write of the vector's data to its
//   address); the link counts it as msix instead of dma_write.
//
// clone() returns a new object the caller owns: the TLM-2.0 extension API
// (IEEE 1666-2011, generic payload extensions) hands ownership back to the payload's memory manager
// or the caller, so it is a raw `new` here by contract.

#include <tlm>

#include <cstdint>

namespace hcasim::pcie {

struct InitiatorId : tlm::tlm_extension<InitiatorId> {
  uint64_t id = 0;  // requester id

  InitiatorId() = default;
  explicit InitiatorId(uint64_t v) : id(v) {}
  tlm::tlm_extension_base* clone() const override { return new InitiatorId(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    id = static_cast<const InitiatorId&>(other).id;
  }
};

struct MsiMessage : tlm::tlm_extension<MsiMessage> {
  uint32_t vector = 0;  // MSI-X table entry the message was sent for

  MsiMessage() = default;
  explicit MsiMessage(uint32_t v) : vector(v) {}
  tlm::tlm_extension_base* clone() const override { return new MsiMessage(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    vector = static_cast<const MsiMessage&>(other).vector;
  }
};

}  // namespace hcasim::pcie
