// The responder's checks, driven with hand-made request packets (no SystemC):
// each invalid request condition of seed 001, the PSN sequence NAK rules and
// duplicate handling.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "models/hca/memory_regions.hpp"
#include "models/ib/opcodes.hpp"
#include "models/transport/requester.hpp"
#include "models/transport/responder.hpp"

using namespace hcasim;
using namespace hcasim::transport;

namespace {
constexpr uint32_t kMtu = 256;
constexpr uint32_t kEpsn = 100;

// The HCA's regions over 1 MiB of memory it reaches at no cost (the region
// the fixture registers covers it all).
class LocalMemory : public HostMemory {
 public:
  KeyCheck check_local(uint32_t lkey, uint64_t addr, uint64_t length, uint32_t access) const override {
    return regions.check_local(lkey, addr, length, access);
  }
  KeyCheck check_remote(uint32_t rkey, uint64_t addr, uint64_t length, uint32_t access) const override {
    return regions.check_remote(rkey, addr, length, access);
  }
  bool invalidate_rkey(uint32_t rkey) override { return regions.invalidate_rkey(rkey); }
  uint64_t read(uint32_t, uint64_t addr, uint8_t* out, uint64_t length) override {
    std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(addr), length, out);
    return 0;
  }
  uint64_t write(uint32_t, uint64_t addr, const uint8_t* data, uint64_t length) override {
    std::copy_n(data, length, bytes.begin() + static_cast<std::ptrdiff_t>(addr));
    return 0;
  }
  uint64_t read_u64(uint64_t addr) {
    uint8_t b[8];
    read(0, addr, b, 8);
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = v << 8 | b[i];
    return v;
  }
  void write_u64(uint64_t addr, uint64_t v) {
    uint8_t b[8];
    for (uint8_t& x : b) {
      x = static_cast<uint8_t>(v);
      v >>= 8;
    }
    write(0, addr, b, 8);
  }
  hca::MemoryRegions regions;
  std::vector<uint8_t> bytes = std::vector<uint8_t>(1 << 20);
};

class Services : public QpServices {
 public:
  HostMemory& memory() override { return local; }
  ib::Packet* new_packet() override { return pool.acquire(); }
  void complete(Qp&, bool send_queue, const WorkCompletion& wc) override {
    (send_queue ? send_completions : recv_completions).push_back(wc);
  }
  void async_event(Qp&, const char* e) override { events.emplace_back(e); }
  uint64_t now_ps() const override { return 0; }
  const TransportConfig& config() const override { return cfg; }

  LocalMemory local;
  hca::MemoryRegions& regions = local.regions;
  ib::PacketPool pool;
  TransportConfig cfg;
  std::vector<WorkCompletion> send_completions, recv_completions;
  std::vector<std::string> events;
};

struct Fixture {
  Fixture() {
    mr = s.regions.reg_mr(0, 1 << 20, kLocalWrite | kRemoteWrite | kRemoteRead | kRemoteAtomic);
    qp.qpn = 5;
    qp.state = QpState::Rtr;
    qp.attr.path_mtu = kMtu;
    qp.attr.qp_access_flags = kRemoteWrite | kRemoteRead | kRemoteAtomic;
    qp.attr.max_dest_rd_atomic = 2;
    qp.resources.assign(2, ReadResource{});
    qp.epsn = kEpsn;
    RecvWqe w;
    w.wr.wr_id = 77;
    w.wr.sg_list.push_back({0x1000, 4096, mr.lkey});
    w.length = 4096;
    qp.rq.push_back(w);
  }
  ib::Packet request(uint8_t opcode, uint32_t psn, uint32_t payload = 0) {
    ib::Packet p;
    p.hdr.bth.opcode = opcode;
    p.hdr.bth.psn = psn;
    p.hdr.bth.ack_req = true;
    p.payload_len = payload;
    p.payload.assign(payload, 0xAB);
    p.hdr.bth.pad_cnt = static_cast<uint8_t>((4 - payload % 4) % 4);
    return p;
  }
  void feed(const ib::Packet& p) { Responder::on_request(qp, s, p); }
  // The responses queued so far, as built packets: (opcode, PSN, AETH syndrome).
  std::vector<std::tuple<uint8_t, uint32_t, uint8_t>> responses() {
    std::vector<std::tuple<uint8_t, uint32_t, uint8_t>> out;
    while (Responder::has_work(qp)) {
      uint64_t ready = 0;
      ib::Packet* p = Responder::next_packet(qp, s, ready);
      out.emplace_back(p->hdr.bth.opcode, p->hdr.bth.psn, p->hdr.aeth.syndrome);
      s.pool.release(p);
    }
    return out;
  }
  void require_invalid_request(bool wqe_used) {
    const auto r = responses();
    REQUIRE(r.size() == 1);
    CHECK(std::get<0>(r[0]) == ib::op::kRcAck);
    CHECK(std::get<1>(r[0]) == kEpsn);     // seed 001: the NAK carries ePSN
    CHECK(std::get<2>(r[0]) == 0x61);
    CHECK(qp.state == QpState::Err);
    CHECK(qp.epsn == kEpsn);               // not advanced
    CHECK(qp.stats.naks_sent[kNakInvalidRequest] == 1);
    if (wqe_used) {
      REQUIRE(!s.recv_completions.empty());
      CHECK(s.recv_completions[0].status != WcStatus::Success);
      CHECK(s.events.empty());
    } else {
      CHECK(s.events == std::vector<std::string>{"IBV_EVENT_QP_REQ_ERR"});
      REQUIRE(s.recv_completions.size() == 1);
      CHECK(s.recv_completions[0].status == WcStatus::WrFlushErr);
    }
  }
  Services s;
  hca::MemoryRegion mr;
  Qp qp;
};
}  // namespace

TEST_CASE("Invalid request: a reserved or unsupported opcode") {
  for (uint8_t op : {uint8_t{0x15}, ib::op::kRcFlush, ib::op::kRcAck, ib::op::kUcSendOnly}) {
    Fixture f;
    f.feed(f.request(op, kEpsn));
    INFO("opcode " << int(op));
    f.require_invalid_request(false);
  }
}

TEST_CASE("Invalid request: bad opcode sequences") {
  {
    Fixture f;  // a MIDDLE with no message in progress
    f.feed(f.request(ib::op::kRcSendMiddle, kEpsn, kMtu));
    f.require_invalid_request(false);
  }
  {
    Fixture f;  // a FIRST inside a SEND
    f.feed(f.request(ib::op::kRcSendFirst, kEpsn, kMtu));
    f.feed(f.request(ib::op::kRcSendFirst, kEpsn + 1, kMtu));
    const auto r = f.responses();
    REQUIRE(r.size() == 2);
    CHECK(r[0] == std::make_tuple(ib::op::kRcAck, kEpsn, uint8_t{std::get<2>(r[0])}));
    CHECK((std::get<2>(r[0]) & 0x60) == 0);
    CHECK(std::get<1>(r[1]) == kEpsn + 1);
    CHECK(std::get<2>(r[1]) == 0x61);
    // The SEND's receive WQE was in use: it completes in error (seed 001 case 2).
    REQUIRE(f.s.recv_completions.size() == 1);
    CHECK(f.s.recv_completions[0].status == WcStatus::RemInvReqErr);
  }
  {
    Fixture f;  // a WRITE MIDDLE inside a SEND
    f.feed(f.request(ib::op::kRcSendFirst, kEpsn, kMtu));
    f.feed(f.request(ib::op::kRcWriteMiddle, kEpsn + 1, kMtu));
    const auto r = f.responses();
    REQUIRE(r.size() == 2);
    CHECK(std::get<2>(r[1]) == 0x61);
  }
}

TEST_CASE("Invalid request: PadCnt or a short payload on a FIRST packet") {
  {
    Fixture f;
    ib::Packet p = f.request(ib::op::kRcSendFirst, kEpsn, kMtu);
    p.hdr.bth.pad_cnt = 2;
    f.feed(p);
    f.require_invalid_request(false);
  }
  {
    Fixture f;
    f.feed(f.request(ib::op::kRcWriteFirst, kEpsn, kMtu - 4));
    f.require_invalid_request(false);
  }
}

TEST_CASE("Invalid request: DMALen over 2^31 on a WRITE and a READ") {
  for (uint8_t op : {ib::op::kRcWriteOnly, ib::op::kRcReadRequest}) {
    Fixture f;
    ib::Packet p = f.request(op, kEpsn, 0);
    p.hdr.reth = {0x1000, f.mr.rkey, (1u << 31) + 1};
    f.feed(p);
    f.require_invalid_request(false);
  }
}

TEST_CASE("Invalid request: no responder resource left for a READ") {
  Fixture f;  // max_dest_rd_atomic 2: a third READ before any response went out
  for (uint32_t i = 0; i < 3; ++i) {
    ib::Packet p = f.request(ib::op::kRcReadRequest, kEpsn + i, 0);
    p.hdr.reth = {0x1000, f.mr.rkey, 16};
    f.feed(p);
  }
  const auto r = f.responses();
  REQUIRE(r.size() == 3);
  CHECK(std::get<0>(r[0]) == ib::op::kRcReadRespOnly);
  CHECK(std::get<0>(r[1]) == ib::op::kRcReadRespOnly);
  CHECK(std::get<1>(r[2]) == kEpsn + 2);
  CHECK(std::get<2>(r[2]) == 0x61);
}

TEST_CASE("PSN sequence error: one NAK with ePSN and then silence until ePSN") {
  Fixture f;
  f.feed(f.request(ib::op::kRcSendOnly, kEpsn + 2, 8));
  f.feed(f.request(ib::op::kRcSendOnly, kEpsn + 3, 8));
  auto r = f.responses();
  REQUIRE(r.size() == 1);
  CHECK(r[0] == std::make_tuple(ib::op::kRcAck, kEpsn, uint8_t{0x60}));
  CHECK(f.qp.state == QpState::Rtr);  // a sequence error changes nothing else
  f.feed(f.request(ib::op::kRcSendOnly, kEpsn, 8));
  r = f.responses();
  REQUIRE(r.size() == 1);
  CHECK(std::get<1>(r[0]) == kEpsn);
  CHECK((std::get<2>(r[0]) & 0x60) == 0);  // an ACK
  CHECK(f.qp.epsn == kEpsn + 1);
  f.feed(f.request(ib::op::kRcSendOnly, kEpsn + 5, 8));  // a new gap: a new NAK
  CHECK(f.responses().size() == 1);
}

TEST_CASE("Duplicates: SEND re-ACKed with ePSN - 1 and READ and atomic replayed") {
  Fixture f;
  f.s.local.write_u64(0x2000, 41);
  ib::Packet read = f.request(ib::op::kRcReadRequest, kEpsn, 0);
  read.hdr.reth = {0x3000, f.mr.rkey, 3 * kMtu};  // PSNs 100-102
  f.feed(read);
  ib::Packet add = f.request(ib::op::kRcFetchAdd, kEpsn + 3, 0);
  add.hdr.atomic_eth = {0x2000, f.mr.rkey, 1, 0};
  f.feed(add);
  f.feed(f.request(ib::op::kRcSendOnly, kEpsn + 4, 8));
  f.responses();
  REQUIRE(f.qp.epsn == kEpsn + 5);
  // The READ again from its second response on, the atomic again, a SEND again.
  ib::Packet again = f.request(ib::op::kRcReadRequest, kEpsn + 1, 0);
  again.hdr.reth = {0x3000 + kMtu, f.mr.rkey, 2 * kMtu};
  f.feed(again);
  f.feed(add);
  f.feed(f.request(ib::op::kRcSendOnly, kEpsn + 4, 8));
  std::vector<ib::Packet*> out;
  uint64_t ready = 0;
  while (Responder::has_work(f.qp)) out.push_back(Responder::next_packet(f.qp, f.s, ready));
  REQUIRE(out.size() == 4);
  CHECK(out[0]->hdr.bth.opcode == ib::op::kRcReadRespFirst);
  CHECK(out[0]->hdr.bth.psn == kEpsn + 1);
  CHECK(out[1]->hdr.bth.opcode == ib::op::kRcReadRespLast);
  CHECK(out[1]->hdr.bth.psn == kEpsn + 2);
  CHECK(out[2]->hdr.bth.opcode == ib::op::kRcAtomicAck);
  CHECK(out[2]->hdr.atomic_ack_eth.orig_data == 41);  // the saved value, not 42
  CHECK(f.s.local.read_u64(0x2000) == 42);  // executed once
  CHECK(out[3]->hdr.bth.opcode == ib::op::kRcAck);
  CHECK(out[3]->hdr.bth.psn == kEpsn + 4);
  CHECK(f.qp.stats.duplicates == 3);
  CHECK(f.s.recv_completions.size() == 1);  // the duplicate SEND used no second WQE
  for (ib::Packet* p : out) f.s.pool.release(p);
}

TEST_CASE("out_of_order: requests ahead of ePSN are taken, not NAKed, and executed in PSN order") {
  Fixture f;
  f.qp.ooo = std::make_unique<OutOfOrder>();
  RecvWqe second;
  second.wr.wr_id = 78;
  second.wr.sg_list.push_back({0x3000, 4096, f.mr.lkey});
  second.length = 4096;
  f.qp.rq.push_back(second);
  // A 3-packet WRITE to 0x8000 (PSNs 100-102), each packet's bytes its own,
  // then two SENDs (103, 104); they arrive 102, 104, 101, 103, 100.
  const auto write = [&](uint8_t op, uint32_t psn, uint8_t fill) {
    ib::Packet p = f.request(op, psn, kMtu);
    p.payload.assign(kMtu, fill);
    p.hdr.reth = {0x8000, f.mr.rkey, 3 * kMtu};
    return p;
  };
  f.feed(write(ib::op::kRcWriteLast, kEpsn + 2, 0xC3));
  f.feed(f.request(ib::op::kRcSendOnly, kEpsn + 4, 8));
  f.feed(write(ib::op::kRcWriteMiddle, kEpsn + 1, 0xB2));
  f.feed(f.request(ib::op::kRcSendOnly, kEpsn + 3, 8));
  CHECK(f.responses().empty());  // no NAK: all held
  CHECK(f.qp.epsn == kEpsn);
  CHECK(f.qp.stats.out_of_order == 4);
  CHECK(f.s.recv_completions.empty());
  f.feed(write(ib::op::kRcWriteFirst, kEpsn, 0xA1));
  // All five executed in PSN order: an ACK each, in order; completions in order.
  const auto r = f.responses();
  REQUIRE(r.size() == 5);
  for (uint32_t i = 0; i < 5; ++i) CHECK(r[i] == std::make_tuple(ib::op::kRcAck, kEpsn + i, uint8_t{0}));
  CHECK(f.qp.epsn == kEpsn + 5);
  CHECK(f.qp.stats.naks_sent[kNakPsnSequence] == 0);
  REQUIRE(f.s.recv_completions.size() == 2);
  CHECK(f.s.recv_completions[0].wr_id == 77);
  CHECK(f.s.recv_completions[1].wr_id == 78);
  // Byte-exact: each packet's bytes at its offset.
  for (uint32_t i = 0; i < 3; ++i) {
    INFO("packet " << i);
    CHECK(f.s.local.bytes[0x8000 + i * kMtu] == uint8_t{0xA1} + i * 0x11);
    CHECK(f.s.local.bytes[0x8000 + i * kMtu + kMtu - 1] == uint8_t{0xA1} + i * 0x11);
  }
  CHECK(f.qp.ooo->requests.empty());
}

TEST_CASE("out_of_order: beyond the window, or with an RNR NAK out, a request ahead is NAKed or dropped as before") {
  Fixture f;
  f.qp.ooo = std::make_unique<OutOfOrder>();
  f.feed(f.request(ib::op::kRcSendOnly, kEpsn + OutOfOrder::kWindow, 8));
  auto r = f.responses();
  REQUIRE(r.size() == 1);
  CHECK(r[0] == std::make_tuple(ib::op::kRcAck, kEpsn, uint8_t{0x60}));  // PSN sequence NAK
  CHECK(f.qp.stats.out_of_order == 0);
  f.feed(f.request(ib::op::kRcSendOnly, kEpsn + 1, 8));  // silent after the NAK
  CHECK(f.responses().empty());
  CHECK(f.qp.stats.out_of_order == 0);
}

TEST_CASE("requester: an ACK for the WQE being resent, reordered behind the NAK, moves the resend to the next WQE") {
  // Two 4-packet WRITEs, A (PSNs 0-3) and B (4-7), all sent. A NAK of PSN 2
  // rewinds to A's third packet; A's packet 2 goes again; then the ACK of
  // PSN 3, sent before the NAK's gap showed and reordered behind it, covers A
  // whole. The next packet must be B's FIRST at PSN 4, with B's address.
  Fixture f;
  Qp& q = f.qp;
  q.state = QpState::Rts;
  q.attr.retry_cnt = 7;
  q.retry_left = 7;
  for (uint64_t i = 0; i < 2; ++i) {
    SendWqe w;
    w.wr.wr_id = i;
    w.wr.opcode = WrOpcode::RdmaWrite;
    w.wr.sg_list.push_back({0x4000 + i * 4 * kMtu, 4 * kMtu, f.mr.lkey});
    w.wr.remote_addr = 0x10000 + i * 4 * kMtu;
    w.wr.rkey = f.mr.rkey;
    w.length = 4 * kMtu;
    w.ssn = static_cast<uint32_t>(i + 1);
    q.sq.push_back(w);
  }
  const auto send = [&] {
    bool first = false;
    uint64_t ready = 0;
    ib::Packet* p = Requester::next_packet(q, f.s, first, ready);
    REQUIRE(p != nullptr);
    const auto out = std::make_tuple(p->hdr.bth.opcode, p->hdr.bth.psn, p->hdr.reth.va);
    f.s.pool.release(p);
    return out;
  };
  for (int i = 0; i < 8; ++i) send();
  const auto ack = [&](uint32_t psn, uint8_t syndrome) {
    ib::Packet a;
    a.hdr.bth.opcode = ib::op::kRcAck;
    a.hdr.bth.psn = psn;
    a.hdr.aeth.syndrome = syndrome;
    Requester::on_response(q, f.s, a);
  };
  ack(1, 0x00);  // PSNs 0 and 1
  ack(2, 0x60);  // NAK: PSN sequence error at 2
  CHECK(std::get<1>(send()) == 2u);  // A's packet 2 again
  ack(3, 0x00);  // A acknowledged whole: retired
  REQUIRE(f.s.send_completions.size() == 1);
  CHECK(f.s.send_completions[0].wr_id == 0);
  const auto next = send();
  CHECK(std::get<0>(next) == ib::op::kRcWriteFirst);
  CHECK(std::get<1>(next) == 4u);
  CHECK(std::get<2>(next) == 0x10000 + 4 * kMtu);
  for (uint32_t psn = 5; psn < 8; ++psn) CHECK(std::get<1>(send()) == psn);
}
