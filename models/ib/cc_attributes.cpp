// CC attribute encode/decode: the byte offsets of cc_attributes.hpp. All
// fields big-endian.
#include "models/ib/cc_attributes.hpp"

#include <algorithm>
#include <cstring>

#include "models/ib/be_bytes.hpp"

namespace hcasim::ib {
namespace {

// CongestionLog, common (OpenSM ib_cong_log_t).
constexpr unsigned kOffLogType = 0;
constexpr unsigned kOffLogFlags = 1;
constexpr unsigned kOffLogCounter = 2;
// CongestionLog, switch.
constexpr unsigned kOffSwLogTimestamp = 4;
constexpr unsigned kOffSwLogPortMap = 8;
constexpr unsigned kOffSwLogEvents = 40;
constexpr unsigned kSwLogEventBytes = 12;
// CongestionLog, CA.
constexpr unsigned kOffCaLogEventMap = 4;
constexpr unsigned kOffCaLogTimestamp = 8;
constexpr unsigned kOffCaLogEvents = 12;
constexpr unsigned kCaLogEventBytes = 16;
// SwitchCongestionSetting.
constexpr unsigned kOffControlMap = 0;
constexpr unsigned kOffVictimMask = 4;
constexpr unsigned kOffCreditMask = 36;
constexpr unsigned kOffThreshold = 68;       // bits 7:4
constexpr unsigned kOffPacketSize = 69;
constexpr unsigned kOffCsThreshold = 70;     // bits 7:4
constexpr unsigned kOffCsReturnDelay = 72;
constexpr unsigned kOffMarkingRate = 74;
// SwitchPortCongestionSetting element.
constexpr unsigned kSwPortElementBytes = 4;
constexpr uint8_t kSwPortValid = 0x80;
constexpr uint8_t kSwPortControlType = 0x40;
// CACongestionSetting.
constexpr unsigned kOffPortControl = 0;
constexpr unsigned kOffCaControlMap = 2;
constexpr unsigned kOffCaEntries = 4;
constexpr unsigned kCaEntryBytes = 8;
// CongestionControlTable.
constexpr unsigned kOffCctiLimit = 0;
constexpr unsigned kOffCctEntries = 4;
constexpr unsigned kCctEntryBytes = 2;
// CongestionKeyInfo.
constexpr unsigned kOffProtect = 8;          // bit 7
constexpr unsigned kOffLeasePeriod = 10;
constexpr unsigned kOffViolations = 12;

static_assert(kOffSwLogEvents + kSwitchLogEvents * kSwLogEventBytes == CongestionLogSwitch::kBytes, "switch log");
static_assert(kOffCaLogEvents + kCaLogEvents * kCaLogEventBytes == CongestionLogCa::kBytes, "CA log");
static_assert(CongestionLogSwitch::kBytes <= kCcLogAttrBytes, "CongestionLog fits bytes 32-255");
static_assert(kOffMarkingRate + 2 == SwitchCongestionSetting::kBytes, "SwitchCongestionSetting");
static_assert(kPortsPerSwitchPortBlock * kSwPortElementBytes == SwitchPortCongestionSetting::kBytes, "port block");
static_assert(kOffCaEntries + kCaCongestionEntries * kCaEntryBytes == CaCongestionSetting::kBytes, "CA setting");
static_assert(kOffCctEntries + kCctEntriesPerBlock * kCctEntryBytes == CongestionControlTable::kBytes, "CCT block");
static_assert(CaCongestionSetting::kBytes <= kCcMgtDataBytes, "attributes fit the 192-byte data area");

uint8_t high_nibble(uint8_t v) { return static_cast<uint8_t>((v & 0x0F) << 4); }

}  // namespace

void PortMask::set(unsigned port, bool on) {
  if (port >= 256) return;
  uint8_t& b = bytes[31 - port / 8];
  const uint8_t bit = static_cast<uint8_t>(1u << (port % 8));
  b = static_cast<uint8_t>(on ? (b | bit) : (b & ~bit));
}

void CongestionInfo::encode(uint8_t* out) const {
  std::memset(out, 0, kBytes);
  put_be16(out, congestion_info);
  out[2] = control_table_cap;
}

void CongestionInfo::decode(const uint8_t* in) {
  congestion_info = get_be16(in);
  control_table_cap = in[2];
}

bool CongestionInfo::operator==(const CongestionInfo& o) const {
  return congestion_info == o.congestion_info && control_table_cap == o.control_table_cap;
}

void CongestionKeyInfo::encode(uint8_t* out) const {
  std::memset(out, 0, kBytes);
  put_be64(out, cc_key);
  out[kOffProtect] = protect ? 0x80 : 0x00;
  put_be16(out + kOffLeasePeriod, lease_period);
  put_be16(out + kOffViolations, violations);
}

void CongestionKeyInfo::decode(const uint8_t* in) {
  cc_key = get_be64(in);
  protect = (in[kOffProtect] & 0x80) != 0;
  lease_period = get_be16(in + kOffLeasePeriod);
  violations = get_be16(in + kOffViolations);
}

bool CongestionKeyInfo::operator==(const CongestionKeyInfo& o) const {
  return cc_key == o.cc_key && protect == o.protect && lease_period == o.lease_period && violations == o.violations;
}

bool SwitchLogEvent::operator==(const SwitchLogEvent& o) const {
  return slid == o.slid && dlid == o.dlid && sl == o.sl && timestamp == o.timestamp;
}

void CongestionLogSwitch::encode(uint8_t* out) const {
  std::memset(out, 0, kBytes);
  out[kOffLogType] = kCongestionLogTypeSwitch;
  out[kOffLogFlags] = congestion_flags;
  put_be16(out + kOffLogCounter, event_counter);
  put_be32(out + kOffSwLogTimestamp, current_timestamp);
  std::copy(port_map.bytes.begin(), port_map.bytes.end(), out + kOffSwLogPortMap);
  for (unsigned i = 0; i < kSwitchLogEvents; ++i) {
    uint8_t* e = out + kOffSwLogEvents + i * kSwLogEventBytes;
    put_be16(e, events[i].slid);
    put_be16(e + 2, events[i].dlid);
    e[4] = high_nibble(events[i].sl);
    put_be32(e + 8, events[i].timestamp);
  }
}

void CongestionLogSwitch::decode(const uint8_t* in) {
  congestion_flags = in[kOffLogFlags];
  event_counter = get_be16(in + kOffLogCounter);
  current_timestamp = get_be32(in + kOffSwLogTimestamp);
  std::copy(in + kOffSwLogPortMap, in + kOffSwLogPortMap + 32, port_map.bytes.begin());
  for (unsigned i = 0; i < kSwitchLogEvents; ++i) {
    const uint8_t* e = in + kOffSwLogEvents + i * kSwLogEventBytes;
    events[i].slid = get_be16(e);
    events[i].dlid = get_be16(e + 2);
    events[i].sl = e[4] >> 4;
    events[i].timestamp = get_be32(e + 8);
  }
}

bool CongestionLogSwitch::operator==(const CongestionLogSwitch& o) const {
  return congestion_flags == o.congestion_flags && event_counter == o.event_counter &&
         current_timestamp == o.current_timestamp && port_map == o.port_map && events == o.events;
}

bool CaLogEvent::operator==(const CaLogEvent& o) const {
  return local_qp == o.local_qp && remote_qp == o.remote_qp && sl == o.sl && service_type == o.service_type &&
         remote_lid == o.remote_lid && timestamp == o.timestamp;
}

void CongestionLogCa::encode(uint8_t* out) const {
  std::memset(out, 0, kBytes);
  out[kOffLogType] = kCongestionLogTypeCa;
  out[kOffLogFlags] = congestion_flags;
  put_be16(out + kOffLogCounter, event_counter);
  put_be16(out + kOffCaLogEventMap, event_map);
  put_be32(out + kOffCaLogTimestamp, current_timestamp);
  for (unsigned i = 0; i < kCaLogEvents; ++i) {
    uint8_t* e = out + kOffCaLogEvents + i * kCaLogEventBytes;
    put_be24(e, events[i].local_qp);
    put_be24(e + 4, events[i].remote_qp);
    e[7] = static_cast<uint8_t>(high_nibble(events[i].sl) | (events[i].service_type & 0x0F));
    put_be16(e + 8, events[i].remote_lid);
    put_be32(e + 12, events[i].timestamp);
  }
}

void CongestionLogCa::decode(const uint8_t* in) {
  congestion_flags = in[kOffLogFlags];
  event_counter = get_be16(in + kOffLogCounter);
  event_map = get_be16(in + kOffCaLogEventMap);
  current_timestamp = get_be32(in + kOffCaLogTimestamp);
  for (unsigned i = 0; i < kCaLogEvents; ++i) {
    const uint8_t* e = in + kOffCaLogEvents + i * kCaLogEventBytes;
    events[i].local_qp = get_be24(e);
    events[i].remote_qp = get_be24(e + 4);
    events[i].sl = e[7] >> 4;
    events[i].service_type = e[7] & 0x0F;
    events[i].remote_lid = get_be16(e + 8);
    events[i].timestamp = get_be32(e + 12);
  }
}

bool CongestionLogCa::operator==(const CongestionLogCa& o) const {
  return congestion_flags == o.congestion_flags && event_counter == o.event_counter && event_map == o.event_map &&
         current_timestamp == o.current_timestamp && events == o.events;
}

void SwitchCongestionSetting::encode(uint8_t* out) const {
  std::memset(out, 0, kBytes);
  put_be32(out + kOffControlMap, control_map);
  std::copy(victim_mask.bytes.begin(), victim_mask.bytes.end(), out + kOffVictimMask);
  std::copy(credit_mask.bytes.begin(), credit_mask.bytes.end(), out + kOffCreditMask);
  out[kOffThreshold] = high_nibble(threshold);
  out[kOffPacketSize] = packet_size;
  out[kOffCsThreshold] = high_nibble(cs_threshold);
  put_be16(out + kOffCsReturnDelay, cs_return_delay.word());
  put_be16(out + kOffMarkingRate, marking_rate);
}

void SwitchCongestionSetting::decode(const uint8_t* in) {
  control_map = get_be32(in + kOffControlMap);
  std::copy(in + kOffVictimMask, in + kOffVictimMask + 32, victim_mask.bytes.begin());
  std::copy(in + kOffCreditMask, in + kOffCreditMask + 32, credit_mask.bytes.begin());
  threshold = in[kOffThreshold] >> 4;
  packet_size = in[kOffPacketSize];
  cs_threshold = in[kOffCsThreshold] >> 4;
  cs_return_delay = CctEntry::from_word(get_be16(in + kOffCsReturnDelay));
  marking_rate = get_be16(in + kOffMarkingRate);
}

bool SwitchCongestionSetting::operator==(const SwitchCongestionSetting& o) const {
  return control_map == o.control_map && victim_mask == o.victim_mask && credit_mask == o.credit_mask &&
         threshold == o.threshold && packet_size == o.packet_size && cs_threshold == o.cs_threshold &&
         cs_return_delay == o.cs_return_delay && marking_rate == o.marking_rate;
}

bool SwitchPortCongestionElement::operator==(const SwitchPortCongestionElement& o) const {
  return valid == o.valid && credit_starvation == o.credit_starvation && threshold == o.threshold &&
         packet_size == o.packet_size && marking_rate == o.marking_rate;
}

void SwitchPortCongestionSetting::encode(uint8_t* out) const {
  std::memset(out, 0, kBytes);
  for (unsigned i = 0; i < kPortsPerSwitchPortBlock; ++i) {
    const SwitchPortCongestionElement& p = ports[i];
    uint8_t* e = out + i * kSwPortElementBytes;
    e[0] = static_cast<uint8_t>((p.valid ? kSwPortValid : 0) | (p.credit_starvation ? kSwPortControlType : 0) |
                                (p.threshold & 0x0F));
    e[1] = p.packet_size;
    put_be16(e + 2, p.marking_rate);
  }
}

void SwitchPortCongestionSetting::decode(const uint8_t* in) {
  for (unsigned i = 0; i < kPortsPerSwitchPortBlock; ++i) {
    SwitchPortCongestionElement& p = ports[i];
    const uint8_t* e = in + i * kSwPortElementBytes;
    p.valid = (e[0] & kSwPortValid) != 0;
    p.credit_starvation = (e[0] & kSwPortControlType) != 0;
    p.threshold = e[0] & 0x0F;
    p.packet_size = e[1];
    p.marking_rate = get_be16(e + 2);
  }
}

bool SwitchPortCongestionSetting::operator==(const SwitchPortCongestionSetting& o) const { return ports == o.ports; }

bool CaCongestionEntry::operator==(const CaCongestionEntry& o) const {
  return ccti_timer == o.ccti_timer && ccti_increase == o.ccti_increase &&
         trigger_threshold == o.trigger_threshold && ccti_min == o.ccti_min;
}

void CaCongestionSetting::encode(uint8_t* out) const {
  std::memset(out, 0, kBytes);
  put_be16(out + kOffPortControl, port_control);
  put_be16(out + kOffCaControlMap, control_map);
  for (unsigned i = 0; i < kCaCongestionEntries; ++i) {
    uint8_t* e = out + kOffCaEntries + i * kCaEntryBytes;
    put_be16(e, entries[i].ccti_timer);
    e[2] = entries[i].ccti_increase;
    e[3] = entries[i].trigger_threshold;
    e[4] = entries[i].ccti_min;
  }
}

void CaCongestionSetting::decode(const uint8_t* in) {
  port_control = get_be16(in + kOffPortControl);
  control_map = get_be16(in + kOffCaControlMap);
  for (unsigned i = 0; i < kCaCongestionEntries; ++i) {
    const uint8_t* e = in + kOffCaEntries + i * kCaEntryBytes;
    entries[i].ccti_timer = get_be16(e);
    entries[i].ccti_increase = e[2];
    entries[i].trigger_threshold = e[3];
    entries[i].ccti_min = e[4];
  }
}

bool CaCongestionSetting::operator==(const CaCongestionSetting& o) const {
  return port_control == o.port_control && control_map == o.control_map && entries == o.entries;
}

void CongestionControlTable::encode(uint8_t* out) const {
  std::memset(out, 0, kBytes);
  put_be16(out + kOffCctiLimit, ccti_limit);
  for (unsigned i = 0; i < kCctEntriesPerBlock; ++i) put_be16(out + kOffCctEntries + i * kCctEntryBytes, entries[i].word());
}

void CongestionControlTable::decode(const uint8_t* in) {
  ccti_limit = get_be16(in + kOffCctiLimit);
  for (unsigned i = 0; i < kCctEntriesPerBlock; ++i)
    entries[i] = CctEntry::from_word(get_be16(in + kOffCctEntries + i * kCctEntryBytes));
}

bool CongestionControlTable::operator==(const CongestionControlTable& o) const {
  return ccti_limit == o.ccti_limit && entries == o.entries;
}

void TimeStamp::encode(uint8_t* out) const { put_be32(out, value); }

void TimeStamp::decode(const uint8_t* in) { value = get_be32(in); }

}  // namespace hcasim::ib
