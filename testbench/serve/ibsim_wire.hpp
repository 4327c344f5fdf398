#pragma once
// ibsim's client protocol as it crosses the sockets: the datagrams Debian's
// libumad2sim.so (ibsim-utils 0.10) sends and expects, so that `hcasim serve`
// can stand where ibsim stands. Plain C++: bytes in, a struct out, and back;
// nothing here knows the model.
//
// Rules (ibsim include/ibsim.h, ibsim/ibsim.c, ibsim/sim_mad.c,
// umad2sim/sim_client.c, umad2sim/umad2sim.c):
// - Sockets are datagram sockets. Unix ones live in the abstract namespace:
//   the address is a NUL byte, the name, and a NUL byte that is part of the
//   address (its length counts it). The server binds "<base>:ctl" and
//   "<base>:out0" .. "<base>:out9"; a client of process id P binds
//   "<base>:ctl<P>" and "<base>:in<P>". base is $IBSIM_SOCKNAME, else "sim".
//   Over UDP ($IBSIM_SERVER_NAME set) the server listens on port
//   $IBSIM_SERVER_PORT (default 7070) for control and on that + 1 + i for
//   client i's MADs.
// - A control message is 80 bytes: magic 0xdeadbeef, client id, type, length
//   (each 32 bits in the host's order; the host is little-endian here) and 64
//   bytes of data. The server answers each on the control socket with the same
//   80 bytes, its type set to ERROR when it refuses, and the data filled in
//   for the GET types. A message of another size or magic gets no answer.
// - CONNECT's data is a client info: id (in: the process id, or the UDP port
//   of its MAD socket; out: the client number 0..9), QP, IsSM, and the node's
//   name (32 bytes, NUL-padded; empty = the server's default node). The server
//   then sends the client's MADs from its "out<n>" socket connected to the
//   client's "in<P>".
// - A MAD message is 288 bytes: DLID and SLID (32-bit fields, the LID
//   big-endian in their first two bytes: umad's be16 stored whole), DQP, SQP
//   and status (big-endian 32 bits), 4 bytes of padding, length (big-endian
//   64 bits: the MAD's bytes) and the MAD (256 bytes). SLID 0 asks the server
//   to fill in the sender's LID. A request the server cannot deliver goes back
//   to its sender with status 110 (ETIMEDOUT), never dropped silently.
// - Transaction IDs: umad2sim puts its agent id in bits 32..47 of a request's
//   TID; bits 48..63 are the server's to use.
// - At most 10 clients at once; one IsSM client per node.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace hcasim::serve::ibsim {

constexpr uint32_t kMagic = 0xdeadbeef;        // ibsim.h SIM_MAGIC
constexpr std::size_t kCtlBytes = 80;          // sizeof(struct sim_ctl)
constexpr std::size_t kCtlDataBytes = 64;      // SIM_CTL_MAX_DATA
constexpr std::size_t kRequestBytes = 288;     // sizeof(struct sim_request)
constexpr std::size_t kMadBytes = 256;         // sim_request.mad
constexpr std::size_t kNodeIdBytes = 32;       // sim_client_info.nodeid
constexpr unsigned kMaxClients = 10;           // IBSIM_MAX_CLIENTS
constexpr uint16_t kDefaultServerPort = 7070;  // IBSIM_DEFAULT_SERVER_PORT
constexpr uint32_t kStatusUndelivered = 110;   // ETIMEDOUT: sim_mad.c's status for a dropped request
constexpr const char* kDefaultBase = "sim";    // SIM_BASENAME

enum class CtlType : uint32_t {  // ibsim.h enum SIM_CTL_TYPES, in order
  Error,
  Connect,
  Disconnect,
  GetPort,
  GetVendor,
  GetGid,
  GetGuid,
  GetNodeInfo,
  GetPortInfo,
  SetIsSm,
  GetPkeys,
  Last
};
const char* to_string(CtlType t);

struct Ctl {
  uint32_t magic = kMagic;
  uint32_t client = 0;
  uint32_t type = 0;  // a CtlType, as received (may be out of range)
  uint32_t len = 0;
  std::array<uint8_t, kCtlDataBytes> data{};
};

// Empty when the datagram is not kCtlBytes long.
std::optional<Ctl> decode_ctl(const uint8_t* bytes, std::size_t size);
std::array<uint8_t, kCtlBytes> encode_ctl(const Ctl& c);

// CONNECT's data (sim_client_info).
struct ClientInfo {
  uint32_t id = 0;
  uint32_t qp = 0;
  uint32_t issm = 0;
  std::string node;  // up to kNodeIdBytes - 1 characters
};
ClientInfo read_client_info(const Ctl& c);
void write_client_info(const ClientInfo& info, Ctl& c);

// GET_PORT's data (sim_port) and GET_VENDOR's (sim_vendor).
void write_port(uint16_t lid, uint8_t state, Ctl& c);
void write_vendor(uint32_t vendor_id, uint32_t part_id, uint32_t hw_version, uint64_t fw_version, Ctl& c);

struct Request {
  uint16_t dlid = 0, slid = 0;
  uint32_t dqp = 0, sqp = 0;
  uint32_t status = 0;
  uint64_t length = 0;  // the MAD's bytes
  std::array<uint8_t, kMadBytes> mad{};
};

// Empty when the datagram is not kRequestBytes long.
std::optional<Request> decode_request(const uint8_t* bytes, std::size_t size);
std::array<uint8_t, kRequestBytes> encode_request(const Request& r);

// Why the server discards a client's MAD without an answer, as ibsim's
// decode_sim_MAD does; "" when it takes it: base version not 1, class version
// above 2, and for a directed-route SMP a hop pointer not 0, a D bit not equal
// to the R bit, or DrSLID / DrDLID not the permissive LID.
std::string refusal(const Request& r);
inline bool is_response(const Request& r) { return (r.mad[3] & 0x80) != 0; }
uint64_t tid(const Request& r);
void set_tid(Request& r, uint64_t tid);

// The abstract-namespace address bytes of a socket: NUL, name, NUL.
std::string server_ctl_address(const std::string& base);
std::string server_out_address(const std::string& base, unsigned client);
std::string client_ctl_address(const std::string& base, uint32_t pid);
std::string client_in_address(const std::string& base, uint32_t pid);

// The server's tag in bits 48..63 of a TID, and the TID with it set.
inline uint16_t server_tag(uint64_t tid) { return static_cast<uint16_t>(tid >> 48); }
inline uint64_t with_server_tag(uint64_t tid, uint16_t tag) {
  return (tid & 0x0000FFFFFFFFFFFFull) | uint64_t{tag} << 48;
}

}  // namespace hcasim::serve::ibsim
