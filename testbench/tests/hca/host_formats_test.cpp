// The bytes of host_formats.hpp: every expected byte below is written out from
// the layout documented in that header (offsets, little-endian fields, ds in
// 16-byte units, the owner-bit rule), not taken from the encoder's output.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/hca/host_formats.hpp"

using namespace hcasim;
using hca::WqeError;
using transport::QpType;
using transport::SendWr;
using transport::WrOpcode;

namespace {

constexpr uint8_t kFill = 0xEE;  // what the bytes after a WQE hold before the encoder runs

// Encodes into a 512-byte buffer of kFill and returns the whole buffer.
std::vector<uint8_t> encode(const SendWr& wr, QpType type, uint32_t qpn, uint32_t index,
                            const std::vector<uint8_t>& inline_data = {}) {
  std::vector<uint8_t> out(512, kFill);
  hca::encode_send_wqe(wr, type, qpn, index, inline_data, out.data());
  return out;
}

// Little-endian bytes of v, n of them.
std::vector<uint8_t> le(uint64_t v, int n) {
  std::vector<uint8_t> b;
  for (int i = 0; i < n; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
  return b;
}

// A 16-byte segment built from (value, width) fields in order, zero-padded.
std::vector<uint8_t> seg(std::initializer_list<std::pair<uint64_t, int>> fields) {
  std::vector<uint8_t> s;
  for (const auto& [v, n] : fields) {
    const std::vector<uint8_t> b = le(v, n);
    s.insert(s.end(), b.begin(), b.end());
  }
  s.resize(16, 0);
  return s;
}

// The documented control segment.
std::vector<uint8_t> control(uint8_t opcode, uint8_t flags, uint16_t index, uint32_t qpn, uint8_t ds, uint32_t imm) {
  return seg({{opcode, 1}, {flags, 1}, {index, 2}, {qpn, 4}, {ds, 1}, {0, 3}, {imm, 4}});
}

std::vector<uint8_t> data_seg(uint32_t count, uint32_t lkey, uint64_t addr) {
  return seg({{count, 4}, {lkey, 4}, {addr, 8}});
}

std::vector<uint8_t> concat(std::initializer_list<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// The WQE's bytes are `expected`, and the rest of the buffer is untouched.
void check_bytes(const std::vector<uint8_t>& buffer, const std::vector<uint8_t>& expected) {
  REQUIRE(expected.size() <= buffer.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("byte " << i);
    CHECK(int{buffer[i]} == int{expected[i]});
  }
  for (std::size_t i = expected.size(); i < buffer.size(); ++i) {
    INFO("byte " << i << " after the WQE");
    REQUIRE(int{buffer[i]} == int{kFill});
  }
}

SendWr wr_of(WrOpcode op) {
  SendWr w;
  w.opcode = op;
  return w;
}

}  // namespace

TEST_CASE("send WQE: the opcodes are ConnectX's values and map back, NOP and unknown values do not") {
  const std::vector<std::pair<WrOpcode, uint8_t>> table = {
      {WrOpcode::SendWithInv, 0x01}, {WrOpcode::RdmaWrite, 0x08},    {WrOpcode::RdmaWriteWithImm, 0x09},
      {WrOpcode::Send, 0x0A},        {WrOpcode::SendWithImm, 0x0B},  {WrOpcode::RdmaRead, 0x10},
      {WrOpcode::AtomicCmpSwp, 0x11}, {WrOpcode::AtomicFetchAdd, 0x12}};
  for (const auto& [op, value] : table) {
    CHECK(hca::wqe_opcode(op) == value);
    WrOpcode back = WrOpcode::Send;
    CHECK(hca::wr_opcode(value, back));
    CHECK(back == op);
  }
  WrOpcode out;
  for (uint8_t v : {0x00, 0x02, 0x0C, 0x13, 0xFF}) CHECK_FALSE(hca::wr_opcode(v, out));
}

TEST_CASE("send WQE: SEND with immediate on RC is a control segment and one data segment per SGE") {
  SendWr w = wr_of(WrOpcode::SendWithImm);
  w.signaled = true;
  w.solicited = true;
  w.imm_data = 0xA1B2C3D4;
  w.sg_list = {{0x1122334455667788ull, 0x1000, 0x0ABC}, {0x2000, 0x10, 0x0DEF}};
  // The QP number's top byte is not the WQE's (low 24 bits); the index is the counter modulo 2^16.
  const auto b = encode(w, QpType::Rc, 0xFF123456, 0x12345);
  const uint32_t bytes = 16 + 2 * 16;
  CHECK(hca::send_wqe_bytes(QpType::Rc, WrOpcode::SendWithImm, 2, 0) == bytes);
  check_bytes(b, concat({control(0x0B, 0x03, 0x2345, 0x123456, bytes / 16, 0xA1B2C3D4),
                         data_seg(0x1000, 0x0ABC, 0x1122334455667788ull), data_seg(0x10, 0x0DEF, 0x2000)}));
}

TEST_CASE("send WQE: RDMA WRITE has the remote address segment before the gather list") {
  SendWr w = wr_of(WrOpcode::RdmaWrite);
  w.signaled = false;
  w.remote_addr = 0x0102030405060708ull;
  w.rkey = 0xCAFEF00D;
  w.sg_list = {{0x3000, 4096, 0x77}};
  const auto b = encode(w, QpType::Rc, 7, 0);
  CHECK(hca::send_wqe_bytes(QpType::Rc, WrOpcode::RdmaWrite, 1, 0) == 48);
  check_bytes(b, concat({control(0x08, 0x00, 0, 7, 3, 0), seg({{0x0102030405060708ull, 8}, {0xCAFEF00D, 4}}),
                         data_seg(4096, 0x77, 0x3000)}));
}

TEST_CASE("send WQE: RDMA WRITE with immediate and SEND with invalidate carry the control word at 12-15") {
  SendWr w = wr_of(WrOpcode::RdmaWriteWithImm);
  w.imm_data = 0x01020304;
  w.remote_addr = 0x10;
  w.rkey = 0x20;
  w.sg_list = {{0x30, 1, 0x40}};
  check_bytes(encode(w, QpType::Uc, 9, 1),
              concat({control(0x09, 0x01, 1, 9, 3, 0x01020304), seg({{0x10, 8}, {0x20, 4}}), data_seg(1, 0x40, 0x30)}));

  SendWr inv = wr_of(WrOpcode::SendWithInv);
  inv.imm_data = 0x00ABCDEF;  // SendWr: the R_Key to invalidate rides in imm_data
  inv.sg_list = {{0x50, 2, 0x60}};
  check_bytes(encode(inv, QpType::Rc, 9, 2),
              concat({control(0x01, 0x01, 2, 9, 2, 0x00ABCDEF), data_seg(2, 0x60, 0x50)}));
}

TEST_CASE("send WQE: RDMA READ names where the data comes from and where it goes") {
  SendWr w = wr_of(WrOpcode::RdmaRead);
  w.remote_addr = 0xFFFF000011112222ull;
  w.rkey = 0x12345678;
  w.sg_list = {{0x4000, 65536, 0x99}};
  check_bytes(encode(w, QpType::Rc, 0x42, 0xFFFF),
              concat({control(0x10, 0x01, 0xFFFF, 0x42, 3, 0), seg({{0xFFFF000011112222ull, 8}, {0x12345678, 4}}),
                      data_seg(65536, 0x99, 0x4000)}));
}

TEST_CASE("send WQE: compare-and-swap has swap then compare in its atomic segment") {
  SendWr w = wr_of(WrOpcode::AtomicCmpSwp);
  w.remote_addr = 0x8000;
  w.rkey = 0x55;
  w.swap = 0x1111222233334444ull;
  w.compare_add = 0x5555666677778888ull;
  w.sg_list = {{0x9000, 8, 0x66}};
  CHECK(hca::send_wqe_bytes(QpType::Rc, WrOpcode::AtomicCmpSwp, 1, 0) == 64);
  check_bytes(encode(w, QpType::Rc, 3, 4),
              concat({control(0x11, 0x01, 4, 3, 4, 0), seg({{0x8000, 8}, {0x55, 4}}),
                      seg({{0x1111222233334444ull, 8}, {0x5555666677778888ull, 8}}), data_seg(8, 0x66, 0x9000)}));
}

TEST_CASE("send WQE: fetch-and-add has the addend first and zero after it") {
  SendWr w = wr_of(WrOpcode::AtomicFetchAdd);
  w.remote_addr = 0x8008;
  w.rkey = 0x56;
  w.compare_add = 0x00000000DEADBEEFull;
  w.swap = 0x7777;  // not a fetch-and-add field: not written
  w.sg_list = {{0x9008, 8, 0x67}};
  check_bytes(encode(w, QpType::Rc, 3, 5), concat({control(0x12, 0x01, 5, 3, 4, 0), seg({{0x8008, 8}, {0x56, 4}}),
                                                   seg({{0xDEADBEEF, 8}, {0, 8}}), data_seg(8, 0x67, 0x9008)}));
}

TEST_CASE("send WQE: a UD SEND has the address segment after the control segment") {
  SendWr w = wr_of(WrOpcode::Send);
  w.remote_qpn = 0x00ABCDEF;
  w.remote_qkey = 0x80010000;
  w.ah.dlid = 0xC001;
  w.ah.sl = 5;
  w.ah.src_path_bits = 3;
  w.sg_list = {{0xA000, 256, 0x11}};
  CHECK(hca::send_wqe_bytes(QpType::Ud, WrOpcode::Send, 1, 0) == 48);
  check_bytes(encode(w, QpType::Ud, 0x20, 6),
              concat({control(0x0A, 0x01, 6, 0x20, 3, 0),
                      seg({{0x00ABCDEF, 4}, {0x80010000, 4}, {0xC001, 2}, {5, 1}, {3, 1}}),
                      data_seg(256, 0x11, 0xA000)}));
}

TEST_CASE("send WQE: an inline SEND carries count | kInlineFlag and the bytes, padded to 16, and no gather list") {
  SendWr w = wr_of(WrOpcode::Send);
  w.sg_list = {{0xB000, 13, 0x22}};  // the gather list the bytes came from: not in the WQE
  const std::vector<uint8_t> payload = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
  // 4 + 13 = 17 bytes of inline segment round up to 32: 16 + 32 = 48 bytes, ds 3.
  CHECK(hca::send_wqe_bytes(QpType::Rc, WrOpcode::Send, 1, 13) == 48);
  std::vector<uint8_t> in = le(13u | 0x8000'0000u, 4);
  in.insert(in.end(), payload.begin(), payload.end());
  in.resize(32, 0);
  check_bytes(encode(w, QpType::Rc, 0x21, 7, payload), concat({control(0x0A, 0x01, 7, 0x21, 3, 0), in}));

  // 12 bytes fit one segment exactly: 32 bytes, ds 2.
  const std::vector<uint8_t> twelve(12, 0xAB);
  std::vector<uint8_t> in12 = le(12u | 0x8000'0000u, 4);
  in12.insert(in12.end(), twelve.begin(), twelve.end());
  check_bytes(encode(w, QpType::Rc, 0x21, 8, twelve), concat({control(0x0A, 0x01, 8, 0x21, 2, 0), in12}));
}

TEST_CASE("send WQE: send_wqe_bytes adds the segments the type and opcode need") {
  // control 16; UD address 16; remote address 16 (RDMA, atomics); atomic 16; 16 per SGE or round16(4 + inline).
  CHECK(hca::send_wqe_bytes(QpType::Rc, WrOpcode::Send, 0, 0) == 16);
  CHECK(hca::send_wqe_bytes(QpType::Rc, WrOpcode::Send, 4, 0) == 80);
  CHECK(hca::send_wqe_bytes(QpType::Uc, WrOpcode::RdmaWrite, 3, 0) == 80);
  CHECK(hca::send_wqe_bytes(QpType::Rc, WrOpcode::RdmaRead, 2, 0) == 64);
  CHECK(hca::send_wqe_bytes(QpType::Rc, WrOpcode::AtomicFetchAdd, 1, 0) == 64);
  CHECK(hca::send_wqe_bytes(QpType::Ud, WrOpcode::SendWithImm, 2, 0) == 64);
  CHECK(hca::send_wqe_bytes(QpType::Rc, WrOpcode::RdmaWrite, 0, 1) == 48);
  CHECK(hca::send_wqe_bytes(QpType::Ud, WrOpcode::Send, 0, 220) == 256);
  CHECK(hca::send_wqe_bytes(QpType::Rc, WrOpcode::Send, 0, 220) == 240);
  // ds is one byte: the largest WQE is 255 x 16 = 4080 bytes.
  CHECK(hca::kMaxDs * hca::kSegmentBytes == 4080);
}

TEST_CASE("send_stride: the smallest multiple of 64 that holds every WQE the QP may post") {
  // RC: the largest gather WQE is an atomic (control, remote address, atomic: 48 bytes) with max_send_sge
  // elements; the largest inline one an RDMA WRITE (32 bytes + round16(4 + max_inline)).
  CHECK(hca::send_stride(QpType::Rc, 1, 0) == 64);    // 48 + 16 = 64
  CHECK(hca::send_stride(QpType::Rc, 2, 0) == 128);   // 48 + 32 = 80
  CHECK(hca::send_stride(QpType::Rc, 4, 0) == 128);   // 48 + 64 = 112
  CHECK(hca::send_stride(QpType::Rc, 4, 220) == 256); // 32 + 224 = 256
  CHECK(hca::send_stride(QpType::Rc, 0, 0) == 64);    // at least one element
  // UC has no atomics and no READ: RDMA WRITE is the largest, 32 + 16 x sge.
  CHECK(hca::send_stride(QpType::Uc, 2, 0) == 64);    // 32 + 32 = 64
  CHECK(hca::send_stride(QpType::Uc, 3, 0) == 128);   // 32 + 48 = 80
  CHECK(hca::send_stride(QpType::Uc, 1, 220) == 256); // 32 + 224
  // UD has sends only: control and address segment, 32 + 16 x sge, or 32 + round16(4 + max_inline).
  CHECK(hca::send_stride(QpType::Ud, 1, 0) == 64);    // 48
  CHECK(hca::send_stride(QpType::Ud, 2, 0) == 64);    // 64
  CHECK(hca::send_stride(QpType::Ud, 3, 0) == 128);   // 80
  CHECK(hca::send_stride(QpType::Ud, 1, 220) == 256); // 32 + 224 = 256
  CHECK(hca::send_stride(QpType::Ud, 1, 221) == 320); // 32 + 240 = 272
}

TEST_CASE("recv_stride: a power of two of 16-byte segments holding max_recv_sge") {
  CHECK(hca::recv_stride(0) == 16);
  CHECK(hca::recv_stride(1) == 16);
  CHECK(hca::recv_stride(2) == 32);
  CHECK(hca::recv_stride(3) == 64);
  CHECK(hca::recv_stride(4) == 64);
  CHECK(hca::recv_stride(5) == 128);
  CHECK(hca::recv_stride(16) == 256);
  CHECK(hca::recv_stride(17) == 512);
}

TEST_CASE("send WQE: decode gives back what was encoded, for every opcode family and QP type") {
  std::vector<std::pair<SendWr, QpType>> cases;
  SendWr s = wr_of(WrOpcode::SendWithImm);
  s.imm_data = 0x1234;
  s.solicited = true;
  s.signaled = false;
  s.sg_list = {{0x100, 10, 1}, {0x200, 20, 2}, {0x300, 30, 3}};
  cases.emplace_back(s, QpType::Rc);
  SendWr wr = wr_of(WrOpcode::RdmaWrite);
  wr.remote_addr = 0xABCDEF0123ull;
  wr.rkey = 0x77;
  wr.sg_list = {{0x400, 40, 4}};
  cases.emplace_back(wr, QpType::Uc);
  SendWr rd = wr_of(WrOpcode::RdmaRead);
  rd.remote_addr = 0x5000;
  rd.rkey = 0x78;
  rd.sg_list = {{0x500, 50, 5}};
  cases.emplace_back(rd, QpType::Rc);
  SendWr cs = wr_of(WrOpcode::AtomicCmpSwp);
  cs.remote_addr = 0x6000;
  cs.rkey = 0x79;
  cs.swap = 0xAAAA;
  cs.compare_add = 0xBBBB;
  cs.sg_list = {{0x600, 8, 6}};
  cases.emplace_back(cs, QpType::Rc);
  SendWr fa = wr_of(WrOpcode::AtomicFetchAdd);
  fa.remote_addr = 0x7000;
  fa.rkey = 0x7A;
  fa.compare_add = 5;
  fa.sg_list = {{0x700, 8, 7}};
  cases.emplace_back(fa, QpType::Rc);
  SendWr ud = wr_of(WrOpcode::Send);
  ud.remote_qpn = 0x123;
  ud.remote_qkey = 0x456;
  ud.ah = {0x789, 7, 1};
  ud.sg_list = {{0x800, 80, 8}};
  cases.emplace_back(ud, QpType::Ud);

  for (const auto& [w, type] : cases) {
    INFO(transport::to_string(w.opcode) << " on " << transport::to_string(type));
    const auto b = encode(w, type, 0x333, 0x4444);
    const uint32_t bytes = hca::send_wqe_bytes(type, w.opcode, w.sg_list.size(), 0);
    SendWr back;
    back.wr_id = 99;
    REQUIRE(hca::decode_send_wqe(b.data(), bytes, type, back) == WqeError::None);
    CHECK(back.wr_id == 0);  // left 0: the HCA uses the send counter
    CHECK(back.opcode == w.opcode);
    CHECK(back.signaled == w.signaled);
    CHECK(back.solicited == w.solicited);
    CHECK(back.imm_data == w.imm_data);
    CHECK(back.remote_addr == w.remote_addr);
    CHECK(back.rkey == w.rkey);
    CHECK(back.compare_add == w.compare_add);
    CHECK(back.swap == w.swap);
    CHECK(back.remote_qpn == w.remote_qpn);
    CHECK(back.remote_qkey == w.remote_qkey);
    CHECK(back.ah.dlid == w.ah.dlid);
    CHECK(back.ah.sl == w.ah.sl);
    CHECK(back.ah.src_path_bits == w.ah.src_path_bits);
    CHECK(back.inline_data.empty());
    REQUIRE(back.sg_list.size() == w.sg_list.size());
    for (std::size_t i = 0; i < w.sg_list.size(); ++i) {
      CHECK(back.sg_list[i].addr == w.sg_list[i].addr);
      CHECK(back.sg_list[i].length == w.sg_list[i].length);
      CHECK(back.sg_list[i].lkey == w.sg_list[i].lkey);
    }
    const hca::SendWqeHeader h = hca::read_send_header(b.data());
    CHECK(h.opcode == hca::wqe_opcode(w.opcode));
    CHECK(h.index == 0x4444);
    CHECK(h.qpn == 0x333);
    CHECK(h.ds == bytes / 16);
  }
}

TEST_CASE("send WQE: an inline WQE decodes to its bytes and no gather list, in a whole stride too") {
  SendWr w = wr_of(WrOpcode::RdmaWrite);
  w.remote_addr = 0x9000;
  w.rkey = 3;
  const std::vector<uint8_t> payload = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0xFF};
  const auto b = encode(w, QpType::Rc, 5, 1, payload);
  SendWr back;
  // The fetcher hands the decoder the whole stride (256 bytes), not just the WQE.
  REQUIRE(hca::decode_send_wqe(b.data(), 256, QpType::Rc, back) == WqeError::None);
  CHECK(back.inline_data == payload);
  CHECK(back.sg_list.empty());
  CHECK(back.remote_addr == 0x9000);
  CHECK(back.rkey == 3);
}

TEST_CASE("send WQE: decode errors - unknown opcode, an opcode the type lacks, ds too small or too large, "
          "inline bytes past the end") {
  SendWr w = wr_of(WrOpcode::RdmaWrite);
  w.sg_list = {{0x10, 16, 1}};
  std::vector<uint8_t> b = encode(w, QpType::Rc, 5, 0);  // 48 bytes, ds 3
  SendWr out;
  REQUIRE(hca::decode_send_wqe(b.data(), 48, QpType::Rc, out) == WqeError::None);

  SECTION("unknown opcodes, NOP included") {
    for (uint8_t op : {0x00, 0x02, 0x0C, 0x13, 0xFF}) {
      b[0] = op;
      CHECK(hca::decode_send_wqe(b.data(), 48, QpType::Rc, out) == WqeError::UnknownOpcode);
    }
  }
  SECTION("an opcode the QP type does not support is unknown to it") {
    // UD: sends only; UC: no READ, atomics or send with invalidate (verbs.hpp opcode_supported).
    b[0] = 0x08;  // RDMA WRITE on UD
    CHECK(hca::decode_send_wqe(b.data(), 48, QpType::Ud, out) == WqeError::UnknownOpcode);
    b[0] = 0x10;  // RDMA READ on UC
    CHECK(hca::decode_send_wqe(b.data(), 48, QpType::Uc, out) == WqeError::UnknownOpcode);
    b[0] = 0x01;  // send with invalidate on UC
    CHECK(hca::decode_send_wqe(b.data(), 48, QpType::Uc, out) == WqeError::UnknownOpcode);
    b[0] = 0x08;  // the same WRITE on UC is fine
    CHECK(hca::decode_send_wqe(b.data(), 48, QpType::Uc, out) == WqeError::None);
  }
  SECTION("ds below the opcode's segments") {
    b[8] = 1;  // a WRITE needs control + remote address: ds >= 2
    CHECK(hca::decode_send_wqe(b.data(), 48, QpType::Rc, out) == WqeError::BadSize);
    b[8] = 0;
    CHECK(hca::decode_send_wqe(b.data(), 48, QpType::Rc, out) == WqeError::BadSize);
    b[8] = 2;  // just the two segments: a WRITE of no gather list decodes
    CHECK(hca::decode_send_wqe(b.data(), 48, QpType::Rc, out) == WqeError::None);
    CHECK(out.sg_list.empty());
    b[0] = 0x11;  // compare-and-swap needs 3 segments before its data
    CHECK(hca::decode_send_wqe(b.data(), 48, QpType::Rc, out) == WqeError::BadSize);
    b[0] = 0x0A;  // a UD SEND needs control + address
    b[8] = 1;
    CHECK(hca::decode_send_wqe(b.data(), 48, QpType::Ud, out) == WqeError::BadSize);
  }
  SECTION("ds beyond the bytes available") {
    b[8] = 4;  // 64 bytes claimed, 48 given
    CHECK(hca::decode_send_wqe(b.data(), 48, QpType::Rc, out) == WqeError::BadSize);
    CHECK(hca::decode_send_wqe(b.data(), 64, QpType::Rc, out) == WqeError::None);
  }
  SECTION("an inline count that runs past the WQE's end") {
    SendWr s = wr_of(WrOpcode::Send);
    std::vector<uint8_t> in = encode(s, QpType::Rc, 5, 0, std::vector<uint8_t>(12, 1));  // ds 2: 12 bytes fit
    REQUIRE(hca::decode_send_wqe(in.data(), 32, QpType::Rc, out) == WqeError::None);
    CHECK(out.inline_data.size() == 12);
    hca::put_u32(in.data() + 16, 13u | hca::kInlineFlag);  // 4 + 13 > 16 bytes of segment
    CHECK(hca::decode_send_wqe(in.data(), 32, QpType::Rc, out) == WqeError::BadSize);
    // Still past ds's end when the buffer (a stride) has more bytes after it.
    CHECK(hca::decode_send_wqe(in.data(), 256, QpType::Rc, out) == WqeError::BadSize);
    // The largest count (2^31 - 1): compared as a size, not as a pointer 2 GiB past the WQE.
    hca::put_u32(in.data() + 16, 0x7FFF'FFFFu | hca::kInlineFlag);
    CHECK(hca::decode_send_wqe(in.data(), 32, QpType::Rc, out) == WqeError::BadSize);
  }
}

TEST_CASE("receive WQE: the scatter list as data segments, L_Key 0 ends a shorter list") {
  transport::RecvWr r;
  r.wr_id = 77;
  r.sg_list = {{0x1111222233334444ull, 100, 0xAB}, {0x5000, 200, 0xCD}};
  std::vector<uint8_t> b(64 + 16, kFill);
  hca::encode_recv_wqe(r, 64, b.data());
  const std::vector<uint8_t> expected =
      concat({data_seg(100, 0xAB, 0x1111222233334444ull), data_seg(200, 0xCD, 0x5000), std::vector<uint8_t>(32, 0)});
  check_bytes(std::vector<uint8_t>(b.begin(), b.begin() + 64), expected);
  for (std::size_t i = 64; i < b.size(); ++i) REQUIRE(int{b[i]} == int{kFill});  // the stride, no more

  transport::RecvWr back;
  back.wr_id = 5;
  hca::decode_recv_wqe(b.data(), 64, back);
  CHECK(back.wr_id == 0);
  REQUIRE(back.sg_list.size() == 2);
  CHECK(back.sg_list[0].addr == 0x1111222233334444ull);
  CHECK(back.sg_list[0].length == 100);
  CHECK(back.sg_list[0].lkey == 0xAB);
  CHECK(back.sg_list[1].addr == 0x5000);
  CHECK(back.sg_list[1].length == 200);
  CHECK(back.sg_list[1].lkey == 0xCD);

  // A full stride has no terminator: every segment is an entry.
  transport::RecvWr full;
  full.sg_list = {{1, 1, 1}, {2, 2, 2}, {3, 3, 3}, {4, 4, 4}};
  hca::encode_recv_wqe(full, 64, b.data());
  hca::decode_recv_wqe(b.data(), 64, back);
  CHECK(back.sg_list.size() == 4);
  // Whatever follows a segment with L_Key 0 is not part of the list.
  const std::vector<uint8_t> by_hand =
      concat({data_seg(8, 9, 0x10), data_seg(8, 0, 0x20), data_seg(8, 10, 0x30), data_seg(8, 11, 0x40)});
  hca::decode_recv_wqe(by_hand.data(), 64, back);
  REQUIRE(back.sg_list.size() == 1);
  CHECK(back.sg_list[0].addr == 0x10);
}

TEST_CASE("CQE: every field at its documented offset, and decode gives them back") {
  transport::WorkCompletion wc;
  wc.time_ps = 0x0102030405060708ull;
  wc.byte_len = 0x11223344;
  wc.with_imm = true;
  wc.imm_data = 0x55667788;
  wc.qp_num = 0x00ABCDEF;
  wc.src_qp = 0x00123456;
  wc.slid = 0xBEEF;
  wc.sl = 9;
  wc.vendor_err = 0xDEADBEEF;
  wc.opcode = transport::WcOpcode::RecvRdmaWithImm;
  wc.status = transport::WcStatus::RemAccessErr;
  std::vector<uint8_t> b(64 + 8, kFill);
  hca::encode_cqe(wc, 0x12345, 0, 8, b.data());  // WQE index: the counter modulo 2^16
  const std::vector<uint8_t> expected = concat({
      le(0x0102030405060708ull, 8), le(0x11223344, 4), le(0x55667788, 4), le(0x00ABCDEF, 4), le(0x00123456, 4),
      le(0xBEEF, 2), {9}, {0x01} /* with immediate */, le(0xDEADBEEF, 4), le(0x2345, 2),
      {6} /* IBV_WC_RECV_RDMA_WITH_IMM in the model's WcOpcode */, {10} /* IBV_WC_REM_ACCESS_ERR */,
      std::vector<uint8_t>(27, 0), {0x01} /* owner: first pass */});
  REQUIRE(expected.size() == 64);
  check_bytes(b, expected);

  uint16_t index = 0;
  const transport::WorkCompletion back = hca::decode_cqe(b.data(), index);
  CHECK(index == 0x2345);
  CHECK(back.wr_id == 0);
  CHECK(back.time_ps == wc.time_ps);
  CHECK(back.byte_len == wc.byte_len);
  CHECK(back.with_imm);
  CHECK(back.imm_data == wc.imm_data);
  CHECK_FALSE(back.with_inv);
  CHECK(back.qp_num == wc.qp_num);
  CHECK(back.src_qp == wc.src_qp);
  CHECK(back.slid == wc.slid);
  CHECK(back.sl == wc.sl);
  CHECK(back.vendor_err == wc.vendor_err);
  CHECK(back.opcode == wc.opcode);
  CHECK(back.status == wc.status);

  // With invalidate: 12-15 is the R_Key the send invalidated, flags bit 1.
  transport::WorkCompletion inv;
  inv.with_inv = true;
  inv.invalidated_rkey = 0x0A0B0C0D;
  inv.imm_data = 0xFFFFFFFF;  // not a field of this completion
  inv.opcode = transport::WcOpcode::Recv;
  hca::encode_cqe(inv, 0, 0, 8, b.data());
  CHECK(hca::get_u32(b.data() + 12) == 0x0A0B0C0D);
  CHECK(int{b[27]} == 0x02);
  const transport::WorkCompletion inv_back = hca::decode_cqe(b.data(), index);
  CHECK(inv_back.with_inv);
  CHECK_FALSE(inv_back.with_imm);
  CHECK(inv_back.invalidated_rkey == 0x0A0B0C0D);
}

TEST_CASE("CQE: the owner bit is ((i / n) & 1) ^ 1 over several passes of the ring") {
  constexpr uint32_t n = 4;
  transport::WorkCompletion wc;
  std::vector<uint8_t> zero(64, 0);
  for (uint32_t i = 0; i < n; ++i) CHECK_FALSE(hca::cqe_valid(zero.data(), i, n));  // zeroed memory: nothing valid
  std::vector<uint8_t> ring(n * 64, 0);
  for (uint32_t i = 0; i < 5 * n; ++i) {
    INFO("CQE " << i);
    const uint32_t pass = i / n;
    uint8_t* e = ring.data() + (i % n) * 64;
    // Before it is written, the entry holds the previous pass's CQE (or zeros): not valid for i.
    CHECK_FALSE(hca::cqe_valid(e, i, n));
    hca::encode_cqe(wc, i, i, n, e);
    CHECK(int{e[63]} == (pass % 2 == 0 ? 1 : 0));  // 1 on the first pass, 0 on the second, ...
    CHECK(hca::cqe_valid(e, i, n));
    CHECK_FALSE(hca::cqe_valid(e, i + n, n));  // the next pass's reader does not take it
  }
}

TEST_CASE("compressed block: a title counts its mini CQEs at byte 36, a block of n takes 1 + ceil((n-1)/7) entries") {
  for (const auto& [n, entries] : std::vector<std::pair<uint32_t, uint32_t>>{
           {1, 1}, {2, 2}, {8, 2}, {9, 3}, {15, 3}, {16, 4}, {64, 10}, {256, 38}})
    CHECK(hca::cqe_block_entries(n) == entries);
  transport::WorkCompletion wc;
  wc.qp_num = 7;
  std::vector<uint8_t> title(64, kFill);
  hca::encode_cqe(wc, 3, 0, 4, title.data());
  CHECK(hca::mini_count(title.data()) == 0);  // a plain CQE
  hca::set_mini_count(title.data(), 5);
  CHECK(title[36] == 5);
  CHECK(hca::mini_count(title.data()) == 5);
  CHECK_FALSE(hca::is_mini_array(title.data()));
}

TEST_CASE("compressed block: a mini-CQE array holds 7 mini CQEs of 8 bytes and the owner bit with bit 1 set") {
  std::vector<hca::MiniCqe> minis;
  for (uint16_t k = 0; k < 7; ++k)
    minis.push_back({static_cast<uint16_t>(0x1200 + k), transport::WcOpcode::RdmaWrite, 0x01020304u * (k + 1)});
  std::vector<uint8_t> out(64, kFill);
  hca::encode_mini_array(minis.data(), 7, 5, 4, out.data());  // entry 5 of a ring of 4: second pass, owner 0
  std::vector<uint8_t> expected;
  for (uint16_t k = 0; k < 7; ++k) {
    for (uint8_t b : le(0x1200 + k, 2)) expected.push_back(b);
    expected.push_back(static_cast<uint8_t>(transport::WcOpcode::RdmaWrite));
    expected.push_back(0);
    for (uint8_t b : le(0x01020304ull * (k + 1), 4)) expected.push_back(b);
  }
  expected.resize(63, 0);
  expected.push_back(0x2);  // owner 0 (second pass), bit 1: an array
  CHECK(out == expected);
  CHECK(hca::is_mini_array(out.data()));
  CHECK(hca::cqe_valid(out.data(), 5, 4));
  CHECK_FALSE(hca::cqe_valid(out.data(), 1, 4));
  // Fewer than 7: the rest is 0; decode gives each back.
  hca::encode_mini_array(minis.data(), 2, 0, 4, out.data());
  CHECK(std::all_of(out.begin() + 16, out.begin() + 63, [](uint8_t b) { return b == 0; }));
  CHECK(out[63] == 0x3);
  const hca::MiniCqe m = hca::decode_mini_cqe(out.data(), 1);
  CHECK(m.wqe_index == 0x1201);
  CHECK(m.opcode == transport::WcOpcode::RdmaWrite);
  CHECK(m.byte_len == 0x01020304u * 2);
}

TEST_CASE("compressed block: only plain successes of one QP, source and SL join a block") {
  transport::WorkCompletion title;
  title.qp_num = 9;
  title.sl = 2;
  transport::WorkCompletion same = title;
  same.byte_len = 100;
  same.opcode = transport::WcOpcode::Recv;
  CHECK(hca::joins_block(title, same));
  auto differs = [&](auto change) {
    transport::WorkCompletion w = title;
    change(w);
    return !hca::joins_block(title, w) && !hca::joins_block(w, title);
  };
  CHECK(differs([](transport::WorkCompletion& w) { w.qp_num = 10; }));
  CHECK(differs([](transport::WorkCompletion& w) { w.src_qp = 1; }));
  CHECK(differs([](transport::WorkCompletion& w) { w.slid = 3; }));
  CHECK(differs([](transport::WorkCompletion& w) { w.sl = 0; }));
  CHECK(differs([](transport::WorkCompletion& w) { w.status = transport::WcStatus::RemAccessErr; }));
  CHECK(differs([](transport::WorkCompletion& w) { w.with_imm = true; }));
  CHECK(differs([](transport::WorkCompletion& w) { w.with_inv = true; }));
  CHECK(differs([](transport::WorkCompletion& w) { w.vendor_err = 1; }));
}
