#include "testbench/serve/ibsim_sockets.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>

#include "testbench/serve/ibsim_wire.hpp"

namespace hcasim::serve {

namespace {

SocketAddress unix_address(const std::string& abstract) {
  SocketAddress a;
  auto* u = reinterpret_cast<sockaddr_un*>(&a.bytes);
  u->sun_family = AF_UNIX;
  std::memcpy(u->sun_path, abstract.data(), std::min(abstract.size(), sizeof(u->sun_path)));
  a.length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + std::min(abstract.size(), sizeof(u->sun_path)));
  return a;
}

SocketAddress inet_address(in_addr_t addr, uint32_t port) {
  SocketAddress a;
  auto* in = reinterpret_cast<sockaddr_in*>(&a.bytes);
  in->sin_family = AF_INET;
  in->sin_addr.s_addr = addr;
  in->sin_port = htons(static_cast<uint16_t>(port));
  a.length = sizeof(sockaddr_in);
  return a;
}

in_addr_t host_address(const IbsimSockets& s) {
  in_addr a{};
  inet_pton(AF_INET, s.host.c_str(), &a);
  return a.s_addr;
}

}  // namespace

std::optional<IbsimSockets> parse_udp(const std::string& text) {
  IbsimSockets s;
  s.udp = true;
  std::string port = text;
  if (const std::size_t colon = text.rfind(':'); colon != std::string::npos) {
    s.host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  in_addr a{};
  if (inet_pton(AF_INET, s.host.c_str(), &a) != 1) return std::nullopt;
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  const unsigned long p = std::stoul(port);
  if (p < 1 || p + 1 + ibsim::kMaxClients > 65535) return std::nullopt;
  s.port = static_cast<uint16_t>(p);
  return s;
}

SocketAddress server_ctl(const IbsimSockets& s) {
  return s.udp ? inet_address(host_address(s), s.port) : unix_address(ibsim::server_ctl_address(s.base));
}

SocketAddress server_out(const IbsimSockets& s, unsigned client) {
  return s.udp ? inet_address(host_address(s), s.port + 1u + client)
               : unix_address(ibsim::server_out_address(s.base, client));
}

SocketAddress client_in(const IbsimSockets& s, uint32_t id, const SocketAddress& ctl_from) {
  if (!s.udp) return unix_address(ibsim::client_in_address(s.base, id));
  const auto* from = reinterpret_cast<const sockaddr_in*>(&ctl_from.bytes);
  return inet_address(ctl_from.bytes.ss_family == AF_INET ? from->sin_addr.s_addr : htonl(INADDR_LOOPBACK), id);
}

int bound_socket(const SocketAddress& a) {
  const int fd = ::socket(a.bytes.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (::bind(fd, a.get(), a.length) != 0) {
    const int e = errno;
    ::close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

bool connect_to(int fd, const SocketAddress& a) { return ::connect(fd, a.get(), a.length) == 0; }

std::string describe(const SocketAddress& a) {
  if (a.bytes.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&a.bytes);
    char text[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text));
    return std::string(text) + ":" + std::to_string(ntohs(in->sin_port));
  }
  const auto* u = reinterpret_cast<const sockaddr_un*>(&a.bytes);
  const std::size_t n = a.length - offsetof(sockaddr_un, sun_path);
  const std::string path(u->sun_path, n);
  return n >= 2 && path.front() == '\0' ? path.substr(1, n - 2) : path;
}

}  // namespace hcasim::serve
