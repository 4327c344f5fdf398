#include "testbench/workloads/perftest_bound.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "models/hca/host_formats.hpp"
#include "models/ib/layout.hpp"
#include "models/ib/opcodes.hpp"
#include "models/pcie/tlp_math.hpp"
#include "models/transport/message_layout.hpp"

namespace hcasim::workloads {

namespace {

using config::PerftestKind;
using transport::QpType;
using transport::WrOpcode;

std::string format(const char* f, double a, double b = 0, double c = 0, double d = 0) {
  char text[200];
  std::snprintf(text, sizeof text, f, a, b, c, d);
  return text;
}

double ns(uint64_t ps) { return static_cast<double>(ps) / 1e3; }

WrOpcode wr_opcode(PerftestKind k) {
  return k == PerftestKind::ReadBw ? WrOpcode::RdmaRead : k == PerftestKind::SendBw ? WrOpcode::Send : WrOpcode::RdmaWrite;
}

// LRH through VCRC plus framing, of a packet with this opcode and payload (IBA local: no GRH).
double wire(uint8_t opcode, uint64_t payload, uint32_t framing) {
  ib::Headers h{};
  h.bth.opcode = opcode;
  return ib::packet_wire_bytes(h, static_cast<uint32_t>(payload)) + framing;
}

// The bytes on the wire of a message's packets: requests, or READ responses.
double message_wire(const PerftestBoundInput& in, bool responses) {
  const uint32_t count = transport::packet_count(in.bytes, in.mtu);
  const WrOpcode op = wr_opcode(in.test);
  double sum = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const uint64_t payload = i + 1 < count ? in.mtu : in.bytes - uint64_t{in.mtu} * (count - 1);
    const uint8_t opcode = responses ? transport::read_response_opcode(transport::position(i, count))
                                     : transport::request_opcode(in.qp_type, op, i, count);
    sum += wire(opcode, payload, in.framing_bytes);
  }
  return sum;
}

// ACKs the server sends per message of P request packets (RC write and send).
double acks_per_message(const PerftestBoundInput& in, uint32_t packets) {
  if (in.qp_type != QpType::Rc || in.test == PerftestKind::ReadBw) return 0;
  const transport::TransportConfig& u = in.server.units;
  return u.ack_coalescing && u.ack_req == transport::AckReqPolicy::LastPacket ? 1 : packets;
}

// Keeps the lesser of the two sides' bounds of one kind (a non-finite one is none).
void add(std::vector<Bound>& out, Bound client, Bound server) {
  const bool c = std::isfinite(client.msgs_per_s), s = std::isfinite(server.msgs_per_s);
  if (!c && !s) return;
  out.push_back(!s || (c && client.msgs_per_s <= server.msgs_per_s) ? std::move(client) : std::move(server));
}

Bound none(BoundKind k, bool client) { return {k, client, INFINITY, ""}; }

std::pair<Bound, Bound> cpu(const PerftestBoundInput& in) {
  const uint32_t list = std::min(in.post_list, in.outstanding);
  const uint32_t moderation = std::min(in.cq_moderation, in.outstanding);
  const bool inlined = in.test != PerftestKind::ReadBw && in.bytes <= in.inline_size;
  const uint32_t wqe = hca::send_wqe_bytes(in.qp_type, wr_opcode(in.test), inlined ? 0 : 1,
                                           inlined ? static_cast<uint32_t>(in.bytes) : 0);
  const HostCosts& c = in.client.cpu;
  const bool bf = c.blueflame && list == 1 && wqe <= hca::kBlueFlameBytes;
  const double ring = bf ? static_cast<double>(c.blueflame_ps) : static_cast<double>(c.doorbell_ps) / list;
  const double poll = static_cast<double>(c.poll_ps) / (static_cast<double>(moderation) * c.cqes_per_poll);
  const double per_wr = static_cast<double>(c.post_ps) + ring + poll;  // ps
  const double busiest = std::ceil(static_cast<double>(in.qps) / in.threads);      // QPs on the busiest thread
  const auto rate = [&in, busiest](double ps) { return ps > 0 ? in.qps / (busiest * ps) * 1e12 : INFINITY; };
  char text[200];
  std::snprintf(text, sizeof text, "%u thread%s, %.1f ns per WR each: post %.1f + %s %.1f + poll %.1f / %u",
                in.threads, in.threads == 1 ? "" : "s", per_wr / 1e3, ns(c.post_ps), bf ? "BlueFlame" : "doorbell",
                ring / 1e3, ns(c.poll_ps), moderation * c.cqes_per_poll);
  Bound client{BoundKind::Cpu, true, rate(per_wr), text};
  Bound server = none(BoundKind::Cpu, false);
  if (in.test == PerftestKind::SendBw) {
    const HostCosts& s = in.server.cpu;
    const double per_recv = static_cast<double>(s.post_ps) + static_cast<double>(s.poll_ps) / s.cqes_per_poll;
    std::snprintf(text, sizeof text, "%u server thread%s, %.1f ns per receive each: post %.1f + poll %.1f / %u",
                  in.threads, in.threads == 1 ? "" : "s", per_recv / 1e3, ns(s.post_ps), ns(s.poll_ps),
                  s.cqes_per_poll);
    server = {BoundKind::Cpu, false, rate(per_recv), text};
  }
  return {client, server};
}

Bound units(BoundKind kind, bool client, uint32_t units, uint32_t qps, double ps_per_message, const std::string& what) {
  if (ps_per_message <= 0) return none(kind, client);
  const uint32_t busy = std::min(units, qps);
  return {kind, client, busy / ps_per_message * 1e12,
          format("%.0f units x %.1f ns per message: ", busy, ps_per_message / 1e3) + what};
}

std::pair<Bound, Bound> tx_units(const PerftestBoundInput& in) {
  const uint32_t packets = transport::packet_count(in.bytes, in.mtu);
  const transport::TransportConfig& c = in.client.units;
  const transport::TransportConfig& s = in.server.units;
  const bool read = in.test == PerftestKind::ReadBw;
  const uint32_t requests = read ? 1 : packets;
  const double client_ps = static_cast<double>(c.wqe_parse_ps) + requests * static_cast<double>(c.packet_build_ps);
  const std::string client_what = format("wqe_parse %.1f + %.0f x packet_build %.1f", ns(c.wqe_parse_ps), requests,
                                         ns(c.packet_build_ps));
  const double acks = acks_per_message(in, packets);
  const double server_ps = read ? packets * static_cast<double>(s.packet_build_ps)
                                : acks * static_cast<double>(s.ack_generation_ps);
  const std::string server_what = read ? format("%.0f READ responses x packet_build %.1f", packets, ns(s.packet_build_ps))
                                       : format("%.0f ACKs x ack_generation %.1f", acks, ns(s.ack_generation_ps));
  return {units(BoundKind::TxUnits, true, c.tx_units, in.qps, client_ps, client_what),
          units(BoundKind::TxUnits, false, s.tx_units, in.qps, server_ps, server_what)};
}

std::pair<Bound, Bound> rx_units(const PerftestBoundInput& in) {
  const uint32_t packets = transport::packet_count(in.bytes, in.mtu);
  const bool read = in.test == PerftestKind::ReadBw;
  const double to_server = read ? 1 : packets;
  const double to_client = read ? packets : acks_per_message(in, packets);
  const auto side = [&in](bool client, const transport::TransportConfig& u, double received) {
    if (u.rx_units == 0) return none(BoundKind::RxUnits, client);
    return units(BoundKind::RxUnits, client, u.rx_units, in.qps, received * static_cast<double>(u.receive_parse_ps),
                 format("%.0f packets x receive_parse %.1f", received, ns(u.receive_parse_ps)));
  };
  return {side(true, in.client.units, to_client), side(false, in.server.units, to_server)};
}

Bound link(const PerftestBoundInput& in) {
  const bool read = in.test == PerftestKind::ReadBw;
  const uint32_t packets = transport::packet_count(in.bytes, in.mtu);
  const double forward = read ? wire(transport::request_opcode(in.qp_type, WrOpcode::RdmaRead, 0, 1), 0, in.framing_bytes)
                              : message_wire(in, false);
  const double reverse = read ? message_wire(in, true)
                              : acks_per_message(in, packets) * wire(ib::op::kRcAck, 0, in.framing_bytes);
  const double busier = std::max(forward, reverse);
  if (in.link_bps <= 0 || busier <= 0) return none(BoundKind::Link, true);
  return {BoundKind::Link, true, in.link_bps / 8 / busier,
          format("%.1f Gb/s, %.0f B per message on the wire, ", in.link_bps / 1e9, busier) +
              (forward >= reverse ? "client to server" : "server to client")};
}

std::pair<Bound, Bound> pcie_bounds(const PerftestBoundInput& in) {
  const bool read = in.test == PerftestKind::ReadBw;
  const bool inlined = !read && in.bytes <= in.inline_size;
  const auto side = [&in](bool client, const pcie::PcieConfig& p, bool reads) {
    if (p.ideal || in.bytes == 0) return none(BoundKind::Pcie, client);
    const double bps = reads ? pcie::reference_read_bps(p, in.bytes) : pcie::reference_write_bps(p, in.bytes);
    char text[160];
    std::snprintf(text, sizeof text, "Gen%u x%u, a DMA %s of %llu B per message", p.gen, p.lanes,
                  reads ? "read" : "write", static_cast<unsigned long long>(in.bytes));
    return Bound{BoundKind::Pcie, client, bps / 8 / static_cast<double>(in.bytes), text};
  };
  // write, send: the client's HCA reads the payload (unless inline), the server's writes it; read: the reverse.
  Bound client = inlined ? none(BoundKind::Pcie, true) : side(true, in.client.pcie, !read);
  return {client, side(false, in.server.pcie, read)};
}

}  // namespace

std::vector<Bound> perftest_bounds(const PerftestBoundInput& in) {
  std::vector<Bound> out;
  const auto [cpu_c, cpu_s] = cpu(in);
  add(out, cpu_c, cpu_s);
  const auto [tx_c, tx_s] = tx_units(in);
  add(out, tx_c, tx_s);
  const auto [rx_c, rx_s] = rx_units(in);
  add(out, rx_c, rx_s);
  add(out, link(in), none(BoundKind::Link, false));
  const auto [pcie_c, pcie_s] = pcie_bounds(in);
  add(out, pcie_c, pcie_s);
  return out;
}

const Bound* least_bound(const std::vector<Bound>& bounds) {
  const auto it = std::min_element(bounds.begin(), bounds.end(),
                                   [](const Bound& a, const Bound& b) { return a.msgs_per_s < b.msgs_per_s; });
  return it == bounds.end() ? nullptr : &*it;
}

const char* bound_key(BoundKind k) {
  switch (k) {
    case BoundKind::Cpu: return "cpu";
    case BoundKind::TxUnits: return "tx_units";
    case BoundKind::RxUnits: return "rx_units";
    case BoundKind::Link: return "link";
    case BoundKind::Pcie: return "pcie";
  }
  return "";
}

const char* bound_title(BoundKind k) {
  switch (k) {
    case BoundKind::Cpu: return "CPU threads";
    case BoundKind::TxUnits: return "HCA transmit units";
    case BoundKind::RxUnits: return "HCA receive units";
    case BoundKind::Link: return "link data rate";
    case BoundKind::Pcie: return "PCIe";
  }
  return "";
}

}  // namespace hcasim::workloads
