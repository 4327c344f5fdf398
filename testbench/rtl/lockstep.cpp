#include "testbench/rtl/lockstep.hpp"

#include <cstdio>

namespace hcasim::rtl {

CreditReference::CreditReference(const std::vector<uint32_t>& capacity_blocks) {
  for (std::size_t vl = 0; vl < capacity_blocks.size() && vl < receivers_.size(); ++vl)
    receivers_[vl] = link::CreditReceiver(capacity_blocks[vl]);
}

void CreditReference::apply(link::CreditEvent e, unsigned vl, uint32_t a, uint32_t b) {
  switch (e) {
    case link::CreditEvent::Sent: senders_[vl].on_sent(a); break;
    case link::CreditEvent::FlowControl:
      senders_[vl].on_flow_control(static_cast<uint16_t>(a));
      receivers_[vl].on_flow_control(static_cast<uint16_t>(b));
      break;
    case link::CreditEvent::Received: receivers_[vl].on_packet(a); break;
    case link::CreditEvent::Released: receivers_[vl].on_released(a); break;
  }
}

CreditRegisters CreditReference::registers(unsigned vl) const {
  const link::CreditSender& s = senders_[vl];
  const link::CreditReceiver& r = receivers_[vl];
  return {s.fctbs(), s.fccl(), r.abr(), r.fccl(), r.used_blocks()};
}

uint32_t CreditReference::may_send(const link::VlCandidates& heads) const {
  uint32_t mask = 0;
  for (unsigned vl = 0; vl < link::kMaxDataVls; ++vl)
    if (heads[vl] != 0 && senders_[vl].may_send(heads[vl])) mask |= 1u << vl;
  return mask;
}

std::string describe_requests(const link::VlCandidates& c, bool vl15) {
  std::string s = vl15 ? "VL15" : "";
  for (unsigned vl = 0; vl < link::kMaxDataVls; ++vl) {
    if (c[vl] == 0) continue;
    if (!s.empty()) s += ", ";
    s += "VL" + std::to_string(vl) + " " + std::to_string(c[vl]) + (c[vl] == 1 ? " block" : " blocks");
  }
  return s.empty() ? "none" : s;
}

std::string describe_vl_mask(uint32_t mask) {
  std::string s;
  for (unsigned vl = 0; vl < 16; ++vl) {
    if (!(mask & (1u << vl))) continue;
    if (!s.empty()) s += ", ";
    s += "VL" + std::to_string(vl);
  }
  return s.empty() ? "none" : s;
}

std::string describe_grant(int vl) { return vl < 0 ? "no VL" : "VL" + std::to_string(vl); }

std::string describe_event(link::CreditEvent e, unsigned vl, uint32_t a, uint32_t b) {
  const std::string on = " on VL" + std::to_string(vl);
  switch (e) {
    case link::CreditEvent::Sent: return "sent " + std::to_string(a) + " blocks" + on;
    case link::CreditEvent::FlowControl:
      return "flow control FCCL " + std::to_string(a) + " FCTBS " + std::to_string(b) + on;
    case link::CreditEvent::Received: return "received " + std::to_string(a) + " blocks" + on;
    case link::CreditEvent::Released: return "released " + std::to_string(a) + " blocks" + on;
  }
  return "";
}

std::string credit_differences(const CreditRegisters& expected, const CreditRegisters& actual) {
  std::string s;
  auto field = [&](const char* name, uint32_t e, uint32_t a) {
    if (e == a) return;
    if (!s.empty()) s += "; ";
    s += std::string(name) + " C++ " + std::to_string(e) + ", RTL " + std::to_string(a);
  };
  field("FCTBS", expected.fctbs, actual.fctbs);
  field("FCCL", expected.fccl, actual.fccl);
  field("ABR", expected.abr, actual.abr);
  field("advertised FCCL", expected.fccl_adv, actual.fccl_adv);
  field("buffer blocks", expected.used, actual.used);
  return s;
}

std::string describe_time(uint64_t ps) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.6f us", static_cast<double>(ps) / 1e6);
  return buf;
}

}  // namespace hcasim::rtl
