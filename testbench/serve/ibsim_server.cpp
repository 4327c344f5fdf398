#include "testbench/serve/ibsim_server.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <systemc>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "models/ib/be_bytes.hpp"
#include "models/ib/mad.hpp"

namespace hcasim::serve {

namespace {

using ibsim::Request;

uint8_t mgmt_class(const Request& r) { return r.mad[1]; }

}  // namespace

IbsimServer::IbsimServer(fabric::Fabric& fabric, ServeOptions options)
    : fabric_(fabric), options_(std::move(options)), directory_(fabric),
      control_(directory_, [this](unsigned client, uint32_t pid) { return attach(client, pid); }),
      client_fd_(ibsim::kMaxClients, -1) {
  const SocketAddress ctl = server_ctl(options_.sockets);
  ctl_fd_ = bound_socket(ctl);
  if (ctl_fd_ < 0)
    throw std::runtime_error("serve: cannot bind the control socket '" + describe(ctl) + "': " + std::strerror(errno) +
                             (options_.sockets.udp ? " (another server on the port? --udp PORT picks another)"
                                                   : " (another ibsim or hcasim serve uses the name? --ibsim NAME picks another)"));
  for (unsigned n = 0; n < fabric_.spec().nodes.size(); ++n)
    fabric_.mad_node(n)->on_external([this, n](const mgmt::MadNode::ExternalMad& m) { from_model(static_cast<int>(n), m); });
}

IbsimServer::~IbsimServer() {
  for (unsigned n = 0; n < fabric_.spec().nodes.size(); ++n) fabric_.mad_node(n)->on_external(nullptr);
  for (int fd : client_fd_)
    if (fd >= 0) ::close(fd);
  if (ctl_fd_ >= 0) ::close(ctl_fd_);
}

bool IbsimServer::attach(unsigned client, uint32_t pid) {
  if (client_fd_[client] >= 0) ::close(client_fd_[client]);
  client_fd_[client] = -1;
  const int fd = bound_socket(server_out(options_.sockets, client));
  if (fd < 0) return false;
  if (!connect_to(fd, client_in(options_.sockets, pid, ctl_from_))) {
    ::close(fd);
    return false;
  }
  client_fd_[client] = fd;
  return true;
}

void IbsimServer::sync_sockets() {
  for (unsigned i = 0; i < ibsim::kMaxClients; ++i) {
    if (client_fd_[i] < 0 || control_.client(i).attached) continue;
    ::close(client_fd_[i]);
    client_fd_[i] = -1;
    pending_.erase(std::remove_if(pending_.begin(), pending_.end(), [i](const Pending& p) { return p.client == i; }),
                   pending_.end());
  }
  stats_.clients_attached_peak = std::max<uint64_t>(stats_.clients_attached_peak, control_.attached());
}

uint64_t IbsimServer::wall_ms() const {
  using namespace std::chrono;
  return static_cast<uint64_t>(duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count());
}

bool IbsimServer::drain() {
  bool any = false;
  uint8_t buf[1024];
  for (;;) {
    SocketAddress from;
    from.length = sizeof(from.bytes);
    const ssize_t n = ::recvfrom(ctl_fd_, buf, sizeof(buf), 0, reinterpret_cast<sockaddr*>(&from.bytes), &from.length);
    if (n < 0) break;
    any = true;
    control_message(buf, static_cast<std::size_t>(n), from);
  }
  for (unsigned i = 0; i < ibsim::kMaxClients; ++i) {
    for (;;) {
      if (client_fd_[i] < 0) break;
      const ssize_t n = ::recv(client_fd_[i], buf, sizeof(buf), 0);
      if (n < 0) break;
      any = true;
      client_mad(i, buf, static_cast<std::size_t>(n));
    }
  }
  return any;
}

void IbsimServer::control_message(const uint8_t* bytes, std::size_t size, const SocketAddress& from) {
  const std::optional<ibsim::Ctl> c = ibsim::decode_ctl(bytes, size);
  if (!c) {
    ++stats_.discarded;
    return;
  }
  ctl_from_ = from;  // a CONNECT's client: its MAD socket's address (ibsim_sockets.hpp)
  const std::optional<ibsim::Ctl> answer = control_.handle(*c);
  sync_sockets();
  if (!answer) return;
  const auto out = ibsim::encode_ctl(*answer);
  ::sendto(ctl_fd_, out.data(), out.size(), 0, from.get(), from.length);
}

void IbsimServer::client_mad(unsigned client, const uint8_t* bytes, std::size_t size) {
  std::optional<Request> r = ibsim::decode_request(bytes, size);
  if (!r || !ibsim::refusal(*r).empty()) {
    ++stats_.discarded;
    return;
  }
  const ibsim::Control::Client& cl = control_.client(client);
  ++stats_.mads_in[mgmt_class(*r)];
  const bool response = ibsim::is_response(*r);
  if (!response) ibsim::set_tid(*r, ibsim::with_server_tag(ibsim::tid(*r), static_cast<uint16_t>(client)));
  trace("from", client, *r);
  mgmt::MadNode& node = *fabric_.mad_node(static_cast<unsigned>(cl.node));
  if (!node.send_external(cl.port, r->mad.data(), r->dlid, r->dqp, r->sqp)) {
    if (!response) bounce(client, *r);
    return;
  }
  injected_ = true;
  // A TrapRepress and a response expect no answer.
  if (!response && r->mad[3] != ib::kMethodTrapRepress)
    pending_.push_back({client, *r, sc_core::sc_time_stamp().value()});
}

void IbsimServer::from_model(int node, const mgmt::MadNode::ExternalMad& m) {
  Request r;
  std::copy(m.mad, m.mad + ibsim::kMadBytes, r.mad.begin());
  r.dlid = fabric_.mad_node(static_cast<unsigned>(node))->lid(m.port);
  r.slid = m.slid;
  r.dqp = m.dest_qp;
  r.sqp = m.src_qp;
  r.length = ibsim::kMadBytes;
  const bool response = ibsim::is_response(r);
  const uint64_t t = ibsim::tid(r);
  const unsigned asker = ibsim::server_tag(t);
  const int to = control_.client_for(node, m.port, response, m.dest_qp, t);
  const auto give_back = [&] {  // a request nobody could take goes back to its sender
    if (response || asker >= ibsim::kMaxClients || !control_.client(asker).attached) return;
    forget(asker, t);
    bounce(asker, r);
  };
  if (to < 0) {
    ++stats_.unclaimed;
    give_back();
    return;
  }
  if (r.mad[3] == ib::kMethodTrap) ++stats_.traps_forwarded;
  if (!send_to(static_cast<unsigned>(to), r)) {
    give_back();
    return;
  }
  // A client has something to act on: simulated time waits for it (the rules).
  holding_ = true;
  activity_ms_ = wall_ms();
  if (in_model_) sc_core::sc_pause();
  if (response && static_cast<unsigned>(to) == asker) {
    ++stats_.answered;
    forget(asker, t);
  } else if (!response && asker < ibsim::kMaxClients && control_.client(asker).attached) {
    ++stats_.handed_over;
    forget(asker, t);
  }
}

void IbsimServer::forget(unsigned client, uint64_t tid) {
  const auto it = std::find_if(pending_.begin(), pending_.end(), [&](const Pending& p) {
    return p.client == client && ibsim::tid(p.request) == tid;
  });
  if (it != pending_.end()) pending_.erase(it);
}

bool IbsimServer::send_to(unsigned client, const Request& r) {
  const int fd = client_fd_[client];
  if (fd < 0) return false;
  const auto bytes = ibsim::encode_request(r);
  ssize_t n;
  do n = ::send(fd, bytes.data(), bytes.size(), 0);
  while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(bytes.size())) {
    trace("to", client, r);
    ++stats_.mads_out[mgmt_class(r)];
    return true;
  }
  if (n < 0 && (errno == ECONNREFUSED || errno == ENOTCONN)) {  // the process is gone
    ++stats_.dead_clients;
    ibsim::Ctl bye;
    bye.client = client;
    bye.type = static_cast<uint32_t>(ibsim::CtlType::Disconnect);
    control_.handle(bye);
    sync_sockets();
  }
  return false;
}

void IbsimServer::bounce(unsigned client, Request r) {
  r.status = ibsim::kStatusUndelivered;
  ++stats_.undelivered;
  send_to(client, r);
}

void IbsimServer::trace(const char* what, unsigned client, const Request& r) const {
  if (!options_.trace) return;
  std::fprintf(stderr,
               "serve %s client %u at %llu ps: class 0x%02x method 0x%02x attr 0x%04x mod 0x%08x tid 0x%016llx "
               "dlid %u slid %u dqp %u sqp %u status %u\n",
               what, client, static_cast<unsigned long long>(sc_core::sc_time_stamp().value()), r.mad[1], r.mad[3],
               ib::get_be16(r.mad.data() + 16), ib::get_be32(r.mad.data() + 20),
               static_cast<unsigned long long>(ibsim::tid(r)), r.dlid, r.slid, r.dqp, r.sqp, r.status);
}

bool IbsimServer::wait_readable(int timeout_ms) const {
  std::vector<pollfd> fds{{ctl_fd_, POLLIN, 0}};
  for (int fd : client_fd_)
    if (fd >= 0) fds.push_back({fd, POLLIN, 0});
  return ::poll(fds.data(), fds.size(), timeout_ms) > 0;
}

void IbsimServer::bounce_lost(uint64_t older_than_ps) {
  const uint64_t now = sc_core::sc_time_stamp().value();
  std::vector<Pending> keep, lost;
  for (Pending& p : pending_) (now - p.since_ps >= older_than_ps ? lost : keep).push_back(std::move(p));
  pending_.swap(keep);
  for (Pending& p : lost)
    if (control_.client(p.client).attached) bounce(p.client, p.request);
}

void IbsimServer::run_model() {
  using sc_core::sc_time;
  while (sc_core::sc_pending_activity()) {
    const uint64_t to_next = sc_core::sc_time_to_pending_activity().value();
    const bool quiet = control_.attached() > 0 && wall_ms() - activity_ms_ >= options_.quiet_ms;
    if (quiet) holding_ = false;
    // The clients act on what they got: time waits for them.
    if (holding_ && pending_.empty() && !injected_) return;
    if (to_next > options_.near_ps && !quiet) break;
    injected_ = false;
    in_model_ = true;
    sc_core::sc_start(sc_time::from_value(std::max(to_next, options_.near_ps)), sc_core::SC_EXIT_ON_STARVATION);
    in_model_ = false;
    bounce_lost(options_.near_ps + 1);
    if (wait_readable(0)) return;
  }
  bounce_lost(0);  // nothing due soon: what is still in the model was lost there
}

void IbsimServer::serve(const volatile std::sig_atomic_t& stop, const std::function<void()>& after_model) {
  activity_ms_ = wall_ms();
  while (stop == 0) {
    if (drain()) activity_ms_ = wall_ms();
    run_model();
    if (after_model) after_model();
    if (stop != 0 || wait_readable(0)) continue;
    // Wait for a datagram, or until held or far work may run.
    int timeout = 1000;
    if (sc_core::sc_pending_activity() && control_.attached() > 0) {
      const uint64_t waited = wall_ms() - activity_ms_;
      timeout = waited >= options_.quiet_ms ? 0 : static_cast<int>(options_.quiet_ms - waited);
    }
    wait_readable(timeout);
  }
}

nlohmann::json IbsimServer::json() const {
  const auto by_class = [](const std::map<uint8_t, uint64_t>& m) {
    nlohmann::json o = nlohmann::json::object();
    for (const auto& [cls, n] : m) {
      char name[8];
      std::snprintf(name, sizeof(name), "0x%02x", cls);
      o[name] = n;
    }
    return o;
  };
  const ibsim::ControlStats& c = control_.stats();
  return {{"clients_attached", control_.attached()},
          {"clients_attached_peak", stats_.clients_attached_peak},
          {"connects", c.connects},
          {"disconnects", c.disconnects},
          {"control_messages", c.messages},
          {"control_errors", c.errors},
          {"mads_in", by_class(stats_.mads_in)},
          {"mads_out", by_class(stats_.mads_out)},
          {"answered", stats_.answered},
          {"handed_over", stats_.handed_over},
          {"status_110", stats_.undelivered},
          {"traps_forwarded", stats_.traps_forwarded},
          {"discarded", stats_.discarded + c.bad_magic},
          {"unclaimed", stats_.unclaimed},
          {"dead_clients", stats_.dead_clients}};
}

}  // namespace hcasim::serve
