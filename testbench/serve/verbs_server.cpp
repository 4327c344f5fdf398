#include "testbench/serve/verbs_server.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <systemc>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "models/ib/mad.hpp"
#include "models/ib/mad_attributes.hpp"
#include "models/link/timeline.hpp"
#include "models/transport/message_layout.hpp"

namespace hcasim::serve {

namespace {

constexpr uint32_t kMaxQp = 1u << 18, kMaxQpWr = 32768, kMaxSge = 30, kMaxCq = 1u << 24, kMaxCqe = (1u << 22) - 1;
constexpr uint32_t kMaxMr = 1u << 24, kMaxRdAtom = 16;

// libibverbs' active_speed for a PortInfo's speeds (IBA 14.2.5.6; ibv's
// IBV_SPEED_* bits: SDR 1, DDR 2, QDR 4, FDR10 8, FDR 16, EDR 32, HDR 64, NDR 128).
uint8_t ibv_speed(const ib::PortInfo& pi) {
  switch (pi.link_speed_ext_active) {
    case 1: return 16;
    case 2: return 32;
    case 4: return 64;
    case 8: return 128;
    default: return pi.link_speed_active;
  }
}

std::string rate_text(const ib::PortInfo& pi) {
  const unsigned lanes = pi.link_width_active == 1 ? 1 : pi.link_width_active == 2 ? 4 : pi.link_width_active == 4 ? 8 : 12;
  struct Speed {
    uint8_t ibv;
    double gbps;
    const char* name;
  };
  static const Speed speeds[] = {{1, 2.5, "SDR"},   {2, 5, "DDR"},    {4, 10, "QDR"},     {8, 10.3125, "FDR10"},
                                 {16, 14.0625, "FDR"}, {32, 25.78125, "EDR"}, {64, 53.125, "HDR"}, {128, 106.25, "NDR"}};
  for (const Speed& s : speeds)
    if (s.ibv == ibv_speed(pi)) {
      char text[48];
      // The kernel's rate file: the data rate after line coding, rounded.
      const double coded = s.ibv <= 4 ? s.gbps * 0.8 * lanes : s.gbps * 64.0 / 66.0 * lanes;
      std::snprintf(text, sizeof text, "%g Gb/sec (%uX %s)", std::round(coded), lanes, s.name);
      return text;
    }
  return "0 Gb/sec";
}

std::string program_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name.empty() ? "pid " + std::to_string(pid) : name;
}

// Whether the process is on a CPU or ready for one (state R), not asleep.
bool on_cpu(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(in, text);
  const std::size_t close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'R';
}

bool is_full_reason(const std::string& why) { return why.find("full") != std::string::npos || why.find("holds") != std::string::npos; }

}  // namespace

VerbsServer::VerbsServer(fabric::Fabric& fabric, VerbsOptions options)
    : fabric_(fabric), options_(std::move(options)), in_(HV_MAX_PACKET), out_(HV_MAX_PACKET) {
  if (!fabric_.has_hosts()) throw std::invalid_argument("serve --verbs: the fabric was built without hosts");
  if (fabric_.hca_count() == 0 || fabric_.mad_node(fabric_.node_of_hca(0)) == nullptr)
    throw std::invalid_argument("serve --verbs: the fabric needs management in band (the HCAs' SMAs answer "
                                "ibv_query_port); accepted: management.mode in_band");
  socket_name_ = std::string(HV_SOCKET_PREFIX) + options_.base;
  listen_fd_ = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path + 1, socket_name_.data(), socket_name_.size());
  const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + socket_name_.size());
  if (listen_fd_ < 0 || bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 || listen(listen_fd_, 64) != 0) {
    const std::string why = std::strerror(errno);
    if (listen_fd_ >= 0) close(listen_fd_);
    throw std::runtime_error("serve --verbs: cannot listen at '" + socket_name_ + "': " + why +
                             " (another hcasim serve --verbs with that name? choose one with --ibsim NAME)");
  }
  threads_used_.assign(fabric_.hca_count(), 0);
}

VerbsServer::~VerbsServer() {
  for (auto& c : clients_)
    if (c->fd >= 0) close(c->fd);
  if (listen_fd_ >= 0) close(listen_fd_);
}

uint64_t VerbsServer::wall_ms() const {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

void VerbsServer::prepare() {
  while (sc_core::sc_pending_activity() && sc_core::sc_time_to_pending_activity().value() <= options_.near_ps)
    sc_core::sc_start(sc_core::sc_time::from_value(options_.near_ps), sc_core::SC_EXIT_ON_STARVATION);
  std::vector<SysfsDevice> devices;
  for (unsigned h = 0; h < fabric_.hca_count(); ++h) {
    const unsigned node = fabric_.node_of_hca(h);
    mgmt::Sma& sma = fabric_.mad_node(node)->sma();
    SysfsDevice d;
    d.name = fabric_.spec().nodes[node].name;
    d.description = sma.identity().description;
    d.node_guid = sma.identity().guid;
    d.sys_image_guid = sma.identity().system_guid != 0 ? sma.identity().system_guid : d.node_guid;
    for (unsigned p = 1; p <= fabric_.hca(h).port_count(); ++p) {
      const ib::PortInfo pi = sma.port_info(p);
      SysfsPort port;
      port.gid_prefix = pi.gid_prefix;
      port.port_guid = d.node_guid + p;
      port.lid = pi.lid;
      port.state = pi.port_state;
      port.phys_state = pi.port_phys_state;
      port.rate = rate_text(pi);
      const auto table = sma.read(ib::kAttrPkeyTable, 0, p);
      for (std::size_t k = 0; k + 1 < table.size(); k += 2)
        port.pkeys.push_back(static_cast<uint16_t>(table[k] << 8 | table[k + 1]));
      d.ports.push_back(port);
    }
    devices.push_back(std::move(d));
  }
  char fw[32];
  std::snprintf(fw, sizeof fw, "hcasim-%u", HV_WIRE_VERSION);
  write_verbs_sysfs(options_.sysfs_dir, devices, socket_name_, fw);
}

// ---- the connection ------------------------------------------------------

void VerbsServer::accept_clients() {
  for (;;) {
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) return;
    auto c = std::make_unique<Client>();
    c->fd = fd;
    c->number = static_cast<unsigned>(clients_.size());
    c->last_ms = wall_ms();
    ucred peer{};
    socklen_t len = sizeof peer;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) == 0) c->pid = peer.pid;
    c->program = program_of(c->pid);
    clients_.push_back(std::move(c));
  }
}

bool VerbsServer::drain() {
  bool any = false;
  for (std::size_t i = 0; i < clients_.size(); ++i) {
    Client& c = *clients_[i];
    while (c.fd >= 0 && c.hold == Hold::None) {
      const ssize_t n = recv(c.fd, in_.data(), in_.size(), MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        disconnect(c);
        break;
      }
      any = true;
      c.last_ms = wall_ms();
      request(c, in_.data(), static_cast<std::size_t>(n));
    }
  }
  return any;
}

void VerbsServer::reply(Client& c, int err, const void* body, std::size_t size) {
  if (c.fd < 0) return;
  hv_reply head{err, static_cast<uint32_t>(size)};
  iovec iov[2] = {{&head, sizeof head}, {const_cast<void*>(body), size}};
  msghdr msg{};
  msg.msg_iov = iov;
  msg.msg_iovlen = size > 0 ? 2 : 1;
  if (sendmsg(c.fd, &msg, MSG_NOSIGNAL) < 0) disconnect(c);
}

void VerbsServer::fail(Client& c, int err, const std::string& why) {
  const std::string text = why.substr(0, HV_MAX_REASON - 1);
  trace(c, "error", text);
  reply(c, err, text.c_str(), text.size() + 1);
}

void VerbsServer::trace(const Client& c, const char* what, const std::string& detail) const {
  if (!options_.trace) return;
  std::cerr << "verbs: client " << c.number << " (" << c.program << ", hcasim" << c.hca << ") at "
            << sc_core::sc_time_stamp().value() << " ps: " << what << (detail.empty() ? "" : " ") << detail << "\n";
}

void VerbsServer::disconnect(Client& c) {
  if (c.fd < 0) return;
  close(c.fd);
  c.fd = -1;
  c.connected = false;
  c.hold = Hold::None;
  if (!c.hello) return;
  host::Driver& d = fabric_.driver(c.hca);
  for (const auto& [qpn, caps] : c.caps) d.destroy_qp(qpn);
  c.caps.clear();
  for (const auto& [cq, rec] : c.cqs) d.destroy_cq(cq);
  c.cqs.clear();
  for (const auto& [lkey, mr] : c.mrs) {
    d.dereg_mr(lkey);
    d.host_memory().unmap_external(mr.window);
    d.unwatch_memory(mr.watch);
  }
  c.mrs.clear();
  trace(c, "disconnected", "");
}

void VerbsServer::request(Client& c, const uint8_t* packet, std::size_t size) {
  hv_head head{};
  if (size < sizeof head) {
    ++protocol_errors_;
    fail(c, EBADMSG, "a request shorter than its head");
    return;
  }
  std::memcpy(&head, packet, sizeof head);
  if (head.size != size - sizeof head) {
    ++protocol_errors_;
    fail(c, EBADMSG, "a request whose size field is not its length");
    return;
  }
  if (!c.hello && head.op != HV_HELLO) {
    ++protocol_errors_;
    fail(c, EPROTO, "the first request must be HV_HELLO");
    return;
  }
  handle(c, head.op, packet + sizeof head, head.size);
}

// ---- the verbs -----------------------------------------------------------

namespace {
template <typename T>
bool body_as(const uint8_t* body, std::size_t size, T& out) {
  if (size != sizeof(T)) return false;
  std::memcpy(&out, body, sizeof(T));
  return true;
}
}  // namespace

void VerbsServer::handle(Client& c, uint32_t op, const uint8_t* body, std::size_t size) {
  host::Driver* d = c.hello ? &fabric_.driver(c.hca) : nullptr;
  const auto bad = [&] {
    ++protocol_errors_;
    fail(c, EBADMSG, "request " + std::to_string(op) + ": the body is not the size its op needs");
  };
  uint32_t handle = 0;
  switch (op) {
    case HV_HELLO: return hello(c, body, size);
    case HV_QUERY_DEVICE: {
      const unsigned node = fabric_.node_of_hca(c.hca);
      const mgmt::Sma& sma = fabric_.mad_node(node)->sma();
      hv_device r{};
      r.node_guid = sma.identity().guid;
      r.sys_image_guid = sma.identity().system_guid != 0 ? sma.identity().system_guid : r.node_guid;
      r.max_mr_size = ~uint64_t{0};
      r.page_size_cap = 0xFFFFF000;
      r.vendor_id = sma.identity().vendor_id;
      r.vendor_part_id = sma.identity().device_id;
      r.max_qp = kMaxQp;
      r.max_qp_wr = kMaxQpWr;
      r.max_sge = kMaxSge;
      r.max_cq = kMaxCq;
      r.max_cqe = kMaxCqe;
      r.max_mr = kMaxMr;
      r.max_pd = kMaxMr;
      r.max_qp_rd_atom = kMaxRdAtom;
      r.max_qp_init_rd_atom = kMaxRdAtom;
      r.max_res_rd_atom = kMaxRdAtom * kMaxQp;
      r.max_ah = INT32_MAX;
      r.max_pkeys = 128;
      r.phys_port_cnt = fabric_.hca(c.hca).port_count();
      r.max_inline = d->config().max_inline;
      std::snprintf(r.fw_ver, sizeof r.fw_ver, "hcasim-%u", HV_WIRE_VERSION);
      return reply(c, 0, &r, sizeof r);
    }
    case HV_QUERY_PORT:
      if (!body_as(body, size, handle)) return bad();
      return query_port(c, handle);
    case HV_REG_MR: {
      hv_reg_mr r;
      if (!body_as(body, size, r)) return bad();
      return reg_mr(c, r);
    }
    case HV_DEREG_MR: {
      if (!body_as(body, size, handle)) return bad();
      const auto it = c.mrs.find(handle);
      if (it == c.mrs.end()) return fail(c, EINVAL, "no memory region of this process has L_Key " + std::to_string(handle));
      d->dereg_mr(handle);
      d->host_memory().unmap_external(it->second.window);
      d->unwatch_memory(it->second.watch);
      c.mrs.erase(it);
      return reply(c, 0, nullptr, 0);
    }
    case HV_CREATE_CQ: {
      hv_create_cq r;
      if (!body_as(body, size, r)) return bad();
      return create_cq(c, r);
    }
    case HV_DESTROY_CQ: {
      if (!body_as(body, size, handle)) return bad();
      if (!c.cqs.count(handle)) return fail(c, EINVAL, "no CQ " + std::to_string(handle) + " of this process");
      const std::string why = d->destroy_cq(handle);
      if (!why.empty()) return fail(c, EBUSY, why);
      c.cqs.erase(handle);
      return reply(c, 0, nullptr, 0);
    }
    case HV_REQ_NOTIFY_CQ: {
      hv_notify r;
      if (!body_as(body, size, r)) return bad();
      if (!c.cqs.count(r.cq)) return fail(c, EINVAL, "no CQ " + std::to_string(r.cq) + " of this process");
      const std::string why = d->req_notify_cq(r.cq, r.solicited_only != 0);
      if (!why.empty()) return fail(c, EINVAL, why);
      return reply(c, 0, nullptr, 0);
    }
    case HV_CREATE_QP: {
      hv_create_qp r;
      if (!body_as(body, size, r)) return bad();
      return create_qp(c, r);
    }
    case HV_MODIFY_QP: {
      hv_modify_qp r;
      if (!body_as(body, size, r)) return bad();
      return modify_qp(c, r);
    }
    case HV_QUERY_QP:
      if (!body_as(body, size, handle)) return bad();
      return query_qp(c, handle);
    case HV_DESTROY_QP: {
      if (!body_as(body, size, handle)) return bad();
      if (!c.caps.count(handle)) return fail(c, EINVAL, "no QP " + std::to_string(handle) + " of this process");
      const std::string why = d->destroy_qp(handle);
      if (!why.empty()) return fail(c, EBUSY, why);
      c.caps.erase(handle);
      c.sig_all.erase(handle);
      return reply(c, 0, nullptr, 0);
    }
    case HV_POST_SEND: return post_send(c, body, size, false);
    case HV_POST_SEND_ASYNC: return post_send(c, body, size, true);
    case HV_POST_RECV: return post_recv(c, body, size);
    case HV_POLL_CQ: {
      hv_poll r;
      if (!body_as(body, size, r)) return bad();
      if (!c.cqs.count(r.cq)) return fail(c, EINVAL, "no CQ " + std::to_string(r.cq) + " of this process");
      if (poll(c, r.cq, r.max)) return;
      c.hold = Hold::Poll;  // the process waits for the model (the rules)
      c.hold_cq = r.cq;
      c.hold_max = r.max;
      return;
    }
    case HV_WAIT_EVENT: {
      if (!body_as(body, size, handle)) return bad();
      if (take_event(c, handle)) return;
      c.hold = Hold::Event;
      c.hold_channel = handle;
      return;
    }
    default:
      ++protocol_errors_;
      return fail(c, EOPNOTSUPP, "unknown request " + std::to_string(op));
  }
}

void VerbsServer::hello(Client& c, const uint8_t* body, std::size_t size) {
  hv_hello h;
  if (c.hello || !body_as(body, size, h)) {
    ++protocol_errors_;
    return fail(c, EPROTO, "HV_HELLO: once, as the first request, of its size");
  }
  if (h.version != HV_WIRE_VERSION)
    return fail(c, EPROTO, "wire version " + std::to_string(h.version) + "; this server speaks " +
                               std::to_string(HV_WIRE_VERSION) + " (a provider of another hcasim build?)");
  if (h.hca >= fabric_.hca_count())
    return fail(c, ENODEV, "no HCA " + std::to_string(h.hca) + " (the scenario has " +
                               std::to_string(fabric_.hca_count()) + ")");
  c.hello = true;
  c.hca = h.hca;
  c.thread = threads_used_[h.hca]++;
  c.memory = std::make_unique<ProcessMemory>(c.pid);
  trace(c, "hello", "pid " + std::to_string(c.pid));
  hv_hello_reply r{};
  r.node_guid = fabric_.mad_node(fabric_.node_of_hca(c.hca))->sma().identity().guid;
  r.ports = fabric_.hca(c.hca).port_count();
  r.client = c.number;
  reply(c, 0, &r, sizeof r);
}

void VerbsServer::query_port(Client& c, uint32_t port) {
  if (port < 1 || port > fabric_.hca(c.hca).port_count())
    return fail(c, EINVAL, "no port " + std::to_string(port) + " (the HCA has " +
                               std::to_string(fabric_.hca(c.hca).port_count()) + ")");
  const ib::PortInfo pi = fabric_.mad_node(fabric_.node_of_hca(c.hca))->sma().port_info(port);
  hv_port r{};
  r.state = pi.port_state;
  r.max_mtu = pi.mtu_cap;
  r.active_mtu = pi.neighbor_mtu;
  r.gid_tbl_len = pi.guid_cap != 0 ? pi.guid_cap : 1;
  r.port_cap_flags = pi.capability_mask;
  r.max_msg_sz = 1u << 31;
  r.pkey_tbl_len = 32;
  r.lid = pi.lid;
  r.sm_lid = pi.master_sm_lid;
  r.lmc = pi.lmc;
  r.max_vl_num = pi.vl_cap;
  r.sm_sl = pi.master_sm_sl;
  r.subnet_timeout = pi.subnet_timeout;
  r.active_width = pi.link_width_active;
  r.active_speed = ibv_speed(pi);
  r.phys_state = pi.port_phys_state;
  r.link_layer = 1;  // IBV_LINK_LAYER_INFINIBAND
  reply(c, 0, &r, sizeof r);
}

void VerbsServer::reg_mr(Client& c, const hv_reg_mr& r) {
  uint32_t access = 0;
  const std::string bad = verbs::access_from_ibv(r.access, access);
  if (!bad.empty()) return fail(c, EINVAL, bad);
  if (r.length == 0 || r.addr + r.length < r.addr) return fail(c, EINVAL, "a memory region of no bytes, or past 2^64");
  host::Driver& d = fabric_.driver(c.hca);
  hca::MemoryRegion mr;
  try {
    mr = d.reg_mr(r.addr, r.length, access);
  } catch (const std::invalid_argument& e) {
    return fail(c, EINVAL, e.what());
  }
  Client::Mr& rec = c.mrs[mr.lkey];
  rec.window = d.host_memory().map_external(r.addr, r.addr + r.length, c.memory.get());
  const unsigned number = c.number;
  rec.watch = d.watch_memory(r.addr, r.addr + r.length, [this, number](uint64_t, uint64_t) { memory_landed(number); });
  const uint32_t keys[2] = {mr.lkey, mr.rkey};
  reply(c, 0, keys, sizeof keys);
}

void VerbsServer::create_cq(Client& c, const hv_create_cq& r) {
  if (r.cqe == 0 || r.cqe > kMaxCqe) return fail(c, EINVAL, "cqe " + std::to_string(r.cqe) + ": accepted 1 to " +
                                                                 std::to_string(kMaxCqe));
  host::Driver& d = fabric_.driver(c.hca);
  uint32_t cq = 0;
  try {
    cq = d.create_cq(r.cqe, c.thread);
  } catch (const std::invalid_argument& e) {
    return fail(c, EINVAL, e.what());
  }
  c.cqs[cq].channel = r.channel;
  const unsigned hca = c.hca;
  d.on_cq_event(cq, [this, hca, cq] { cq_ready(hca, cq); });
  d.on_cq_interrupt(cq, [this, hca, cq] { cq_interrupt(hca, cq); });
  const uint32_t out[2] = {cq, r.cqe};
  reply(c, 0, out, sizeof out);
}

void VerbsServer::create_qp(Client& c, const hv_create_qp& r) {
  const auto type = verbs::qp_type_from_ibv(r.qp_type);
  if (!type) return fail(c, EOPNOTSUPP, "QP type " + std::to_string(r.qp_type) + ": accepted RC (2), UC (3), UD (4)");
  if (!c.cqs.count(r.send_cq) || !c.cqs.count(r.recv_cq)) return fail(c, EINVAL, "a CQ not of this process");
  host::Driver& d = fabric_.driver(c.hca);
  if (r.cap.max_inline_data > d.config().max_inline)
    return fail(c, EINVAL, "max_inline_data " + std::to_string(r.cap.max_inline_data) + ": the driver's max_inline is " +
                               std::to_string(d.config().max_inline));
  if (r.cap.max_send_wr > kMaxQpWr || r.cap.max_recv_wr > kMaxQpWr || r.cap.max_send_sge > kMaxSge ||
      r.cap.max_recv_sge > kMaxSge)
    return fail(c, EINVAL, "capacities past the device's (max_qp_wr " + std::to_string(kMaxQpWr) + ", max_sge " +
                               std::to_string(kMaxSge) + ")");
  transport::QpInit init;
  init.type = *type;
  init.send_cq = r.send_cq;
  init.recv_cq = r.recv_cq;
  init.max_send_wr = std::max<uint32_t>(r.cap.max_send_wr, 1);
  init.max_recv_wr = std::max<uint32_t>(r.cap.max_recv_wr, 1);
  init.max_send_sge = std::max<uint32_t>(r.cap.max_send_sge, 1);
  init.max_recv_sge = std::max<uint32_t>(r.cap.max_recv_sge, 1);
  uint32_t qpn = 0;
  try {
    qpn = d.create_qp(init);
  } catch (const std::invalid_argument& e) {
    return fail(c, EINVAL, e.what());
  }
  hv_qp_caps caps{init.max_send_wr, init.max_recv_wr, init.max_send_sge, init.max_recv_sge, d.config().max_inline};
  c.caps[qpn] = caps;
  c.sig_all[qpn] = r.sq_sig_all != 0;
  VerbsQpReport& rep = c.qps[qpn];
  rep = VerbsQpReport{};
  rep.qpn = qpn;
  rep.type = *type;
  trace(c, "create_qp", std::to_string(qpn));
  struct {
    hv_qp_caps cap;
    uint32_t qpn;
  } out{caps, qpn};
  reply(c, 0, &out, sizeof out);
}

void VerbsServer::modify_qp(Client& c, const hv_modify_qp& r) {
  if (!c.caps.count(r.qpn)) return fail(c, EINVAL, "no QP " + std::to_string(r.qpn) + " of this process");
  uint32_t mask = 0;
  std::string why = verbs::modify_mask_from_ibv(r.mask, mask);
  transport::QpAttr attr;
  if (why.empty()) why = verbs::qp_attr_from_wire(r.attr, mask, attr);
  if (why.empty()) why = fabric_.driver(c.hca).modify_qp(r.qpn, attr, mask);
  trace(c, "modify_qp", std::to_string(r.qpn) + " to " + transport::to_string(attr.qp_state) + (why.empty() ? "" : ": " + why));
  if (!why.empty()) return fail(c, EINVAL, why);
  reply(c, 0, nullptr, 0);
}

void VerbsServer::query_qp(Client& c, uint32_t qpn) {
  const auto caps = c.caps.find(qpn);
  const transport::Qp* qp = fabric_.hca(c.hca).transport().find(qpn);
  if (caps == c.caps.end() || qp == nullptr) return fail(c, EINVAL, "no QP " + std::to_string(qpn) + " of this process");
  transport::QpAttr a = qp->attr;  // as modify_qp last set it, with the state the QP is in now
  a.qp_state = qp->state;
  struct {
    hv_qp_attr a;
    hv_qp_caps cap;
  } out{verbs::qp_attr_to_wire(a), caps->second};
  reply(c, 0, &out, sizeof out);
}

namespace {
// A post's reply: the WRs taken, why not all, the reason.
std::vector<uint8_t> post_reply(uint32_t taken, int err, const std::string& why) {
  const std::size_t text = err != 0 ? std::min<std::size_t>(why.size(), HV_MAX_REASON) : 0;
  std::vector<uint8_t> b(8 + text);
  const int32_t e = err;
  std::memcpy(b.data(), &taken, 4);
  std::memcpy(b.data() + 4, &e, 4);
  if (text > 0) std::memcpy(b.data() + 8, why.data(), text);
  return b;
}
}  // namespace

void VerbsServer::post_send(Client& c, const uint8_t* body, std::size_t size, bool async) {
  verbs::PostedSends p;
  std::string why = verbs::parse_post_send(body, size, p);
  if (!why.empty()) {
    ++protocol_errors_;
    if (async) return trace(c, "post_send", why);
    return fail(c, EBADMSG, why);
  }
  if (!c.caps.count(p.qpn)) why = "no QP " + std::to_string(p.qpn) + " of this process";
  if (why.empty() && c.sig_all[p.qpn])
    for (transport::SendWr& w : p.wrs) w.signaled = true;
  if (why.empty()) why = fabric_.driver(c.hca).post_send(p.qpn, p.wrs);
  if (!why.empty()) {
    trace(c, "post_send", why);
    if (async) {  // the provider's mirror of the checks said it would be taken
      ++protocol_errors_;
      std::cerr << "hcasim serve: " << c.program << " (pid " << c.pid << "): an ibv_post_send that returned 0 was "
                << "refused: " << why << "\n";
      return;
    }
    const auto b = post_reply(0, is_full_reason(why) ? ENOMEM : EINVAL, why);
    return reply(c, 0, b.data(), b.size());
  }
  trace(c, "post_send", std::to_string(p.wrs.size()) + " WRs on QP " + std::to_string(p.qpn));
  VerbsQpReport& rep = c.qps[p.qpn];
  const uint64_t now = link::now_ps();
  if (rep.sends_posted == 0) rep.first_post_ps = now;
  else rep.post_interval.add(now - rep.last_post_ps);
  rep.last_post_ps = now;
  rep.sends_posted += p.wrs.size();
  for (const transport::SendWr& w : p.wrs) rep.bytes_posted += transport::sg_length(w.sg_list);
  if (async) return;
  const auto b = post_reply(static_cast<uint32_t>(p.wrs.size()), 0, "");
  reply(c, 0, b.data(), b.size());
}

void VerbsServer::post_recv(Client& c, const uint8_t* body, std::size_t size) {
  verbs::PostedRecvs p;
  const std::string bad = verbs::parse_post_recv(body, size, p);
  if (!bad.empty()) {
    ++protocol_errors_;
    return fail(c, EBADMSG, bad);
  }
  if (!c.caps.count(p.qpn)) return fail(c, EINVAL, "no QP " + std::to_string(p.qpn) + " of this process");
  host::Driver& d = fabric_.driver(c.hca);
  uint32_t taken = 0;
  std::string why;
  for (const transport::RecvWr& w : p.wrs) {
    why = d.post_recv(p.qpn, w);
    if (!why.empty()) break;
    ++taken;
  }
  const auto b = post_reply(taken, why.empty() ? 0 : is_full_reason(why) ? ENOMEM : EINVAL, why);
  reply(c, 0, b.data(), b.size());
}

void VerbsServer::account(Client& c, const transport::WorkCompletion& wc) {
  const auto it = c.qps.find(wc.qp_num);
  if (it == c.qps.end()) return;
  VerbsQpReport& r = it->second;
  const bool receive = wc.opcode == transport::WcOpcode::Recv || wc.opcode == transport::WcOpcode::RecvRdmaWithImm;
  const bool ok = wc.status == transport::WcStatus::Success;
  if (receive) {
    ++r.receives;
    if (ok) r.bytes_received += wc.byte_len;
    else ++r.receive_errors;
    return;
  }
  ++r.send_completions;
  if (!ok) ++r.send_errors;
  const uint64_t at = wc.times.cqe_ps != 0 ? wc.times.cqe_ps : wc.time_ps;
  r.last_completion_ps = std::max(r.last_completion_ps, at);
  if (ok && wc.times.mmio_ps != 0 && wc.times.cqe_ps >= wc.times.mmio_ps)
    r.latency.add(wc.times.cqe_ps - wc.times.mmio_ps);
}

bool VerbsServer::poll(Client& c, uint32_t cq, uint32_t max) {
  wcs_.clear();
  const uint32_t fit = (HV_MAX_PACKET - 8) / sizeof(hv_wc);
  fabric_.driver(c.hca).poll_cq(cq, std::min(max, fit), wcs_);
  if (wcs_.empty()) return false;
  const auto n = static_cast<uint32_t>(wcs_.size());
  trace(c, "poll_cq", std::to_string(n) + " completions on CQ " + std::to_string(cq));
  out_.assign(8, 0);
  std::memcpy(out_.data(), &n, 4);
  host::Driver& d = fabric_.driver(c.hca);
  for (const transport::WorkCompletion& wc : wcs_) {
    account(c, wc);
    hv_wc w = verbs::wc_to_wire(wc);
    w.sq_used = d.send_queue_used(wc.qp_num);
    const auto* p = reinterpret_cast<const uint8_t*>(&w);
    out_.insert(out_.end(), p, p + sizeof w);
  }
  reply(c, 0, out_.data(), out_.size());
  return true;
}

bool VerbsServer::take_event(Client& c, uint32_t channel) {
  for (auto it = c.events.begin(); it != c.events.end(); ++it) {
    if (it->first != channel) continue;
    const uint32_t cq = it->second;
    c.events.erase(it);
    reply(c, 0, &cq, sizeof cq);
    return true;
  }
  return false;
}

// ---- time ------------------------------------------------------------------

VerbsServer::Client* VerbsServer::owner_of_cq(unsigned hca, uint32_t cq) {
  for (auto& c : clients_)
    if (c->fd >= 0 && c->hello && c->hca == hca && c->cqs.count(cq)) return c.get();
  return nullptr;
}

void VerbsServer::cq_ready(unsigned hca, uint32_t cq) {
  Client* c = owner_of_cq(hca, cq);
  if (c == nullptr || c->hold != Hold::Poll || c->hold_cq != cq) return;
  wake_ = true;
  if (in_model_) sc_core::sc_pause();
}

void VerbsServer::memory_landed(unsigned number) {
  Client& c = *clients_[number];
  if (c.fd < 0 || c.hold != Hold::None) return;
  // Asked once per millisecond of wall time at most: a stream of writes into a
  // sleeping process (ib_write_bw's passive side) costs one look, not one each.
  const uint64_t now = wall_ms();
  if (now == c.looked_ms) return;
  c.looked_ms = now;
  // On a CPU, or asleep with a verb of its waiting to be read: it may have
  // seen these bytes already (they were out before this call) and posted.
  // In that order: a process that sends a verb and then sleeps for its
  // answer is seen in one state or the other, never in neither.
  if (!on_cpu(c.pid)) {
    pollfd p{c.fd, POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0) return;
  }
  c.last_ms = wall_ms();  // it may be spinning on this memory: time waits for its answer
  trace(c, "woken", "by a device write into its memory");
  wake_ = true;
  if (in_model_) sc_core::sc_pause();
}

void VerbsServer::cq_interrupt(unsigned hca, uint32_t cq) {
  Client* c = owner_of_cq(hca, cq);
  if (c == nullptr) return;
  const uint32_t channel = c->cqs[cq].channel;
  if (channel == 0) return;
  c->events.emplace_back(channel, cq);
  if (c->hold == Hold::Event && c->hold_channel == channel) {
    wake_ = true;
    if (in_model_) sc_core::sc_pause();
  }
}

void VerbsServer::answer_held(bool model_idle) {
  for (auto& cp : clients_) {
    Client& c = *cp;
    if (c.fd < 0) continue;
    if (c.hold == Hold::Poll) {
      if (poll(c, c.hold_cq, c.hold_max) || model_idle) {
        if (c.hold == Hold::Poll && c.fd >= 0 && wcs_.empty()) {
          const uint32_t none[2] = {0, 0};
          reply(c, 0, none, sizeof none);
        }
        c.hold = Hold::None;
        c.last_ms = wall_ms();
      }
    } else if (c.hold == Hold::Event && take_event(c, c.hold_channel)) {
      c.hold = Hold::None;
      c.last_ms = wall_ms();
    }
  }
}

bool VerbsServer::may_run(bool far) const {
  const uint64_t now = wall_ms();
  bool any_held = false, all_held = true, quiet = true;
  for (const auto& c : clients_) {
    if (c->fd < 0) continue;
    const bool held = c->hold != Hold::None;
    const bool idle = now - c->last_ms >= options_.grace_ms;
    if (!held && !idle) return false;  // a process is running: time waits for it
    any_held |= held;
    all_held &= held;
    quiet &= now - c->last_ms >= options_.grace_ms;  // no verb from it for the grace time
  }
  if (!far) return true;
  return any_held && (all_held || quiet);
}

void VerbsServer::run_model() {
  while (sc_core::sc_pending_activity()) {
    const uint64_t to_next = sc_core::sc_time_to_pending_activity().value();
    if (!may_run(to_next > options_.near_ps)) return;
    wake_ = false;
    in_model_ = true;
    sc_core::sc_start(sc_core::sc_time::from_value(std::max(to_next, options_.near_ps)),
                      sc_core::SC_EXIT_ON_STARVATION);
    in_model_ = false;
    if (wake_) return;
  }
}

void VerbsServer::serve(const volatile std::sig_atomic_t& stop, const std::function<void()>& after_model) {
  std::vector<pollfd> fds;
  while (stop == 0) {
    accept_clients();
    drain();
    run_model();
    answer_held(!sc_core::sc_pending_activity());
    if (after_model) after_model();
    // Wait for a request, a connection, or until an idle process lets the model run.
    fds.clear();
    fds.push_back({listen_fd_, POLLIN, 0});
    int timeout = 1000;
    const uint64_t now = wall_ms();
    bool any_held = false;
    for (const auto& c : clients_) {
      if (c->fd < 0) continue;
      if (c->hold == Hold::None) fds.push_back({c->fd, POLLIN, 0});
      any_held |= c->hold != Hold::None;
      const uint64_t since = now - c->last_ms;
      if (since < options_.grace_ms) timeout = std::min<int>(timeout, static_cast<int>(options_.grace_ms - since) + 1);
    }
    if (any_held && sc_core::sc_pending_activity() && may_run(false)) timeout = 0;
    if (timeout > 0) ::poll(fds.data(), fds.size(), timeout);
  }
}

// ---- reports ---------------------------------------------------------------

namespace {
nlohmann::json percentiles_us(const trace::Histogram& h) {
  return {{"count", h.count()},
          {"min", static_cast<double>(h.min()) / 1e6},
          {"mean", h.mean() / 1e6},
          {"p50", static_cast<double>(h.quantile(0.5)) / 1e6},
          {"p99", static_cast<double>(h.quantile(0.99)) / 1e6},
          {"max", static_cast<double>(h.max()) / 1e6}};
}

double gbps(const VerbsQpReport& q) {
  if (q.last_completion_ps <= q.first_post_ps) return 0;
  return static_cast<double>(q.bytes_posted) * 8e3 / static_cast<double>(q.last_completion_ps - q.first_post_ps);
}
}  // namespace

nlohmann::json VerbsServer::json() const {
  nlohmann::json clients = nlohmann::json::array();
  for (const auto& c : clients_) {
    if (!c->hello) continue;
    nlohmann::json qps = nlohmann::json::array();
    for (const auto& [qpn, q] : c->qps) {
      nlohmann::json j = {{"qpn", qpn},
                          {"type", transport::to_string(q.type)},
                          {"sends_posted", q.sends_posted},
                          {"bytes_posted", q.bytes_posted},
                          {"send_completions", q.send_completions},
                          {"send_errors", q.send_errors},
                          {"receives", q.receives},
                          {"bytes_received", q.bytes_received},
                          {"receive_errors", q.receive_errors},
                          {"first_post_us", static_cast<double>(q.first_post_ps) / 1e6},
                          {"last_completion_us", static_cast<double>(q.last_completion_ps) / 1e6},
                          {"bandwidth_gbps", gbps(q)}};
      if (q.latency.count() > 0) j["latency_us"] = percentiles_us(q.latency);
      if (q.post_interval.count() > 0) j["post_interval_us"] = percentiles_us(q.post_interval);
      qps.push_back(std::move(j));
    }
    clients.push_back({{"client", c->number},
                       {"program", c->program},
                       {"pid", c->pid},
                       {"device", "hcasim" + std::to_string(c->hca)},
                       {"hca", fabric_.spec().nodes[fabric_.node_of_hca(c->hca)].name},
                       {"connected", c->fd >= 0},
                       {"dma_bytes_read", c->memory ? c->memory->bytes_read() : 0},
                       {"dma_bytes_written", c->memory ? c->memory->bytes_written() : 0},
                       {"dma_failures", c->memory ? c->memory->failures() : 0},
                       {"qps", std::move(qps)}});
  }
  return {{"socket", socket_name_}, {"protocol_errors", protocol_errors_}, {"clients", std::move(clients)}};
}

void VerbsServer::print_report(std::ostream& out) const {
  for (const auto& c : clients_) {
    if (!c->hello) continue;
    for (const auto& [qpn, q] : c->qps) {
      char line[320];
      std::snprintf(line, sizeof line,
                    "hcasim serve: %s (pid %d, hcasim%u) QP %u %s: %llu sends, %llu bytes, %.3f Gb/s; %llu receives, "
                    "%llu bytes",
                    c->program.c_str(), static_cast<int>(c->pid), c->hca, qpn, transport::to_string(q.type),
                    static_cast<unsigned long long>(q.sends_posted), static_cast<unsigned long long>(q.bytes_posted),
                    gbps(q), static_cast<unsigned long long>(q.receives),
                    static_cast<unsigned long long>(q.bytes_received));
      out << line;
      if (q.latency.count() > 0) {
        std::snprintf(line, sizeof line, "; doorbell to CQE p50 %.3f us, p99 %.3f us",
                      static_cast<double>(q.latency.quantile(0.5)) / 1e6,
                      static_cast<double>(q.latency.quantile(0.99)) / 1e6);
        out << line;
      }
      if (q.send_errors + q.receive_errors > 0) out << "; " << q.send_errors + q.receive_errors << " error completions";
      out << "\n";
    }
  }
}

}  // namespace hcasim::serve
