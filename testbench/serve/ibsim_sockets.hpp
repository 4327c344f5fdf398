#pragma once
// Where ibsim's sockets live (ibsim_wire.hpp's rules): in the abstract Unix
// namespace under a base name, or on UDP ports, as `ibsim -r -l PORT` serves
// them. Plain sockets: nothing here knows the protocol or the model.
//
// Rules:
// - Unix: the server's control socket is "<base>:ctl", client n's MAD socket
//   "<base>:out<n>", connected to the client's "<base>:in<id>" (id: its
//   process id).
// - UDP: the control socket is HOST:PORT, client n's MAD socket HOST:PORT+1+n,
//   connected to the client's MAD socket: the address its control messages
//   came from, at port id (umad2sim sends its MAD socket's port as the id).
// - Sockets are non-blocking and close on exec.

#include <sys/socket.h>

#include <cstdint>
#include <optional>
#include <string>

namespace hcasim::serve {

struct SocketAddress {
  sockaddr_storage bytes{};
  socklen_t length = 0;
  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&bytes); }
};

struct IbsimSockets {
  std::string base = "sim";     // Unix: $IBSIM_SOCKNAME
  bool udp = false;             // UDP instead: $IBSIM_SERVER_NAME, $IBSIM_SERVER_PORT
  std::string host = "127.0.0.1";  // UDP: the address to bind (0.0.0.0: every one, as ibsim does)
  uint16_t port = 7070;         // UDP: the control port (ibsim's default)
};

// "[HOST:]PORT" as --udp takes it; nullopt when it is not an IPv4 address and
// a port from 1 to 65524 (PORT + 11 must be a port too).
std::optional<IbsimSockets> parse_udp(const std::string& text);

SocketAddress server_ctl(const IbsimSockets& s);
SocketAddress server_out(const IbsimSockets& s, unsigned client);
// The client's MAD socket, from its id and the address of its control messages.
SocketAddress client_in(const IbsimSockets& s, uint32_t id, const SocketAddress& ctl_from);

// A datagram socket bound to a; -1 (errno set) when it cannot be.
int bound_socket(const SocketAddress& a);
bool connect_to(int fd, const SocketAddress& a);
// "sim:ctl", or "127.0.0.1:7070".
std::string describe(const SocketAddress& a);

}  // namespace hcasim::serve
