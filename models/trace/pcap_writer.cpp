#include "models/trace/pcap_writer.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "models/ib/codec.hpp"

namespace hcasim::trace {
namespace {

constexpr uint64_t kPsPerNs = 1000;
constexpr uint64_t kNsPerSec = 1000000000;

void put_le(std::vector<uint8_t>& v, uint64_t x, int bytes) {
  for (int i = 0; i < bytes; ++i) v.push_back(static_cast<uint8_t>(x >> (8 * i)));
}
void put_be16(std::vector<uint8_t>& v, uint16_t x) {
  v.push_back(static_cast<uint8_t>(x >> 8));
  v.push_back(static_cast<uint8_t>(x));
}

// Tag 12 + name padded to 4 bytes + end tag.
void put_tlvs(std::vector<uint8_t>& v, const char* name) {
  const size_t n = std::strlen(name);
  const size_t padded = (n + 3) & ~size_t{3};
  put_be16(v, kExpPduTagDissectorName);
  put_be16(v, static_cast<uint16_t>(padded));
  v.insert(v.end(), name, name + n);
  v.insert(v.end(), padded - n, 0);
  put_be16(v, kExpPduTagEnd);
  put_be16(v, 0);
}

}  // namespace

PcapWriter::PcapWriter(const std::string& path) : path_(path) {
  out_.open(path, std::ios::binary | std::ios::trunc);
  if (!out_) {
    throw std::runtime_error("pcap: cannot open '" + path + "' for writing: " +
                             std::strerror(errno));
  }
  record_.reserve(64);
  put_le(record_, kPcapMagicNs, 4);
  put_le(record_, kPcapVersionMajor, 2);
  put_le(record_, kPcapVersionMinor, 2);
  put_le(record_, 0, 4);  // thiszone
  put_le(record_, 0, 4);  // sigfigs
  put_le(record_, kPcapSnapLen, 4);
  put_le(record_, kLinktypeUpperPdu, 4);
  out_.write(reinterpret_cast<const char*>(record_.data()),
             static_cast<std::streamsize>(record_.size()));
  check("write the global header");
}

PcapWriter::~PcapWriter() {
  try {
    close();
  } catch (...) {
    // Destructors must not throw; close() explicitly to see write errors.
  }
}

void PcapWriter::write(uint64_t time_ps, const ib::Packet& p) {
  if (p.kind == ib::PacketKind::FlowControl) {
    ++skipped_flow_control_;
    return;
  }
  ib::encode(p, wire_);
  write_record(time_ps, wire_.data(), wire_.size());
}

void PcapWriter::write_bytes(uint64_t time_ps, const std::vector<uint8_t>& wire,
                             bool flow_control) {
  if (flow_control) {
    ++skipped_flow_control_;
    return;
  }
  write_record(time_ps, wire.data(), wire.size());
}

void PcapWriter::write_record(uint64_t time_ps, const uint8_t* data, size_t len) {
  if (!out_.is_open()) throw std::runtime_error("pcap: '" + path_ + "' is closed");
  record_.clear();
  const uint64_t ns = time_ps / kPsPerNs;
  put_le(record_, ns / kNsPerSec, 4);
  put_le(record_, ns % kNsPerSec, 4);
  const size_t len_at = record_.size();
  put_le(record_, 0, 8);  // incl_len, orig_len: filled in below
  put_tlvs(record_, kDissectorData);
  const size_t captured = record_.size() - 16 + len;
  for (size_t i = 0; i < 8; ++i) {
    record_[len_at + i] = static_cast<uint8_t>(captured >> (8 * (i % 4)));
  }
  out_.write(reinterpret_cast<const char*>(record_.data()),
             static_cast<std::streamsize>(record_.size()));
  out_.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(len));
  check("write a record");
  ++records_;
}

void PcapWriter::flush() {
  if (!out_.is_open()) return;
  out_.flush();
  check("flush");
}

void PcapWriter::close() {
  if (!out_.is_open()) return;
  out_.close();
  check("close");
}

void PcapWriter::check(const char* what) {
  if (out_.fail()) {
    throw std::runtime_error(std::string("pcap: failed to ") + what + " '" + path_ + "'");
  }
}

}  // namespace hcasim::trace
