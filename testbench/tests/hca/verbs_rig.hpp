#pragma once
// A fabric of HCAs driven through the verbs API from C++: the fabric, the link
// checker on every port, an optional pcap of every port, helpers to register
// memory, fill it with a pattern and post work requests, and run to the end.

#include <systemc>

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "models/fabric/fabric.hpp"
#include "models/trace/packet_capture.hpp"
#include "testbench/checkers/link_checker.hpp"
#include "testbench/workloads/connection.hpp"

namespace hcasim::test {

// What a port put on the wire: the data packets' transport fields and times.
struct WireRecord {
  uint64_t time_ps;
  uint8_t opcode;
  uint32_t psn;
  uint8_t syndrome;  // AETH, where the opcode carries one
};
class WireLog : public link::PortObserver {
 public:
  void on_transmit(const link::Port&, const ib::Packet& p, uint64_t now_ps, uint64_t) override {
    if (p.kind == ib::PacketKind::Data) records.push_back({now_ps, p.hdr.bth.opcode, p.hdr.bth.psn, p.hdr.aeth.syndrome});
  }
  std::vector<WireRecord> with_opcode(uint8_t op) const {
    std::vector<WireRecord> out;
    for (const WireRecord& r : records)
      if (r.opcode == op) out.push_back(r);
    return out;
  }
  std::vector<WireRecord> records;
};

// The spec with every HCA's host side of no cost (the "ideal" preset): the
// transport tests' figures are those of the transport alone.
inline config::FabricSpec ideal_hosts(config::FabricSpec spec) {
  for (config::NodeSpec& n : spec.nodes) n.hca = config::preset_settings(config::HcaPreset::Ideal);
  return spec;
}

class VerbsRig {
 public:
  explicit VerbsRig(const config::FabricSpec& spec, const std::string& pcap = "")
      : fabric_(ideal_hosts(spec), pool_) {
    for (link::Port* p : fabric_.ports()) checker_.watch(*p);
    if (!pcap.empty()) capture_ = std::make_unique<trace::PacketCapture>(pcap, fabric_.ports());
  }
  hca::Hca& hca(unsigned i) { return fabric_.hca(i); }
  host::Driver& driver(unsigned i) { return fabric_.driver(i); }
  fabric::Fabric& fabric() { return fabric_; }
  const checkers::LinkChecker& checker() const { return checker_; }

  // Starts the simulation and runs what is due at time zero: posts made
  // before it ring their doorbells when it starts (host/driver.hpp).
  void start() { sc_core::sc_start(sc_core::SC_ZERO_TIME); }
  // Runs until nothing is left to do (or until `until_ps`), then closes the pcap.
  void run(uint64_t until_ps = 0) {
    if (until_ps) sc_core::sc_start(sc_core::sc_time::from_value(until_ps - now()), sc_core::SC_RUN_TO_TIME);
    else sc_core::sc_start();
    checker_.finish(now());
  }
  void close_pcap() { capture_.reset(); }
  // Records what HCA i's port 0 transmits.
  const WireLog& log(unsigned i) {
    if (logs_.size() <= i) logs_.resize(i + 1);
    if (!logs_[i]) {
      logs_[i] = std::make_unique<WireLog>();
      hca(i).port(0).add_observer(logs_[i].get());
    }
    return *logs_[i];
  }
  static uint64_t now() { return sc_core::sc_time_stamp().value(); }

 private:
  ib::PacketPool pool_;
  fabric::Fabric fabric_;
  checkers::LinkChecker checker_;
  std::unique_ptr<trace::PacketCapture> capture_;
  std::vector<std::unique_ptr<WireLog>> logs_;
};

// Two back-to-back single-port HCAs with an RC (or other) connection and one
// large memory region on each (every access allowed on B).
struct Pair {
  explicit Pair(const workloads::ConnectionParams& p = {}, link::PortConfig port = {}, link::LinkConfig l = {},
                const std::string& pcap = "")
      : rig(config::back_to_back(port, port, l), pcap), params(p) {
    std::tie(qa, qb) = workloads::connect(a(), 0, b(), 0, p);
    const uint32_t all = transport::kLocalWrite | transport::kRemoteWrite | transport::kRemoteRead |
                         transport::kRemoteAtomic;
    ma = a().reg_mr(0, uint64_t{1} << 32, all);
    mb = b().reg_mr(0, uint64_t{1} << 32, all);
  }
  host::Driver& a() { return rig.driver(0); }
  host::Driver& b() { return rig.driver(1); }
  transport::Qp& qp_a() { return *a().hca().transport().find(qa.qpn); }
  transport::Qp& qp_b() { return *b().hca().transport().find(qb.qpn); }
  VerbsRig rig;
  workloads::ConnectionParams params;
  workloads::QpEnd qa, qb;
  hca::MemoryRegion ma, mb;
};

// Where the tests put a message's source (on the sender) and destination (on the receiver).
constexpr uint64_t kSrc = 0x100000, kDst = 0x800000;

// The byte at address a of a test pattern with seed s.
inline uint8_t pattern(uint64_t a, uint8_t s) { return static_cast<uint8_t>((a * 131 + s * 7 + (a >> 8)) & 0xFF); }

inline void fill(host::Driver& h, uint64_t addr, uint64_t len, uint8_t seed) {
  std::vector<uint8_t> b(len);
  for (uint64_t i = 0; i < len; ++i) b[i] = pattern(addr + i, seed);
  h.memory().write(addr, b.data(), len);
}

inline std::vector<uint8_t> bytes(host::Driver& h, uint64_t addr, uint64_t len) {
  std::vector<uint8_t> b(len);
  h.memory().read(addr, b.data(), len);
  return b;
}

inline transport::SendWr send_wr(uint64_t id, transport::WrOpcode op, uint64_t addr, uint32_t len, uint32_t lkey) {
  transport::SendWr w;
  w.wr_id = id;
  w.opcode = op;
  w.sg_list.push_back({addr, len, lkey});
  return w;
}

inline transport::RecvWr recv_wr(uint64_t id, uint64_t addr, uint32_t len, uint32_t lkey) {
  transport::RecvWr w;
  w.wr_id = id;
  w.sg_list.push_back({addr, len, lkey});
  return w;
}

inline std::vector<transport::WorkCompletion> drain_cq(host::Driver& h, uint32_t cq) {
  std::vector<transport::WorkCompletion> out;
  h.poll_cq(cq, 1u << 30, out);
  return out;
}

inline std::vector<transport::WcStatus> statuses(const std::vector<transport::WorkCompletion>& c) {
  std::vector<transport::WcStatus> s;
  for (const auto& wc : c) s.push_back(wc.status);
  return s;
}

}  // namespace hcasim::test
