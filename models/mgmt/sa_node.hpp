#pragma once
// The SystemC glue of the subnet administrator on a fabric: an SaAgent sits on
// one HCA port's MadNode (mad_node.hpp), takes every QP1 packet of that node,
// and drives the pure SA classes: an SaServer over its own SaDatabase (the
// SM's port, and a standby SM's port), an SaClient (the client library every
// HCA's workloads use), and on the master's port a peer SaClient through which
// the master's SA keeps the standby's database current with SubnAdmConfig
// (seeds/003).
//
// Rules:
// - Arriving QP1 packets: decoded as an SA MAD (ib::decode(SaMad)); the
//   sender's MadAddress is LRH SLID and SL, BTH P_Key, DETH source QP and
//   Q_Key (mad_address.hpp). Undecodable MADs (another class) and MADs on
//   another port of the node are dropped and counted.
// - R bit clear (requests, and the requester's Acks / Resends / KeepAlives /
//   Config packets, which carry the request method: sa_server.hpp) -> the
//   server; R bit set (answers, and the SA's Acks / KeepAlives, which carry
//   the response method) -> a client: the peer client when the TID carries
//   kPeerTidBit, else the workload client. No such side -> dropped, counted.
// - Every SaSend goes as a UD packet to to.qpn (QP1) from QP1: SLID = the
//   port's LID, DLID = to.lid, SL = to.sl, P_Key = to.pkey, Q_Key = to.qkey,
//   at its at_ps (at once when at_ps <= now, else from a queue with one
//   alarm). A MAD to the port's own LID is handed back to the agent without
//   the wire (same alarm, zero delay): the SM's node may query its own SA.
// - Timers: one alarm per side (server, client, peer client) at that side's
//   deadline_ps(), cancelled and set again after every call into the side;
//   none at kMpNever, so a finished run leaves no event behind.
// - TIDs (model): the builder gives node n's workload client tid_base
//   (n + 1) << 32 and its peer client the same with kPeerTidBit set.
// - Completions of a client go to its callback (set_callback /
//   set_peer_callback), else they queue in the SaClient (take_completions()).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "models/ib/mad.hpp"
#include "models/ib/packet.hpp"
#include "models/link/timeline.hpp"
#include "models/mgmt/mad_address.hpp"
#include "models/mgmt/mad_node.hpp"
#include "models/mgmt/sa_client.hpp"
#include "models/mgmt/sa_database.hpp"
#include "models/mgmt/sa_server.hpp"

namespace hcasim::mgmt {

constexpr uint64_t kPeerTidBit = 1ull << 31;  // model: TIDs of the master's peer (Config) client

struct SaAgentStats {
  uint64_t mads_in = 0;       // SA MADs taken from the wire (or handed back locally)
  uint64_t mads_out = 0;      // SA MADs sent (local ones included)
  uint64_t local = 0;         // MADs to the port's own LID, handed back without the wire
  uint64_t undecodable = 0;   // QP1 packets that are not SA MADs
  uint64_t other_port = 0;    // QP1 packets on another port of the node
  uint64_t unhandled = 0;     // MADs for a side this agent does not have
};

class SaAgent {
 public:
  // Attaches to `node` (installs its GMP handler); `port` is the HCA port number.
  SaAgent(MadNode& node, unsigned port, ib::PacketPool& pool);
  ~SaAgent();
  SaAgent(const SaAgent&) = delete;
  SaAgent& operator=(const SaAgent&) = delete;

  unsigned port() const { return port_; }
  uint16_t lid() const { return node_.lid(port_); }
  MadNode& node() { return node_; }

  // The database a server of this port answers from (exists from construction,
  // so tables can be declared before the server starts).
  SaDatabase& database() { return db_; }
  const SaDatabase& database() const { return db_; }
  // Starts (or replaces) the SA server / the workload client / the peer client.
  SaServer& start_server(const SaServerConfig& cfg);
  SaClient& start_client(const SaClientConfig& cfg);
  SaClient& start_peer_client(const SaClientConfig& cfg);
  SaServer* server() { return server_.get(); }
  SaClient* client() { return client_.get(); }
  SaClient* peer_client() { return peer_.get(); }

  void set_callback(std::function<void(const SaCompletion&)> cb);
  void set_peer_callback(std::function<void(const SaCompletion&)> cb);

  // The client library (workload client; throws std::logic_error before
  // start_client). Each returns the request's TID; the completion comes
  // through the callback. Arguments as SaClient's.
  uint64_t get(uint16_t attr, uint64_t mask, const std::vector<uint8_t>& tmpl);
  uint64_t get_table(uint16_t attr, uint64_t mask, const std::vector<uint8_t>& tmpl);
  uint64_t get_bulk();
  uint64_t class_port_info();
  // SubnAdmConfig through the peer client (to the standby's SA) when `peer`,
  // else through the workload client (to the master SA).
  uint64_t config(ib::EditModifier op, uint16_t attr, const std::vector<uint8_t>& records, uint32_t start_rid,
                  uint32_t end_rid, uint64_t mask, bool peer = true);
  // Any other call into a client: f(client, now, out) returns the TID.
  uint64_t request(bool peer, const std::function<uint64_t(SaClient&, uint64_t, std::vector<SaSend>&)>& f);

  const SaAgentStats& stats() const { return stats_; }

 private:
  void on_packet(ib::Packet* p, unsigned port);
  void dispatch(const ib::SaMad& mad, const MadAddress& from);
  void flush(std::vector<SaSend>& out);  // sends `out`, re-arms the alarms
  void transmit(const SaSend& s);
  void send_due();
  void local_due();
  void server_timer();
  void client_timer(bool peer);
  void rearm();
  SaClient& need(bool peer);

  MadNode& node_;
  unsigned port_;
  ib::PacketPool& pool_;
  SaDatabase db_;
  std::unique_ptr<SaServer> server_;
  std::unique_ptr<SaClient> client_;
  std::unique_ptr<SaClient> peer_;
  std::multimap<uint64_t, SaSend> later_;        // SaSends with at_ps in the future
  std::vector<std::pair<ib::SaMad, MadAddress>> local_;  // MADs to this port's own LID
  link::Alarm send_alarm_;
  link::Alarm local_alarm_;
  link::Alarm server_alarm_;
  link::Alarm client_alarm_;
  link::Alarm peer_alarm_;
  std::vector<uint8_t> scratch_;
  SaAgentStats stats_;
};

}  // namespace hcasim::mgmt
