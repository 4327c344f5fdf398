#include "testbench/serve/ibsim_wire.hpp"

#include <algorithm>
#include <cstring>

#include "models/ib/be_bytes.hpp"
#include "models/ib/crc.hpp"
#include "models/ib/mad.hpp"

namespace hcasim::serve::ibsim {

namespace {
// struct sim_request's offsets (the 4 bytes after status align length to 8).
constexpr std::size_t kDlid = 0, kSlid = 4, kDqp = 8, kSqp = 12, kStatus = 16, kLength = 24, kMad = 32;
// struct sim_client_info's, and sim_vendor's (fw_ver aligned to 8).
constexpr std::size_t kInfoId = 0, kInfoQp = 4, kInfoIsSm = 8, kInfoNode = 12;
constexpr std::size_t kVendorId = 0, kVendorPart = 4, kVendorHw = 8, kVendorFw = 16;

std::string abstract_address(const std::string& name) { return std::string(1, '\0') + name + std::string(1, '\0'); }
}  // namespace

const char* to_string(CtlType t) {
  static constexpr const char* kNames[] = {"error",     "connect",      "disconnect",    "get_port",
                                           "get_vendor", "get_gid",     "get_guid",      "get_nodeinfo",
                                           "get_portinfo", "set_issm",  "get_pkeys"};
  const auto i = static_cast<uint32_t>(t);
  return i < static_cast<uint32_t>(CtlType::Last) ? kNames[i] : "unknown";
}

std::optional<Ctl> decode_ctl(const uint8_t* bytes, std::size_t size) {
  if (size != kCtlBytes) return std::nullopt;
  Ctl c;
  c.magic = ib::load_le32(bytes);
  c.client = ib::load_le32(bytes + 4);
  c.type = ib::load_le32(bytes + 8);
  c.len = ib::load_le32(bytes + 12);
  std::memcpy(c.data.data(), bytes + 16, kCtlDataBytes);
  return c;
}

std::array<uint8_t, kCtlBytes> encode_ctl(const Ctl& c) {
  std::array<uint8_t, kCtlBytes> out{};
  ib::store_le32(out.data(), c.magic);
  ib::store_le32(out.data() + 4, c.client);
  ib::store_le32(out.data() + 8, c.type);
  ib::store_le32(out.data() + 12, c.len);
  std::memcpy(out.data() + 16, c.data.data(), kCtlDataBytes);
  return out;
}

ClientInfo read_client_info(const Ctl& c) {
  ClientInfo info;
  info.id = ib::load_le32(c.data.data() + kInfoId);
  info.qp = ib::load_le32(c.data.data() + kInfoQp);
  info.issm = ib::load_le32(c.data.data() + kInfoIsSm);
  const auto* node = reinterpret_cast<const char*>(c.data.data() + kInfoNode);
  info.node.assign(node, strnlen(node, kNodeIdBytes));
  return info;
}

void write_client_info(const ClientInfo& info, Ctl& c) {
  ib::store_le32(c.data.data() + kInfoId, info.id);
  ib::store_le32(c.data.data() + kInfoQp, info.qp);
  ib::store_le32(c.data.data() + kInfoIsSm, info.issm);
  uint8_t* node = c.data.data() + kInfoNode;
  std::memset(node, 0, kNodeIdBytes);
  std::memcpy(node, info.node.data(), std::min(info.node.size(), kNodeIdBytes - 1));
}

void write_port(uint16_t lid, uint8_t state, Ctl& c) {
  ib::store_le16(c.data.data(), lid);
  c.data[2] = state;
}

void write_vendor(uint32_t vendor_id, uint32_t part_id, uint32_t hw_version, uint64_t fw_version, Ctl& c) {
  uint8_t* d = c.data.data();
  ib::store_le32(d + kVendorId, vendor_id);
  ib::store_le32(d + kVendorPart, part_id);
  ib::store_le32(d + kVendorHw, hw_version);
  ib::store_le32(d + kVendorHw + 4, 0);
  ib::store_le32(d + kVendorFw, static_cast<uint32_t>(fw_version));
  ib::store_le32(d + kVendorFw + 4, static_cast<uint32_t>(fw_version >> 32));
}

std::optional<Request> decode_request(const uint8_t* bytes, std::size_t size) {
  if (size != kRequestBytes) return std::nullopt;
  Request r;
  r.dlid = ib::get_be16(bytes + kDlid);
  r.slid = ib::get_be16(bytes + kSlid);
  r.dqp = ib::get_be32(bytes + kDqp);
  r.sqp = ib::get_be32(bytes + kSqp);
  r.status = ib::get_be32(bytes + kStatus);
  r.length = ib::get_be64(bytes + kLength);
  std::memcpy(r.mad.data(), bytes + kMad, kMadBytes);
  return r;
}

std::array<uint8_t, kRequestBytes> encode_request(const Request& r) {
  std::array<uint8_t, kRequestBytes> out{};
  ib::put_be16(out.data() + kDlid, r.dlid);
  ib::put_be16(out.data() + kSlid, r.slid);
  ib::put_be32(out.data() + kDqp, r.dqp);
  ib::put_be32(out.data() + kSqp, r.sqp);
  ib::put_be32(out.data() + kStatus, r.status);
  ib::put_be64(out.data() + kLength, r.length);
  std::memcpy(out.data() + kMad, r.mad.data(), kMadBytes);
  return out;
}

std::string server_ctl_address(const std::string& base) { return abstract_address(base + ":ctl"); }
std::string server_out_address(const std::string& base, unsigned client) {
  return abstract_address(base + ":out" + std::to_string(client));
}
std::string client_ctl_address(const std::string& base, uint32_t pid) {
  return abstract_address(base + ":ctl" + std::to_string(pid));
}
std::string client_in_address(const std::string& base, uint32_t pid) {
  return abstract_address(base + ":in" + std::to_string(pid));
}

std::string refusal(const Request& r) {
  const uint8_t* m = r.mad.data();
  if (m[0] != 1) return "base version " + std::to_string(m[0]) + " (not 1)";
  if (m[2] > 2) return "class version " + std::to_string(m[2]) + " (above 2)";
  if (m[1] != ib::kClassSubnDr) return "";
  if (m[6] != 0) return "directed-route hop pointer " + std::to_string(m[6]) + " (not 0)";
  if (((m[4] & 0x80) != 0) != is_response(r)) return "directed-route D bit not equal to the R bit";
  if (ib::get_be16(m + 32) != ib::kPermissiveLid || ib::get_be16(m + 34) != ib::kPermissiveLid)
    return "DrSLID or DrDLID not the permissive LID";
  return "";
}

uint64_t tid(const Request& r) { return ib::get_be64(r.mad.data() + 8); }

void set_tid(Request& r, uint64_t t) { ib::put_be64(r.mad.data() + 8, t); }

}  // namespace hcasim::serve::ibsim
