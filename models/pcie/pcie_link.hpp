#pragma once
// A PCIe link between a host (root complex, memory) and a device (the HCA),
// loosely timed: TLM-2.0 base protocol, b_transport with annotated delay. Each
// direction books its TLPs' wire time (tlp_math.hpp, link_direction.hpp); the
// link posts no event and never waits.
//
// Sockets:
// - host_in (target) -> device_out (initiator): MMIO from the host's CPU to
//   the device's BAR target (downstream requests, upstream completions).
// - device_in (target) -> host_out (initiator): DMA reads and writes and MSI-X
//   messages from the device to host memory (upstream requests and writes,
//   downstream completions).
//
// Rules (now = hcasim::link::now_ps(); a call with delay d is issued at
// now + d; every delay handed on or returned is an offset from now, in ps, so
// the SystemC time resolution must be 1 ps, as the rest of the model assumes):
// - Posted write (device_in: DMA write, or MSI-X when it carries MsiMessage;
//   host_in: MMIO write): cut at MPS and 4 KiB; each TLP starts when its
//   direction is free, after the TLP before it (writes stay ordered). The
//   whole write is forwarded once, with delay = last TLP's end + latency - now,
//   and the call returns the delay the target returned.
// - Read (device_in: DMA read; host_in: MMIO read): cut into requests at MRRS
//   and 4 KiB. DMA reads hold one of `tags` tags per request from issue until
//   its last completion reaches the device; with all tags taken a request
//   waits for the earliest to be freed (MMIO reads are not tag-limited). Each
//   request is forwarded at its arrival (request end + latency), one
//   b_transport per request over its slice of the data; when the target
//   returns, the request's completions (first to the RCB boundary, then at
//   most MPS each) go back as their direction is free. The call returns the
//   last completion's end + latency - now. A DMA read is one sample of the
//   read-latency histogram: issue to the last byte at the device.
// - A request the target answers with an error ends the read: one completion
//   without data comes back, the rest is not requested, and the error is
//   returned. Any other response passes back unchanged.
// - Byte enables -> TLM_BYTE_ENABLE_ERROR_RESPONSE, a streaming width below
//   the length -> TLM_BURST_ERROR_RESPONSE, a range running past the 64-bit
//   address space -> TLM_ADDRESS_ERROR_RESPONSE, all without forwarding; zero
//   length -> TLM_OK_RESPONSE at no cost, not forwarded. TLM_IGNORE_COMMAND
//   is forwarded unchanged, with no time and no count.
// - transport_dbg is forwarded, not timed, not counted. get_direct_mem_ptr is
//   refused on both targets (false, with DMI access none over the whole
//   address space): direct memory access would bypass the link's timing. The
//   targets' invalidate_direct_mem_ptr calls are passed back to the initiators.
// - ideal: transfers are forwarded with their delay unchanged (no bandwidth,
//   no latency, no tags) and still counted.
// - Each direction books its TLPs (link_direction.hpp): a TLP goes out in the
//   first gap at or after its ready time long enough for it, so a transfer
//   issued for a later time (a DMA waiting for a context fill) does not hold
//   up one issued after it for an earlier time; posted writes keep the order
//   they are issued in.
// - Per transfer no heap allocation and no std::function: the per-TLP work is
//   arithmetic on the two directions and a tag heap sized at construction.

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <array>
#include <cstdint>
#include <vector>

#include "models/pcie/link_direction.hpp"
#include "models/pcie/pcie_config.hpp"
#include "models/pcie/pcie_stats.hpp"
#include "models/pcie/tlp_math.hpp"

namespace hcasim::pcie {

class PcieLink : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<PcieLink> host_in{"host_in"};           // MMIO from the host
  tlm_utils::simple_initiator_socket<PcieLink> device_out{"device_out"};  // to the device's BAR
  tlm_utils::simple_target_socket<PcieLink> device_in{"device_in"};       // DMA and MSI-X from the device
  tlm_utils::simple_initiator_socket<PcieLink> host_out{"host_out"};      // to host memory

  // Throws std::invalid_argument with check()'s message when the config is invalid.
  PcieLink(const sc_core::sc_module_name& name, const PcieConfig& config);
  PcieLink() = delete;
  PcieLink(const PcieLink&) = delete;
  PcieLink& operator=(const PcieLink&) = delete;

  const PcieConfig& config() const { return config_; }
  const PcieStats& stats() const { return stats_; }
  // When the direction's last TLP so far is out, ps (for tracing utilisation).
  uint64_t busy_until_ps(Direction d) const;
  // Time per wire byte after the DLLP share, ps.
  double ps_per_byte() const { return dirs_[0].ps_per_byte(); }
  // Adds each direction's busy time so far (ps; its slope is the utilisation)
  // and the DMA reads issued to a VCD file: <name>.upstream_busy_ps, ...
  void trace(sc_core::sc_trace_file* file) const;

 private:
  // Which way a transaction goes: from the device (DMA) or from the host (MMIO).
  enum class Side : uint8_t { Device, Host };

  void host_b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  void device_b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  unsigned host_transport_dbg(tlm::tlm_generic_payload& t);
  unsigned device_transport_dbg(tlm::tlm_generic_payload& t);
  bool refuse_dmi(tlm::tlm_generic_payload& t, tlm::tlm_dmi& dmi);
  void device_invalidate(sc_dt::uint64 start, sc_dt::uint64 end);
  void host_invalidate(sc_dt::uint64 start, sc_dt::uint64 end);

  // Answers what the link does not forward; false when it answered.
  static bool acceptable(tlm::tlm_generic_payload& t);
  void transport(Side side, tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  void write(Side side, TlpKind kind, tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  void read(Side side, tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  void ideal_read(Side side, tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  // Counts one TLP (and, unless ideal, sends it); returns its end, ps.
  double send(Direction d, TlpKind kind, TlpType type, uint32_t payload, double ready_ps);
  // A DMA read request's tag: when it may go, given it is ready at ready_ps.
  double take_tag(double ready_ps);
  void free_tag_at(double ps);
  void update_busy();

  PcieConfig config_;
  TlpSizes sizes_;
  double latency_ps_;
  std::array<LinkDirection, kDirections> dirs_;
  // Completion times of the DMA read requests holding a tag (min-heap,
  // capacity `tags`, reserved at construction).
  std::vector<double> tag_heap_;
  PcieStats stats_;
};

}  // namespace hcasim::pcie
