// HostMemory as a TLM-2.0 target (host_memory.hpp): its timing rule, its
// watchers, its errors, debug transport and DMI. The expected times come from
// the rule "start at max(now + delay, busy-until), take length x 8 /
// bandwidth, be done latency after that" with the configured numbers.
#include <catch2/catch.hpp>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <cstdint>
#include <cstring>
#include <tuple>
#include <vector>

#include "models/host/host_memory.hpp"

using namespace hcasim;

namespace {

class Cpu : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Cpu> socket{"socket"};
  explicit Cpu(const sc_core::sc_module_name& name) : sc_module(name) {}
};

struct Result {
  uint64_t delay_ps;
  tlm::tlm_response_status status;
};

// One transaction of `data.size()` bytes at addr, issued with delay_ps.
Result access(Cpu& cpu, tlm::tlm_command cmd, uint64_t addr, std::vector<uint8_t>& data, uint64_t delay_ps = 0,
              unsigned char* byte_enable = nullptr, unsigned width = 0) {
  tlm::tlm_generic_payload t;
  t.set_command(cmd);
  t.set_address(addr);
  t.set_data_ptr(data.data());
  t.set_data_length(static_cast<unsigned>(data.size()));
  t.set_streaming_width(width != 0 ? width : static_cast<unsigned>(data.size()));
  t.set_byte_enable_ptr(byte_enable);
  if (byte_enable != nullptr) t.set_byte_enable_length(static_cast<unsigned>(data.size()));
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time d = sc_core::sc_time::from_value(delay_ps);
  cpu.socket->b_transport(t, d);
  return {d.value(), t.get_response_status()};
}

Result write(Cpu& cpu, uint64_t addr, std::vector<uint8_t> data, uint64_t delay_ps = 0) {
  return access(cpu, tlm::TLM_WRITE_COMMAND, addr, data, delay_ps);
}
Result read(Cpu& cpu, uint64_t addr, std::vector<uint8_t>& out, uint64_t delay_ps = 0) {
  return access(cpu, tlm::TLM_READ_COMMAND, addr, out, delay_ps);
}

struct Rig {
  explicit Rig(const host::HostMemoryConfig& c) : memory("memory", c), cpu("cpu") { cpu.socket.bind(memory.socket); }
  // Runs body in a SystemC thread (once per test: it starts the simulation).
  template <class F>
  void run(F body) {
    sc_core::sc_spawn(std::move(body), "body");
    sc_core::sc_start();
  }
  static uint64_t now() { return sc_core::sc_time_stamp().value(); }
  host::HostMemory memory;
  Cpu cpu;
};

// 8 Gb/s: one byte per ns, 1000 ps per byte; 80 ns of latency.
host::HostMemoryConfig slow() {
  host::HostMemoryConfig c;
  c.latency_ps = 80'000;
  c.bandwidth_bps = 8e9;
  return c;
}

}  // namespace

TEST_CASE("host memory: an access starts when the memory is free, takes length x 8 / bandwidth, then the latency") {
  Rig r(slow());
  std::vector<Result> got;
  std::vector<uint64_t> issued_at;
  r.run([&] {
    std::vector<uint8_t> buf(64);
    // At 0: 64 bytes read, start 0, transfer 64 ns, done 64 + 80 = 144 ns.
    got.push_back(read(r.cpu, 0x1000, buf));
    // A 128-byte write issued at +10 ns waits for the read's transfer (busy until 64 ns):
    // start 64, transfer 128, done 192 + 80 = 272 ns.
    got.push_back(write(r.cpu, 0x2000, std::vector<uint8_t>(128, 1), 10'000));
    // A read issued at +500 ns finds the memory free: start 500, 8 bytes, done 508 + 80 = 588 ns.
    std::vector<uint8_t> eight(8);
    got.push_back(read(r.cpu, 0x2000, eight, 500'000));
    sc_core::wait(sc_core::sc_time::from_value(1'000'000));
    // At 1 us (now moved on): start 1000, done 1000 + 32 + 80 ns, returned as an offset from now.
    got.push_back(write(r.cpu, 0x3000, std::vector<uint8_t>(32, 2)));
    // Issued with a delay that puts it behind nothing: start 1000 + 200 = 1200 ns, 4 bytes, + 80.
    got.push_back(write(r.cpu, 0x3000, std::vector<uint8_t>(4, 3), 200'000));
  });
  REQUIRE(got.size() == 5);
  for (const Result& g : got) CHECK(g.status == tlm::TLM_OK_RESPONSE);
  CHECK(got[0].delay_ps == 144'000);
  CHECK(got[1].delay_ps == 272'000);
  CHECK(got[2].delay_ps == 588'000);
  CHECK(got[3].delay_ps == 112'000);
  CHECK(got[4].delay_ps == 200'000 + 4'000 + 80'000);
  CHECK(r.memory.reads() == 2);
  CHECK(r.memory.writes() == 3);
  CHECK(r.memory.bytes_read() == 64 + 8);
  CHECK(r.memory.bytes_written() == 128 + 32 + 4);
  CHECK(r.memory.busy_ps() == (64 + 128 + 8 + 32 + 4) * 1000);
}

TEST_CASE("host memory: reads and writes share one busy-until: back-to-back transfers are served in turn") {
  Rig r(slow());
  std::vector<uint64_t> delays;
  r.run([&] {
    std::vector<uint8_t> buf(100);
    for (int i = 0; i < 4; ++i) {
      const Result g = i % 2 == 0 ? read(r.cpu, 0, buf) : write(r.cpu, 0, buf);
      delays.push_back(g.delay_ps);
    }
  });
  // Each 100-byte transfer takes 100 ns; the k-th is done at 100 k ns + 80 ns.
  REQUIRE(delays == std::vector<uint64_t>{180'000, 280'000, 380'000, 480'000});
}

TEST_CASE("host memory: bandwidth 0 and latency 0 cost nothing, and bandwidth 0 alone queues nothing") {
  host::HostMemoryConfig free_config;
  free_config.latency_ps = 0;
  free_config.bandwidth_bps = 0;
  host::HostMemoryConfig latency_only;
  latency_only.latency_ps = 50'000;
  latency_only.bandwidth_bps = 0;
  host::HostMemory free_memory("free", free_config);
  host::HostMemory latency_memory("latency", latency_only);
  Cpu a("a"), b("b");
  a.socket.bind(free_memory.socket);
  b.socket.bind(latency_memory.socket);
  std::vector<uint64_t> free_delays, latency_delays;
  sc_core::sc_spawn([&] {
    std::vector<uint8_t> big(1 << 20, 7);
    for (uint64_t d : {0ull, 12'345ull, 0ull}) {
      free_delays.push_back(write(a, 0, big, d).delay_ps);
      latency_delays.push_back(write(b, 0, big, d).delay_ps);
    }
    sc_core::wait(sc_core::sc_time::from_value(777));
    free_delays.push_back(read(a, 0, big).delay_ps);
    latency_delays.push_back(read(b, 0, big).delay_ps);
  });
  sc_core::sc_start();
  CHECK(free_delays == std::vector<uint64_t>{0, 12'345, 0, 0});
  // Unlimited bandwidth: a megabyte takes no time and the next access does not wait for it.
  CHECK(latency_delays == std::vector<uint64_t>{50'000, 62'345, 50'000, 50'000});
  CHECK(free_memory.busy_ps() == 0);
  CHECK(latency_memory.busy_ps() == 0);
  CHECK(free_memory.writes() == 3);
  CHECK(free_memory.bytes_written() == 3u << 20);
}

TEST_CASE("host memory: a watcher is told of overlapping writes only, with the range and the visible time") {
  Rig r(slow());
  using Call = std::tuple<uint64_t, uint64_t, uint64_t>;
  std::vector<Call> first, second;
  const unsigned id1 = r.memory.watch_writes(0x1000, 0x1100, [&](uint64_t a, uint64_t l, uint64_t t) {
    first.emplace_back(a, l, t);
  });
  const unsigned id2 = r.memory.watch_writes(0x10F0, 0x1200, [&](uint64_t a, uint64_t l, uint64_t t) {
    second.emplace_back(a, l, t);
  });
  CHECK(id1 != id2);
  std::vector<uint64_t> visible;
  r.run([&] {
    const auto w = [&](uint64_t addr, std::size_t len) {
      visible.push_back(Rig::now() + write(r.cpu, addr, std::vector<uint8_t>(len, 0x5A)).delay_ps);
    };
    w(0x0FF0, 16);   // [0xFF0, 0x1000): ends where the range begins
    w(0x0FF8, 16);   // [0xFF8, 0x1008): overlaps watch 1
    w(0x1100, 16);   // [0x1100, 0x1110): starts where watch 1 ends; inside watch 2
    w(0x1200, 8);    // [0x1200, 0x1208): starts where watch 2 ends
    w(0x0F00, 0x400);  // covers both ranges
    std::vector<uint8_t> buf(0x100);
    read(r.cpu, 0x1000, buf);  // reads are not watched
    r.memory.unwatch(id1);
    w(0x1000, 8);    // only watch 1's range: nobody is told now
    w(0x10F8, 4);    // watch 2's range
  });
  REQUIRE(visible.size() == 7);
  // Each visible time is the write's own: issue + queueing + length x 1 ns + 80 ns, as the delay said.
  CHECK(first == std::vector<Call>{{0x0FF8, 16, visible[1]}, {0x0F00, 0x400, visible[4]}});
  CHECK(second == std::vector<Call>{{0x1100, 16, visible[2]}, {0x0F00, 0x400, visible[4]}, {0x10F8, 4, visible[6]}});
  // The fifth write waited for the four before it: 16 + 16 + 16 + 8 ns of transfer, then its own 1024 ns.
  CHECK(visible[4] == (16 + 16 + 16 + 8 + 0x400) * 1000 + 80'000);
}

TEST_CASE("host memory: byte enables and a short streaming width are errors that move nothing") {
  Rig r(slow());
  r.memory.memory().write_u64(0x100, 0x1122334455667788ull);
  bool watched = false;
  r.memory.watch_writes(0, 0x1000, [&](uint64_t, uint64_t, uint64_t) { watched = true; });
  std::vector<Result> got;
  std::vector<uint8_t> read_back(8, 0xCC);
  r.run([&] {
    std::vector<uint8_t> data(8, 0xAB);
    std::vector<unsigned char> enable(8, TLM_BYTE_ENABLED);
    got.push_back(access(r.cpu, tlm::TLM_WRITE_COMMAND, 0x100, data, 0, enable.data()));
    got.push_back(access(r.cpu, tlm::TLM_READ_COMMAND, 0x100, read_back, 0, enable.data()));
    got.push_back(access(r.cpu, tlm::TLM_WRITE_COMMAND, 0x100, data, 0, nullptr, 4));
    got.push_back(access(r.cpu, tlm::TLM_READ_COMMAND, 0x100, read_back, 0, nullptr, 7));
    // A streaming width at or above the length is a plain burst.
    std::vector<uint8_t> ok(8);
    got.push_back(access(r.cpu, tlm::TLM_READ_COMMAND, 0x100, ok, 0, nullptr, 16));
    got.push_back(access(r.cpu, tlm::TLM_IGNORE_COMMAND, 0x100, data, 1234));
  });
  REQUIRE(got.size() == 6);
  CHECK(got[0].status == tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
  CHECK(got[1].status == tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
  CHECK(got[2].status == tlm::TLM_BURST_ERROR_RESPONSE);
  CHECK(got[3].status == tlm::TLM_BURST_ERROR_RESPONSE);
  CHECK(got[4].status == tlm::TLM_OK_RESPONSE);
  CHECK(got[4].delay_ps == 8'000 + 80'000);
  CHECK(got[5].status == tlm::TLM_OK_RESPONSE);  // ignore: answered OK, at no cost
  CHECK(got[5].delay_ps == 1234);
  CHECK(read_back == std::vector<uint8_t>(8, 0xCC));
  CHECK(r.memory.memory().read_u64(0x100) == 0x1122334455667788ull);
  CHECK_FALSE(watched);
  CHECK(r.memory.reads() == 1);
  CHECK(r.memory.writes() == 0);
  CHECK(r.memory.busy_ps() == 8'000);
}

TEST_CASE("host memory: transport_dbg moves the bytes with no time, no count and no watcher") {
  Rig r(slow());
  bool watched = false;
  r.memory.watch_writes(0, ~uint64_t{0}, [&](uint64_t, uint64_t, uint64_t) { watched = true; });
  unsigned wrote = 0, read_n = 0;
  std::vector<uint8_t> back(6);
  Result timed{};
  r.run([&] {
    std::vector<uint8_t> data = {1, 2, 3, 4, 5, 6};
    tlm::tlm_generic_payload t;
    t.set_command(tlm::TLM_WRITE_COMMAND);
    t.set_address(0xFFE);  // across a page boundary
    t.set_data_ptr(data.data());
    t.set_data_length(6);
    t.set_streaming_width(6);
    wrote = r.cpu.socket->transport_dbg(t);
    t.set_command(tlm::TLM_READ_COMMAND);
    t.set_data_ptr(back.data());
    read_n = r.cpu.socket->transport_dbg(t);
    // The memory stayed free: a timed access now starts at once.
    std::vector<uint8_t> one(1);
    timed = read(r.cpu, 0, one);
  });
  CHECK(wrote == 6);
  CHECK(read_n == 6);
  CHECK(back == std::vector<uint8_t>{1, 2, 3, 4, 5, 6});
  CHECK_FALSE(watched);
  CHECK(timed.delay_ps == 1'000 + 80'000);
  CHECK(r.memory.writes() == 0);
  CHECK(r.memory.reads() == 1);
  CHECK(r.memory.bytes_read() == 1);
}

TEST_CASE("host memory: DMI is granted page by page with the access latency, over the same bytes") {
  Rig r(slow());
  r.memory.memory().write_u64(0x12340, 0xA5A5A5A5A5A5A5A5ull);
  tlm::tlm_dmi dmi, other;
  bool granted = false, granted_other = false;
  std::vector<uint8_t> seen(8);
  r.run([&] {
    tlm::tlm_generic_payload t;
    t.set_command(tlm::TLM_READ_COMMAND);
    t.set_address(0x12345);
    granted = r.cpu.socket->get_direct_mem_ptr(t, dmi);
    t.set_address(0x13000);
    granted_other = r.cpu.socket->get_direct_mem_ptr(t, other);
    // A write through the pointer is what a timed read sees.
    unsigned char* p = dmi.get_dmi_ptr();
    const uint8_t bytes[4] = {0xDE, 0xAD, 0xBE, 0xEF};
    std::memcpy(p + 0x800, bytes, 4);
    read(r.cpu, 0x12800, seen);
  });
  REQUIRE(granted);
  CHECK(dmi.get_start_address() == 0x12000);
  CHECK(dmi.get_end_address() == 0x12FFF);
  CHECK(dmi.is_read_write_allowed());
  CHECK(dmi.get_read_latency() == sc_core::sc_time::from_value(80'000));
  CHECK(dmi.get_write_latency() == sc_core::sc_time::from_value(80'000));
  // The pointer is page 0x12's first byte: what host software wrote is there.
  uint64_t v = 0;
  std::memcpy(&v, dmi.get_dmi_ptr() + 0x340, 8);
  CHECK(v == 0xA5A5A5A5A5A5A5A5ull);  // all bytes 0xA5: the host's byte order does not matter
  CHECK(seen == std::vector<uint8_t>{0xDE, 0xAD, 0xBE, 0xEF, 0, 0, 0, 0});
  CHECK(r.memory.memory().read_u64(0x12800) == 0xEFBEADDEull);
  // The next page is a grant of its own, over its own bytes.
  REQUIRE(granted_other);
  CHECK(other.get_start_address() == 0x13000);
  CHECK(other.get_end_address() == 0x13FFF);
  other.get_dmi_ptr()[5] = 0x42;
  uint8_t b = 0;
  r.memory.memory().read(0x13005, &b, 1);
  CHECK(int{b} == 0x42);
  CHECK(int{dmi.get_dmi_ptr()[5]} == 0);
}

namespace {
// Memory outside the model, as an application's under hcasim serve --verbs.
struct FakeOutside : hcasim::host::ExternalMemory {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(256, 0);
  uint64_t base = 0x7000;
  bool fail = false;
  bool read(uint64_t addr, uint8_t* out, uint64_t length) override {
    if (fail) return false;
    std::memcpy(out, bytes.data() + (addr - base), length);
    return true;
  }
  bool write(uint64_t addr, const uint8_t* data, uint64_t length) override {
    if (fail) return false;
    std::memcpy(bytes.data() + (addr - base), data, length);
    return true;
  }
};
}  // namespace

TEST_CASE("host memory: an external range takes the accesses wholly inside it, and a partial or failed one is an "
          "address error", "[host]") {
  Rig r(slow());
  FakeOutside outside;
  const unsigned id = r.memory.map_external(0x7000, 0x7100, &outside);
  uint8_t data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  unsigned moved[4] = {};
  tlm::tlm_response_status partial = tlm::TLM_OK_RESPONSE;
  uint8_t seen[8] = {};
  bool peeked = false;
  r.run([&] {
    tlm::tlm_generic_payload t;
    t.set_command(tlm::TLM_WRITE_COMMAND);
    t.set_address(0x7010);
    t.set_data_ptr(data);
    t.set_data_length(8);
    t.set_streaming_width(8);
    moved[0] = r.cpu.socket->transport_dbg(t);
    peeked = r.memory.peek(0x7010, seen, 8);
    t.set_address(0x70FC);  // half in, half out
    moved[1] = r.cpu.socket->transport_dbg(t);
    partial = t.get_response_status();
    outside.fail = true;
    t.set_address(0x7010);
    moved[2] = r.cpu.socket->transport_dbg(t);
    r.memory.unmap_external(id);
    moved[3] = r.cpu.socket->transport_dbg(t);  // back to the model's memory
  });
  CHECK(moved[0] == 8);
  CHECK(outside.bytes[0x10] == 1);
  CHECK(outside.bytes[0x17] == 8);
  CHECK(peeked);
  CHECK(seen[7] == 8);
  CHECK(moved[1] == 0);
  CHECK(partial == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(moved[2] == 0);
  CHECK(r.memory.external_errors() == 2);
  CHECK(moved[3] == 8);
  CHECK(r.memory.memory().read_u64(0x7010) == 0x0807060504030201ull);
}
