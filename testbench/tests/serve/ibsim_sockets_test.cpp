// Where ibsim's sockets live: the Unix names and the UDP ports of ibsim -r
// (include/ibsim.h: IBSIM_DEFAULT_SERVER_PORT 7070; ibsim.c binds client i's
// MAD socket at the control port + 1 + i), and a datagram's round trip on each.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <unistd.h>

#include <string>

#include "testbench/serve/ibsim_sockets.hpp"

using namespace hcasim::serve;

TEST_CASE("serve --udp takes [HOST:]PORT with an IPv4 host and leaves room for the ten client ports", "[serve]") {
  const auto plain = parse_udp("7070");
  REQUIRE(plain);
  CHECK(plain->udp);
  CHECK(plain->host == "127.0.0.1");
  CHECK(plain->port == 7070);
  const auto any = parse_udp("0.0.0.0:9000");
  REQUIRE(any);
  CHECK(any->host == "0.0.0.0");
  CHECK(any->port == 9000);
  CHECK(parse_udp("65524"));
  for (const char* bad : {"", "0", "65525", "70000", "x", "localhost:7070", "1.2.3:7070", "7070:", "-1", "1.2.3.4:"})
    CHECK_FALSE(parse_udp(bad));
}

TEST_CASE("the server's addresses: Unix names under the base, UDP ports from the control port", "[serve]") {
  IbsimSockets unix_sockets;
  unix_sockets.base = "hx";
  CHECK(describe(server_ctl(unix_sockets)) == "hx:ctl");
  CHECK(describe(server_out(unix_sockets, 3)) == "hx:out3");
  CHECK(describe(client_in(unix_sockets, 4242, SocketAddress{})) == "hx:in4242");
  const IbsimSockets udp = *parse_udp("127.0.0.1:7070");
  CHECK(describe(server_ctl(udp)) == "127.0.0.1:7070");
  CHECK(describe(server_out(udp, 0)) == "127.0.0.1:7071");
  CHECK(describe(server_out(udp, 9)) == "127.0.0.1:7080");
  // A UDP client's MAD socket: the address its control message came from, at the port it gave as its id.
  SocketAddress from;
  auto* in = reinterpret_cast<sockaddr_in*>(&from.bytes);
  in->sin_family = AF_INET;
  inet_pton(AF_INET, "10.1.2.3", &in->sin_addr);
  in->sin_port = htons(5555);
  from.length = sizeof(sockaddr_in);
  CHECK(describe(client_in(udp, 40001, from)) == "10.1.2.3:40001");
}

TEST_CASE("a datagram crosses a bound and connected pair on either transport", "[serve]") {
  IbsimSockets unix_sockets;
  unix_sockets.base = "hcasim-sockets-test-" + std::to_string(::getpid());
  IbsimSockets udp;  // port 0: the system picks free ports
  udp.udp = true;
  udp.port = 0;
  for (const IbsimSockets& s : {unix_sockets, udp}) {
    const int server = bound_socket(server_ctl(s));
    REQUIRE(server >= 0);
    SocketAddress bound;
    bound.length = sizeof(bound.bytes);
    REQUIRE(::getsockname(server, reinterpret_cast<sockaddr*>(&bound.bytes), &bound.length) == 0);
    const int client = bound_socket(s.udp ? server_ctl(s) : server_out(s, 0));
    REQUIRE(client >= 0);
    REQUIRE(connect_to(client, bound));
    CHECK(::send(client, "ping", 4, 0) == 4);
    char got[8] = {};
    ssize_t n = -1;
    for (int i = 0; i < 1000 && n < 0; ++i) {
      n = ::recv(server, got, sizeof(got), 0);
      if (n < 0) ::usleep(1000);
    }
    CHECK(n == 4);
    CHECK(std::string(got, 4) == "ping");
    ::close(client);
    ::close(server);
  }
}
