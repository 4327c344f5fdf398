// The IOMMU (iommu.hpp) between a test initiator and host memory: which
// accesses hit the IOTLB, what a miss costs (a fixed penalty, or walk reads
// of host memory), how many walks run at once, and the hit rate of windows
// below and above the IOTLB's reach. Expected values come from the rules:
// memory of latency L and no bandwidth limit, so a serial access costs L on a
// hit and P + levels x L + L on a miss; LRU over a cyclic walk of W > E pages
// misses every time; uniform random pages over W >= E give a hit rate of E / W.
#include <catch2/catch.hpp>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/host/host_memory.hpp"
#include "models/host/iommu.hpp"
#include "models/pcie/pcie_extensions.hpp"

using namespace hcasim;

namespace {

constexpr uint64_t kL = 100'000;  // memory latency, ps
constexpr uint64_t kP = 200'000;  // miss penalty, ps
constexpr uint64_t kPage = 4096;

class Dev : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Dev> socket{"socket"};
  explicit Dev(const sc_core::sc_module_name& name) : sc_module(name) {}
  // A read of `length` bytes at addr issued at now + delay_ps; returns when it is done (an offset from now).
  uint64_t read(uint64_t addr, unsigned length = 64, uint64_t delay_ps = 0, bool msi = false) {
    std::vector<uint8_t> data(length);
    tlm::tlm_generic_payload t;
    t.set_command(msi ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    t.set_address(addr);
    t.set_data_ptr(data.data());
    t.set_data_length(length);
    t.set_streaming_width(length);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    pcie::MsiMessage message;
    if (msi) t.set_extension(&message);
    sc_core::sc_time d = sc_core::sc_time::from_value(delay_ps);
    socket->b_transport(t, d);
    if (msi) t.clear_extension(&message);
    REQUIRE(t.get_response_status() == tlm::TLM_OK_RESPONSE);
    return d.value();
  }
};

host::IommuConfig iommu(uint32_t entries, uint32_t walks = 8, uint32_t levels = 0, uint64_t penalty = kP) {
  host::IommuConfig c;
  c.enabled = true;
  c.iotlb.entries = entries;
  c.iotlb.mshrs = walks;
  c.walk_levels = levels;
  c.miss_penalty_ps = penalty;
  return c;
}

struct Rig {
  explicit Rig(const host::IommuConfig& c)
      : memory("memory", memory_config()), mmu("iommu", c), dev("dev") {
    dev.socket.bind(mmu.in);
    mmu.out.bind(memory.socket);
  }
  static host::HostMemoryConfig memory_config() {
    host::HostMemoryConfig m;
    m.latency_ps = kL;
    m.bandwidth_bps = 0;
    return m;
  }
  template <class F>
  void run(F body) {
    sc_core::sc_spawn(std::move(body), "body");
    sc_core::sc_start();
  }
  host::HostMemory memory;
  host::Iommu mmu;
  Dev dev;
};

// Reads page pages[k] one after another, each issued when the one before is done; the total time.
uint64_t serial(Dev& dev, const std::vector<uint64_t>& pages) {
  uint64_t t = 0;
  for (uint64_t p : pages) t = dev.read(p * kPage + 128, 64, t);
  return t;
}

std::vector<uint64_t> cyclic(uint64_t window, uint64_t n) {
  std::vector<uint64_t> v;
  for (uint64_t i = 0; i < n; ++i) v.push_back(i % window);
  return v;
}

}  // namespace

TEST_CASE("IOTLB of 4 entries, serial reads cycling over 4 pages: 4 misses, then hits, time 40 L + 4 P") {
  Rig r(iommu(4));
  uint64_t total = 0;
  r.run([&] { total = serial(r.dev, cyclic(4, 40)); });
  const hca::ContextCacheStats& s = r.mmu.iotlb_stats();
  CHECK(s.lookups == 40);
  CHECK(s.misses == 4);
  CHECK(s.hits == 36);
  CHECK(total == 40 * kL + 4 * kP);
  CHECK(r.mmu.stats().translations == 40);
  CHECK(r.mmu.stats().walk_reads == 0);
  CHECK(r.memory.reads() == 40);
}

TEST_CASE("IOTLB of 4 entries, serial reads cycling over 5 pages: LRU misses every one, time 40 (L + P)") {
  Rig r(iommu(4));
  uint64_t total = 0;
  r.run([&] { total = serial(r.dev, cyclic(5, 40)); });
  CHECK(r.mmu.iotlb_stats().misses == 40);
  CHECK(r.mmu.iotlb_stats().hits == 0);
  CHECK(total == 40 * (kL + kP));
}

TEST_CASE("IOTLB miss as a page walk: 3 levels, each an 8-byte read of host memory, one after another") {
  Rig r(iommu(4, 8, 3, 0));
  uint64_t miss = 0, hit = 0;
  r.run([&] {
    miss = r.dev.read(7 * kPage);
    hit = r.dev.read(7 * kPage + 64, 64, miss);
  });
  CHECK(miss == 3 * kL + kL);  // three walk reads, then the access
  CHECK(hit == miss + kL);
  CHECK(r.mmu.stats().walk_reads == 3);
  CHECK(r.memory.reads() == 3 + 2);
  CHECK(r.memory.bytes_read() == 3 * host::kIoPageEntryBytes + 2 * 64);
  REQUIRE(r.mmu.iotlb_stats().miss_latency.count() == 1);
}

TEST_CASE("IOTLB walks in flight: 6 misses issued at once with 2 walks finish in pairs, P apart") {
  Rig r(iommu(16, 2));
  std::vector<uint64_t> done;
  r.run([&] {
    for (uint64_t p = 0; p < 6; ++p) done.push_back(r.dev.read(p * kPage));
  });
  CHECK(done == std::vector<uint64_t>{kP + kL, kP + kL, 2 * kP + kL, 2 * kP + kL, 3 * kP + kL, 3 * kP + kL});
  CHECK(r.mmu.iotlb_stats().mshr_full_waits == 4);
}

TEST_CASE("IOMMU pages: 2 MiB pages cover 512 pages of 4 KiB with one miss, an access across a boundary looks up two") {
  host::IommuConfig c = iommu(4);
  c.page_bytes = uint64_t{2} << 20;
  Rig r(c);
  r.run([&] {
    serial(r.dev, cyclic(512, 512));
    r.dev.read((uint64_t{2} << 20) - 32, 64);  // the last 32 bytes of page 0, the first 32 of page 1
  });
  CHECK(r.mmu.iotlb_stats().lookups == 512 + 2);
  CHECK(r.mmu.iotlb_stats().misses == 2);
}

TEST_CASE("IOMMU: MSI-X writes pass untranslated and uncounted") {
  Rig r(iommu(4));
  uint64_t done = 0;
  r.run([&] { done = r.dev.read(0xFEE0'0000ull, 4, 0, true); });
  CHECK(done == kL);
  CHECK(r.mmu.iotlb_stats().lookups == 0);
  CHECK(r.mmu.stats().translations == 0);
}

TEST_CASE("IOTLB of 64 entries, random pages: W <= E pages miss W times, W = 2E, 4E, 8E hit E / W within 0.01") {
  // Uniform random pages (splitmix64, fixed seed), 40,000 reads per window: the standard deviation of a
  // hit rate near 0.5 is 0.0025, so 0.01 is four of them.
  constexpr uint32_t kE = 64;
  constexpr uint64_t kN = 40'000;
  const std::vector<uint64_t> windows = {16, 64, 128, 256, 512};
  std::vector<uint64_t> lookups, hits, misses;
  std::vector<std::unique_ptr<host::Iommu>> mmus;
  std::vector<std::unique_ptr<host::HostMemory>> memories;
  std::vector<std::unique_ptr<Dev>> devs;
  for (std::size_t i = 0; i < windows.size(); ++i) {
    const std::string n = std::to_string(i);
    memories.push_back(std::make_unique<host::HostMemory>(("memory" + n).c_str(), Rig::memory_config()));
    mmus.push_back(std::make_unique<host::Iommu>(("iommu" + n).c_str(), iommu(kE)));
    devs.push_back(std::make_unique<Dev>(("dev" + n).c_str()));
    devs.back()->socket.bind(mmus.back()->in);
    mmus.back()->out.bind(memories.back()->socket);
  }
  sc_core::sc_spawn([&] {
    uint64_t state = 42;
    for (std::size_t i = 0; i < windows.size(); ++i) {
      uint64_t t = 0;  // serial: each read issued when the one before is done
      for (uint64_t k = 0; k < kN; ++k) {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        t = devs[i]->read(z % windows[i] * kPage, 64, t);
      }
    }
  });
  sc_core::sc_start();
  for (std::size_t i = 0; i < windows.size(); ++i) {
    const hca::ContextCacheStats& s = mmus[i]->iotlb_stats();
    INFO("window " << windows[i] << " pages");
    CHECK(s.lookups == kN);
    if (windows[i] <= kE) {
      CHECK(s.misses == windows[i]);  // each page once
    } else {
      CHECK(s.hit_rate() == Approx(double{kE} / static_cast<double>(windows[i])).margin(0.01));
    }
  }
}
