#pragma once
// A virtual platform around HCAs, wired as host/host.hpp wires one (DESIGN.md,
// "The HCA's host side") but with a tap in front of each HCA's BAR0:
//
//   driver.mmio -> pcie.host_in,  pcie.device_out -> tap.in -> hca.mmio
//   cpu.socket  ->                                  tap.in      (a test's own MMIO, no link)
//   hca.dma -> pcie.device_in,    pcie.host_out -> memory.socket
//
// The tap records every MMIO transaction as it reaches the HCA: its offset,
// bytes, response and arrival time (now + the annotated delay, i.e. after the
// PCIe link's wire time and latency). HostPair joins two such platforms'
// HCAs back to back and connects a QP on each (workloads::connect), so the
// host side's parameters are exactly the HcaSettings given.

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "models/config/hca_settings.hpp"
#include "models/hca/hca.hpp"
#include "models/hca/host_formats.hpp"
#include "models/host/driver.hpp"
#include "models/host/host_memory.hpp"
#include "models/ib/packet.hpp"
#include "models/pcie/pcie_link.hpp"
#include "testbench/tests/hca/verbs_rig.hpp"
#include "testbench/workloads/connection.hpp"

namespace hcasim::test {

// Every MMIO transaction on its way into the HCA's BAR0.
class MmioTap : public sc_core::sc_module {
 public:
  struct Arrival {
    uint64_t offset;
    bool write;
    std::vector<uint8_t> data;  // as written (writes) or as answered (reads)
    uint64_t at_ps;             // arrival at the HCA: now + the delay it came with
    tlm::tlm_response_status status;
  };

  tlm_utils::multi_passthrough_target_socket<MmioTap> in{"in"};
  tlm_utils::simple_initiator_socket<MmioTap> out{"out"};
  std::vector<Arrival> arrivals;

  explicit MmioTap(const sc_core::sc_module_name& name) : sc_module(name) {
    in.register_b_transport(this, &MmioTap::b_transport);
    in.register_transport_dbg(this, &MmioTap::transport_dbg);
  }
  MmioTap() = delete;
  MmioTap(const MmioTap&) = delete;
  MmioTap& operator=(const MmioTap&) = delete;

  // The arrivals of writes at `offset`.
  std::vector<Arrival> writes_at(uint64_t offset) const {
    std::vector<Arrival> found;
    for (const Arrival& a : arrivals)
      if (a.write && a.offset == offset) found.push_back(a);
    return found;
  }

 private:
  void b_transport(int, tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
    const uint64_t at = sc_core::sc_time_stamp().value() + delay.value();
    out->b_transport(t, delay);
    const uint8_t* p = t.get_data_ptr();
    arrivals.push_back({t.get_address(), t.is_write(), std::vector<uint8_t>(p, p + t.get_data_length()), at,
                        t.get_response_status()});
  }
  unsigned transport_dbg(int, tlm::tlm_generic_payload& t) { return out->transport_dbg(t); }
};

// A test's CPU: MMIO straight into the tap (no link, no driver).
class TestCpu : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<TestCpu> socket{"socket"};
  explicit TestCpu(const sc_core::sc_module_name& name) : sc_module(name) {}

  struct Result {
    tlm::tlm_response_status status;
    std::vector<uint8_t> data;
  };
  Result write(uint64_t offset, std::vector<uint8_t> data) { return access(tlm::TLM_WRITE_COMMAND, offset, data); }
  Result read(uint64_t offset, unsigned length) {
    std::vector<uint8_t> b(length, 0xCC);
    return access(tlm::TLM_READ_COMMAND, offset, b);
  }

 private:
  Result access(tlm::tlm_command cmd, uint64_t offset, std::vector<uint8_t>& data) {
    tlm::tlm_generic_payload t;
    t.set_command(cmd);
    t.set_address(offset);
    t.set_data_ptr(data.data());
    t.set_data_length(static_cast<unsigned>(data.size()));
    t.set_streaming_width(static_cast<unsigned>(data.size()));
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    socket->b_transport(t, delay);
    return {t.get_response_status(), data};
  }
};

// One host around an HCA: memory, PCIe link, tap, driver and a test CPU.
class HostSide : public sc_core::sc_module {
 public:
  HostSide(const sc_core::sc_module_name& name, const config::HcaSettings& s, hca::Hca& hca)
      : sc_module(name), memory("memory", s.host.memory), pcie("pcie", s.host.pcie), tap("tap"),
        driver("driver", s.host.driver, memory, hca), cpu("cpu") {
    driver.mmio.bind(pcie.host_in);
    pcie.device_out.bind(tap.in);
    cpu.socket.bind(tap.in);
    tap.out.bind(hca.mmio);
    hca.dma.bind(pcie.device_in);
    pcie.host_out.bind(memory.socket);
  }
  host::HostMemory memory;
  pcie::PcieLink pcie;
  MmioTap tap;
  host::Driver driver;
  TestCpu cpu;
};

// Settings with every cost named by the test and nothing else costing time:
// an ideal preset to start from.
inline config::HcaSettings ideal_settings() { return config::preset_settings(config::HcaPreset::Ideal); }

// A PCIe link whose arithmetic is easy to follow: Gen2 x16 (5 GT/s x 16 lanes
// x 8/10 = 64 Gb/s: 125 ps per wire byte) with no DLLP share, 64-bit request
// headers (16 bytes), 8 bytes of overhead per TLP, and `latency_ps` one way.
inline pcie::PcieConfig simple_pcie(uint64_t latency_ps) {
  pcie::PcieConfig c;
  c.gen = 2;
  c.lanes = 16;
  c.dllp_share = 0;
  c.tlp_header_dw = 4;
  c.tlp_overhead_bytes = 8;
  c.latency_ps = latency_ps;
  c.ideal = false;
  return c;
}
constexpr uint64_t kPsPerWireByte = 125;  // simple_pcie's link

// Two HCAs joined port to port, each with its own host platform, and a
// connected QP pair (QP and CQ on each side) plus one region over the low 4 GiB.
class HostPair {
 public:
  // name: a prefix for the modules' names, so that one test may build several pairs.
  explicit HostPair(const config::HcaSettings& settings, const workloads::ConnectionParams& p = {},
                    const std::string& name = "")
      : hca_a_((name + "hca0").c_str(), {link::PortConfig{}}, {1}, pool_, transport::TransportConfig{}, settings.hca,
               1u << 8),
        hca_b_((name + "hca1").c_str(), {link::PortConfig{}}, {2}, pool_, transport::TransportConfig{}, settings.hca,
               2u << 8),
        side_a_((name + "hca0_host").c_str(), settings, hca_a_),
        side_b_((name + "hca1_host").c_str(), settings, hca_b_),
        params(p) {
    link::Port::connect(hca_a_.port(0), hca_b_.port(0), link::LinkConfig{});
    std::tie(qa, qb) = workloads::connect(a(), 0, b(), 0, p);
    const uint32_t all = transport::kLocalWrite | transport::kRemoteWrite | transport::kRemoteRead |
                         transport::kRemoteAtomic;
    ma = a().reg_mr(0, uint64_t{1} << 32, all);
    mb = b().reg_mr(0, uint64_t{1} << 32, all);
  }
  HostPair(const HostPair&) = delete;
  HostPair& operator=(const HostPair&) = delete;

  host::Driver& a() { return side_a_.driver; }
  host::Driver& b() { return side_b_.driver; }
  hca::Hca& hca_a() { return hca_a_; }
  hca::Hca& hca_b() { return hca_b_; }
  HostSide& side_a() { return side_a_; }
  HostSide& side_b() { return side_b_; }
  transport::Qp& qp_a() { return *hca_a_.transport().find(qa.qpn); }

  // Runs f at simulated time t_ps in a thread of its own (call before the run).
  static void at(uint64_t t_ps, std::function<void()> f) {
    sc_core::sc_spawn([t_ps, f = std::move(f)] {
      sc_core::wait(sc_core::sc_time::from_value(t_ps));
      f();
    });
  }
  // Runs until nothing is left to do, or until until_ps.
  static void run(uint64_t until_ps = 0) {
    if (until_ps != 0) sc_core::sc_start(sc_core::sc_time::from_value(until_ps), sc_core::SC_RUN_TO_TIME);
    else sc_core::sc_start();
  }
  static uint64_t now() { return sc_core::sc_time_stamp().value(); }

 private:
  ib::PacketPool pool_;
  hca::Hca hca_a_, hca_b_;
  HostSide side_a_, side_b_;  // after the HCAs: their drivers go first

 public:
  workloads::ConnectionParams params;
  workloads::QpEnd qa, qb;
  hca::MemoryRegion ma, mb;
};

// Where the driver wrote send WQE `index` of QP qpn (a QP of `type`): the
// address in its area (host::kDriverArea) holding exactly the bytes the
// documented layout gives for wr. Send rings are 4 KiB-aligned with strides
// of 64 x n, so every send WQE starts on a 64-byte boundary. Throws when none does.
inline uint64_t find_send_wqe(host::Driver& d, const transport::SendWr& wr, transport::QpType type, uint32_t qpn,
                              uint32_t index) {
  const uint32_t bytes = hca::send_wqe_bytes(type, wr.opcode, wr.sg_list.size(), 0);
  std::vector<uint8_t> expected(bytes), got(bytes);
  hca::encode_send_wqe(wr, type, qpn, index, {}, expected.data());
  for (uint64_t a = host::kDriverArea; a < host::kDriverArea + (uint64_t{16} << 20); a += 64) {
    d.memory().read(a, got.data(), 16);
    if (!std::equal(got.begin(), got.begin() + 16, expected.begin())) continue;
    d.memory().read(a, got.data(), bytes);
    if (got == expected) return a;
  }
  throw std::runtime_error("no send WQE " + std::to_string(index) + " of QP " + std::to_string(qpn));
}

inline std::vector<transport::WorkCompletion> poll_all(host::Driver& d, uint32_t cq) {
  std::vector<transport::WorkCompletion> out;
  d.poll_cq(cq, 1u << 30, out);
  return out;
}

}  // namespace hcasim::test
