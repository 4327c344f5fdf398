#include "models/pcie/pcie_link.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>

#include "models/link/link_timing.hpp"
#include "models/link/timeline.hpp"
#include "models/pcie/pcie_extensions.hpp"

namespace hcasim::pcie {

namespace {

// Checks the config before the module is built (no half-built sc_module on a throw).
const sc_core::sc_module_name& checked(const sc_core::sc_module_name& name, const PcieConfig& c) {
  if (const std::string why = check(c); !why.empty())
    throw std::invalid_argument(std::string("PcieLink ") + static_cast<const char*>(name) + ": " + why);
  return name;
}

double ps_per_wire_byte(const PcieConfig& c) {
  return 8.0 * static_cast<double>(link::kPsPerSecond) / tlp_rate_bps(c);
}

constexpr std::size_t index(Direction d) { return static_cast<std::size_t>(d); }

// Requests (and writes) go this way; completions the other.
constexpr Direction request_direction(bool from_device) {
  return from_device ? Direction::Upstream : Direction::Downstream;
}

}  // namespace

PcieLink::PcieLink(const sc_core::sc_module_name& name, const PcieConfig& config)
    : sc_core::sc_module(checked(name, config)),
      config_(config),
      sizes_(tlp_sizes(config)),
      latency_ps_(static_cast<double>(config.latency_ps)),
      dirs_{LinkDirection(ps_per_wire_byte(config)), LinkDirection(ps_per_wire_byte(config))} {
  tag_heap_.reserve(config.tags);
  host_in.register_b_transport(this, &PcieLink::host_b_transport);
  host_in.register_transport_dbg(this, &PcieLink::host_transport_dbg);
  host_in.register_get_direct_mem_ptr(this, &PcieLink::refuse_dmi);
  device_in.register_b_transport(this, &PcieLink::device_b_transport);
  device_in.register_transport_dbg(this, &PcieLink::device_transport_dbg);
  device_in.register_get_direct_mem_ptr(this, &PcieLink::refuse_dmi);
  device_out.register_invalidate_direct_mem_ptr(this, &PcieLink::device_invalidate);
  host_out.register_invalidate_direct_mem_ptr(this, &PcieLink::host_invalidate);
}

uint64_t PcieLink::busy_until_ps(Direction d) const { return link::round_ps(dirs_[index(d)].busy_until_ps()); }

void PcieLink::host_b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  transport(Side::Host, t, delay);
}

void PcieLink::device_b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  transport(Side::Device, t, delay);
}

unsigned PcieLink::host_transport_dbg(tlm::tlm_generic_payload& t) { return device_out->transport_dbg(t); }

unsigned PcieLink::device_transport_dbg(tlm::tlm_generic_payload& t) { return host_out->transport_dbg(t); }

bool PcieLink::refuse_dmi(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
  dmi.init();  // no access ...
  dmi.set_start_address(0);  // ... anywhere: do not ask again
  dmi.set_end_address(~sc_dt::uint64(0));
  return false;
}

void PcieLink::device_invalidate(sc_dt::uint64 start, sc_dt::uint64 end) {
  host_in->invalidate_direct_mem_ptr(start, end);
}

void PcieLink::host_invalidate(sc_dt::uint64 start, sc_dt::uint64 end) {
  device_in->invalidate_direct_mem_ptr(start, end);
}

bool PcieLink::acceptable(tlm::tlm_generic_payload& t) {
  if (t.get_byte_enable_ptr() != nullptr) {
    t.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return false;
  }
  if (t.get_streaming_width() < t.get_data_length()) {
    t.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return false;
  }
  if (t.get_data_length() == 0) {
    t.set_response_status(tlm::TLM_OK_RESPONSE);
    return false;
  }
  if (t.get_address() > UINT64_MAX - (t.get_data_length() - 1)) {  // runs past the 64-bit address space
    t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return false;
  }
  return true;
}

void PcieLink::transport(Side side, tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  auto& out = side == Side::Device ? host_out : device_out;
  const double now = static_cast<double>(link::now_ps());
  for (LinkDirection& d : dirs_) d.retire(now);
  if (t.is_read()) {
    if (!acceptable(t)) return;
    if (config_.ideal) return ideal_read(side, t, delay);
    read(side, t, delay);
  } else if (t.is_write()) {
    if (!acceptable(t)) return;
    TlpKind kind = TlpKind::MmioWrite;
    if (side == Side::Device) kind = t.get_extension<MsiMessage>() != nullptr ? TlpKind::Msix : TlpKind::DmaWrite;
    write(side, kind, t, delay);
  } else {
    out->b_transport(t, delay);  // TLM_IGNORE_COMMAND
  }
}

double PcieLink::send(Direction d, TlpKind kind, TlpType type, uint32_t payload, double ready_ps) {
  const uint32_t wire = wire_bytes(sizes_, type, payload);
  TlpCounts& c = stats_.at(d, kind);
  ++c.tlps;
  c.payload_bytes += payload;
  c.wire_bytes += wire;
  return config_.ideal ? ready_ps : dirs_[index(d)].send(ready_ps, wire, type == TlpType::MemWrite);
}

void PcieLink::update_busy() {
  for (std::size_t i = 0; i < kDirections; ++i) stats_.busy_ps[i] = link::round_ps(dirs_[i].busy_ps());
}

void PcieLink::write(Side side, TlpKind kind, tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  auto& out = side == Side::Device ? host_out : device_out;
  const Direction dir = request_direction(side == Side::Device);
  const uint64_t now = link::now_ps();
  const double issue = static_cast<double>(now + delay.value());
  double last = issue;
  for (Splitter s(t.get_address(), t.get_data_length(), config_.mps); !s.done();)
    last = send(dir, kind, TlpType::MemWrite, s.next().len, last);  // in order
  if (!config_.ideal) {
    update_busy();
    delay = sc_core::sc_time::from_value(link::round_ps(last + latency_ps_) - now);
  }
  out->b_transport(t, delay);
}

double PcieLink::take_tag(double ready_ps) {
  const auto later_first = std::greater<double>();
  // Requests whose last completion reached the device by now hold no tag.
  while (!tag_heap_.empty() && tag_heap_.front() <= ready_ps) {
    std::pop_heap(tag_heap_.begin(), tag_heap_.end(), later_first);
    tag_heap_.pop_back();
  }
  if (tag_heap_.size() < config_.tags) return ready_ps;
  const double freed = tag_heap_.front();  // the earliest completion: > ready_ps
  std::pop_heap(tag_heap_.begin(), tag_heap_.end(), later_first);
  tag_heap_.pop_back();
  ++stats_.tag_waits;
  return freed;
}

void PcieLink::free_tag_at(double ps) {
  tag_heap_.push_back(ps);  // within the capacity reserved: take_tag made room
  std::push_heap(tag_heap_.begin(), tag_heap_.end(), std::greater<double>());
  stats_.max_outstanding_reads = std::max<uint64_t>(stats_.max_outstanding_reads, tag_heap_.size());
}

void PcieLink::read(Side side, tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  const bool dma = side == Side::Device;
  auto& out = dma ? host_out : device_out;
  const Direction req_dir = request_direction(dma);
  const Direction cpl_dir = request_direction(!dma);
  const TlpKind req_kind = dma ? TlpKind::DmaReadRequest : TlpKind::MmioReadRequest;
  const TlpKind cpl_kind = dma ? TlpKind::DmaReadCompletion : TlpKind::MmioReadCompletion;
  const uint64_t now = link::now_ps();
  const uint64_t issue_ps = now + delay.value();
  const double issue = static_cast<double>(issue_ps);

  // Each request is forwarded as this transaction narrowed to its slice.
  const uint64_t addr0 = t.get_address();
  unsigned char* const data0 = t.get_data_ptr();
  const unsigned length0 = t.get_data_length();
  const unsigned width0 = t.get_streaming_width();
  double done = issue;
  for (Splitter requests(addr0, length0, config_.mrrs); !requests.done();) {
    const Piece r = requests.next();
    const double ready = dma ? take_tag(issue) : issue;
    const double sent = send(req_dir, req_kind, TlpType::MemRead, 0, ready);
    const uint64_t arrival = link::round_ps(sent + latency_ps_);
    t.set_address(r.addr);
    t.set_data_ptr(data0 + (r.addr - addr0));
    t.set_data_length(r.len);
    t.set_streaming_width(r.len);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time d = sc_core::sc_time::from_value(arrival - now);
    out->b_transport(t, d);
    const double data_ready = static_cast<double>(now + d.value());
    double last = data_ready;
    const bool failed = t.is_response_error();
    if (failed) {
      last = send(cpl_dir, cpl_kind, TlpType::Completion, 0, data_ready);  // completion without data
    } else {
      for (Splitter c(r.addr, r.len, config_.mps, config_.rcb); !c.done();)
        last = send(cpl_dir, cpl_kind, TlpType::Completion, c.next().len, last);  // in order
    }
    const double at_device = last + latency_ps_;
    if (dma) free_tag_at(at_device);
    done = std::max(done, at_device);
    if (failed) break;
  }
  t.set_address(addr0);
  t.set_data_ptr(data0);
  t.set_data_length(length0);
  t.set_streaming_width(width0);
  update_busy();
  const uint64_t done_ps = link::round_ps(done);
  delay = sc_core::sc_time::from_value(done_ps - now);
  if (dma) {
    ++stats_.dma_reads;
    stats_.dma_read_latency_ps.add(done_ps - issue_ps, done_ps);
  }
}

void PcieLink::ideal_read(Side side, tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  const bool dma = side == Side::Device;
  auto& out = dma ? host_out : device_out;
  const Direction req_dir = request_direction(dma);
  const Direction cpl_dir = request_direction(!dma);
  const TlpKind req_kind = dma ? TlpKind::DmaReadRequest : TlpKind::MmioReadRequest;
  const TlpKind cpl_kind = dma ? TlpKind::DmaReadCompletion : TlpKind::MmioReadCompletion;
  const uint64_t given = delay.value();
  out->b_transport(t, delay);
  const bool failed = t.is_response_error();
  for (Splitter requests(t.get_address(), t.get_data_length(), config_.mrrs); !requests.done();) {
    const Piece r = requests.next();
    send(req_dir, req_kind, TlpType::MemRead, 0, 0);
    if (failed) {
      send(cpl_dir, cpl_kind, TlpType::Completion, 0, 0);
      break;
    }
    for (Splitter c(r.addr, r.len, config_.mps, config_.rcb); !c.done();)
      send(cpl_dir, cpl_kind, TlpType::Completion, c.next().len, 0);
  }
  if (dma) {
    ++stats_.dma_reads;
    stats_.dma_read_latency_ps.add(delay.value() - given, link::now_ps() + delay.value());
  }
}

void PcieLink::trace(sc_core::sc_trace_file* file) const {
  const std::string n = name();
  sc_core::sc_trace(file, stats_.busy_ps[static_cast<std::size_t>(Direction::Upstream)], n + ".upstream_busy_ps");
  sc_core::sc_trace(file, stats_.busy_ps[static_cast<std::size_t>(Direction::Downstream)], n + ".downstream_busy_ps");
  sc_core::sc_trace(file, stats_.dma_reads, n + ".dma_reads");
}

}  // namespace hcasim::pcie
