// libFuzzer harness: the HCA's host interface bytes (models/hca/host_formats.hpp):
// send and receive WQEs, CQEs, mini-CQE arrays and MPT entries, as the HCA
// decodes them from host memory and the driver encodes them.
//
// Why the decoders and not the Hca module's MMIO b_transport: SystemC elaborates
// once per process and cannot be torn down, so every fuzz input would share one
// Hca whose state (QPs, rings, caches, time) grows with every input and makes a
// finding irreproducible on its own. These functions are what the Hca applies
// to every WQE, CQE and context it reads or writes; they are pure, so each
// input is a fresh, reproducible case.
//
// Input: byte 0 picks the format (modulo 5), byte 1 a parameter (the QP type of
// a send WQE, the stride of a receive WQE, the mini CQE of an array), the
// rest is the bytes as host memory holds them.
// Asserts: decode-encode is a fixed point for every format; for receive WQEs,
// CQEs, mini CQEs and MPT entries encode(decode(x)) also sets no bit x did not
// have (encode writes reserved bytes as zero); a send WQE that decodes
// re-encodes within its ds, keeps its control segment and decodes again to
// the same request; no decoder reads past the bytes it is given.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "models/hca/host_formats.hpp"
#include "testbench/fuzz/fuzz_check.hpp"

using namespace hcasim;
using namespace hcasim::hca;

namespace {

void no_new_bits(const std::vector<uint8_t>& x, const std::vector<uint8_t>& y, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if ((y[i] & ~x[i]) != 0) std::fprintf(stderr, "byte %zu: input %02x, re-encoded %02x\n", i, x[i], y[i]);
    FUZZ_CHECK((y[i] & ~x[i]) == 0, "re-encoding sets no bit the input did not have");
  }
}

// Every field a send WQE carries (an inline message of 0 bytes and an empty
// gather list are the same request; encode writes the latter).
bool same_request(const transport::SendWr& a, const transport::SendWr& b) {
  auto sges_equal = [](const transport::Sge& s, const transport::Sge& t) {
    return s.addr == t.addr && s.length == t.length && s.lkey == t.lkey;
  };
  return a.opcode == b.opcode && a.signaled == b.signaled && a.solicited == b.solicited && a.imm_data == b.imm_data &&
         a.remote_addr == b.remote_addr && a.rkey == b.rkey && a.compare_add == b.compare_add && a.swap == b.swap &&
         a.inline_data == b.inline_data && a.ah.dlid == b.ah.dlid && a.ah.sl == b.ah.sl &&
         a.ah.src_path_bits == b.ah.src_path_bits && a.remote_qpn == b.remote_qpn && a.remote_qkey == b.remote_qkey &&
         std::equal(a.sg_list.begin(), a.sg_list.end(), b.sg_list.begin(), b.sg_list.end(), sges_equal);
}

void send_wqe(uint8_t param, const uint8_t* in, size_t n) {
  const auto type = static_cast<transport::QpType>(param % 3);
  // Exactly the bytes available, so ASan sees a read past them.
  const std::vector<uint8_t> x(in, in + std::min<size_t>(n, kMaxDs * kSegmentBytes));
  if (x.size() < kSegmentBytes) return;
  transport::SendWr wr;
  if (decode_send_wqe(x.data(), static_cast<uint32_t>(x.size()), type, wr) != WqeError::None) return;
  const SendWqeHeader h = read_send_header(x.data());
  const uint32_t need = send_wqe_bytes(type, wr.opcode, wr.sg_list.size(), static_cast<uint32_t>(wr.inline_data.size()));
  FUZZ_CHECK(need <= uint32_t{h.ds} * kSegmentBytes, "the decoded request fits the WQE's ds");
  std::vector<uint8_t> y(std::max<size_t>(need, x.size()), 0);
  encode_send_wqe(wr, type, h.qpn, h.index, wr.inline_data, y.data());
  const SendWqeHeader g = read_send_header(y.data());
  FUZZ_CHECK(g.opcode == h.opcode && g.index == h.index && g.qpn == (h.qpn & 0xFFFFFFu) &&
                 (g.flags & ~h.flags) == 0 && g.ds <= h.ds,
             "the control segment re-encodes");
  transport::SendWr again;
  FUZZ_CHECK(decode_send_wqe(y.data(), static_cast<uint32_t>(y.size()), type, again) == WqeError::None,
             "the re-encoded WQE decodes");
  FUZZ_CHECK(same_request(wr, again), "the re-encoded WQE decodes to the same request");
  std::vector<uint8_t> z(y.size(), 0);
  encode_send_wqe(again, type, g.qpn, g.index, again.inline_data, z.data());
  FUZZ_CHECK(std::equal(y.begin(), y.begin() + need, z.begin()), "decode-encode is a fixed point");
}

void recv_wqe(uint8_t param, const uint8_t* in, size_t n) {
  const uint32_t stride = kSegmentBytes << (param % 6);  // 16 .. 512
  if (n < stride) return;
  const std::vector<uint8_t> x(in, in + stride);
  transport::RecvWr wr;
  decode_recv_wqe(x.data(), stride, wr);
  FUZZ_CHECK(wr.sg_list.size() <= stride / kSegmentBytes, "at most stride / 16 entries");
  std::vector<uint8_t> y(stride), z(stride);
  encode_recv_wqe(wr, stride, y.data());
  no_new_bits(x, y, stride);
  transport::RecvWr again;
  decode_recv_wqe(y.data(), stride, again);
  encode_recv_wqe(again, stride, z.data());
  FUZZ_CHECK(y == z, "decode-encode is a fixed point");
}

void cqe(const uint8_t* in, size_t n) {
  if (n < kCqeBytes) return;
  const std::vector<uint8_t> x(in, in + kCqeBytes);
  // Ring entry 0 of 1 is valid with owner 1, entry 1 (the second pass) with owner 0.
  const uint32_t ring_index = (x[63] & 1u) ? 0 : 1;
  FUZZ_CHECK(cqe_valid(x.data(), ring_index, 1), "the owner bit decides validity");
  uint16_t index = 0;
  const transport::WorkCompletion wc = decode_cqe(x.data(), index);
  std::vector<uint8_t> y(kCqeBytes), z(kCqeBytes);
  encode_cqe(wc, index, ring_index, 1, y.data());
  set_mini_count(y.data(), mini_count(x.data()));
  no_new_bits(x, y, kCqeBytes);
  uint16_t index2 = 0;
  const transport::WorkCompletion again = decode_cqe(y.data(), index2);
  FUZZ_CHECK(index2 == index, "the WQE index re-encodes");
  encode_cqe(again, index2, ring_index, 1, z.data());
  set_mini_count(z.data(), mini_count(y.data()));
  FUZZ_CHECK(y == z, "decode-encode is a fixed point");
}

void mini_array(uint8_t param, const uint8_t* in, size_t n) {
  if (n < kCqeBytes) return;
  const std::vector<uint8_t> x(in, in + kCqeBytes);
  const uint32_t count = 1 + param % kMiniCqesPerEntry;
  MiniCqe minis[kMiniCqesPerEntry];
  for (uint32_t k = 0; k < count; ++k) minis[k] = decode_mini_cqe(x.data(), k);
  const uint32_t ring_index = (x[63] & 1u) ? 0 : 1;
  std::vector<uint8_t> y(kCqeBytes), z(kCqeBytes);
  encode_mini_array(minis, count, ring_index, 1, y.data());
  FUZZ_CHECK(is_mini_array(y.data()) && cqe_valid(y.data(), ring_index, 1), "an array is marked and owned");
  for (size_t i = 0; i < count * kMiniCqeBytes; ++i) {
    FUZZ_CHECK((y[i] & ~x[i]) == 0, "re-encoding sets no bit the input did not have");
  }
  for (uint32_t k = 0; k < count; ++k) minis[k] = decode_mini_cqe(y.data(), k);
  encode_mini_array(minis, count, ring_index, 1, z.data());
  FUZZ_CHECK(y == z, "decode-encode is a fixed point");
}

void mpt(const uint8_t* in, size_t n) {
  if (n < kMptBytes) return;
  const std::vector<uint8_t> x(in, in + kMptBytes);
  std::vector<uint8_t> y(kMptBytes), z(kMptBytes);
  encode_mpt(decode_mpt(x.data()), y.data());
  no_new_bits(x, y, kMptBytes);
  encode_mpt(decode_mpt(y.data()), z.data());
  FUZZ_CHECK(y == z, "decode-encode is a fixed point");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const uint8_t* in = data + 2;
  const size_t n = size - 2;
  switch (data[0] % 5) {
    case 0: send_wqe(data[1], in, n); break;
    case 1: recv_wqe(data[1], in, n); break;
    case 2: cqe(in, n); break;
    case 3: mini_array(data[1], in, n); break;
    default: mpt(in, n); break;
  }
  return 0;
}
