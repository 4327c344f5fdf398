#pragma once
// What the requester and responder logic need from their surroundings: memory,
// packets, completion queues, the time and the configuration. The transport
// engine provides them; tests can provide their own. No SystemC here.

#include <cstdint>

#include "models/ib/packet.hpp"
#include "models/transport/host_memory.hpp"
#include "models/transport/qp.hpp"
#include "models/transport/transport_config.hpp"

namespace hcasim::transport {

class QpServices {
 public:
  virtual ~QpServices() = default;
  virtual HostMemory& memory() = 0;
  // A reset packet from the pool; the caller fills it and hands it on.
  virtual ib::Packet* new_packet() = 0;
  // A completion for the QP's send CQ (send_queue) or receive CQ.
  virtual void complete(Qp& qp, bool send_queue, const WorkCompletion& wc) = 0;
  // A send WQE that completed successfully without a completion (unsignaled).
  virtual void retired_unsignaled(Qp& /*qp*/, const SendWr& /*wr*/) {}
  // An affiliated asynchronous error of the QP (IBV event name).
  virtual void async_event(Qp& qp, const char* event) = 0;
  virtual uint64_t now_ps() const = 0;
  virtual const TransportConfig& config() const = 0;
};

}  // namespace hcasim::transport
