#include "models/host/host_memory.hpp"

#include <algorithm>
#include <cmath>

#include "models/link/timeline.hpp"

namespace hcasim::host {

HostMemory::HostMemory(const sc_core::sc_module_name& name, const HostMemoryConfig& config)
    : sc_module(name), config_(config) {
  socket.register_b_transport(this, &HostMemory::b_transport);
  socket.register_transport_dbg(this, &HostMemory::transport_dbg);
  socket.register_get_direct_mem_ptr(this, &HostMemory::get_direct_mem_ptr);
}

unsigned HostMemory::watch_writes(uint64_t begin, uint64_t end, WriteWatcher watcher) {
  watches_.push_back({begin, end, std::move(watcher)});
  return static_cast<unsigned>(watches_.size() - 1);
}

void HostMemory::unwatch(unsigned id) { watches_.at(id).watcher = nullptr; }

bool HostMemory::move(tlm::tlm_generic_payload& trans) {
  if (trans.get_byte_enable_ptr() != nullptr) {
    trans.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return false;
  }
  if (trans.get_streaming_width() < trans.get_data_length()) {
    trans.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return false;
  }
  const uint64_t addr = trans.get_address();
  const uint64_t length = trans.get_data_length();
  if (trans.is_read()) memory_.read(addr, trans.get_data_ptr(), length);
  else if (trans.is_write()) memory_.write(addr, trans.get_data_ptr(), length);
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  return true;
}

void HostMemory::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  if (!move(trans) || (!trans.is_read() && !trans.is_write())) return;
  const uint64_t length = trans.get_data_length();
  const uint64_t now = link::now_ps();
  uint64_t done = now + delay.value();
  if (config_.latency_ps != 0 || config_.bandwidth_bps > 0) {
    // Unlimited bandwidth (0): the memory is never busy, so no access waits for another.
    const bool limited = config_.bandwidth_bps > 0;
    const uint64_t transfer =
        limited ? static_cast<uint64_t>(std::llround(static_cast<double>(length) * 8e12 / config_.bandwidth_bps)) : 0;
    uint64_t end = done;
    if (limited) {
      busy_.retire(static_cast<double>(now));
      end = static_cast<uint64_t>(busy_.book(static_cast<double>(done), static_cast<double>(transfer)));
    }
    busy_ps_ += transfer;
    done = end + config_.latency_ps;
    delay = sc_core::sc_time::from_value(done - now);
  }
  if (trans.is_read()) {
    ++reads_;
    bytes_read_ += length;
    return;
  }
  ++writes_;
  bytes_written_ += length;
  const uint64_t addr = trans.get_address();
  for (const Watch& w : watches_)
    if (w.watcher && addr < w.end && addr + length > w.begin) w.watcher(addr, length, done);
}

unsigned int HostMemory::transport_dbg(tlm::tlm_generic_payload& trans) {
  return move(trans) ? trans.get_data_length() : 0;
}

bool HostMemory::get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) {
  const uint64_t page = trans.get_address() / SparseMemory::kPageBytes;
  dmi.set_dmi_ptr(memory_.page_data(page));
  dmi.set_start_address(page * SparseMemory::kPageBytes);
  dmi.set_end_address(page * SparseMemory::kPageBytes + SparseMemory::kPageBytes - 1);
  dmi.allow_read_write();
  const sc_core::sc_time latency = sc_core::sc_time::from_value(config_.latency_ps);
  dmi.set_read_latency(latency);
  dmi.set_write_latency(latency);
  return true;
}

}  // namespace hcasim::host
