#include "testbench/serve/ibsim_control.hpp"

#include <algorithm>
#include <cstring>

#include "models/ib/be_bytes.hpp"
#include "models/ib/crc.hpp"
#include "models/ib/mad.hpp"

namespace hcasim::serve::ibsim {

namespace {
// Offsets in the attributes' 64 data bytes (IBA 14.2.5.3 NodeInfo, 14.2.5.6 PortInfo).
constexpr std::size_t kNodeGuid = 12, kDeviceId = 30, kRevision = 32, kVendorId = 37;
constexpr std::size_t kGidPrefix = 8, kLid = 16, kPortState = 32;
constexpr uint64_t kFirmware = 1;  // ibsim's sim_ctl_get_vendor
}  // namespace

unsigned Control::attached() const {
  const auto n = std::count_if(clients_.begin(), clients_.end(), [](const Client& c) { return c.attached; });
  return static_cast<unsigned>(n);
}

int Control::client_for(int node, unsigned port, bool response, uint32_t dest_qp, uint64_t tid) const {
  const auto here = [&](const Client& c) { return c.attached && c.node == node && (c.port == 0 || c.port == port); };
  const unsigned tagged = server_tag(tid);
  if (response && tagged < kMaxClients && here(clients_[tagged])) return static_cast<int>(tagged);
  for (unsigned i = 0; i < kMaxClients; ++i) {
    const Client& c = clients_[i];
    if (!here(c)) continue;
    if (dest_qp > 1 ? dest_qp == c.qp : !response && c.issm) return static_cast<int>(i);
  }
  return -1;
}

Ctl Control::error(Ctl c) {
  ++stats_.errors;
  c.type = static_cast<uint32_t>(CtlType::Error);
  return c;
}

std::optional<Ctl> Control::handle(const Ctl& message) {
  if (message.magic != kMagic) {
    ++stats_.bad_magic;
    return std::nullopt;
  }
  ++stats_.messages;
  const auto type = static_cast<CtlType>(message.type);
  if (type == CtlType::Connect) return connect(message);
  if (message.client >= kMaxClients) return error(message);
  Client& cl = clients_[message.client];
  if (type == CtlType::Disconnect) {
    if (cl.attached) {
      ++stats_.disconnects;
      if (cl.issm) nodes_.set_is_sm(cl.node, cl.port, false);
      cl = Client{};
    }
    return message;
  }
  if (!cl.attached || message.type == static_cast<uint32_t>(CtlType::Error) ||
      message.type >= static_cast<uint32_t>(CtlType::Last))
    return error(message);
  if (type == CtlType::SetIsSm) {
    cl.issm = ib::load_le32(message.data.data()) != 0;
    nodes_.set_is_sm(cl.node, cl.port, cl.issm);
    return message;
  }
  return answer(message, cl);
}

Ctl Control::connect(Ctl c) {
  const ClientInfo info = read_client_info(c);
  const auto free = std::find_if(clients_.begin(), clients_.end(), [](const Client& x) { return !x.attached; });
  const int node = nodes_.find(info.node);
  if (free == clients_.end() || node < 0) return error(c);
  const bool sm_there = std::any_of(clients_.begin(), clients_.end(),
                                    [node](const Client& x) { return x.attached && x.issm && x.node == node; });
  if (info.issm != 0 && sm_there) return error(c);
  const auto number = static_cast<unsigned>(free - clients_.begin());
  if (!attach_(number, info.id)) return error(c);
  Client& cl = *free;
  cl.attached = true;
  cl.id = info.id;
  cl.node = node;
  cl.port = nodes_.is_switch(node) ? 0 : 1;
  cl.qp = info.qp;
  cl.issm = info.issm != 0;
  if (cl.issm) nodes_.set_is_sm(node, cl.port, true);
  ++stats_.connects;
  write_client_info({number, info.qp, info.issm, nodes_.name(node)}, c);
  return c;
}

Ctl Control::answer(Ctl c, const Client& cl) {
  const auto get = [&](uint16_t attr, uint32_t modifier = 0) { return nodes_.get(cl.node, cl.port, attr, modifier); };
  switch (static_cast<CtlType>(c.type)) {
    case CtlType::GetPort: {
      const auto pi = get(ib::kAttrPortInfo, cl.port);
      write_port(ib::get_be16(pi.data() + kLid), pi[kPortState] & 0x0F, c);
      break;
    }
    case CtlType::GetVendor: {
      const auto ni = get(ib::kAttrNodeInfo);
      write_vendor(ib::get_be24(ni.data() + kVendorId), ib::get_be16(ni.data() + kDeviceId),
                   ib::get_be32(ni.data() + kRevision), kFirmware, c);
      break;
    }
    case CtlType::GetGid: {
      const auto pi = get(ib::kAttrPortInfo, cl.port);
      const auto ni = get(ib::kAttrNodeInfo);
      std::memcpy(c.data.data(), pi.data() + kGidPrefix, 8);
      std::memcpy(c.data.data() + 8, ni.data() + kNodeGuid, 8);
      break;
    }
    case CtlType::GetGuid: {
      const auto ni = get(ib::kAttrNodeInfo);
      std::memcpy(c.data.data(), ni.data() + kNodeGuid, 8);
      break;
    }
    case CtlType::GetNodeInfo:
      c.data = get(ib::kAttrNodeInfo);
      break;
    case CtlType::GetPortInfo: {
      const unsigned asked = c.data[0];
      c.data = get(ib::kAttrPortInfo, asked == 0 || asked > nodes_.ports(cl.node) ? cl.port : asked);
      break;
    }
    case CtlType::GetPkeys:
      c.data = get(ib::kAttrPkeyTable, 0);  // block 0; at a switch port 0 (the client's)
      break;
    default:
      return error(c);
  }
  return c;
}

}  // namespace hcasim::serve::ibsim
