// ibsim's client protocol (testbench/serve/ibsim_wire.hpp): the codec's bytes
// against ibsim.h's own struct declarations filled as umad2sim fills them, and
// a live exchange with Debian's ibsim: CONNECT, GET_NODEINFO, an unknown node,
// a directed-route SMP answered, a LID-routed one sent back with status 110.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <endian.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "models/ib/be_bytes.hpp"
#include "testbench/serve/ibsim_wire.hpp"
#include "testbench/tests/scratch_dir.hpp"

extern char** environ;

using namespace hcasim::serve;
using hcasim::test::ScratchDir;

namespace {

// include/ibsim.h's declarations (ibsim 0.10), the facts the codec's offsets come from.
struct sim_request {
  uint32_t dlid, slid, dqp, sqp, status;
  uint64_t length;
  char mad[256];
};
struct sim_ctl {
  uint32_t magic, clientid, type, len;
  char data[64];
};
struct sim_client_info {
  uint32_t id, qp, issm;
  char nodeid[32];
};
struct sim_vendor {
  uint32_t vendor_id, vendor_part_id, hw_ver;
  uint64_t fw_ver;
};

// A datagram socket bound to an abstract name (and then connected to another).
class Socket {
 public:
  explicit Socket(const std::string& own) : fd_(::socket(AF_UNIX, SOCK_DGRAM, 0)) {
    REQUIRE(fd_ >= 0);
    REQUIRE(::bind(fd_, address(own), length(own)) == 0);
  }
  ~Socket() { ::close(fd_); }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  void connect(const std::string& peer) {
    // The server may still be starting: its names appear when it has read its net file.
    for (int i = 0; i < 100 && ::connect(fd_, address(peer), length(peer)) != 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  template <std::size_t N>
  void send(const std::array<uint8_t, N>& bytes) {
    REQUIRE(::send(fd_, bytes.data(), N, 0) == static_cast<ssize_t>(N));
  }
  // One datagram, or an empty string after 5 s.
  std::string receive() {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 5000) != 1) return "";
    char buf[1024];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
  }

 private:
  const sockaddr* address(const std::string& name) {
    std::memset(&addr_, 0, sizeof addr_);
    addr_.sun_family = AF_UNIX;
    std::memcpy(addr_.sun_path, name.data(), name.size());
    return reinterpret_cast<const sockaddr*>(&addr_);
  }
  static socklen_t length(const std::string& name) {
    return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size());
  }
  int fd_;
  sockaddr_un addr_{};
};

const uint8_t* bytes_of(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

// A SubnGet of attribute attr: directed route with an empty path (class 0x81,
// answered by the node itself), or LID-routed (class 0x01).
ibsim::Request smp_get(bool directed, uint16_t attr, uint16_t dlid, uint64_t tid) {
  ibsim::Request r;
  r.dlid = dlid;
  r.slid = directed ? 0xFFFF : 0;
  r.length = ibsim::kMadBytes;
  uint8_t* m = r.mad.data();
  m[0] = 1;                        // BaseVersion
  m[1] = directed ? 0x81 : 0x01;   // MgmtClass
  m[2] = 1;                        // ClassVersion
  m[3] = 0x01;                     // Method: Get
  hcasim::ib::put_be64(m + 8, tid);
  hcasim::ib::put_be16(m + 16, attr);
  if (directed) {
    hcasim::ib::put_be16(m + 32, 0xFFFF);  // DrSLID (after the header and M_Key)
    hcasim::ib::put_be16(m + 34, 0xFFFF);  // DrDLID
  }
  return r;
}

}  // namespace

TEST_CASE("ibsim wire: the codec's bytes are ibsim.h's structs as umad2sim and ibsim fill them") {
  static_assert(sizeof(sim_ctl) == ibsim::kCtlBytes);
  static_assert(sizeof(sim_request) == ibsim::kRequestBytes);

  // umad2sim_write: dlid = umad's be16 LID stored whole, QPs and status htonl, length htobe64.
  sim_request c{};
  c.dlid = htons(0x1234);
  c.slid = htons(0xFFFF);
  c.dqp = htonl(1);
  c.sqp = htonl(0x00ABCDEF);
  c.status = htonl(ibsim::kStatusUndelivered);
  c.length = htobe64(232);
  for (int i = 0; i < 256; ++i) c.mad[i] = static_cast<char>(i * 7);
  ibsim::Request r;
  r.dlid = 0x1234;
  r.slid = 0xFFFF;
  r.dqp = 1;
  r.sqp = 0x00ABCDEF;
  r.status = 110;
  r.length = 232;
  for (int i = 0; i < 256; ++i) r.mad[i] = static_cast<uint8_t>(i * 7);
  const auto wire = ibsim::encode_request(r);
  CHECK(std::memcmp(wire.data(), &c, sizeof c) == 0);
  const auto back = ibsim::decode_request(reinterpret_cast<const uint8_t*>(&c), sizeof c);
  REQUIRE(back);
  CHECK(back->dlid == 0x1234);
  CHECK(back->slid == 0xFFFF);
  CHECK(back->sqp == 0x00ABCDEF);
  CHECK(back->status == 110);
  CHECK(back->length == 232);
  CHECK(back->mad == r.mad);
  CHECK_FALSE(ibsim::decode_request(wire.data(), wire.size() - 1));

  // sim_client.c's CONNECT: magic, client id, type, len, then sim_client_info.
  sim_ctl k{};
  k.magic = 0xdeadbeef;
  k.clientid = 3;
  k.type = 1;
  k.len = sizeof(sim_client_info);
  sim_client_info info{4242, 0, 1, {}};
  std::strcpy(info.nodeid, "H-e41d2d0300a1c000");
  std::memcpy(k.data, &info, sizeof info);
  ibsim::Ctl e;
  e.client = 3;
  e.type = static_cast<uint32_t>(ibsim::CtlType::Connect);
  e.len = sizeof(sim_client_info);
  ibsim::write_client_info({4242, 0, 1, "H-e41d2d0300a1c000"}, e);
  const auto ctl = ibsim::encode_ctl(e);
  CHECK(std::memcmp(ctl.data(), &k, sizeof k) == 0);
  const auto read = ibsim::decode_ctl(reinterpret_cast<const uint8_t*>(&k), sizeof k);
  REQUIRE(read);
  CHECK(read->magic == ibsim::kMagic);
  const ibsim::ClientInfo got = ibsim::read_client_info(*read);
  CHECK(got.id == 4242);
  CHECK(got.issm == 1);
  CHECK(got.node == "H-e41d2d0300a1c000");
  CHECK_FALSE(ibsim::decode_ctl(ctl.data(), ctl.size() + 1));

  // GET_VENDOR's sim_vendor (fw_ver 8-aligned).
  sim_vendor v{0x02c9, 0x1011, 0xA0, 1};
  ibsim::Ctl vendor;
  ibsim::write_vendor(0x02c9, 0x1011, 0xA0, 1, vendor);
  CHECK(std::memcmp(vendor.data.data(), &v, sizeof v) == 0);

  // Abstract names: NUL, name, NUL (ibsim's make_name counts the last NUL).
  CHECK(ibsim::server_ctl_address("sim") == std::string("\0sim:ctl\0", 9));
  CHECK(ibsim::server_out_address("sim", 9) == std::string("\0sim:out9\0", 10));
  CHECK(ibsim::client_in_address("x", 77) == std::string("\0x:in77\0", 8));
  CHECK(ibsim::with_server_tag(0x1234'5678'9ABC'DEF0ull, 0xBEEF) == 0xBEEF'5678'9ABC'DEF0ull);
  CHECK(ibsim::server_tag(0xBEEF'5678'9ABC'DEF0ull) == 0xBEEF);
}

TEST_CASE("ibsim wire: Debian's ibsim answers the codec's control and MAD datagrams") {
  {
    INFO("ibsim missing: scripts/setup.sh installs ibsim-utils");
    REQUIRE(::access("/usr/bin/ibsim", X_OK) == 0);
  }
  const ScratchDir dir("ibsim-wire");
  {
    std::ofstream net(dir / "net");
    net << "Hca\t2 \"Hca1\"\n[1]\t\"Switch1\"[1]\n\nSwitch\t8 \"Switch1\"\n[1]\t\"Hca1\"[1]\n";
  }
  // A socket base of this process's own: abstract names are shared by the whole machine.
  const std::string base = "hcasim-wire-" + std::to_string(::getpid());
  const std::string env_base = "IBSIM_SOCKNAME=" + base;
  const std::string net = (dir / "net").string();
  const char* argv[] = {"ibsim", "-s", "-n", net.c_str(), nullptr};
  std::vector<char*> env;
  for (char** e = environ; *e != nullptr; ++e) env.push_back(*e);
  env.push_back(const_cast<char*>(env_base.c_str()));
  env.push_back(nullptr);
  posix_spawn_file_actions_t io;
  posix_spawn_file_actions_init(&io);
  posix_spawn_file_actions_addopen(&io, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&io, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&io, 2, "/dev/null", O_WRONLY, 0);
  pid_t server = 0;
  REQUIRE(posix_spawn(&server, "/usr/bin/ibsim", &io, nullptr, const_cast<char**>(argv), env.data()) == 0);
  posix_spawn_file_actions_destroy(&io);
  struct Ender {
    pid_t pid;
    ~Ender() {
      ::kill(pid, SIGTERM);
      ::waitpid(pid, nullptr, 0);
    }
  } ender{server};

  const auto pid = static_cast<uint32_t>(::getpid());
  // As sim_client.c: the MAD socket is bound before CONNECT (the server connects to it then).
  Socket ctl(ibsim::client_ctl_address(base, pid));
  ctl.connect(ibsim::server_ctl_address(base));
  Socket mads(ibsim::client_in_address(base, pid));
  const auto ask = [&](ibsim::CtlType type, uint32_t client, const ibsim::ClientInfo* info) {
    ibsim::Ctl c;
    c.client = client;
    c.type = static_cast<uint32_t>(type);
    c.len = ibsim::kCtlDataBytes;
    if (info != nullptr) ibsim::write_client_info(*info, c);
    ctl.send(ibsim::encode_ctl(c));
    const std::string answer = ctl.receive();
    const auto reply = ibsim::decode_ctl(bytes_of(answer), answer.size());
    REQUIRE(reply);
    return *reply;
  };

  // An unknown node: refused with an ERROR reply.
  const ibsim::ClientInfo nowhere{pid, 0, 0, "no-such-node"};
  CHECK(ask(ibsim::CtlType::Connect, 0, &nowhere).type == static_cast<uint32_t>(ibsim::CtlType::Error));
  // Hca1: client 0, the node's name echoed.
  const ibsim::ClientInfo hca{pid, 0, 0, "Hca1"};
  const ibsim::Ctl connected = ask(ibsim::CtlType::Connect, 0, &hca);
  REQUIRE(connected.type == static_cast<uint32_t>(ibsim::CtlType::Connect));
  const ibsim::ClientInfo me = ibsim::read_client_info(connected);
  CHECK(me.id == 0);
  CHECK(me.node == "Hca1");
  // GET_NODEINFO: the node's NodeInfo attribute (IBA 14.2.5.3): a CA (type 1) of 2 ports.
  const ibsim::Ctl node = ask(ibsim::CtlType::GetNodeInfo, me.id, nullptr);
  REQUIRE(node.type == static_cast<uint32_t>(ibsim::CtlType::GetNodeInfo));
  CHECK(node.data[2] == 1);
  CHECK(node.data[3] == 2);

  mads.connect(ibsim::server_out_address(base, me.id));
  // A directed-route SubnGet(NodeInfo) with an empty path: Hca1 answers, GetResp, same TID.
  mads.send(ibsim::encode_request(smp_get(true, 0x0011, 0xFFFF, 0x77)));
  const std::string answer = mads.receive();
  const auto resp = ibsim::decode_request(bytes_of(answer), answer.size());
  REQUIRE(resp);
  CHECK(resp->status == 0);
  CHECK(resp->mad[3] == 0x81);
  CHECK(hcasim::ib::get_be64(resp->mad.data() + 8) == 0x77);
  CHECK(resp->mad[64 + 2] == 1);  // NodeInfo.NodeType in the DR SMP's data (byte 64 on)
  // A LID-routed SMP to a LID nobody has (no SM has run): back to the sender with status 110.
  mads.send(ibsim::encode_request(smp_get(false, 0x0011, 9, 0x78)));
  const std::string bounced = mads.receive();
  const auto back = ibsim::decode_request(bytes_of(bounced), bounced.size());
  REQUIRE(back);
  CHECK(back->status == ibsim::kStatusUndelivered);
  CHECK(hcasim::ib::get_be64(back->mad.data() + 8) == 0x78);

  ask(ibsim::CtlType::Disconnect, me.id, nullptr);
}

TEST_CASE("ibsim wire: the MADs ibsim's decode_sim_MAD discards are refused, others taken") {
  Request r;
  r.mad[0] = 1;     // BaseVersion
  r.mad[1] = 0x81;  // directed route
  r.mad[2] = 1;
  r.mad[3] = 0x01;  // Get
  ib::put_be16(r.mad.data() + 32, 0xFFFF);
  ib::put_be16(r.mad.data() + 34, 0xFFFF);
  CHECK(refusal(r).empty());
  Request bad = r;
  bad.mad[0] = 2;
  CHECK(refusal(bad) == "base version 2 (not 1)");
  bad = r;
  bad.mad[2] = 3;
  CHECK_FALSE(refusal(bad).empty());
  bad = r;
  bad.mad[6] = 1;  // hop pointer
  CHECK_FALSE(refusal(bad).empty());
  bad = r;
  bad.mad[4] = 0x80;  // D bit on a request
  CHECK_FALSE(refusal(bad).empty());
  bad = r;
  ib::put_be16(bad.mad.data() + 34, 5);  // DrDLID
  CHECK_FALSE(refusal(bad).empty());
  Request lid = r;
  lid.mad[1] = 0x01;
  lid.mad[6] = 7;  // LID-routed: bytes 4..7 are not the DR fields
  CHECK(refusal(lid).empty());
  set_tid(r, 0x0102030405060708ull);
  CHECK(tid(r) == 0x0102030405060708ull);
  CHECK(server_tag(tid(r)) == 0x0102);
}
