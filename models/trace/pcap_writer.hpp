#pragma once
// Writes packets as a pcap file that stock tshark/Wireshark dissects with no options.
//
// Rules (iba-facts "Looking at packets with tshark"; DESIGN.md "Command line and
// outputs"):
// - pcap (not pcapng), little-endian, nanosecond-resolution magic 0xA1B23C4D, version
//   2.4, link type LINKTYPE_WIRESHARK_UPPER_PDU (252).
// - Each record = exported-PDU TLVs, then the packet's wire bytes:
//     tag 12 (dissector name, big-endian tag and length), the name NUL-padded to a
//     multiple of 4 bytes, length = padded size; then the end TLV 00 00 00 00.
//   Data packets (LRH..VCRC) name the dissector "infiniband".
// - Link flow-control packets are NOT written; they are counted in
//   skipped_flow_control(). Tried: the stock tshark 4.0.17 "infiniband_link"
//   dissector reports every exact 6-byte FCP as "Malformed Packet (Exception
//   occurred)" and shows none of its fields; it decodes Op/FCTBS/VL/FCCL/LPCRC only
//   when at least 2 more bytes follow (it reads an LRH's 8 bytes first). Padding
//   FCPs would put bytes in the trace that are not on the wire, so the model does
//   not write them.
// - Model time is in picoseconds; records carry seconds + nanoseconds (sub-ns
//   truncated), so packets 1 ns apart stay distinct.
// - One encode buffer and one record buffer are reused: no allocation per packet
//   once warm. Errors (open, write) throw std::runtime_error naming the path.

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "models/ib/packet.hpp"

namespace hcasim::trace {

constexpr uint32_t kPcapMagicNs = 0xA1B23C4Du;    // pcap, nanosecond timestamps
constexpr uint16_t kPcapVersionMajor = 2;
constexpr uint16_t kPcapVersionMinor = 4;
constexpr uint32_t kPcapSnapLen = 65535;          // > largest record (~4.2 KB)
constexpr uint32_t kLinktypeUpperPdu = 252;       // LINKTYPE_WIRESHARK_UPPER_PDU
constexpr uint16_t kExpPduTagEnd = 0;             // exported-PDU end-of-options tag
constexpr uint16_t kExpPduTagDissectorName = 12;  // exported-PDU dissector-name tag
constexpr const char* kDissectorData = "infiniband";

class PcapWriter {
 public:
  // Creates (truncates) path and writes the global header.
  explicit PcapWriter(const std::string& path);
  ~PcapWriter();
  PcapWriter(const PcapWriter&) = delete;
  PcapWriter& operator=(const PcapWriter&) = delete;

  // Encodes p (ib::encode) and writes it; FlowControl packets are skipped (above).
  void write(uint64_t time_ps, const ib::Packet& p);
  // Writes data-packet wire bytes (LRH..VCRC) as they are; flow_control = true marks
  // a 6-byte FCP, which is skipped (above).
  void write_bytes(uint64_t time_ps, const std::vector<uint8_t>& wire, bool flow_control);

  void flush();
  void close();  // idempotent; the destructor calls it and swallows errors

  uint64_t records() const { return records_; }
  uint64_t skipped_flow_control() const { return skipped_flow_control_; }
  const std::string& path() const { return path_; }

 private:
  void write_record(uint64_t time_ps, const uint8_t* data, size_t len);
  void check(const char* what);

  std::string path_;
  std::ofstream out_;
  std::vector<uint8_t> wire_;    // reused encode buffer
  std::vector<uint8_t> record_;  // reused record header + TLVs
  uint64_t records_ = 0;
  uint64_t skipped_flow_control_ = 0;
};

}  // namespace hcasim::trace
