#include "models/switch/switch.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include "models/ib/layout.hpp"
#include "models/link/owned_in_place.hpp"
#include "models/link/timeline.hpp"
#include "models/link/credits.hpp"
#include "models/switch/adaptive_router.hpp"
#include "models/switch/congestion_marker.hpp"
#include "models/switch/crossbar_allocator.hpp"
#include "models/switch/shared_buffer_pool.hpp"
#include "models/switch/voq_crossbar.hpp"

namespace hcasim::sw {

namespace {

using link::now_ps;

std::size_t checked_port_count(const std::vector<link::PortConfig>& ports) {
  if (ports.empty() || ports.size() > kMaxSwitchPorts)
    throw std::invalid_argument("switch with " + std::to_string(ports.size()) + " ports; accepted: 1.." +
                                std::to_string(kMaxSwitchPorts));
  return ports.size();
}

std::vector<unsigned> operational_vls(const std::vector<link::PortConfig>& ports) {
  std::vector<unsigned> vls;
  for (const link::PortConfig& c : ports) vls.push_back(c.effective_vls());
  return vls;
}

// Each output port's tables as it serves them (the crossbar copies its arbiter).
std::vector<link::VlArbConfig> arbitration(const std::vector<link::PortConfig>& ports) {
  std::vector<link::VlArbConfig> v;
  for (const link::PortConfig& c : ports)
    v.push_back(link::operational_tables(link::resolved_vlarb(c), c.effective_vls()));
  return v;
}

// The voq and shared architectures' crossbar, or null for the FIFO ones. A
// shared switch's inputs are one memory: their reads are not limited (16).
constexpr unsigned kSharedReads = 16;
std::unique_ptr<VoqCrossbar> voq_crossbar(const SwitchConfig& config, const std::vector<link::PortConfig>& ports) {
  if (config.architecture != Architecture::Voq && config.architecture != Architecture::Shared) return nullptr;
  unsigned vls = 1;
  for (const link::PortConfig& c : ports) vls = std::max(vls, c.effective_vls());
  const unsigned reads = config.architecture == Architecture::Shared ? kSharedReads : config.max_concurrent_reads;
  return std::make_unique<VoqCrossbar>(arbitration(ports), vls, reads);
}

}  // namespace

using Grant = CrossbarAllocator::Grant;

// Laid out for a packet's arrival: its route reads the port list and the
// forwarding table's leading members, in the first line.
struct alignas(64) Switch::Impl {
  // What one input port is moving through the crossbar.
  struct Transfer {
    Transfer(Impl& sw, link::Port& input, unsigned in) : sw(sw), input(input), in(in) {}
    void on_done() { sw.on_transfer_end(*this); }
    // What on_done reads first: the input VL's buffer and next packet, and
    // the crossbar's state of the input and output it frees.
    void warm_done() const {
      input.warm_release(vl);
      sw.alloc.warm_release(in, out);
    }
    void on_submit() { sw.on_held(*this); }
    Impl& sw;
    link::Port& input;
    unsigned in;                  // its input index
    unsigned read = 0;            // voq: which of the input's reads
    unsigned vl = 0;              // input VL
    unsigned out = 0;             // output index
    uint32_t bytes = 0;           // wire bytes
    ib::Packet* held = nullptr;   // cut-through: not yet in the output queue (under-run guard)
    uint8_t held_vl = 0;          // its output VL
    link::Alarm done = link::Alarm::method<&Transfer::on_done, &Transfer::warm_done>(this);  // the transfer ends
    link::Alarm submit = link::Alarm::method<&Transfer::on_submit>(this);  // the held packet may enter the output queue
  };

  Impl(const SwitchConfig& config, const std::vector<link::PortConfig>& configs, ib::PacketPool& pool)
      : ports(checked_port_count(configs)), table(operational_vls(configs)), config(config), pool(pool),
        alloc(static_cast<unsigned>(configs.size()), arbitration(configs)), voq(voq_crossbar(config, configs)),
        reads(voq != nullptr ? voq->max_reads() : 1), transfers(configs.size() * reads),
        free_reads(configs.size(), static_cast<uint16_t>((1u << reads) - 1)) {
    const bool cut_through = config.forwarding == Forwarding::CutThrough;
    const link::Lifetimes lifetimes{config.hoq_life_ps, config.switch_life_ps, config.vl_stall_count};
    const auto shared = link::share_port_configs(configs);
    for (unsigned i = 0; i < configs.size(); ++i) {
      const std::string name = "p" + std::to_string(i + 1);
      link::Port& p = ports.emplace_back(name.c_str(), shared[i], pool);
      p.set_rx_timing(cut_through, config.latency_ps);
      p.set_lifetimes(lifetimes);
      for (unsigned r = 0; r < reads; ++r) transfers.emplace_back(*this, p, i).read = r;
      // Each architecture its own handlers: the FIFO ones pay no test for voq's.
      if (voq == nullptr) p.on_rx_ready([this, i] { on_arrival(i); });
      else p.on_rx_ready([this, i] { on_arrival_voq(i); });
    }
    set_agent(nullptr);
    if (config.architecture == Architecture::Shared) make_pool(config.shared);
  }

  // shared: the pool, every input VL starting at its reserved share.
  void make_pool(const SharedBufferConfig& c) {
    uint64_t total = c.pool_bytes / link::kCreditBlockBytes;
    uint32_t input_vls = 0;
    for (unsigned i = 0; i < ports.size(); ++i) {
      pool_base.push_back(input_vls);
      input_vls += ports[i].vl_count();
      if (c.pool_bytes == 0)
        for (unsigned vl = 0; vl < ports[i].vl_count(); ++vl) total += ports[i].rx_capacity_blocks(vl);
    }
    const auto reserved = static_cast<uint32_t>(c.reserved_bytes / link::kCreditBlockBytes);
    buffers = std::make_unique<SharedBufferPool>(input_vls, total, reserved, c.alpha);
    for (unsigned i = 0; i < ports.size(); ++i)
      for (unsigned vl = 0; vl < ports[i].vl_count(); ++vl) ports[i].set_rx_capacity(vl, reserved);
  }

  // shared: an input VL received or freed space; its draw on the pool again.
  void resize(unsigned in, unsigned vl) {
    if (vl == link::kVl15) return;
    link::Port& p = ports[in];
    p.set_rx_capacity(vl, buffers->resize(pool_base[in] + vl, p.rx_committed_blocks(vl)));
  }

  // A port's transmit-room handler tells the agent, when there is one, then
  // the crossbar; without an agent it reads nothing of the switch's state
  // before the allocator's record of that output (which the port prefetches).
  void set_agent(link::ManagementAgent* a) {
    agent = a;
    for (unsigned i = 0; i < ports.size(); ++i) {
      if (agent != nullptr) {
        ports[i].on_tx_space([this, i] {
          agent->tx_space(i + 1);
          if (voq == nullptr) on_space(i);
          else on_space_voq(i);
        }, alloc.output_state(i));
      } else if (voq == nullptr) {
        ports[i].on_tx_space([this, i] { on_space(i); }, alloc.output_state(i));
      } else {
        ports[i].on_tx_space([this, i] { on_space_voq(i); }, alloc.output_state(i));
      }
    }
  }

  // The routed head packet of an input VL (its request) fits its output VL's queue.
  bool room(unsigned in, unsigned vl, unsigned out) const {
    return ports[out].tx_has_room(alloc.requested_vl(in, vl), alloc.requested_bytes(in, vl));
  }
  auto ok() {
    return [this](unsigned in, unsigned vl, unsigned out) { return room(in, vl, out); };
  }
  // voq: the output VL's transmit queue has room for a packet of `bytes`.
  auto voq_room() const {
    return [this](unsigned out, unsigned vl, uint32_t bytes) { return ports[out].tx_has_room(vl, bytes); };
  }

  void on_arrival(unsigned in) {
    // Data VLs in order, then VL15 (bit 15).
    for (uint32_t ready = ports[in].rx_ready_vls(); ready != 0; ready &= ready - 1)
      route_heads(in, static_cast<unsigned>(__builtin_ctz(ready)));
  }
  void on_arrival_voq(unsigned in) {
    for (uint32_t ready = ports[in].rx_ready_vls(); ready != 0; ready &= ready - 1)
      queue_arrivals(in, static_cast<unsigned>(__builtin_ctz(ready)));
  }

  // Routes the head of an input VL until one waits in the crossbar or the
  // buffer is empty; drops and management packets leave at once.
  void route_heads(unsigned in, unsigned vl) {
    link::Port& input = ports[in];
    while (!input.rx_empty(vl) && !alloc.requesting(in, vl)) {
      const ib::Packet& head = *input.rx_front(vl);
      if (const auto to = route_head(in, vl)) {
        alloc.request(in, vl, to->out, to->vl, head.wire_len);
        if (auto g = alloc.after_request(in, vl, ok())) start(*g);
        return;
      }
    }
  }

  // voq: routes every packet of an input VL into its (output, VL) queue.
  void queue_arrivals(unsigned in, unsigned vl) {
    link::Port& input = ports[in];
    while (!input.rx_empty(vl)) {
      if (const auto to = route_head(in, vl))
        if (auto g = voq->enqueue(in, to->out, to->vl, input.rx_take(vl), voq_room())) start_voq(*g);
    }
    if (buffers != nullptr) resize(in, vl);
  }

  struct Destination {
    unsigned out = 0;  // output index
    unsigned vl = 0;   // output VL
  };
  // Where the head of an input VL goes; a packet that is dropped or goes to
  // management leaves the buffer here, and nullopt is returned.
  [[gnu::always_inline]] std::optional<Destination> route_head(unsigned in, unsigned vl) {
    link::Port& input = ports[in];
    const ib::Packet& head = *input.rx_front(vl);
    RouteDecision d = table.route(in + 1, head.hdr.lrh.dlid, head.hdr.lrh.sl, vl == link::kVl15);
    if (ar != nullptr && d.kind == RouteKind::Forward && vl != link::kVl15) adapt(in, head, d);
    if (d.kind == RouteKind::Forward) {
      link::Port& output = ports[d.out_port - 1];
      if (vl != link::kVl15 && (input.enforces_inbound() || output.enforces_outbound()) &&
          refuses_pkey(input, output, head, vl))
        return std::nullopt;
      link::DropReason why = link::DropReason::Count;
      if (output.peer() == nullptr) why = link::DropReason::LinkDown;
      else if (head.payload_len > output.mtu()) why = link::DropReason::MtuExceeded;
      else if (d.out_vl != link::kVl15 && d.out_vl >= output.vl_count()) why = link::DropReason::BadVl;
      if (why == link::DropReason::Count) return Destination{d.out_port - 1u, d.out_vl};
      output.discard(input.rx_pop(vl), d.out_vl, why);
    } else if (d.kind == RouteKind::Management) {
      ++stats.to_management;
      if (agent != nullptr) agent->deliver(input.rx_pop(vl), in + 1);
      else pool.release(input.rx_pop(vl));
    } else {
      input.discard(input.rx_pop(vl), vl, d.why);
    }
    return std::nullopt;
  }

  // Adaptive routing: a port of the DLID's group, when it has one, in place
  // of the LFT's; the packet's VL is that port's (SL-to-VL table of the pair).
  [[gnu::noinline]] void adapt(unsigned in, const ib::Packet& head, RouteDecision& d) {
    const uint8_t sl = head.hdr.lrh.sl & 0xF;
    const uint16_t g = ar->group(head.hdr.lrh.dlid, sl);
    if (g == 0) return;
    const auto vl_to = [&](uint8_t port) { return table.sl2vl(in + 1, port)[sl]; };
    // A port whose table drops the SL or names a VL it does not operate would
    // drop the packet: the most loaded of all.
    const auto load = [&](uint8_t port) {
      const unsigned out = port - 1u, v = vl_to(port);
      if (v >= ports[out].vl_count()) return UINT64_MAX;
      return uint64_t{ports[out].tx_queued_bytes(v)} + (voq != nullptr ? voq->bytes_for(out, v) : 0);
    };
    d.out_port = ar->choose(g, head.hdr.lrh.slid, head.hdr.lrh.dlid, now_ps(), load);
    d.out_vl = vl_to(d.out_port);
    if (d.out_vl == link::kVl15) {  // the chosen pair's table drops the SL (seed 004 Table 25-2)
      d.kind = RouteKind::Drop;
      d.why = link::DropReason::SlToVl15;
    }
  }

  // Partition enforcement (IBA 10.9.4): an enforcing port refuses a data
  // packet whose P_Key its table does not accept; the inbound check first.
  // The refusing port takes the packet (reject_pkey).
  bool refuses_pkey(link::Port& input, link::Port& output, const ib::Packet& head, unsigned vl) {
    if (!ib::is_iba_transport(head.hdr.lrh.lnh)) return false;
    const uint16_t key = head.hdr.bth.p_key;
    link::Port* refuses = input.enforces_inbound() && !input.pkey_accepts(key) ? &input
                          : output.enforces_outbound() && !output.pkey_accepts(key) ? &output
                                                                                     : nullptr;
    if (refuses == nullptr) return false;
    refuses->reject_pkey(input.rx_pop(vl));
    return true;
  }

  void start(const Grant& g) {
    ib::Packet* p = ports[g.input].rx_take(g.vl);
    move(transfers[g.input], p, g.vl, g.output, g.out_vl);
    route_heads(g.input, g.vl);  // the next packet of that VL is the head now
  }

  void start_voq(const VoqCrossbar::Grant& g) {
    const auto read = static_cast<unsigned>(__builtin_ctz(free_reads[g.input]));
    free_reads[g.input] = static_cast<uint16_t>(free_reads[g.input] & ~(1u << read));
    move(transfers[g.input * reads + read], g.packet, g.packet->hdr.lrh.vl, g.output, g.out_vl);
  }

  // Moves p (taken from input VL in_vl) through the crossbar to (out, out_vl) on transfer t.
  void move(Transfer& t, ib::Packet* p, unsigned in_vl, unsigned out, unsigned out_vl) {
    link::Port& output = ports[out];
    const uint32_t bytes = p->wire_len;
    t.vl = in_vl;
    t.out = out;
    t.bytes = bytes;
    ++stats.forwarded;
    const uint64_t now = now_ps();
    if (now > p->due_ps) stats.crossbar_wait_ps += now - p->due_ps;
    const double xbar_bps = speedup * output.timing().data_rate_bps();
    const uint64_t xfer = link::round_ps(8.0 * bytes * static_cast<double>(link::kPsPerSecond) / xbar_bps);
    // Cut-through: the output must not finish before the tail is in.
    const uint64_t out_ser = output.timing().serialization_ps(bytes);
    const uint64_t earliest = p->tail_ps > out_ser ? p->tail_ps - out_ser : 0;
    if (earliest > now) {
      t.held = p;
      t.held_vl = static_cast<uint8_t>(out_vl);
      t.submit.notify_at(earliest);
    } else {
      submit(out, p, out_vl, t.in, in_vl);
    }
    t.done.notify_at(std::max(now + xfer, p->tail_ps));
  }

  void submit(unsigned out, ib::Packet* p, unsigned vl, unsigned in, unsigned in_vl) {
    link::Port& output = ports[out];
    if (cc != nullptr) judge_congestion(out, *p, vl, in, in_vl);
    // Room was checked at the grant and the output takes nothing else from the
    // crossbar until this transfer ends, so the queue cannot refuse it.
    if (output.submit_on_vl(p, vl) == link::SubmitResult::Busy)
      output.discard(p, vl, link::DropReason::BufferOverflow);
  }

  void on_held(Transfer& t) {
    ib::Packet* p = t.held;
    t.held = nullptr;
    submit(t.out, p, t.held_vl, t.in, t.vl);
  }

  void on_transfer_end(const Transfer& t) {
    t.input.rx_release(t.vl, t.bytes);
    if (voq == nullptr) {
      for (const Grant& g : alloc.after_release(t.in, t.out, ok())) start(g);
      return;
    }
    free_reads[t.in] = static_cast<uint16_t>(free_reads[t.in] | (1u << t.read));
    if (buffers != nullptr) resize(t.in, t.vl);
    for (const VoqCrossbar::Grant& g : voq->after_release(t.in, t.out, voq_room())) start_voq(g);
  }

  void on_space_voq(unsigned out) {
    if (cc != nullptr) sample_congestion(out);
    if (!voq->output_busy(out))
      if (auto g = voq->after_room(out, voq_room())) start_voq(*g);
  }

  // Congestion control (congestion_marker.hpp): FECN on a packet entering a
  // congested output VL's queue. What waits for an output VL is its transmit
  // queue and, in a FIFO switch, every input VL buffer whose head requests it
  // (all of that buffer is behind the head), the packet's own input VL buffer
  // included (it still holds the packet's credits), so that a packet from a
  // nearly empty input is judged as one from a full one. In a voq or shared
  // switch it is the queues towards that output and the packet itself: the
  // rest of its input buffer waits for other outputs. Its buffer is the
  // transmit buffer plus one receive VL buffer of the port. The VL has credit
  // (a root, not a victim) when the downstream receiver has room for its whole
  // transmit queue and the packet.
  // Out of line (and off the hot path's code) so that submit stays small when
  // congestion control is off.
  [[gnu::noinline, gnu::cold]] void judge_congestion(unsigned out, ib::Packet& p, unsigned vl, unsigned in,
                                                     unsigned in_vl) {
    if (vl == link::kVl15 || !ib::is_iba_transport(p.hdr.lrh.lnh)) return;
    const link::Port& output = ports[out];
    const uint64_t own =
        voq != nullptr ? p.wire_len
                       : std::max<uint64_t>(uint64_t{ports[in].rx_used_blocks(in_vl)} * link::kCreditBlockBytes, p.wire_len);
    const ib::VlCongestionState state{waiting_bytes(out, vl) + own, congestion_buffer_bytes(out, vl),
                                      output.credits_available(vl) >= link::blocks_for(output.tx_queued_bytes(vl) + p.wire_len)};
    if (cc->judge(out + 1, vl, state, p.wire_len, now_ps())) p.hdr.bth.resv8a |= ib::kBthFecn;
  }

  uint64_t waiting_bytes(unsigned out, unsigned vl) const {
    uint64_t bytes = ports[out].tx_queued_bytes(vl);
    if (voq != nullptr) return bytes + voq->bytes_for(out, vl);
    alloc.for_each_request(out, [&](unsigned in, unsigned in_vl) {
      if (alloc.requested_vl(in, in_vl) == vl)
        bytes += uint64_t{ports[in].rx_used_blocks(in_vl)} * link::kCreditBlockBytes;
    });
    return bytes;
  }

  uint64_t congestion_buffer_bytes(unsigned out, unsigned vl) const {
    const link::Port& output = ports[out];
    return output.tx_buffer_bytes() + uint64_t{output.rx_capacity_blocks(vl)} * link::kCreditBlockBytes;
  }

  // After a transmission: the output's VLs may have left their congestion.
  [[gnu::noinline, gnu::cold]] void sample_congestion(unsigned out) {
    const uint64_t now = now_ps();
    for (unsigned vl = 0; vl < ports[out].vl_count(); ++vl)
      cc->update(out + 1, vl, waiting_bytes(out, vl), congestion_buffer_bytes(out, vl), now);
  }

  void on_space(unsigned out) {
    if (cc != nullptr) sample_congestion(out);
    if (alloc.requests_for(out) == 0 || alloc.output_busy(out)) return;
    if (auto g = alloc.after_room(out, ok())) start(*g);
  }

  link::OwnedInPlace<link::Port> ports;             // port number - 1, side by side
  ForwardingTable table;
  const SwitchConfig& config;
  ib::PacketPool& pool;
  CrossbarAllocator alloc;
  const double speedup = config.speedup;            // here, beside what start() reads, not in the config's line
  std::unique_ptr<VoqCrossbar> voq;                 // the voq architecture's; null: the FIFO ones (alloc)
  unsigned reads;                                   // transfers per input: voq's max_concurrent_reads, else 1
  link::OwnedInPlace<Transfer> transfers;           // by (input, read), side by side
  std::vector<uint16_t> free_reads;                 // voq: per input, a bit per read not moving a packet
  std::unique_ptr<SharedBufferPool> buffers;        // shared: the receive space; null otherwise
  std::vector<uint32_t> pool_base;                  // shared: per input, its VL 0's index in the pool
  SwitchStats stats;
  link::ManagementAgent* agent = nullptr;
  std::unique_ptr<CongestionMarker> cc;             // null: congestion control off
  std::unique_ptr<AdaptiveRouter> ar;               // null: adaptive routing off
};

Switch::Switch(const sc_core::sc_module_name& name, const SwitchConfig& config,
               const std::vector<link::PortConfig>& ports, uint16_t lid, ib::PacketPool& pool)
    : sc_module(name), config_(config), lid_(lid) {
  if (config.architecture == Architecture::Voq && (config.max_concurrent_reads == 0 || config.max_concurrent_reads > 16))
    throw std::invalid_argument("switch max_concurrent_reads " + std::to_string(config.max_concurrent_reads) +
                                "; accepted: 1..16");
  if (!(config.speedup >= 1.0) || !std::isfinite(config.speedup))
    throw std::invalid_argument("switch speedup " + std::to_string(config.speedup) + "; accepted: a number >= 1");
  impl_ = std::make_unique<Impl>(config_, ports, pool);
}

Switch::~Switch() = default;

unsigned Switch::port_count() const { return static_cast<unsigned>(impl_->ports.size()); }

link::Port& Switch::port(unsigned number) {
  if (number < 1 || number > port_count())
    throw std::out_of_range(std::string(name()) + ": no port " + std::to_string(number));
  return impl_->ports[number - 1];
}

const link::Port& Switch::port(unsigned number) const {
  if (number < 1 || number > port_count())
    throw std::out_of_range(std::string(name()) + ": no port " + std::to_string(number));
  return impl_->ports[number - 1];
}

const SwitchStats& Switch::stats() const { return impl_->stats; }

void Switch::set_lft(std::vector<uint8_t> lft) { impl_->table.set_lft(std::move(lft)); }
const std::vector<uint8_t>& Switch::lft() const { return impl_->table.lft(); }

void Switch::set_sl2vl(unsigned in_port, unsigned out_port, const std::array<uint8_t, 16>& table) {
  impl_->table.set_sl2vl(in_port, out_port, table);
}

const ForwardingTable& Switch::forwarding() const { return impl_->table; }

std::vector<Switch::HeadRequest> Switch::head_requests() const {
  std::vector<HeadRequest> out;
  const Impl& s = *impl_;
  if (s.voq != nullptr) {
    for (unsigned o = 0; o < s.ports.size(); ++o)
      s.voq->for_each_head(o, [&](unsigned in, unsigned vl, const ib::Packet* head) {
        out.push_back({in + 1, head->hdr.lrh.vl, o + 1, vl, head->wire_len});
      });
    return out;
  }
  for (unsigned in = 0; in < s.ports.size(); ++in)
    for (unsigned vl = 0; vl < s.ports[in].vl_count(); ++vl)
      if (s.alloc.requesting(in, vl))
        out.push_back({in + 1, vl, s.alloc.requested_output(in, vl) + 1, s.alloc.requested_vl(in, vl),
                       s.alloc.requested_bytes(in, vl)});
  return out;
}

void Switch::set_lft_block(unsigned block, const std::array<uint8_t, kLftBlockEntries>& entries) {
  impl_->table.set_lft_block(block, entries);
}

void Switch::set_vlarb(unsigned port_number, const link::VlArbConfig& c) {
  port(port_number).set_vlarb(c);
  const link::VlArbConfig tables = link::operational_tables(c, port(port_number).vl_count());
  impl_->alloc.set_arbitration(port_number - 1, tables);
  if (impl_->voq != nullptr) impl_->voq->set_arbitration(port_number - 1, tables);
}

void Switch::set_agent(link::ManagementAgent* agent) { impl_->set_agent(agent); }

CongestionMarker& Switch::congestion_marker() {
  if (impl_->cc == nullptr) impl_->cc = std::make_unique<CongestionMarker>(port_count());
  return *impl_->cc;
}

const CongestionMarker* Switch::congestion() const { return impl_->cc.get(); }

const SharedBufferPool* Switch::shared_pool() const { return impl_->buffers.get(); }

void Switch::set_adaptive(const AdaptiveRoutingConfig& config, ArGroupTable groups, uint64_t salt) {
  for (const std::vector<uint8_t>& group : groups.ports)
    for (uint8_t p : group)
      if (p < 1 || p > port_count())
        throw std::invalid_argument(std::string(name()) + ": AR group port " + std::to_string(p) + "; accepted: 1.." +
                                    std::to_string(port_count()));
  impl_->ar = std::make_unique<AdaptiveRouter>(config, std::move(groups), salt);
}

const AdaptiveRouter* Switch::adaptive() const { return impl_->ar.get(); }

AdaptiveRouter* Switch::adaptive_router() { return impl_->ar.get(); }

void Switch::trace(sc_core::sc_trace_file* file) const {
  const std::string n = name();
  sc_core::sc_trace(file, impl_->stats.crossbar_wait_ps, n + ".crossbar_wait_ps");
  if (impl_->voq != nullptr)
    for (unsigned i = 0; i < impl_->ports.size(); ++i)
      sc_core::sc_trace(file, impl_->voq->queued_packets_ref(i), n + ".p" + std::to_string(i + 1) + ".queued_packets");
  if (impl_->buffers != nullptr) sc_core::sc_trace(file, impl_->buffers->drawn_blocks_ref(), n + ".pool_drawn_blocks");
  if (impl_->ar != nullptr) sc_core::sc_trace(file, impl_->ar->stats().reroutes, n + ".ar_reroutes");
}

link::SubmitResult Switch::send_management(ib::Packet* p, unsigned out_port) {
  if (out_port == 0) {
    const uint8_t out = p->hdr.lrh.dlid == 0 ? kNoRoute : impl_->table.lookup(p->hdr.lrh.dlid);
    if (out == kNoRoute || out == kManagementPort || out > port_count()) {
      impl_->ports[0].discard(p, kVl15, link::DropReason::NoRoute);
      return link::SubmitResult::Dropped;
    }
    out_port = out;
  }
  return port(out_port).submit_on_vl(p, kVl15);
}

}  // namespace hcasim::sw
