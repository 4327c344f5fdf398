#pragma once
// The TLM-2.0 protocol-types class of hcasim links: the payload is the model's
// packet class, not tlm_generic_payload (DESIGN.md "TLM conventions"). A port
// sends with nb_transport_fw(packet, BEGIN_REQ, delay) where delay is the
// serialization plus propagation time; the receiver sees the whole packet at
// now + delay and answers TLM_COMPLETED. Nothing is returned on the backward path.

#include <tlm>

#include "models/ib/packet.hpp"

namespace hcasim::link {

struct IbProtocol {
  using tlm_payload_type = ib::Packet;
  using tlm_phase_type = tlm::tlm_phase;
};

// A port may be left unconnected (a second HCA port with no cable).
using TxSocket = tlm::tlm_initiator_socket<32, IbProtocol, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;
using RxSocket = tlm::tlm_target_socket<32, IbProtocol, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;

}  // namespace hcasim::link
