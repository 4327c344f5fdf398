// The control side of ibsim's protocol (testbench/serve/ibsim_control.hpp):
// clients attached by node name or NodeDescription, the refusals ibsim makes
// (ten clients, an unknown node, a second SM on a node) and the one it cannot
// (a MAD channel that will not open), and each GET answered from the node's
// attributes at the fields IBA 14.2.5 gives.
#include <catch2/catch.hpp>

#include <vector>

#include "models/ib/be_bytes.hpp"
#include "models/ib/crc.hpp"
#include "models/ib/mad.hpp"
#include "testbench/serve/ibsim_control.hpp"

using namespace hcasim;
using namespace hcasim::serve::ibsim;

namespace {

// Two nodes: node 0 an HCA "H1" (NodeDescription "h1 HCA-1") of 2 ports, node 1 a switch "S1" of 8.
class Directory : public NodeDirectory {
 public:
  int find(const std::string& name) const override {
    if (name.empty() || name == "H1" || name == "h1 HCA-1") return 0;
    return name == "S1" ? 1 : -1;
  }
  std::string name(int node) const override { return node == 0 ? "H1" : "S1"; }
  bool is_switch(int node) const override { return node == 1; }
  unsigned ports(int node) const override { return node == 0 ? 2 : 8; }
  std::array<uint8_t, 64> get(int node, unsigned port, uint16_t attr, uint32_t modifier) const override {
    asked.push_back({node, port, attr, modifier});
    std::array<uint8_t, 64> d{};
    if (attr == ib::kAttrNodeInfo) {
      d[2] = node == 0 ? 1 : 2;                               // NodeType
      ib::put_be64(d.data() + 12, 0xE41D2D0300A1C000ull + node);  // NodeGUID
      ib::put_be16(d.data() + 30, 0x1011);                       // DeviceID
      ib::put_be32(d.data() + 32, 0xA0);                         // Revision
      ib::put_be24(d.data() + 37, 0x0002C9);                     // VendorID
    } else if (attr == ib::kAttrPortInfo) {
      ib::put_be64(d.data() + 8, 0xFE80000000000000ull);  // GidPrefix
      ib::put_be16(d.data() + 16, static_cast<uint16_t>(0x100 + modifier));  // LID: 0x100 + the port asked
      d[32] = 0x54;                                        // LinkSpeedSupported 5, PortState 4 (Active)
    } else if (attr == ib::kAttrPkeyTable) {
      ib::put_be16(d.data(), 0xFFFF);
    }
    return d;
  }
  void set_is_sm(int node, unsigned port, bool on) override { sm_changes.push_back({node, port, on}); }

  struct Asked {
    int node;
    unsigned port;
    uint16_t attr;
    uint32_t modifier;
  };
  mutable std::vector<Asked> asked;
  struct SmChange {
    int node;
    unsigned port;
    bool on;
  };
  std::vector<SmChange> sm_changes;
};

Ctl message(CtlType type, uint32_t client = 0) {
  Ctl c;
  c.client = client;
  c.type = static_cast<uint32_t>(type);
  c.len = kCtlDataBytes;
  return c;
}

Ctl connect_message(uint32_t pid, const std::string& node, uint32_t issm = 0) {
  Ctl c = message(CtlType::Connect);
  write_client_info({pid, 0, issm, node}, c);
  return c;
}

bool is_error(const std::optional<Ctl>& c) { return c && c->type == static_cast<uint32_t>(CtlType::Error); }

}  // namespace

TEST_CASE("ibsim control: clients attach by node name or NodeDescription, ten at most, one SM per node") {
  Directory nodes;
  std::vector<std::pair<unsigned, uint32_t>> channels;
  bool channel_opens = true;
  Control control(nodes, [&](unsigned client, uint32_t id) {
    channels.emplace_back(client, id);
    return channel_opens;
  });

  const auto first = control.handle(connect_message(100, "h1 HCA-1"));
  REQUIRE(first);
  REQUIRE(first->type == static_cast<uint32_t>(CtlType::Connect));
  CHECK(read_client_info(*first).id == 0);
  CHECK(read_client_info(*first).node == "H1");  // the node's name, as ibsim echoes its nodeid
  CHECK(control.client(0).port == 1);              // an HCA's client port
  const auto sm = control.handle(connect_message(101, "S1", 1));
  REQUIRE(sm);
  CHECK(read_client_info(*sm).id == 1);
  CHECK(control.client(1).port == 0);  // a switch's management port
  CHECK(nodes.sm_changes.size() == 1);
  CHECK(nodes.sm_changes[0].on);
  CHECK(channels == std::vector<std::pair<unsigned, uint32_t>>{{0, 100}, {1, 101}});

  CHECK(is_error(control.handle(connect_message(102, "no-such-node"))));
  CHECK(is_error(control.handle(connect_message(103, "S1", 1))));  // S1 has its SM
  channel_opens = false;
  CHECK(is_error(control.handle(connect_message(104, "H1"))));
  CHECK(control.attached() == 2);  // the refused ones hold no client number
  channel_opens = true;
  for (uint32_t pid = 200; control.attached() < kMaxClients; ++pid)
    REQUIRE_FALSE(is_error(control.handle(connect_message(pid, ""))));  // "" = the default node
  CHECK(is_error(control.handle(connect_message(300, "H1"))));          // an 11th

  // DISCONNECT frees the number (and the SM's node takes an SM again).
  CHECK_FALSE(is_error(control.handle(message(CtlType::Disconnect, 1))));
  CHECK_FALSE(nodes.sm_changes.back().on);
  const auto again = control.handle(connect_message(301, "S1", 1));
  REQUIRE_FALSE(is_error(again));
  CHECK(read_client_info(*again).id == 1);
  CHECK(is_error(control.handle(message(CtlType::Disconnect, kMaxClients))));
  CHECK(control.stats().connects == 11);
  CHECK(control.stats().disconnects == 1);
}

TEST_CASE("ibsim control: each GET answers from the node's attributes, bad messages get ERROR or nothing") {
  Directory nodes;
  Control control(nodes, [](unsigned, uint32_t) { return true; });
  REQUIRE_FALSE(is_error(control.handle(connect_message(7, "H1"))));

  const auto node = control.handle(message(CtlType::GetNodeInfo));
  REQUIRE(node);
  CHECK(node->data[2] == 1);
  CHECK(ib::get_be64(node->data.data() + 12) == 0xE41D2D0300A1C000ull);

  // sim_vendor {VendorID, DeviceID, Revision, firmware 1} in host order.
  const auto vendor = control.handle(message(CtlType::GetVendor));
  REQUIRE(vendor);
  CHECK(ib::load_le32(vendor->data.data()) == 0x0002C9);
  CHECK(ib::load_le32(vendor->data.data() + 4) == 0x1011);
  CHECK(ib::load_le32(vendor->data.data() + 8) == 0xA0);
  CHECK(ib::load_le32(vendor->data.data() + 16) == 1);

  // sim_port {LID (host order), PortState} of the client's port 1.
  const auto port = control.handle(message(CtlType::GetPort));
  REQUIRE(port);
  CHECK(ib::load_le16(port->data.data()) == 0x101);
  CHECK(port->data[2] == 4);

  // PortInfo of data[0]: 2 is port 2; 0 and 3 (past the node's 2 ports) the client's port.
  for (const auto& [asked, expected] : std::vector<std::pair<uint8_t, uint16_t>>{{2, 0x102}, {0, 0x101}, {3, 0x101}}) {
    Ctl m = message(CtlType::GetPortInfo);
    m.data[0] = asked;
    const auto pi = control.handle(m);
    REQUIRE(pi);
    CHECK(ib::get_be16(pi->data.data() + 16) == expected);
  }

  const auto gid = control.handle(message(CtlType::GetGid));
  REQUIRE(gid);
  CHECK(ib::get_be64(gid->data.data()) == 0xFE80000000000000ull);
  CHECK(ib::get_be64(gid->data.data() + 8) == 0xE41D2D0300A1C000ull);
  const auto pkeys = control.handle(message(CtlType::GetPkeys));
  REQUIRE(pkeys);
  CHECK(ib::get_be16(pkeys->data.data()) == 0xFFFF);
  CHECK(nodes.asked.back().attr == ib::kAttrPkeyTable);
  CHECK(nodes.asked.back().port == 1);

  Ctl issm = message(CtlType::SetIsSm);
  ib::store_le32(issm.data.data(), 1);
  CHECK_FALSE(is_error(control.handle(issm)));
  CHECK(control.client(0).issm);
  REQUIRE(nodes.sm_changes.size() == 1);
  CHECK(nodes.sm_changes[0].port == 1);

  Ctl bad = message(CtlType::GetNodeInfo);
  bad.magic = 0x12345678;
  CHECK_FALSE(control.handle(bad));  // no answer, as ibsim
  CHECK(control.stats().bad_magic == 1);
  CHECK(is_error(control.handle(message(CtlType::GetNodeInfo, 5))));  // client 5 is not attached
  Ctl unknown = message(CtlType::Last);
  CHECK(is_error(control.handle(unknown)));
  CHECK(is_error(control.handle(message(CtlType::Error))));
}

TEST_CASE("ibsim control: a MAD for outside software goes to the client ibsim's find_client picks") {
  Directory nodes;
  Control control(nodes, [](unsigned, uint32_t) { return true; });
  REQUIRE_FALSE(is_error(control.handle(connect_message(100, "H1"))));     // client 0 at H1 port 1
  REQUIRE_FALSE(is_error(control.handle(connect_message(101, "H1", 1))));  // client 1 at H1, IsSM
  REQUIRE_FALSE(is_error(control.handle(connect_message(102, "S1"))));     // client 2 at S1 port 0
  const uint64_t tid0 = with_server_tag(0x1234, 0), tid2 = with_server_tag(0x1234, 2);
  // A response goes by the TID's server tag, when that client is at the node's port.
  CHECK(control.client_for(0, 1, true, 0, tid0) == 0);
  CHECK(control.client_for(0, 2, true, 0, tid0) == -1);  // H1's port 2: nobody there; a response goes to no SM
  CHECK(control.client_for(0, 1, true, 0, tid2) == -1);  // client 2 is not at H1
  // A request to QP0 / QP1 goes to the port's IsSM client.
  CHECK(control.client_for(0, 1, false, 1, tid0) == 1);
  CHECK(control.client_for(0, 1, false, 0, tid2) == 1);
  // A switch's clients are at port 0, whatever port the MAD came in on.
  CHECK(control.client_for(1, 5, true, 0, tid2) == 2);
  CHECK(control.client_for(1, 5, false, 0, tid2) == -1);  // no SM at S1
}
