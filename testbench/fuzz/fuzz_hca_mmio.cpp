// libFuzzer harness: the HCA's register and doorbell interface, end to end. Two HCAs back to
// back, each with host memory behind its PCIe link (models/hca/hca.hpp); the input is a program
// for host A's CPU: host-memory writes (raw bytes into rings and doorbell records, or well-formed
// send and receive WQEs), MMIO writes and reads of any size anywhere in BAR0 (raw, or send and CQ
// doorbells in their format), and waits. Then the simulation runs for 2 ms.
//
// Asserts:
// - every MMIO access is answered with a TLM status the HCA documents, the HCA counts an error
//   for every error answer and none otherwise, and a register read returns what the register
//   page holds (the device id, the UAR pages, the MSI-X vectors);
// - every CQE the HCA wrote decodes to a status and opcode of the enums, reports a WQE index
//   of a WQE it could have read, and names its own QP;
// - byte-exact delivery: an RDMA WRITE whose signaled WQE completed successfully left, in B's
//   buffer, exactly the bytes of A's buffer it named. Checked when the completion must be this
//   WQE's: no counter above its index was announced before it was written and its slot was not
//   written after it; when no other WRITE of the input names an overlapping range; and when the
//   input wrote no raw bytes into A's send ring or a BlueFlame buffer (which may make a WRITE the
//   harness does not know, or change a known one before the HCA reads it).
//
// State: SystemC elaborates once per process, so the platform is made at the first input and
// each input gets a new CQ and a new RC QP pair, destroyed at its end; time, QP and CQ numbers
// and the statistics carry over from one input to the next. A finding is reproduced by running
// its input alone (docs/fuzzing.md).

#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/hca/hca.hpp"
#include "models/hca/rc_connect.hpp"
#include "models/host/host_memory.hpp"
#include "models/pcie/pcie_link.hpp"
#include "testbench/fuzz/fuzz_check.hpp"

using namespace hcasim;
using namespace hcasim::hca;

namespace {

// Host memory layout, the same on both hosts.
constexpr uint32_t kSqEntries = 8, kSqStride = 256, kRqEntries = 8, kRqStride = 64, kCqEntries = 16;
constexpr uint64_t kSendRing = 0x10000, kRecvRing = 0x11000, kCqRing = 0x12000, kRecord = 0x13000;
constexpr uint64_t kCqRecord = 0x13008;
constexpr uint64_t kBuffer = 0x100000, kBufferBytes = 0x10000;    // A: WRITE and SEND source; B: WRITE target
constexpr uint64_t kLanding = 0x200000, kLandingBytes = 0x10000;  // A: READ and atomic results; B: receives
constexpr uint64_t kAtomics = 0x300000, kAtomicBytes = 0x1000;    // B: atomics' target

uint8_t source_byte(uint64_t addr) { return static_cast<uint8_t>(addr * 131 + (addr >> 8) * 7 + 1); }

// Consumes the input from the front; past its end every byte reads 0.
class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  bool done() const { return p_ == end_; }
  uint8_t u8() { return p_ == end_ ? 0 : *p_++; }
  uint16_t u16() { return static_cast<uint16_t>(u8() | u8() << 8); }
  uint32_t u32() { return u16() | static_cast<uint32_t>(u16()) << 16; }
  void bytes(uint8_t* out, size_t n) {
    for (size_t i = 0; i < n; ++i) out[i] = u8();
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

// A host CPU's MMIO: a bare initiator into the PCIe link.
struct Cpu : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Cpu> mmio{"mmio"};
  explicit Cpu(const sc_core::sc_module_name& name) : sc_module(name) {}
};

struct Host : sc_core::sc_module {
  Host(const sc_core::sc_module_name& name, uint16_t lid, ib::PacketPool& pool)
      : sc_module(name), hca("hca", {link::PortConfig{}}, {lid}, pool), memory("memory", host::HostMemoryConfig{}),
        pcie("pcie", pcie::PcieConfig{}), cpu("cpu") {
    cpu.mmio.bind(pcie.host_in);
    pcie.device_out.bind(hca.mmio);
    hca.dma.bind(pcie.device_in);
    pcie.host_out.bind(memory.socket);
  }
  Hca hca;
  host::HostMemory memory;
  pcie::PcieLink pcie;
  Cpu cpu;
};

struct Platform {
  ib::PacketPool pool;
  Host a{"a", 1, pool}, b{"b", 2, pool};
  MemoryRegion a_buffer, a_landing, b_buffer, b_landing, b_atomics;
  Platform() {
    link::Port::connect(a.hca.port(0), b.hca.port(0), link::LinkConfig{});
    namespace t = transport;
    a_buffer = a.hca.reg_mr(kBuffer, kBufferBytes, t::kLocalWrite);
    a_landing = a.hca.reg_mr(kLanding, kLandingBytes, t::kLocalWrite);
    b_buffer = b.hca.reg_mr(kBuffer, kBufferBytes, t::kLocalWrite | t::kRemoteWrite | t::kRemoteRead);
    b_landing = b.hca.reg_mr(kLanding, kLandingBytes, t::kLocalWrite);
    b_atomics = b.hca.reg_mr(kAtomics, kAtomicBytes, t::kLocalWrite | t::kRemoteAtomic);
    std::vector<uint8_t> bytes(kBufferBytes);
    for (uint64_t i = 0; i < kBufferBytes; ++i) bytes[i] = source_byte(kBuffer + i);
    a.memory.memory().write(kBuffer, bytes.data(), bytes.size());
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
};

bool msix_dirty = false;  // the MSI-X table differs from its reset state (all zero, masked)

Platform& platform() {
  static Platform* p = new Platform;  // never destroyed: SystemC's objects outlive every input
  return *p;
}

// What one input made and did.
struct Run {
  uint32_t cq_a = 0, cq_b = 0, qp_a = 0, qp_b = 0;
  uint64_t mmio_errors = 0;  // accesses answered with an error
  bool msix_written = false;  // an MSI-X table entry written: interrupts may land anywhere in A's memory
  // Raw bytes into A's send ring or a raw write into a BlueFlame buffer: the HCA may execute a
  // WRITE the harness does not know (the fuzzer learns the 32-bit R_Key from comparisons), or a
  // known one whose WQE changed before the HCA read it, anywhere in B's buffer.
  bool forged = false;
  // The send counter announced so far: the HCA may have read every WQE below it. Raw MMIO
  // into a UAR page or raw bytes in A's doorbell record may announce any counter.
  uint64_t announced = 0;
  struct Write {             // an RDMA WRITE this input wrote as a well-formed WQE
    uint16_t index;
    uint32_t slot;
    uint64_t local, remote;
    uint32_t length;
    bool checked;            // signaled, with valid keys, and its slot not written since
    bool unread;             // no counter above its index announced before it was written
  };
  std::vector<Write> writes;
};

void mmio_access(Run& run, bool write, uint64_t address, uint8_t* data, unsigned length) {
  tlm::tlm_generic_payload t;
  if (write) t.set_write();
  else t.set_read();
  t.set_address(address);
  t.set_data_ptr(data);
  t.set_data_length(length);
  t.set_streaming_width(length);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  platform().a.cpu.mmio->b_transport(t, delay);
  const tlm::tlm_response_status s = t.get_response_status();
  FUZZ_CHECK(s == tlm::TLM_OK_RESPONSE || s == tlm::TLM_ADDRESS_ERROR_RESPONSE || s == tlm::TLM_GENERIC_ERROR_RESPONSE,
             "an MMIO access is answered OK, address error or generic error");
  if (s != tlm::TLM_OK_RESPONSE) ++run.mmio_errors;
  if (!write && s == tlm::TLM_OK_RESPONSE && address < kPageBytes && length == 4 && address % 4 == 0) {
    const uint32_t v = get_u32(data);
    if (address == kRegDeviceId) FUZZ_CHECK(v == kDeviceId, "the device id register reads the device id");
    if (address == kRegUarPages) FUZZ_CHECK(v == platform().a.hca.config().uar_pages, "UAR pages reads the configuration");
  }
  if (delay > sc_core::SC_ZERO_TIME) sc_core::sc_start(delay);  // the CPU waits out its store
}

void mark_written(Run& run, uint64_t begin, uint64_t end) {
  for (Run::Write& w : run.writes) {
    const uint64_t slot = kSendRing + uint64_t{w.slot} * kSqStride;
    if (begin < slot + kSqStride && slot < end) w.checked = false;
  }
}

void write_memory(Run& run, Reader& in) {
  // Raw bytes into A's rings, records and landing area, or B's receive ring and record (not the
  // CQ rings: only the HCA writes CQEs).
  struct Area {
    bool on_a;
    uint64_t base, bytes;
  };
  static constexpr Area kAreas[] = {
      {true, kSendRing, kSqEntries * kSqStride}, {true, kRecvRing, kRqEntries * kRqStride},
      {true, kRecord, 16},                       {true, kLanding, 256},
      {false, kRecvRing, kRqEntries * kRqStride}, {false, kRecord, 16},
  };
  const Area& area = kAreas[in.u8() % std::size(kAreas)];
  const uint64_t offset = in.u16() % area.bytes;
  const uint64_t n = std::min<uint64_t>(in.u8(), area.bytes - offset);
  std::vector<uint8_t> bytes(n);
  in.bytes(bytes.data(), n);
  Host& host = area.on_a ? platform().a : platform().b;
  host.memory.memory().write(area.base + offset, bytes.data(), n);
  if (area.on_a) mark_written(run, area.base + offset, area.base + offset + n);
  if (area.on_a && area.base == kSendRing && n > 0) run.forged = true;
  if (area.on_a && area.base == kRecord) run.announced = UINT64_MAX;
}

void write_send_wqe(Run& run, Reader& in) {
  Platform& p = platform();
  namespace t = transport;
  static constexpr t::WrOpcode kOps[] = {t::WrOpcode::RdmaWrite,   t::WrOpcode::RdmaWriteWithImm, t::WrOpcode::Send,
                                         t::WrOpcode::SendWithImm, t::WrOpcode::RdmaRead,         t::WrOpcode::AtomicCmpSwp,
                                         t::WrOpcode::AtomicFetchAdd};
  // how: bits 0-2 the opcode (kOps), 0x08 signaled, 0x10 solicited, 0x20 keys from the input,
  // 0x40 inline (a message of at most 128 bytes), 0x80 posted by BlueFlame as well.
  const uint8_t how = in.u8();
  const uint16_t index = in.u8();  // small counters: a doorbell of counter n makes the HCA read up to n WQEs
  t::SendWr wr;
  wr.opcode = kOps[(how & 0x07) % std::size(kOps)];
  wr.signaled = (how & 0x08) != 0;
  wr.solicited = (how & 0x10) != 0;
  const bool atomic = wr.opcode == t::WrOpcode::AtomicCmpSwp || wr.opcode == t::WrOpcode::AtomicFetchAdd;
  const bool read = wr.opcode == t::WrOpcode::RdmaRead;
  const uint32_t length = atomic ? 8 : in.u16() % 8193;
  const uint64_t local = (read || atomic ? kLanding : kBuffer) + in.u16() % (kBufferBytes - length);
  const uint64_t remote = atomic ? kAtomics + (in.u16() % (kAtomicBytes / 8)) * 8 : kBuffer + in.u16() % (kBufferBytes - length);
  const bool bad_keys = (how & 0x20) != 0;
  const uint32_t lkey = bad_keys ? in.u32() : (read || atomic ? p.a_landing.lkey : p.a_buffer.lkey);
  const uint32_t rkey = bad_keys ? in.u32() : (atomic ? p.b_atomics.rkey : p.b_buffer.rkey);
  if (length > 0 || atomic) wr.sg_list.push_back({local, length, lkey});
  wr.remote_addr = remote;
  wr.rkey = rkey;
  wr.imm_data = in.u32();
  wr.compare_add = in.u32();
  wr.swap = in.u32();
  std::vector<uint8_t> inline_data;
  if ((how & 0x40) != 0 && !read && !atomic && length <= 128) {  // inline: the bytes in the WQE
    inline_data.resize(length);
    p.a.memory.memory().read(local, inline_data.data(), length);
    wr.sg_list.clear();
  }
  const uint32_t slot = index % kSqEntries;
  uint8_t wqe[kSqStride] = {};
  encode_send_wqe(wr, t::QpType::Rc, run.qp_a, index, inline_data, wqe);
  const uint64_t at = kSendRing + uint64_t{slot} * kSqStride;
  p.a.memory.memory().write(at, wqe, kSqStride);
  mark_written(run, at, at + kSqStride);
  const unsigned bytes = read_send_header(wqe).ds * kSegmentBytes;
  if ((how & 0x80) != 0 && bytes > 0 && bytes <= kBlueFlameBytes) {  // posted by BlueFlame: the WQE in the MMIO write
    uint8_t counter[4];
    put_u32(counter, static_cast<uint32_t>(index) + 1);
    p.a.memory.memory().write(kRecord + 4, counter, 4);  // bytes 4-7: the send counter
    mmio_access(run, true, kPageBytes + kUarBlueFlame, wqe, bytes);
    run.announced = std::max<uint64_t>(run.announced, index + 1u);
  }
  const bool write = wr.opcode == t::WrOpcode::RdmaWrite || wr.opcode == t::WrOpcode::RdmaWriteWithImm;
  const bool unread = run.announced <= index;  // else the HCA may have read the slot's earlier WQE as index
  if (write) run.writes.push_back({index, slot, local, remote, length, wr.signaled && !bad_keys, unread});
}

void write_recv_wqe(Reader& in) {
  // On B: a receive WQE for a SEND or a WRITE with immediate, and B's receive counter.
  Platform& p = platform();
  const uint16_t index = in.u8();
  const uint32_t length = in.u16() % 8193;
  transport::RecvWr wr;
  wr.sg_list.push_back({kLanding + in.u16() % (kLandingBytes - length), length, p.b_landing.lkey});
  uint8_t wqe[kRqStride] = {};
  encode_recv_wqe(wr, kRqStride, wqe);
  p.b.memory.memory().write(kRecvRing + uint64_t{index % kRqEntries} * kRqStride, wqe, kRqStride);
  uint8_t counter[4];
  put_u32(counter, static_cast<uint32_t>(index) + 1);
  p.b.memory.memory().write(kRecord, counter, 4);  // bytes 0-3: the receive counter
}

void ring_send_doorbell(Run& run, Reader& in) {
  const uint32_t counter = in.u8();
  const bool other_qp = (in.u8() & 1) != 0;  // a QP of no one: answered with an error
  uint8_t doorbell[8];
  put_u32(doorbell, counter);
  put_u32(doorbell + 4, other_qp ? run.qp_a + 1000 : run.qp_a);
  platform().a.memory.memory().write(kRecord + 4, doorbell, 4);
  if (!other_qp) run.announced = std::max<uint64_t>(run.announced, counter);
  mmio_access(run, true, kPageBytes + kUarSendDoorbell, doorbell, 8);
}

void raw_mmio(Run& run, Reader& in, bool write) {
  static constexpr unsigned kLengths[] = {1, 2, 4, 8, 16, 64, 256, 3};
  const uint64_t page = in.u8() % (platform().a.hca.config().uar_pages + 2);
  const uint64_t offset = in.u16() % kPageBytes;
  const unsigned length = kLengths[in.u8() % std::size(kLengths)];
  std::vector<uint8_t> data(length);
  if (write) in.bytes(data.data(), length);
  if (write && page == 0 && offset + length > kMsixTable) run.msix_written = msix_dirty = true;
  if (write && page > 0) run.announced = UINT64_MAX;  // a doorbell or BlueFlame write of any counter
  if (write && page > 0 && offset + length > kUarBlueFlame) run.forged = true;
  mmio_access(run, write, page * kPageBytes + offset, data.data(), length);
}

// Every CQE in A's ring that the HCA wrote: a known status and opcode, its QP, a WQE index it
// could have read. Returns the successful WQE indexes.
std::vector<uint16_t> check_cqes(const Run& run) {
  std::vector<uint16_t> done;
  uint8_t ring[kCqEntries * kCqeBytes];
  platform().a.memory.memory().read(kCqRing, ring, sizeof ring);
  for (uint32_t i = 0; i < kCqEntries; ++i) {
    const uint8_t* cqe = ring + i * kCqeBytes;
    if (!cqe_valid(cqe, i, kCqEntries) || is_mini_array(cqe)) continue;
    uint16_t index = 0;
    const transport::WorkCompletion wc = decode_cqe(cqe, index);
    FUZZ_CHECK(static_cast<unsigned>(wc.status) <= static_cast<unsigned>(transport::WcStatus::GeneralErr),
               "a CQE's status is one of ibv_wc_status");
    FUZZ_CHECK(static_cast<unsigned>(wc.opcode) <= static_cast<unsigned>(transport::WcOpcode::RecvRdmaWithImm),
               "a CQE's opcode is one of ibv_wc_opcode");
    FUZZ_CHECK(wc.qp_num == run.qp_a, "a CQE in A's CQ names A's QP");
    if (wc.status == transport::WcStatus::Success) done.push_back(index);
  }
  return done;
}

void check_writes(const Run& run, const std::vector<uint16_t>& done) {
  if (run.msix_written || run.forged) return;  // an interrupt message, or a WRITE the harness does not know
  for (const Run::Write& w : run.writes) {
    if (!w.checked || !w.unread || std::find(done.begin(), done.end(), w.index) == done.end()) continue;
    const bool overlaps = std::any_of(run.writes.begin(), run.writes.end(), [&](const Run::Write& o) {
      return &o != &w && o.remote < w.remote + w.length && w.remote < o.remote + o.length;
    });
    if (overlaps || w.length == 0) continue;
    std::vector<uint8_t> got(w.length);
    platform().b.memory.memory().read(w.remote, got.data(), w.length);
    for (uint32_t i = 0; i < w.length; ++i)
      FUZZ_CHECK(got[i] == source_byte(w.local + i), "a completed RDMA WRITE delivered A's bytes to B byte for byte");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Platform& p = platform();
  Run run;
  Reader in(data, size);
  // A fresh CQ on each side (A's compressing or not) and an RC QP pair in RTS.
  const uint8_t header = in.u8();
  const auto compression = (header & 1) != 0 ? CqRing::Compression::On : CqRing::Compression::Off;
  std::vector<uint8_t> zeros(kSqEntries * kSqStride, 0);
  if (msix_dirty) {  // the MSI-X table back to its reset state (address and data 0, masked)
    Run reset;
    uint8_t entry[kMsixEntryBytes] = {};
    entry[12] = 1;  // vector control: masked
    for (uint64_t at = kMsixTable; at < kPageBytes; at += kMsixEntryBytes) mmio_access(reset, true, at, entry, sizeof entry);
    msix_dirty = false;
  }
  for (Host* h : {&p.a, &p.b}) {
    h->memory.memory().write(kCqRing, zeros.data(), kCqEntries * kCqeBytes);
    h->memory.memory().write(kRecord, zeros.data(), 16);
    h->memory.memory().write(kSendRing, zeros.data(), kSqEntries * kSqStride);
  }
  run.cq_a = p.a.hca.create_cq({kCqRing, kCqEntries, kCqEntries, kCqRecord, 0, compression});
  run.cq_b = p.b.hca.create_cq({kCqRing, kCqEntries, kCqEntries, kCqRecord, 0, CqRing::Compression::Off});
  const transport::QpInit init_a{transport::QpType::Rc, run.cq_a, run.cq_a, kSqEntries, kRqEntries, 1, 1, 1};
  const transport::QpInit init_b{transport::QpType::Rc, run.cq_b, run.cq_b, kSqEntries, kRqEntries, 1, 1, 1};
  const QpRings rings{1, kSendRing, kSqEntries, kSqStride, kRecvRing, kRqEntries, kRqStride, kRecord};
  run.qp_a = p.a.hca.create_qp(init_a, rings);
  run.qp_b = p.b.hca.create_qp(init_b, rings);
  connect_rc(p.a.hca, run.qp_a, p.b.hca, run.qp_b);

  const uint64_t errors_before = p.a.hca.mmio_stats().errors;
  for (int op = 0; op < 64 && !in.done(); ++op) {
    switch (in.u8() % 8) {
      case 0: write_memory(run, in); break;
      case 1: raw_mmio(run, in, true); break;
      case 2: raw_mmio(run, in, false); break;
      case 3: write_send_wqe(run, in); break;
      case 4: ring_send_doorbell(run, in); break;
      case 5: write_recv_wqe(in); break;
      case 6: {  // arm A's CQ: the CQ doorbell, 8 bytes (CQ number and command, consumer counter)
        uint8_t doorbell[8];
        put_u32(doorbell, run.cq_a | (static_cast<uint32_t>(in.u8() % 4) << 24));
        put_u32(doorbell + 4, in.u16());
        mmio_access(run, true, kPageBytes + kUarCqDoorbell, doorbell, 8);
        break;
      }
      default: sc_core::sc_start(sc_core::sc_time(100.0 * in.u8(), sc_core::SC_NS)); break;
    }
  }
  sc_core::sc_start(sc_core::sc_time(2, sc_core::SC_MS));

  const uint64_t counted = p.a.hca.mmio_stats().errors - errors_before;
  FUZZ_CHECK(counted >= run.mmio_errors, "the HCA counts every MMIO access it answered with an error");
  FUZZ_CHECK(run.mmio_errors > 0 || counted == 0, "the HCA counts no error for accesses it answered OK");
  check_writes(run, check_cqes(run));

  // The QPs go (any state; queued WRs without completions), then their CQs.
  p.a.hca.destroy_qp(run.qp_a);
  p.b.hca.destroy_qp(run.qp_b);
  sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_US));
  FUZZ_CHECK(p.a.hca.destroy_cq(run.cq_a).empty(), "a CQ whose QPs are gone can be destroyed");
  FUZZ_CHECK(p.b.hca.destroy_cq(run.cq_b).empty(), "a CQ whose QPs are gone can be destroyed");
  return 0;
}
