#pragma once
// Test helper: reads a pcap file written by trace::PcapWriter back and returns
// the SA MADs in it, in file order, with their LRH SLID / DLID and time.
//
// Rules (the format the writer documents, pcap_writer.hpp):
// - Global header 24 bytes: magic 0xA1B23C4D (little-endian, ns), version 2.4,
//   link type 252 (LINKTYPE_WIRESHARK_UPPER_PDU).
// - Each record: 16-byte header (seconds, nanoseconds, captured length,
//   original length, little-endian), then the exported-PDU TLVs: tag 12
//   (big-endian tag and length) with "infiniband" NUL-padded to 12 bytes, the
//   end TLV 00 00 00 00, then the packet LRH..VCRC.
// - Packets are decoded with ib::decode(Packet); those whose payload is a
//   256-byte SA MAD (ib::decode(SaMad)) are returned, the others skipped.

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/ib/codec.hpp"
#include "models/ib/mad.hpp"

namespace hcasim::mgmt::test {

struct CapturedMad {
  uint64_t t_ns = 0;
  uint16_t slid = 0, dlid = 0;
  ib::SaMad mad;
};

inline uint32_t pcap_le32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
inline uint16_t pcap_be16(const uint8_t* p) { return uint16_t(p[0] << 8 | p[1]); }

inline std::vector<CapturedMad> read_pcap_mads(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  const std::vector<uint8_t> f((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (f.size() < 24 || pcap_le32(f.data()) != 0xA1B23C4Du || pcap_le32(f.data() + 20) != 252)
    throw std::runtime_error(path + ": not a nanosecond upper-PDU pcap");
  std::vector<CapturedMad> out;
  size_t off = 24;
  while (off + 16 <= f.size()) {
    const uint8_t* h = f.data() + off;
    const uint64_t t_ns = uint64_t(pcap_le32(h)) * 1'000'000'000ull + pcap_le32(h + 4);
    const uint32_t caplen = pcap_le32(h + 8);
    off += 16;
    if (off + caplen > f.size()) throw std::runtime_error(path + ": truncated record");
    const uint8_t* r = f.data() + off;
    size_t pos = 0;
    for (;;) {  // TLVs up to the end tag
      if (pos + 4 > caplen) throw std::runtime_error(path + ": bad TLVs");
      const uint16_t tag = pcap_be16(r + pos), len = pcap_be16(r + pos + 2);
      pos += 4;
      if (tag == 0) break;
      if (tag == 12 && std::string(reinterpret_cast<const char*>(r + pos)) != "infiniband")
        throw std::runtime_error(path + ": dissector is not infiniband");
      pos += len;
    }
    ib::Packet p;
    if (!ib::decode(r + pos, caplen - pos, p).ok) throw std::runtime_error(path + ": undecodable packet");
    off += caplen;
    CapturedMad c;
    if (p.payload.size() != ib::kMadBytes || !ib::decode(p.payload.data(), c.mad)) continue;
    c.t_ns = t_ns;
    c.slid = p.hdr.lrh.slid;
    c.dlid = p.hdr.lrh.dlid;
    out.push_back(c);
  }
  return out;
}

}  // namespace hcasim::mgmt::test
