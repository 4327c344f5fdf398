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

unsigned HostMemory::map_external(uint64_t begin, uint64_t end, ExternalMemory* memory) {
  ++externals_mapped_;
  for (std::size_t i = 0; i < externals_.size(); ++i)
    if (externals_[i].memory == nullptr) {
      externals_[i] = {begin, end, memory};
      return static_cast<unsigned>(i);
    }
  externals_.push_back({begin, end, memory});
  return static_cast<unsigned>(externals_.size() - 1);
}

void HostMemory::unmap_external(unsigned id) {
  if (id < externals_.size() && externals_[id].memory != nullptr) {
    const ExternalMemory* gone = externals_[id].memory;
    bool shared = false;  // another range of the same process keeps its staged writes
    for (std::size_t i = 0; i < externals_.size(); ++i) shared |= i != id && externals_[i].memory == gone;
    if (!shared) staged_.erase(std::remove_if(staged_.begin(), staged_.end(),
                                              [gone](const StagedWrite& w) { return w.memory == gone; }),
                               staged_.end());
    externals_[id].memory = nullptr;
    --externals_mapped_;
  }
}

const HostMemory::External* HostMemory::external_for(uint64_t addr, uint64_t length, bool* partial) const {
  *partial = false;
  const uint64_t end = addr + length;
  for (const External& e : externals_) {
    if (e.memory == nullptr || end <= e.begin || addr >= e.end) continue;
    if (addr >= e.begin && end <= e.end && end >= addr) return &e;
    *partial = true;
  }
  return nullptr;
}

bool HostMemory::read_external(const External& e, uint64_t addr, uint8_t* out, uint64_t length) const {
  if (!e.memory->read(addr, out, length)) return false;
  for (const StagedWrite& w : staged_) {
    if (w.memory != e.memory) continue;
    const uint64_t from = std::max(addr, w.addr), to = std::min(addr + length, w.addr + w.bytes.size());
    if (from < to) std::copy_n(w.bytes.data() + (from - w.addr), to - from, out + (from - addr));
  }
  return true;
}

void HostMemory::flush_due() {
  const uint64_t now = link::now_ps();
  // A later write's visible time may be earlier (a shorter one): every due
  // write goes, in the order written, and the rest wait for the earliest.
  const auto due = [now](const StagedWrite& w) { return w.visible_ps <= now; };
  uint64_t next = UINT64_MAX;
  for (const StagedWrite& w : staged_) {
    if (!due(w)) next = std::min(next, w.visible_ps);
    else if (!w.memory->write(w.addr, w.bytes.data(), w.bytes.size())) ++external_errors_;
  }
  staged_.erase(std::remove_if(staged_.begin(), staged_.end(), due), staged_.end());
  if (next != UINT64_MAX) flush_alarm_.notify_at(next);
}

bool HostMemory::peek(uint64_t addr, uint8_t* out, uint64_t length) const {
  bool partial = false;
  const External* e = externals_mapped_ == 0 ? nullptr : external_for(addr, length, &partial);
  if (e != nullptr) return read_external(*e, addr, out, length);
  if (partial) return false;
  memory_.read(addr, out, length);
  return true;
}

bool HostMemory::move(tlm::tlm_generic_payload& trans, bool stage) {
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
  if (externals_mapped_ != 0 && (trans.is_read() || trans.is_write())) {
    bool partial = false;
    const External* e = external_for(addr, length, &partial);
    if (e != nullptr || partial) {
      // b_transport stages a write (it goes out when visible); transport_dbg writes at once.
      bool ok = e != nullptr;
      if (ok && trans.is_read()) ok = read_external(*e, addr, trans.get_data_ptr(), length);
      else if (ok && stage) staged_.push_back({UINT64_MAX, addr, {trans.get_data_ptr(), trans.get_data_ptr() + length}, e->memory});
      else if (ok) ok = e->memory->write(addr, trans.get_data_ptr(), length);
      if (!ok) {
        ++external_errors_;
        trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return false;
      }
      trans.set_response_status(tlm::TLM_OK_RESPONSE);
      return true;
    }
  }
  if (trans.is_read()) memory_.read(addr, trans.get_data_ptr(), length);
  else if (trans.is_write()) memory_.write(addr, trans.get_data_ptr(), length);
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  return true;
}

void HostMemory::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const std::size_t staged = staged_.size();
  if (!move(trans, true) || (!trans.is_read() && !trans.is_write())) return;
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
  if (staged_.size() > staged) {  // an external write: out when visible
    staged_.back().visible_ps = done;
    flush_due();
  }
  const uint64_t addr = trans.get_address();
  for (const Watch& w : watches_)
    if (w.watcher && addr < w.end && addr + length > w.begin) w.watcher(addr, length, done);
}

unsigned int HostMemory::transport_dbg(tlm::tlm_generic_payload& trans) {
  return move(trans, false) ? trans.get_data_length() : 0;
}

bool HostMemory::get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) {
  const uint64_t page = trans.get_address() / SparseMemory::kPageBytes;
  bool partial = false;
  if (externals_mapped_ != 0 &&
      (external_for(page * SparseMemory::kPageBytes, SparseMemory::kPageBytes, &partial) != nullptr || partial))
    return false;
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
