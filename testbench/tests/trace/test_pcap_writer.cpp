// PcapWriter: the file layout byte by byte, error handling, and a round trip through
// the stock tshark, which must show every field the model put on the wire.
#include <catch2/catch.hpp>

#include <arpa/inet.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "models/ib/codec.hpp"
#include "models/ib/crc.hpp"
#include "models/trace/pcap_writer.hpp"
#include "testbench/tests/ib/packet_fixtures.hpp"
#include "testbench/tests/scenarios/tshark_util.hpp"
#include "testbench/tests/scratch_dir.hpp"
#include "testbench/cli/sanitizers.hpp"

using namespace hcasim;
using ib::test::make_packet;

// Allocation counter for the "no allocation per packet when warm" check. AddressSanitizer
// replaces operator new itself, so the sanitizer build leaves this check out.
#if !defined(HCASIM_UNDER_ASAN)
#define HCASIM_COUNT_ALLOCATIONS 1
namespace {
thread_local long g_allocations = 0;
}  // namespace
void* operator new(std::size_t n) {
  ++g_allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#endif

namespace {

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

uint32_t le32(const std::vector<uint8_t>& v, size_t at) { return ib::load_le32(&v[at]); }

// tshark hands IBA payloads to heuristic dissectors (tshark -G heuristic-decodes,
// table infiniband.payload). Arbitrary test payloads can look like one of them
// (RPC-over-RDMA, IPoIB's EtherType, ...), which then throws on a short payload and
// hides the ICRC/VCRC fields. The round-trip test disables those protocols; payload
// bytes then show as data.data.
const char* const kPayloadHeuristics[] = {"smc", "smb_direct", "rpcordma", "nvme-rdma", "lnet",
                                          "iser", "ethertype", "infiniband.eoib",
                                          "infiniband_sdp", "fcoib"};

// Runs tshark -T fields on file; one row per frame, one cell per field (first
// occurrence). Fails the test, never skips it, when tshark is missing.
std::vector<std::map<std::string, std::string>> tshark_fields(const std::string& file,
                                                              const std::vector<std::string>& fields,
                                                              bool payload_heuristics = true) {
  if (std::system("command -v tshark >/dev/null 2>&1") != 0) {
    FAIL("tshark is missing: the pcap round-trip test needs the stock tshark "
         "(Debian package 'tshark', installed by the project's setup script)");
  }
  std::string cmd = "tshark -r '" + file + "' -T fields -E separator=, -E occurrence=f";
  if (!payload_heuristics) {
    for (const char* h : kPayloadHeuristics) cmd += std::string(" --disable-protocol ") + h;
  }
  for (const std::string& f : fields) cmd += " -e " + f;
  cmd += " 2>/dev/null";
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  const int status = pclose(pipe);
  INFO(cmd);
  REQUIRE(status == 0);
  std::vector<std::map<std::string, std::string>> rows;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    std::map<std::string, std::string> row;
    std::istringstream cells(line);
    std::string cell;
    for (const std::string& f : fields) {
      if (!std::getline(cells, cell, ',')) cell.clear();
      row[f] = cell;
    }
    rows.push_back(row);
  }
  return rows;
}

// tshark's numbers: test::tshark_number (tshark_util.hpp).
uint64_t number(const std::string& s) { return test::tshark_number(s); }

std::array<uint8_t, 16> ipv6(const std::string& s) {
  std::array<uint8_t, 16> a{};
  INFO("tshark GID '" << s << "'");
  REQUIRE(inet_pton(AF_INET6, s.c_str(), a.data()) == 1);
  return a;
}

std::string hex(const uint8_t* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += d[p[i] >> 4];
    s += d[p[i] & 0xF];
  }
  return s;
}

uint32_t be32(const uint8_t* p) { return uint32_t{p[0]} << 24 | p[1] << 16 | p[2] << 8 | p[3]; }

constexpr uint64_t kPsPerNs = 1000;
constexpr uint64_t kBaseTimePs = 1'500'000'000'000ull;  // 1.5 s

}  // namespace

TEST_CASE("pcap file layout: global header - record header - exported-PDU TLVs - wire bytes", "[pcap]") {
  const test::ScratchDir dir("pcap-layout");
  const std::string path = dir.file("layout.pcap");
  const ib::Packet p = make_packet(ib::op::kRcSendOnly, 5, false);
  std::vector<uint8_t> wire;
  ib::encode(p, wire);
  {
    trace::PcapWriter w(path);
    w.write(kBaseTimePs + 7 * kPsPerNs + 999, p);  // sub-ns part truncated
    CHECK(w.records() == 1);
  }
  const std::vector<uint8_t> f = read_file(path);
  REQUIRE(f.size() == 24 + 16 + 20 + wire.size());
  CHECK(le32(f, 0) == 0xA1B23C4Du);   // nanosecond pcap magic
  CHECK(f[4] == 2);                   // version 2.4
  CHECK(f[6] == 4);
  CHECK(le32(f, 16) == 65535);        // snaplen
  CHECK(le32(f, 20) == 252);          // LINKTYPE_WIRESHARK_UPPER_PDU
  CHECK(le32(f, 24) == 1);            // ts seconds
  CHECK(le32(f, 28) == 500'000'007);  // ts nanoseconds
  CHECK(le32(f, 32) == 20 + wire.size());
  CHECK(le32(f, 36) == 20 + wire.size());
  const std::vector<uint8_t> tlv = {0x00, 0x0C, 0x00, 0x0C, 'i', 'n', 'f', 'i', 'n', 'i',
                                    'b', 'a', 'n', 'd', 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  CHECK(std::vector<uint8_t>(f.begin() + 40, f.begin() + 60) == tlv);
  CHECK(std::vector<uint8_t>(f.begin() + 60, f.end()) == wire);
}

TEST_CASE("opening an unwritable path throws with the path in the message", "[pcap]") {
  const std::string path = "/nonexistent-hcasim-dir/out.pcap";
  try {
    trace::PcapWriter w(path);
    FAIL("no exception");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find(path) != std::string::npos);
  }
}

TEST_CASE("flow-control packets are skipped and counted", "[pcap]") {
  const test::ScratchDir dir("pcap-fcp-skipped");
  const std::string path = dir.file("fcp.pcap");
  trace::PcapWriter w(path);
  ib::Packet fcp;
  fcp.kind = ib::PacketKind::FlowControl;
  fcp.fc = ib::FlowControl{0, 12, 1, 34};
  w.write(0, fcp);
  w.write_bytes(0, std::vector<uint8_t>(6, 0), true);
  w.write(0, make_packet(ib::op::kRcAck, 0, false));
  w.close();
  CHECK(w.records() == 1);
  CHECK(w.skipped_flow_control() == 2);
  CHECK(read_file(path).size() == 24 + 16 + 20 + make_packet(ib::op::kRcAck, 0, false).wire_bytes());
}

#if defined(HCASIM_COUNT_ALLOCATIONS)
TEST_CASE("a warm writer does not allocate per packet", "[pcap]") {
  const test::ScratchDir dir("pcap-no-alloc");
  trace::PcapWriter w(dir.file("warm.pcap"));
  const ib::Packet big = make_packet(ib::op::kRcWriteOnlyImm, 4096, true);
  const ib::Packet small = make_packet(ib::op::kUdSendOnly, 3, false);
  w.write(0, big);  // warms the buffers
  const long before = g_allocations;
  for (int i = 0; i < 100; ++i) w.write(static_cast<uint64_t>(i) * 1000, i % 2 ? big : small);
  const long during = g_allocations - before;
  CHECK(during == 0);
}
#endif

TEST_CASE("tshark shows every field the model wrote", "[pcap][tshark]") {
  const test::ScratchDir dir("pcap-tshark-roundtrip");
  const std::string path = dir.file("roundtrip.pcap");

  std::vector<ib::Packet> sent;
  const std::vector<uint32_t> lengths = {0, 1, 2, 3, 4, 255};
  uint32_t salt = 0;
  for (uint8_t opcode : ib::test::valid_opcodes()) {
    const bool payload = ib::opcode_info(opcode).has_payload;
    for (bool grh : {false, true}) {
      const uint32_t len = payload ? lengths[salt % lengths.size()] : 0;
      sent.push_back(make_packet(opcode, len, grh, salt));
      ++salt;
    }
  }
  {
    trace::PcapWriter w(path);
    for (size_t i = 0; i < sent.size(); ++i) w.write(kBaseTimePs + i * kPsPerNs, sent[i]);
  }

  const std::vector<std::string> fields = {
      "frame.time_epoch", "infiniband.lrh.vl", "infiniband.lrh.lver", "infiniband.lrh.sl",
      "infiniband.lrh.lnh", "infiniband.lrh.dlid", "infiniband.lrh.pktlen", "infiniband.lrh.slid",
      "infiniband.grh.ipver", "infiniband.grh.tclass", "infiniband.grh.flowlabel",
      "infiniband.grh.paylen", "infiniband.grh.nxthdr", "infiniband.grh.hoplmt",
      "infiniband.grh.sgid", "infiniband.grh.dgid", "infiniband.bth.opcode", "infiniband.bth.se",
      "infiniband.bth.m", "infiniband.bth.padcnt", "infiniband.bth.tver", "infiniband.bth.p_key",
      "infiniband.bth.destqp", "infiniband.bth.a", "infiniband.bth.psn", "infiniband.reth.va",
      "infiniband.reth.r_key", "infiniband.reth.dmalen", "infiniband.aeth.syndrome",
      "infiniband.aeth.msn", "infiniband.atomiceth.swapdt", "infiniband.atomiceth.cmpdt",
      "infiniband.atomicacketh.origremdt", "infiniband.deth.q_key", "infiniband.deth.srcqp",
      "infiniband.immdt", "infiniband.ieth", "infiniband.invariant.crc", "infiniband.variant.crc",
      "data.data"};
  const auto rows = tshark_fields(path, fields, /*payload_heuristics=*/false);
  REQUIRE(rows.size() == sent.size());

  std::vector<uint8_t> wire;
  for (size_t i = 0; i < sent.size(); ++i) {
    const ib::Packet& p = sent[i];
    const ib::Headers& h = p.hdr;
    auto row = rows[i];
    const ib::OpcodeInfo& info = ib::opcode_info(h.bth.opcode);
    INFO("frame " << i + 1 << " " << info.name << (h.lrh.lnh == ib::Lnh::IbaGlobal ? " GRH" : "")
                  << " payload " << p.payload_len);
    ib::encode(p, wire);

    const uint64_t ns = (kBaseTimePs + i * kPsPerNs) / kPsPerNs;
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "%llu.%09llu", static_cast<unsigned long long>(ns / 1000000000),
                  static_cast<unsigned long long>(ns % 1000000000));
    CHECK(row["frame.time_epoch"] == stamp);

    CHECK(number(row["infiniband.lrh.vl"]) == h.lrh.vl);
    CHECK(number(row["infiniband.lrh.lver"]) == 0);
    CHECK(number(row["infiniband.lrh.sl"]) == h.lrh.sl);
    CHECK(number(row["infiniband.lrh.lnh"]) == static_cast<unsigned>(h.lrh.lnh));
    CHECK(number(row["infiniband.lrh.dlid"]) == h.lrh.dlid);
    CHECK(number(row["infiniband.lrh.pktlen"]) == h.lrh.pkt_len);
    CHECK(number(row["infiniband.lrh.slid"]) == h.lrh.slid);
    if (h.lrh.lnh == ib::Lnh::IbaGlobal) {
      CHECK(number(row["infiniband.grh.ipver"]) == 6);
      CHECK(number(row["infiniband.grh.tclass"]) == h.grh.tclass);
      CHECK(number(row["infiniband.grh.flowlabel"]) == h.grh.flow_label);
      CHECK(number(row["infiniband.grh.paylen"]) == h.grh.pay_len);
      CHECK(number(row["infiniband.grh.nxthdr"]) == 0x1B);
      CHECK(number(row["infiniband.grh.hoplmt"]) == h.grh.hop_lmt);
      CHECK(ipv6(row["infiniband.grh.sgid"]) == h.grh.sgid);
      CHECK(ipv6(row["infiniband.grh.dgid"]) == h.grh.dgid);
    } else {
      CHECK(row["infiniband.grh.ipver"].empty());
    }
    CHECK(number(row["infiniband.bth.opcode"]) == h.bth.opcode);
    CHECK(number(row["infiniband.bth.se"]) == h.bth.se);
    CHECK(number(row["infiniband.bth.m"]) == h.bth.m);
    CHECK(number(row["infiniband.bth.padcnt"]) == h.bth.pad_cnt);
    CHECK(number(row["infiniband.bth.tver"]) == 0);
    CHECK(number(row["infiniband.bth.p_key"]) == h.bth.p_key);
    CHECK(number(row["infiniband.bth.destqp"]) == h.bth.dest_qp);
    CHECK(number(row["infiniband.bth.a"]) == h.bth.ack_req);
    CHECK(number(row["infiniband.bth.psn"]) == h.bth.psn);

    // tshark 4.0 does not know FLUSH (0x1C) and ATOMIC_WRITE (0x1D): it stops after
    // the BTH ("Unknown OpCode"), so their extended headers and CRCs are not shown.
    if (h.bth.opcode == ib::op::kRcFlush || h.bth.opcode == ib::op::kRcAtomicWrite) {
      CHECK(row["infiniband.invariant.crc"].empty());
      continue;
    }
    const uint8_t ext = info.ext;
    if (ext & ib::ExtHeader::Reth) {
      CHECK(number(row["infiniband.reth.va"]) == h.reth.va);
      CHECK(number(row["infiniband.reth.r_key"]) == h.reth.r_key);
      CHECK(number(row["infiniband.reth.dmalen"]) == h.reth.dma_len);
    }
    if (ext & ib::ExtHeader::AtomicEth) {  // VA and R_Key show under reth.* (iba-facts quirk)
      CHECK(number(row["infiniband.reth.va"]) == h.atomic_eth.va);
      CHECK(number(row["infiniband.reth.r_key"]) == h.atomic_eth.r_key);
      CHECK(number(row["infiniband.atomiceth.swapdt"]) == h.atomic_eth.swap_add);
      CHECK(number(row["infiniband.atomiceth.cmpdt"]) == h.atomic_eth.compare);
    }
    if (!(ext & (ib::ExtHeader::Reth | ib::ExtHeader::AtomicEth))) {
      CHECK(row["infiniband.reth.va"].empty());
    }
    if (ext & ib::ExtHeader::Aeth) {
      CHECK(number(row["infiniband.aeth.syndrome"]) == h.aeth.syndrome);
      CHECK(number(row["infiniband.aeth.msn"]) == h.aeth.msn);
    } else {
      CHECK(row["infiniband.aeth.msn"].empty());
    }
    if (ext & ib::ExtHeader::AtomicAckEth) {
      CHECK(number(row["infiniband.atomicacketh.origremdt"]) == h.atomic_ack_eth.orig_data);
    }
    if (ext & ib::ExtHeader::Deth) {
      CHECK(number(row["infiniband.deth.q_key"]) == h.deth.q_key);
      CHECK(number(row["infiniband.deth.srcqp"]) == h.deth.src_qp);
    }
    uint8_t be[4];
    if (ext & ib::ExtHeader::ImmDt) {  // FT_BYTES: printed as hex digits
      for (int k = 0; k < 4; ++k) be[k] = static_cast<uint8_t>(h.imm_dt >> (24 - 8 * k));
      CHECK(row["infiniband.immdt"] == hex(be, 4));
    } else {
      CHECK(row["infiniband.immdt"].empty());
    }
    if (ext & ib::ExtHeader::Ieth) {
      for (int k = 0; k < 4; ++k) be[k] = static_cast<uint8_t>(h.ieth_r_key >> (24 - 8 * k));
      CHECK(row["infiniband.ieth"] == hex(be, 4));
    }
    // The CRC fields as tshark reads them (big-endian from the wire bytes), against
    // the values the crc module computes independently of the encoder.
    const size_t icrc_at = wire.size() - 6;
    if (h.bth.opcode == ib::op::kCnp) {
      // tshark 4.0.17 names the CNP and reads its LRH and BTH, but knows no
      // header sequence for it: the ICRC and VCRC show as vendor data.
      CHECK(row["infiniband.invariant.crc"].empty());
      continue;
    }
    CHECK(number(row["infiniband.invariant.crc"]) == be32(&wire[icrc_at]));
    CHECK(number(row["infiniband.invariant.crc"]) ==
          __builtin_bswap32(ib::compute_icrc(wire.data(), icrc_at)));
    CHECK(number(row["infiniband.variant.crc"]) ==
          __builtin_bswap16(ib::compute_vcrc(wire.data(), wire.size() - 2)));
    // Payload and pad together show as data.data.
    const size_t payload_at = icrc_at - p.payload_len - h.bth.pad_cnt;
    CHECK(row["data.data"] == hex(&wire[payload_at], p.payload_len + h.bth.pad_cnt));
    CHECK(row["data.data"].substr(0, 2 * p.payload_len) == hex(p.payload.data(), p.payload_len));
  }
}

TEST_CASE("tshark shows the MPGA vector's ICRC and VCRC as the wire bytes read big-endian", "[pcap][tshark]") {
  // CRC registers 0x5AB72596 / 0xFA45 go out LSB first (iba-facts "Test vectors"),
  // so tshark, which reads the fields big-endian, shows 0x9625b75a / 0x45fa.
  const test::ScratchDir dir("pcap-tshark-mpga");
  const std::string path = dir.file("mpga.pcap");
  const std::vector<uint8_t> wire = {
      0x70, 0x12, 0x37, 0x5C, 0x00, 0x0E, 0x17, 0xD2, 0x0A, 0x20, 0x24, 0x87, 0x00,
      0x87, 0xB1, 0xB3, 0x00, 0x0D, 0xEC, 0x2A, 0x01, 0x71, 0x0A, 0x1C, 0x01, 0x5D,
      0x40, 0x02, 0x38, 0xF2, 0x7A, 0x05, 0x00, 0x00, 0x00, 0x0E, 0xBB, 0x88, 0x4D,
      0x85, 0xFD, 0x5C, 0xFB, 0xA4, 0x72, 0x8B, 0xC0, 0x69, 0x0E, 0xD4, 0x00, 0x00,
      0x96, 0x25, 0xB7, 0x5A, 0x45, 0xFA};
  {
    trace::PcapWriter w(path);
    w.write_bytes(0, wire, false);
  }
  const auto rows = tshark_fields(path, {"infiniband.bth.opcode", "infiniband.reth.dmalen",
                                         "infiniband.invariant.crc", "infiniband.variant.crc"});
  REQUIRE(rows.size() == 1);
  auto row = rows[0];
  CHECK(number(row["infiniband.bth.opcode"]) == ib::op::kRcWriteOnly);
  CHECK(number(row["infiniband.reth.dmalen"]) == 14);
  CHECK(number(row["infiniband.invariant.crc"]) == 0x9625B75Au);
  CHECK(number(row["infiniband.variant.crc"]) == 0x45FA);
}
