#pragma once
// `hcasim serve`'s ibsim side: the sockets of ibsim's protocol
// (ibsim_wire.hpp) over a fabric built with management external, the control
// side (ibsim_control.hpp over fabric_directory.hpp), and the loop that runs
// the SystemC model while the clients wait for it.
//
// Rules:
// - Sockets (ibsim_sockets.hpp): "<base>:ctl" for control, and per attached
//   client "<base>:out<n>" connected to the client's "<base>:in<pid>" for its
//   MADs, both ways (Unix datagram sockets in the abstract namespace); or the
//   same on UDP ports. Binding the control socket
//   fails when another server uses the name (std::runtime_error naming it).
// - A client's MAD (288 bytes; another size, or one refusal() names, is
//   discarded unanswered, as ibsim does) enters the model at its node's port as
//   that node's QP0 / QP1 sends it (MadNode::send_external), at the simulated
//   time the model has reached. A request's TID gets the client's number in its
//   server tag (bits 48..63) first. A MAD the node cannot send goes back with
//   status 110 at once.
// - A MAD the model hands to outside software at a node (MadNode::on_external)
//   goes to the client Control::client_for picks, as the same 288 bytes
//   (DLID the node port's LID, SLID, QPs from the packet, status 0). A request
//   no client takes goes back to the client its TID's tag names with status
//   110; a response no client takes is dropped (counted).
// - Every request a client sent is tracked until its answer reaches it or it
//   is handed to another client (an SA query OpenSM will answer). A request
//   still tracked near_ps of simulated time after it entered, or when the
//   model has nothing left to do within near_ps, was lost in the model
//   (dropped by a switch, refused by an SMA, lost to a fault): it goes back
//   to its sender with status 110.
// - Time: the model runs while it has work due within near_ps of its clock;
//   work further away (a link event, a trap's repeat) is reached only when at
//   least one client is attached and the clients have been quiet (no datagram
//   from them, no MAD to them) for quiet_ms of wall time: the processes are
//   then taken to be waiting for the model. So an SM's sweep is answered as
//   fast as the model runs, and a scheduled failure happens after the sweep
//   it would otherwise cut short.
// - Holding: when the model hands a client a MAD (an answer, a trap, a
//   request for an SM) the kernel pauses at that simulated time, and from
//   then on the model runs only while client requests are in it (or once after
//   any client MAD enters: a response, a TrapRepress), until the clients have
//   been quiet for quiet_ms. So the model's own work (traffic)
//   does not run ahead while a tool or an SM thinks: an SM's time between its
//   MADs costs no simulated time, and its sweep under traffic takes the
//   simulated time its MADs take.
// - A client whose socket refuses a datagram (the process died) is
//   disconnected (its IsSM cleared); a request it was to answer goes back to
//   its sender with status 110.

#include <nlohmann/json.hpp>

#include <csignal>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/fabric/fabric.hpp"
#include "testbench/serve/fabric_directory.hpp"
#include "testbench/serve/ibsim_control.hpp"
#include "testbench/serve/ibsim_sockets.hpp"
#include "testbench/serve/ibsim_wire.hpp"

namespace hcasim::serve {

struct ServeOptions {
  IbsimSockets sockets;                     // where the sockets live (Unix names or UDP ports)
  uint64_t near_ps = 1'000'000'000;         // 1 ms of simulated time
  unsigned quiet_ms = 1000;                 // wall time without datagrams before far work runs
  bool trace = false;                       // one line per MAD on stderr (hcasim serve --trace)
};

struct ServeStats {
  uint64_t clients_attached_peak = 0;
  std::map<uint8_t, uint64_t> mads_in;    // from clients, by management class
  std::map<uint8_t, uint64_t> mads_out;   // to clients, by management class
  uint64_t answered = 0;                  // responses that reached the client that asked
  uint64_t handed_over = 0;               // requests handed to another client (its IsSM or QP)
  uint64_t undelivered = 0;               // requests sent back with status 110
  uint64_t traps_forwarded = 0;           // Trap() MADs handed to a client
  uint64_t discarded = 0;                 // client datagrams discarded (size, refusal())
  uint64_t unclaimed = 0;                 // MADs from the model no client took (responses, or requests of nobody's)
  uint64_t dead_clients = 0;              // clients disconnected because their socket refused a datagram
};

class IbsimServer {
 public:
  // Binds the control socket (std::runtime_error when it cannot).
  IbsimServer(fabric::Fabric& fabric, ServeOptions options);
  ~IbsimServer();
  IbsimServer(const IbsimServer&) = delete;
  IbsimServer& operator=(const IbsimServer&) = delete;

  // Serves until `stop` is set (a signal handler, or after_model, sets it);
  // the model must be elaborated. after_model, when given, runs each time the
  // model has run as far as it may for now.
  void serve(const volatile std::sig_atomic_t& stop, const std::function<void()>& after_model = {});
  const ServeStats& stats() const { return stats_; }
  const ibsim::ControlStats& control_stats() const { return control_.stats(); }
  unsigned attached() const { return control_.attached(); }
  // stats.json's management.external.
  nlohmann::json json() const;

 private:
  struct Pending {
    unsigned client = 0;
    ibsim::Request request;
    uint64_t since_ps = 0;             // simulated time it entered the model
  };
  bool attach(unsigned client, uint32_t pid);
  void sync_sockets();                 // closes the MAD sockets of clients no longer attached
  bool drain();                        // reads every waiting datagram; true when there was one
  void control_message(const uint8_t* bytes, std::size_t size, const SocketAddress& from);
  void client_mad(unsigned client, const uint8_t* bytes, std::size_t size);
  void from_model(int node, const mgmt::MadNode::ExternalMad& m);
  bool send_to(unsigned client, const ibsim::Request& r);
  void bounce(unsigned client, ibsim::Request r);  // back with status 110
  void forget(unsigned client, uint64_t tid);
  void run_model();
  // Status 110 for the requests in the model for at least this long (0: all).
  void bounce_lost(uint64_t older_than_ps);
  bool wait_readable(int timeout_ms) const;  // a datagram waits (poll, timeout_ms; 0 = now)
  void trace(const char* what, unsigned client, const ibsim::Request& r) const;
  uint64_t wall_ms() const;

  fabric::Fabric& fabric_;
  ServeOptions options_;
  FabricDirectory directory_;
  ibsim::Control control_;
  int ctl_fd_ = -1;
  SocketAddress ctl_from_;             // the sender of the control message being handled
  std::vector<int> client_fd_;         // by client number; -1 = none
  std::vector<Pending> pending_;       // requests in the model, oldest first
  uint64_t activity_ms_ = 0;           // wall time of the last datagram from, or MAD to, a client
  bool holding_ = false;               // simulated time waits for the clients (the rules)
  bool in_model_ = false;              // inside sc_start
  bool injected_ = false;              // a client's MAD entered the model since it last ran
  ServeStats stats_;
};

}  // namespace hcasim::serve
