#pragma once
// The control side of ibsim's protocol (ibsim_wire.hpp): the table of
// attached clients and the answer to each control message, taken from the
// nodes' own attributes as their SMAs give them in band. Plain C++: the server
// hands it a decoded message and sends back what it returns.
//
// Rules (ibsim/ibsim.c sim_ctl and its handlers, where not said otherwise):
// - A message whose magic is wrong gets no answer (ibsim's too).
// - CONNECT takes the lowest free client number (0..9) and attaches the
//   client to the node its info names (a node's name or its
//   NodeDescription; empty: the default node) at the node's client port
//   (an HCA's port 1, a switch's port 0). The answer carries the client
//   number and the node's name. ERROR when: ten clients are attached, no
//   node has that name, the client asks IsSM and the node already has an SM
//   client, or the server cannot open the client's MAD channel (attach()
//   returns false; ibsim exits there, the server answers and goes on).
// - DISCONNECT detaches the client (ERROR for a number >= 10; a client not
//   attached: answered, nothing done).
// - The GET types and SET_ISSM need an attached client; otherwise, and for
//   a type ibsim does not know, ERROR (ibsim answers an unknown type with
//   the message unchanged; ERROR tells the client it failed).
//   - GET_PORT: sim_port {LID, PortState} of the client's port (PortInfo).
//   - GET_VENDOR: VendorID, DeviceID and Revision from NodeInfo, firmware 1.
//   - GET_GID: PortInfo's GID prefix and the NodeGUID (IBA byte order;
//     ibsim copies its host-order GUID), GET_GUID: the NodeGUID. Debian's
//     umad2sim asks neither.
//   - GET_NODEINFO: the 64 bytes of NodeInfo.
//   - GET_PORTINFO: PortInfo of the port in data[0] (1..ports; 0 or more:
//     the client's port; a switch's 0 is its management port).
//   - GET_PKEYS: P_KeyTable block 0 of the client's port (32 big-endian
//     entries: the 64 bytes the message holds).
//   - SET_ISSM: data[0..3] (host order) sets or clears the client's IsSM and
//     the port's PortInfo.CapabilityMask.IsSM bit.
// - The answer is the message with type ERROR, or with its data filled in.
// - A MAD that reaches a node for outside software goes to (client_for,
//   ibsim's find_client): a response to the client whose number its TID's
//   server tag holds, when that client is attached at the node's port; else to
//   an attached client of that port whose QP is the MAD's destination QP (QP 2
//   and up); else a request to QP0 or QP1 goes to the port's IsSM client.
//   A switch's clients are all at its port 0, whatever port the MAD came in on.

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "testbench/serve/ibsim_wire.hpp"

namespace hcasim::serve::ibsim {

// The fabric as the control side sees it.
class NodeDirectory {
 public:
  virtual ~NodeDirectory() = default;
  // The node with this name or NodeDescription ("" = the default node); -1 when none.
  virtual int find(const std::string& name) const = 0;
  virtual std::string name(int node) const = 0;
  virtual bool is_switch(int node) const = 0;
  virtual unsigned ports(int node) const = 0;
  // The 64 data bytes of a SubnGet of attribute attr with this modifier, as
  // the node's SMA answers one that came in on `port`.
  virtual std::array<uint8_t, 64> get(int node, unsigned port, uint16_t attr, uint32_t modifier) const = 0;
  virtual void set_is_sm(int node, unsigned port, bool on) = 0;
};

struct ControlStats {
  uint64_t messages = 0, errors = 0, bad_magic = 0;
  uint64_t connects = 0, disconnects = 0;
};

class Control {
 public:
  struct Client {
    bool attached = false;
    uint32_t id = 0;  // the process id (or UDP port) the client gave
    int node = -1;
    unsigned port = 0;
    uint32_t qp = 0;
    bool issm = false;
  };
  // attach(client, id): open the server's MAD channel of that client number
  // to the client's input socket; false when it cannot.
  using Attach = std::function<bool(unsigned client, uint32_t id)>;

  Control(NodeDirectory& nodes, Attach attach) : nodes_(nodes), attach_(std::move(attach)) {}

  // The answer to a control message; empty when it gets none.
  std::optional<Ctl> handle(const Ctl& message);
  const Client& client(unsigned i) const { return clients_.at(i); }
  unsigned attached() const;
  // The client a MAD for outside software goes to (see the rules); -1 when none.
  int client_for(int node, unsigned port, bool response, uint32_t dest_qp, uint64_t tid) const;
  const ControlStats& stats() const { return stats_; }

 private:
  Ctl connect(Ctl c);
  Ctl answer(Ctl c, const Client& cl);
  Ctl error(Ctl c);

  NodeDirectory& nodes_;
  Attach attach_;
  std::array<Client, kMaxClients> clients_{};
  ControlStats stats_;
};

}  // namespace hcasim::serve::ibsim
