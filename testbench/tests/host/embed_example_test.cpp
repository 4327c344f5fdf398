// The embedding example (testbench/examples/embed_hca.cpp): the program runs an RDMA WRITE to a
// successful completion with real PCIe time, and the bytes its CPU writes and reads are those
// models/hca/host_formats.hpp documents (checked against the documentation's offsets and values,
// and against the HCA's own decoder and encoder).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <regex>
#include <string>
#include <vector>
#include <sys/wait.h>

#include "models/hca/host_formats.hpp"
#include "models/pcie/pcie_config.hpp"
#include "testbench/examples/embed_formats.hpp"

using namespace hcasim;

namespace {

struct Run {
  int exit_code = -1;
  std::string out;
};

Run run_example() {
  Run r;
  FILE* p = popen(HCASIM_EMBED_EXAMPLE " 2>&1", "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

uint64_t field(const std::smatch& m, int i) { return std::stoull(m[i].str()); }

}  // namespace

TEST_CASE("the embedding example completes its RDMA WRITE with success and B's buffer equals A's") {
  const Run r = run_example();
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  std::smatch doorbell, cqe;
  REQUIRE(std::regex_search(r.out, doorbell, std::regex(R"(QP (\d+) doorbell: TLM_OK_RESPONSE at (\d+) ps)")));
  REQUIRE(std::regex_search(r.out, cqe,
                            std::regex(R"(CQE seen at (\d+) ps: status (\d+) \((\w+)\), opcode (\d+) \((\w+)\), )"
                                       R"(QP (\d+), WQE index (\d+), timestamp (\d+) ps)")));
  CHECK(r.out.find("B's buffer equals A's 8192 bytes") != std::string::npos);
  // A successful (IBV_WC_SUCCESS = 0) RDMA WRITE completion of the sending QP's first WQE.
  CHECK(field(cqe, 2) == static_cast<unsigned>(transport::WcStatus::Success));
  CHECK(cqe[3] == "success");
  CHECK(field(cqe, 4) == static_cast<unsigned>(transport::WcOpcode::RdmaWrite));
  CHECK(cqe[5] == "rdma_write");
  CHECK(field(cqe, 6) == field(doorbell, 1));
  CHECK(field(cqe, 7) == 0);
  // Real PCIe time passes (PcieConfig's defaults, one-way latency L): the doorbell crosses the link
  // once; before the completion the HCA reads the WQE and then the source over it, a round trip
  // each; the CQE crosses it once more before the CPU can see it.
  const uint64_t latency = pcie::PcieConfig{}.latency_ps;
  const uint64_t doorbell_at = field(doorbell, 2), completed = field(cqe, 8), seen = field(cqe, 1);
  CHECK(doorbell_at >= latency);
  CHECK(completed >= doorbell_at + 4 * latency);
  CHECK(seen >= completed + latency);
}

TEST_CASE("the example's RDMA WRITE WQE has the bytes host_formats.hpp documents") {
  examples::RdmaWrite w;
  w.qpn = 0xABC123;
  w.index = 0x1'0005;  // the WQE index is the send counter modulo 2^16
  w.local_addr = 0x1122'3344'5566'7788;
  w.lkey = 0xA1B2'C3D4;
  w.length = 0x2000;
  w.remote_addr = 0x0102'0304'0506'0708;
  w.rkey = 0x5A6B'7C8D;
  std::vector<uint8_t> wqe(examples::kRdmaWriteWqeBytes + 16, 0xEE);  // 16 bytes past it must stay untouched
  examples::write_rdma_write_wqe(w, wqe.data());
  const std::vector<uint8_t> expected = {
      // control segment: opcode RDMA WRITE 0x08, flags signaled, WQE index, QP number, ds 3, 0, immediate 0
      0x08, 0x01, 0x05, 0x00, 0x23, 0xC1, 0xAB, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      // remote address segment: remote address, R_Key, 0
      0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, 0x8D, 0x7C, 0x6B, 0x5A, 0x00, 0x00, 0x00, 0x00,
      // data segment: byte count, L_Key, address
      0x00, 0x20, 0x00, 0x00, 0xD4, 0xC3, 0xB2, 0xA1, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
      // past the WQE
      0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE};
  REQUIRE(wqe.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("byte " << i);
    CHECK(unsigned{wqe[i]} == unsigned{expected[i]});
  }

  // The HCA reads back the same work request.
  const hca::SendWqeHeader h = hca::read_send_header(wqe.data());
  CHECK(h.opcode == hca::kOpRdmaWrite);
  CHECK(h.flags == hca::kWqeSignaled);
  CHECK(h.index == 0x0005);
  CHECK(h.qpn == 0xABC123);
  CHECK(h.ds == 3);
  transport::SendWr wr;
  REQUIRE(hca::decode_send_wqe(wqe.data(), examples::kRdmaWriteWqeBytes, transport::QpType::Rc, wr) ==
          hca::WqeError::None);
  CHECK(wr.opcode == transport::WrOpcode::RdmaWrite);
  CHECK(wr.signaled);
  CHECK_FALSE(wr.solicited);
  CHECK(wr.remote_addr == w.remote_addr);
  CHECK(wr.rkey == w.rkey);
  CHECK(wr.inline_data.empty());
  REQUIRE(wr.sg_list.size() == 1);
  CHECK(wr.sg_list[0].addr == w.local_addr);
  CHECK(wr.sg_list[0].length == w.length);
  CHECK(wr.sg_list[0].lkey == w.lkey);

  // And the HCA's own encoder writes the same 48 bytes for that work request.
  std::vector<uint8_t> encoded(examples::kRdmaWriteWqeBytes, 0);
  REQUIRE(hca::send_wqe_bytes(transport::QpType::Rc, wr.opcode, 1, 0) == examples::kRdmaWriteWqeBytes);
  hca::encode_send_wqe(wr, transport::QpType::Rc, w.qpn, w.index, {}, encoded.data());
  CHECK(encoded == std::vector<uint8_t>(wqe.begin(), wqe.begin() + examples::kRdmaWriteWqeBytes));

  // Unsignaled: flags 0, nothing else changes.
  w.signaled = false;
  examples::write_rdma_write_wqe(w, wqe.data());
  CHECK(wqe[1] == 0);
  CHECK(hca::decode_send_wqe(wqe.data(), examples::kRdmaWriteWqeBytes, transport::QpType::Rc, wr) ==
        hca::WqeError::None);
  CHECK_FALSE(wr.signaled);
}

TEST_CASE("the example's send doorbell and CQE fields sit where host_formats.hpp documents them") {
  uint8_t doorbell[examples::kSendDoorbellBytes];
  examples::write_send_doorbell(0x0102'0307, 0x123456, doorbell);  // 0-3 send counter, 4-7 QP number
  CHECK(std::vector<uint8_t>(doorbell, doorbell + 8) ==
        std::vector<uint8_t>{0x07, 0x03, 0x02, 0x01, 0x56, 0x34, 0x12, 0x00});

  // A CQE the HCA writes (its own encoder), read back by the example's code.
  transport::WorkCompletion wc;
  wc.status = transport::WcStatus::RemAccessErr;
  wc.opcode = transport::WcOpcode::RdmaWrite;
  wc.qp_num = 0x00AB'CDEF;
  wc.time_ps = 0x0123'4567'89AB'CDEF;
  uint8_t bytes[hca::kCqeBytes];
  hca::encode_cqe(wc, 0x1'2345, 0, 4, bytes);  // ring entry 0 of 4, first pass
  examples::Cqe c = examples::read_cqe(bytes);
  CHECK(c.status == 10);  // IBV_WC_REM_ACCESS_ERR
  CHECK(c.opcode == static_cast<uint8_t>(transport::WcOpcode::RdmaWrite));
  CHECK(c.qpn == 0x00AB'CDEF);
  CHECK(c.wqe_index == 0x2345);
  CHECK(c.timestamp_ps == 0x0123'4567'89AB'CDEF);
  CHECK(c.owner);  // first pass: 1
  CHECK(examples::describe_cqe(bytes) ==
        "status 10 (rem_access_err), opcode 1 (rdma_write), QP 11259375, WQE index 9029, "
        "timestamp 81985529216486895 ps");
  hca::encode_cqe(wc, 0, 4, 4, bytes);  // the same entry on the second pass: owner 0
  CHECK_FALSE(examples::read_cqe(bytes).owner);
}
