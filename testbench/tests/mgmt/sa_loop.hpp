#pragma once
// Test rig: an SaClient and an SaServer back to back through a wire with a
// per-MAD latency and a programmable fate per MAD (drop, duplicate, extra
// delay), chosen by a function of the MAD, its direction and how many MADs of
// the same kind (method, Fragment Flag, segment) went that way before it.
// A small event loop: arrivals first (in arrival order), then the server's
// timer, then the client's.

#include <cstdint>
#include <functional>
#include <map>
#include <tuple>
#include <vector>

#include "models/ib/mad.hpp"
#include "models/ib/sa_record_types.hpp"
#include "models/ib/sa_records.hpp"
#include "models/mgmt/sa_client.hpp"
#include "models/mgmt/sa_database.hpp"
#include "models/mgmt/sa_server.hpp"

namespace hcasim::mgmt::test {

struct Fate {
  bool drop = false;
  bool duplicate = false;      // a second copy arrives one latency later than the first
  uint64_t extra_delay_ps = 0;
};

struct WireLog {
  uint64_t t_ps;
  bool to_server;
  bool dropped;
  ib::SaMad mad;
};

struct SaLoop {
  SaServer server;
  SaClient client;
  MadAddress client_addr;
  uint64_t latency_ps = 1'000'000;  // 1 us one way
  std::function<Fate(const ib::SaMad&, bool to_server, unsigned copy)> fate;
  std::vector<WireLog> log;
  uint64_t now = 0;

  SaLoop(SaDatabase& db, const SaServerConfig& sc, SaClientConfig cc, uint16_t client_lid = 5)
      : server(db, sc), client(with_sa(cc)) {
    client_addr.lid = client_lid;
  }

  void from_client(const std::vector<SaSend>& out) { put(out, true); }

  // Runs until nothing is armed and the wire is empty, or until limit_ps.
  // `each` (if set) runs before every event at the event's time.
  void run(uint64_t limit_ps = 100'000'000'000'000ull, std::function<void(SaLoop&)> each = {}) {
    for (;;) {
      uint64_t t = kMpNever;
      if (!wire_.empty()) t = std::get<0>(wire_.begin()->first);
      t = std::min({t, server.deadline_ps(), client.deadline_ps()});
      if (t == kMpNever || t > limit_ps) return;
      now = t;
      if (each) each(*this);
      std::vector<SaSend> out;
      if (!wire_.empty() && std::get<0>(wire_.begin()->first) == now) {
        Flight f = wire_.begin()->second;
        wire_.erase(wire_.begin());
        if (f.to_server) {
          server.on_request(f.mad, client_addr, now, out);
          put(out, false);
        } else {
          client.on_mad(f.mad, kSaAddr(), now, out);
          put(out, true);
        }
        continue;
      }
      if (server.deadline_ps() <= now) {
        server.on_timer(now, out);
        put(out, false);
        continue;
      }
      client.on_timer(now, out);
      put(out, true);
    }
  }

  // MADs logged in one direction that satisfy `pred`.
  std::vector<WireLog> sent(bool to_server, std::function<bool(const ib::SaMad&)> pred) const {
    std::vector<WireLog> v;
    for (const auto& l : log)
      if (l.to_server == to_server && pred(l.mad)) v.push_back(l);
    return v;
  }

  static MadAddress kSaAddr() {
    MadAddress a;
    a.lid = 1;
    return a;
  }

 private:
  struct Flight {
    bool to_server;
    ib::SaMad mad;
  };
  static SaClientConfig with_sa(SaClientConfig c) {
    c.sa = kSaAddr();
    return c;
  }
  void put(const std::vector<SaSend>& out, bool to_server) {
    for (const SaSend& s : out) {
      unsigned copy = 0;
      for (const auto& l : log)
        if (l.to_server == to_server && l.mad.hdr.method == s.mad.hdr.method &&
            l.mad.fragment_flag == s.mad.fragment_flag && l.mad.segment == s.mad.segment &&
            l.mad.hdr.tid == s.mad.hdr.tid)
          ++copy;
      const Fate f = fate ? fate(s.mad, to_server, copy) : Fate{};
      log.push_back({s.at_ps, to_server, f.drop, s.mad});
      if (f.drop) continue;
      const uint64_t arrive = s.at_ps + latency_ps + f.extra_delay_ps;
      wire_.emplace(std::make_tuple(arrive, seq_++), Flight{to_server, s.mad});
      if (f.duplicate) wire_.emplace(std::make_tuple(arrive + latency_ps, seq_++), Flight{to_server, s.mad});
    }
  }

  std::map<std::tuple<uint64_t, uint64_t>, Flight> wire_;
  uint64_t seq_ = 0;
};

// A database with a PathRecord table (key: DLID + SLID, ComponentMask bits 4
// and 5, iba-facts 6) and a LinkRecord table (no key).
inline void declare_tables(SaDatabase& db) {
  db.declare_table(*ib::sa_record_layout(ib::kAttrPathRecord), (1u << 4) | (1u << 5));
  db.declare_table(*ib::sa_record_layout(ib::kAttrLinkRecord), 0);
}

inline std::vector<uint8_t> path_body(uint16_t dlid, uint16_t slid = 1, uint8_t sl = 0) {
  ib::PathRecord pr;
  pr.dlid = dlid;
  pr.slid = slid;
  pr.sl = sl;
  pr.pkey = 0xFFFF;
  pr.mtu = 4;
  std::vector<uint8_t> b(ib::PathRecord::kBytes);
  pr.encode(b.data());
  return b;
}

inline std::vector<uint8_t> link_body(uint16_t from, uint16_t to) {
  ib::LinkRecord lr;
  lr.from_lid = from;
  lr.from_port = 1;
  lr.to_port = 2;
  lr.to_lid = to;
  std::vector<uint8_t> b(ib::LinkRecord::kBytes);
  lr.encode(b.data());
  return b;
}

}  // namespace hcasim::mgmt::test
