// Targeted fault rules on management packets: the MAD filters read the fields
// of MADs encoded by mad.hpp into UD packets to QP0 / QP1 (iba-facts 6; the SA
// layout and Fragment Flag bits of seeds/000 Table 33-10 and 33-11), and the
// delay and duplicate actions come out of the injector with their rule.
#include <catch2/catch.hpp>

#include <vector>

#include "models/ib/mad.hpp"
#include "models/ib/opcodes.hpp"
#include "models/link/fault_injector.hpp"

using namespace hcasim;
using link::DropRule;
using link::FaultAction;
using link::FaultConfig;
using link::FaultInjector;
using link::MadKind;

namespace {

// A UD SEND-only to `qp` carrying these 256 bytes.
ib::Packet ud_mad(const std::vector<uint8_t>& mad, uint32_t qp, uint8_t vl) {
  ib::Packet p;
  p.hdr.lrh.vl = vl;
  p.hdr.lrh.dlid = 5;
  p.hdr.bth.opcode = ib::op::kUdSendOnly;
  p.hdr.bth.dest_qp = qp;
  p.payload = mad;
  p.payload_len = static_cast<uint32_t>(mad.size());
  p.finalize_lengths();
  p.wire_len = static_cast<uint16_t>(p.wire_bytes());
  return p;
}

ib::Packet sa(uint8_t method, uint16_t attr, uint32_t segment, uint8_t flags) {
  ib::SaMad m;
  m.hdr.mgmt_class = ib::kClassSubnAdm;
  m.hdr.method = method;
  m.hdr.attr_id = attr;
  m.segment = segment;
  m.fragment_flag = flags;
  std::vector<uint8_t> bytes(ib::kMadBytes);
  ib::encode(m, bytes.data());
  return ud_mad(bytes, ib::kQp1, 0);
}

ib::Packet smp(uint8_t cls, uint8_t method, uint16_t attr) {
  ib::Smp m;
  m.hdr.mgmt_class = cls;
  m.hdr.method = method;
  m.hdr.attr_id = attr;
  std::vector<uint8_t> bytes(ib::kMadBytes);
  ib::encode(m, bytes.data());
  return ud_mad(bytes, ib::kQp0, 15);
}

// The packets of one multi-packet SA response (seeds/000): a KeepAlive, three
// data segments First / middle / Last, the requester's Ack of segment 2, a
// Resend request for segment 3, and a single-packet MAD (flag 0, segment 0).
struct Stream {
  std::vector<ib::Packet> packets;
  Stream() {
    packets.push_back(sa(ib::kMethodGetTableResp, ib::kAttrPathRecord, 0, ib::kFragKeepAlive));  // 0
    packets.push_back(sa(ib::kMethodGetTableResp, ib::kAttrPathRecord, 1, ib::kFragFirst));      // 1
    packets.push_back(sa(ib::kMethodGetTableResp, ib::kAttrPathRecord, 2, 0));                   // 2
    packets.push_back(sa(ib::kMethodGetTableResp, ib::kAttrPathRecord, 3, ib::kFragLast));       // 3
    packets.push_back(sa(ib::kMethodGetTable, ib::kAttrPathRecord, 2, ib::kFragAck));            // 4
    packets.push_back(sa(ib::kMethodGetTable, ib::kAttrPathRecord, 3, ib::kFragResend));         // 5
    packets.push_back(sa(ib::kMethodGet, ib::kAttrNodeRecord, 0, 0));                            // 6
    packets.push_back(smp(ib::kClassSubnLid, ib::kMethodGet, ib::kAttrNodeInfo));                // 7
    packets.push_back(smp(ib::kClassSubnDr, ib::kMethodGetResp, ib::kAttrPortInfo));             // 8
  }
};

// The indices of the stream's packets a rule with these MAD filters hits (every match).
std::vector<int> hit_by(const link::MadFilter& f) {
  FaultConfig c;
  DropRule r;
  r.every = true;
  r.mad = f;
  c.drops.push_back(r);
  FaultInjector inj(c, 1);
  std::vector<int> out;
  const Stream s;
  for (std::size_t i = 0; i < s.packets.size(); ++i)
    if (inj.judge(s.packets[i]).action == FaultAction::DropTargeted) out.push_back(static_cast<int>(i));
  return out;
}

link::MadFilter kind(MadKind k) {
  link::MadFilter f;
  f.kind = k;
  return f;
}

}  // namespace

TEST_CASE("MAD filters: each kind picks exactly its packets of an SA transfer") {
  using V = std::vector<int>;
  CHECK(hit_by(kind(MadKind::Mad)) == V{0, 1, 2, 3, 4, 5, 6, 7, 8});
  CHECK(hit_by(kind(MadKind::Smp)) == V{7, 8});
  CHECK(hit_by(kind(MadKind::Sa)) == V{0, 1, 2, 3, 4, 5, 6});
  CHECK(hit_by(kind(MadKind::SaData)) == V{1, 2, 3, 6});  // no Resend / Ack / KeepAlive bit
  CHECK(hit_by(kind(MadKind::SaAck)) == V{4});
  CHECK(hit_by(kind(MadKind::SaResend)) == V{5});
  CHECK(hit_by(kind(MadKind::SaKeepAlive)) == V{0});
}

TEST_CASE("MAD filters: class method attribute segment and flag masks read the encoded bytes") {
  using V = std::vector<int>;
  link::MadFilter f;
  f.mgmt_class = ib::kClassSubnDr;
  CHECK(hit_by(f) == V{8});
  f = {};
  f.method = ib::kMethodGetTableResp;  // 0x92: the R bit is part of the method
  CHECK(hit_by(f) == V{0, 1, 2, 3});
  f = {};
  f.attribute = ib::kAttrNodeRecord;  // 0x0011: NodeRecord for the SA and NodeInfo for SMPs
  CHECK(hit_by(f) == V{6, 7});
  f = {};
  f.sa_segment = 3;
  CHECK(hit_by(f) == V{3, 5});
  f.sa_flags = ib::kFragLast;
  CHECK(hit_by(f) == V{3});
  f = {};
  f.sa_flags = 0;  // no bit required: any SA MAD, never an SMP
  CHECK(hit_by(f) == V{0, 1, 2, 3, 4, 5, 6});
  f = {};
  f.sa_flags = 0;
  f.sa_flags_clear = 0xFF;  // exactly 0: single-packet MADs and middle segments
  CHECK(hit_by(f) == V{2, 6});
  f.sa_segment = 0;
  CHECK(hit_by(f) == V{6});
  f = {};
  f.sa_flags_clear = ib::kFragAck | ib::kFragKeepAlive;
  CHECK(hit_by(f) == V{1, 2, 3, 5, 6});
}

TEST_CASE("MAD filters: a packet that carries no MAD matches none") {
  link::MadFilter f;
  f.kind = MadKind::Mad;
  const Stream s;
  ib::Packet p = s.packets[1];
  REQUIRE(f.matches(p));
  ib::Packet other_qp = p;
  other_qp.hdr.bth.dest_qp = 2;
  CHECK_FALSE(f.matches(other_qp));
  ib::Packet rc = p;
  rc.hdr.bth.opcode = ib::op::kRcSendOnly;
  CHECK_FALSE(f.matches(rc));
  ib::Packet no_bytes = p;
  no_bytes.payload.clear();  // a source that did not fill the payload
  CHECK_FALSE(f.matches(no_bytes));
  ib::Packet short_payload = p;
  short_payload.payload.resize(64);
  short_payload.payload_len = 64;
  CHECK_FALSE(f.matches(short_payload));
  ib::Packet raw = p;
  raw.hdr.lrh.lnh = ib::Lnh::Raw;
  CHECK_FALSE(f.matches(raw));
  // A rule with only non-MAD filters still matches packets without MADs.
  FaultConfig c;
  DropRule r;
  r.dest_qp = 2;
  c.drops.push_back(r);
  FaultInjector inj(c, 1);
  CHECK(inj.judge(other_qp).action == FaultAction::DropTargeted);
}

TEST_CASE("MAD rules: delay and duplicate verdicts carry their rule and are counted") {
  FaultConfig c;
  DropRule ack_delay;
  ack_delay.action = link::RuleAction::Delay;
  ack_delay.delay_ps = 5'000'000;  // 5 us
  ack_delay.mad.kind = MadKind::SaAck;
  DropRule seg2_dup;
  seg2_dup.action = link::RuleAction::Duplicate;
  seg2_dup.mad.kind = MadKind::SaData;
  seg2_dup.mad.sa_segment = 2;
  DropRule smp_drop;
  smp_drop.mad.kind = MadKind::Smp;
  smp_drop.nth = 2;
  c.drops = {ack_delay, seg2_dup, smp_drop};
  FaultInjector inj(c, 7);
  const Stream s;
  std::vector<link::Verdict> v;
  for (const ib::Packet& p : s.packets) v.push_back(inj.judge(p));
  for (int i : {0, 1, 3, 5, 6, 7}) CHECK(v[i].action == FaultAction::Pass);
  CHECK(v[4].action == FaultAction::Delay);
  CHECK(v[4].rule == 0);
  CHECK(v[4].delay_ps == 5'000'000);
  CHECK(v[2].action == FaultAction::Duplicate);
  CHECK(v[2].rule == 1);
  CHECK(v[8].action == FaultAction::DropTargeted);  // the second SMP
  CHECK(v[8].rule == 2);
  CHECK(inj.stats().delayed == 1);
  CHECK(inj.stats().duplicated == 1);
  CHECK(inj.stats().targeted == 1);
  CHECK(inj.stats().judged == 9);
  CHECK(inj.matches(0) == 1);
  CHECK(inj.hits(0) == 1);
  CHECK(inj.matches(2) == 2);
  CHECK(inj.hits(2) == 1);
}
