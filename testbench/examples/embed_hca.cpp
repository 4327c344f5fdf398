// Embedding the HCA in your own SystemC platform (README, "Embedding the HCA in your own platform"): two hosts,
// each an HCA, host memory, PCIe link and a CPU model of its own; A's CPU posts an RDMA WRITE with only the bytes
// host_formats.hpp documents: WQE, doorbell record, send doorbell (MMIO, UAR page 1), CQE polled in the CQ ring.
#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include <iostream>
#include <vector>

#include "models/hca/hca.hpp"
#include "models/host/host_memory.hpp"
#include "models/pcie/pcie_link.hpp"
#include "testbench/examples/embed_formats.hpp"
#include "models/hca/rc_connect.hpp"

using namespace hcasim;

namespace {
constexpr uint64_t kSendRing = 0x10000, kRecvRing = 0x11000, kCqRing = 0x12000, kRecord = 0x13000;  // both hosts'
constexpr uint64_t kCqRecord = 0x13008, kBuffer = 0x100000, kBytes = 8192;  // the buffer: A's source, B's destination

// A CPU: one software thread, MMIO out of its socket, its own memory read and written directly.
class Cpu : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Cpu> mmio{"mmio"};  // to its PCIe link's host_in
  Cpu(const sc_core::sc_module_name& name, host::HostMemory& memory) : sc_module(name), m_(memory.memory()) {
    sc_core::sc_spawn([this] { run(); }, "run");  // SC_THREAD(run), without the deprecated SC_HAS_PROCESS
    memory.watch_writes(kCqRing, kCqRing + hca::kCqeBytes, [this](uint64_t, uint64_t, uint64_t at) { cqe_at_ = at; });
  }
  examples::RdmaWrite job;           // A's work; B's CPU has none (length 0)
  std::vector<uint8_t> source;       // the bytes it sends
  uint8_t cqe[hca::kCqeBytes] = {};  // CQ ring entry 0: valid on the first pass when its owner bit (63, bit 0) is 1
 private:
  void run() {
    if (job.length == 0) return;
    for (uint32_t i = 0; i < job.length; ++i) source.push_back(static_cast<uint8_t>(i * 7 + 3));
    m_.write(job.local_addr, source.data(), job.length);
    uint8_t wqe[examples::kRdmaWriteWqeBytes], doorbell[examples::kSendDoorbellBytes];
    examples::write_rdma_write_wqe(job, wqe);
    m_.write(kSendRing, wqe, sizeof wqe);  // send ring slot 0
    examples::write_send_doorbell(job.index + 1, job.qpn, doorbell);  // the send counter: WQEs ever posted
    m_.write(kRecord + 4, doorbell, 4);    // doorbell record bytes 4-7: the send counter
    tlm::tlm_generic_payload t;
    t.set_write();
    t.set_address(1 * hca::kPageBytes + hca::kUarSendDoorbell);  // UAR page 1
    t.set_data_ptr(doorbell);
    t.set_data_length(sizeof doorbell);
    t.set_streaming_width(sizeof doorbell);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    mmio->b_transport(t, delay);
    wait(delay);  // loosely timed: the thread catches up with the annotated delay
    std::cout << "QP " << job.qpn << " doorbell: " << t.get_response_string() << " at " << link::now_ps() << " ps\n";
    for (int look = 0; look < 20'000 && !(link::now_ps() >= cqe_at_ && (cqe[63] & 1)); ++look) {
      wait(50, sc_core::SC_NS);
      m_.read(kCqRing, cqe, sizeof cqe);
    }
    if (cqe[63] & 1) std::cout << "CQE seen at " << link::now_ps() << " ps: " << examples::describe_cqe(cqe) << '\n';
    else std::cout << "no CQE by " << link::now_ps() << " ps\n";
  }
  host::SparseMemory& m_;
  uint64_t cqe_at_ = UINT64_MAX;  // a device's write is stored at once, but the CPU sees it then (host_memory.hpp)
};

// One host: CPU -> PCIe link -> HCA's BAR0 (MMIO), HCA -> PCIe link -> memory (DMA), as host.hpp binds.
struct Host : sc_core::sc_module {
  Host(const sc_core::sc_module_name& name, uint16_t lid, ib::PacketPool& pool)
      : sc_module(name), hca("hca", {link::PortConfig{}}, {lid}, pool), memory("memory", host::HostMemoryConfig{}),
        pcie("pcie", pcie::PcieConfig{}), cpu("cpu", memory) {
    cpu.mmio.bind(pcie.host_in);
    pcie.device_out.bind(hca.mmio);
    hca.dma.bind(pcie.device_in);
    pcie.host_out.bind(memory.socket);
    const uint32_t cq = hca.create_cq({kCqRing, 1, 1, kCqRecord, 0});    // addr, entries, depth, record, vector
    qpn = hca.create_qp({transport::QpType::Rc, cq, cq, 1, 1, 1, 1},     // CQs; WRs and SGEs each way
                        {1, kSendRing, 1, 64, kRecvRing, 1, 16, kRecord});  // UAR, rings: addr, entries, stride
  }
  hca::Hca hca;
  host::HostMemory memory;
  pcie::PcieLink pcie;
  Cpu cpu;
  uint32_t qpn = 0;
};
}  // namespace

int sc_main(int, char*[]) {
  ib::PacketPool pool;
  Host a("a", 1, pool), b("b", 2, pool);
  link::Port::connect(a.hca.port(0), b.hca.port(0), link::LinkConfig{});  // HDR 4x, 2 m
  hca::connect_rc(a.hca, a.qpn, b.hca, b.qpn);  // RESET -> INIT -> RTR -> RTS on both sides
  const hca::MemoryRegion source = a.hca.reg_mr(kBuffer, kBytes, transport::kLocalWrite);
  const hca::MemoryRegion destination = b.hca.reg_mr(kBuffer, kBytes, transport::kLocalWrite | transport::kRemoteWrite);
  a.cpu.job = {a.qpn, 0, kBuffer, source.lkey, kBytes, kBuffer, destination.rkey, true};  // WQE index 0
  sc_core::sc_start();
  std::vector<uint8_t> received(kBytes);
  b.memory.memory().read(kBuffer, received.data(), kBytes);
  const bool same = received == a.cpu.source;
  std::cout << "B's buffer " << (same ? "equals" : "differs from") << " A's " << kBytes << " bytes\n";
  return same && (a.cpu.cqe[63] & 1) && a.cpu.cqe[35] == 0 ? 0 : 1;  // a valid CQE of status 0, success
}
