#pragma once
// A PcieLink between a test device and a test host: a memory target on each
// side (host memory behind host_out, the device's BAR behind device_out), each
// answering after a fixed delay, and an initiator on each side (the device's
// DMA engine into device_in, the host's CPU into host_in). Transfers run in a
// SystemC thread: rig.run([&] { ... }) spawns it and runs the simulation.

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "models/pcie/pcie_extensions.hpp"
#include "models/pcie/pcie_link.hpp"

namespace hcasim::pcie::test {

// Bytes from address 0, answering after delay_ps; TLM_ADDRESS_ERROR_RESPONSE
// outside. Grants DMI when asked (the link must refuse it all the same).
class Memory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Memory> socket{"socket"};
  std::vector<unsigned char> bytes;
  uint64_t delay_ps = 0;
  uint64_t calls = 0;                 // b_transport calls
  std::vector<uint64_t> addresses;    // address of each call
  std::vector<uint64_t> requester;    // InitiatorId of each call, or ~0 without
  bool log = false;                   // keep addresses and requester

  Memory(const sc_core::sc_module_name& name, std::size_t size) : sc_core::sc_module(name), bytes(size, 0) {
    socket.register_b_transport(this, &Memory::b_transport);
    socket.register_transport_dbg(this, &Memory::transport_dbg);
    socket.register_get_direct_mem_ptr(this, &Memory::get_dmi);
  }

 private:
  bool in_range(const tlm::tlm_generic_payload& t) const {
    return t.get_address() + t.get_data_length() <= bytes.size();
  }
  void copy(tlm::tlm_generic_payload& t) {
    if (t.is_write()) std::memcpy(&bytes[t.get_address()], t.get_data_ptr(), t.get_data_length());
    if (t.is_read()) std::memcpy(t.get_data_ptr(), &bytes[t.get_address()], t.get_data_length());
  }
  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
    ++calls;
    if (log) {
      addresses.push_back(t.get_address());
      const InitiatorId* id = t.get_extension<InitiatorId>();
      requester.push_back(id != nullptr ? id->id : ~uint64_t(0));
    }
    if (!in_range(t)) {
      t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    copy(t);
    delay += sc_core::sc_time::from_value(delay_ps);
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  unsigned transport_dbg(tlm::tlm_generic_payload& t) {
    if (!in_range(t)) return 0;
    copy(t);
    return t.get_data_length();
  }
  bool get_dmi(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
    dmi.set_dmi_ptr(bytes.data());
    dmi.set_start_address(0);
    dmi.set_end_address(bytes.size() - 1);
    dmi.allow_read_write();
    return true;
  }
};

// An initiator socket and the invalidations it was told of.
class Initiator : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Initiator> socket{"socket"};
  std::vector<std::pair<uint64_t, uint64_t>> invalidated;

  explicit Initiator(const sc_core::sc_module_name& name) : sc_core::sc_module(name) {
    socket.register_invalidate_direct_mem_ptr(this, &Initiator::invalidate);
  }

 private:
  void invalidate(sc_dt::uint64 start, sc_dt::uint64 end) { invalidated.emplace_back(start, end); }
};

// One transaction's outcome.
struct Result {
  uint64_t delay_ps;
  tlm::tlm_response_status status;
};

// Several rigs may be built (with different names) before the one sc_start
// of a test: SystemC allows no new module after the simulation has started.
class Rig : public sc_core::sc_module {
 public:
  Memory host;
  Memory bar;
  Initiator device;
  Initiator cpu;
  PcieLink link;

  explicit Rig(const PcieConfig& c, const sc_core::sc_module_name& name = "rig", std::size_t host_bytes = 1 << 20)
      : sc_core::sc_module(name), host("host", host_bytes), bar("bar", 1 << 16), device("device"), cpu("cpu"),
        link("link", c) {
    device.socket.bind(link.device_in);
    link.host_out.bind(host.socket);
    cpu.socket.bind(link.host_in);
    link.device_out.bind(bar.socket);
  }

  // Runs body in a SystemC thread, once per test (it starts the simulation).
  template <class F>
  void run(F body) {
    sc_core::sc_spawn(std::move(body), "body");
    sc_core::sc_start();
  }
};

// A transaction of `len` bytes at `addr` through `socket`, issued with the
// annotated delay `delay_ps`; returns the delay and status it came back with.
template <class Socket, class Extension = InitiatorId>
Result transfer(Socket& socket, tlm::tlm_command cmd, uint64_t addr, uint32_t len, uint64_t delay_ps = 0,
                Extension* extension = nullptr) {
  static std::vector<unsigned char> buffer;
  if (buffer.size() < len) buffer.resize(len);
  tlm::tlm_generic_payload t;
  t.set_command(cmd);
  t.set_address(addr);
  t.set_data_ptr(buffer.data());
  t.set_data_length(len);
  t.set_streaming_width(len);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  if (extension != nullptr) t.set_extension(extension);
  sc_core::sc_time delay = sc_core::sc_time::from_value(delay_ps);
  socket->b_transport(t, delay);
  if (extension != nullptr) t.clear_extension(extension);  // the caller owns it
  return {delay.value(), t.get_response_status()};
}

inline Result dma_write(Rig& r, uint64_t addr, uint32_t len, uint64_t delay_ps = 0) {
  return transfer(r.device.socket, tlm::TLM_WRITE_COMMAND, addr, len, delay_ps);
}
inline Result dma_read(Rig& r, uint64_t addr, uint32_t len, uint64_t delay_ps = 0) {
  return transfer(r.device.socket, tlm::TLM_READ_COMMAND, addr, len, delay_ps);
}
inline Result msix(Rig& r, uint64_t addr, uint32_t vector, uint64_t delay_ps = 0) {
  MsiMessage m(vector);
  return transfer(r.device.socket, tlm::TLM_WRITE_COMMAND, addr, 4, delay_ps, &m);
}
inline Result mmio_write(Rig& r, uint64_t addr, uint32_t len, uint64_t delay_ps = 0) {
  return transfer(r.cpu.socket, tlm::TLM_WRITE_COMMAND, addr, len, delay_ps);
}
inline Result mmio_read(Rig& r, uint64_t addr, uint32_t len, uint64_t delay_ps = 0) {
  return transfer(r.cpu.socket, tlm::TLM_READ_COMMAND, addr, len, delay_ps);
}

}  // namespace hcasim::pcie::test
