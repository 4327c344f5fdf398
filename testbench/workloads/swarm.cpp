#include "testbench/workloads/swarm.hpp"

#include <algorithm>

#include "testbench/workloads/connection.hpp"
#include "testbench/workloads/traffic_patterns.hpp"

namespace hcasim::workloads {

namespace {
constexpr uint64_t kSwarmArea = uint64_t{0x60} << 40;  // apart from perftest's, the verbs scripts' and DMA tests' buffers
constexpr uint64_t kLine = 64;
}  // namespace

struct Swarm::Thread {
  explicit Thread(Swarm& owner) : owner(owner) {}
  void on_wake() { owner.run(*this); }
  struct Slot {
    bool busy = false;
    uint32_t qp = 0;           // QP index k
    uint64_t posted_ps = 0;
  };
  Swarm& owner;
  unsigned machine = 0, index = 0;
  host::Driver* driver = nullptr;
  std::vector<uint32_t> qpns, cqs;  // by QP index k
  std::vector<uint32_t> targets;    // the QP indexes that go to other machines
  std::vector<hca::MemoryRegion> mrs;  // the buffer's regions, in address order
  uint64_t base = 0;
  std::vector<Slot> slots;
  uint32_t head = 0;                // the window's next slot
  std::mt19937_64 rng;
  bool stopped = false;
  link::Alarm wake = link::Alarm::method<&Thread::on_wake>(this);
};

Swarm::Swarm(const sc_core::sc_module_name& name, const SwarmSpec& spec, const std::vector<host::Driver*>& drivers)
    : sc_module(name), spec_(spec), drivers_(drivers) {
  const config::SwarmConfig& c = spec_.config;
  const auto machines = static_cast<unsigned>(spec_.machines.size());
  const uint32_t qps_per_thread = machines * c.vms;
  const uint64_t stride = (c.buffer + 4095) / 4096 * 4096;
  ConnectionParams params;
  params.max_send_wr = c.sq_depth;
  params.max_recv_wr = 1;
  params.max_rd_atomic = params.max_dest_rd_atomic = static_cast<uint8_t>(c.max_rd_atomic);
  params.mtu = 4096;
  result_.machines.resize(machines);
  for (unsigned n = 0; n < machines; ++n) {
    host::Driver& d = *drivers_[n];
    for (uint32_t p = 0; p < c.ports; ++p)
      params.mtu = std::min(params.mtu, d.hca().port(spec_.machines[n].port + p).config().mtu);
    for (unsigned t = 0; t < c.threads; ++t) {
      auto th = std::make_unique<Thread>(*this);
      th->machine = n;
      th->index = t;
      th->driver = &d;
      th->base = kSwarmArea + (uint64_t{spec_.index} << 38) + t * stride;
      for (uint32_t r = 0; r < c.regions; ++r)
        th->mrs.push_back(d.reg_mr(th->base + r * (c.buffer / c.regions), c.buffer / c.regions,
                                   transport::kLocalWrite | transport::kRemoteWrite | transport::kRemoteRead));
      th->slots.resize(c.window);
      th->rng.seed(mix_seed(spec_.seed, 0x7377726dull + spec_.index, uint64_t{n} * c.threads + t));
      Thread* self = th.get();
      for (uint32_t k = 0; k < qps_per_thread; ++k) {
        const uint32_t cq = d.create_cq(c.sq_depth, t);
        d.on_cq_event(cq, [self] { self->wake.notify_now(); });
        th->cqs.push_back(cq);
        th->qpns.push_back(create_qp_on(d, port_of(n, t), cq, params).qpn);
        if (k % machines != n) th->targets.push_back(k);
      }
      result_.machines[n].qps += qps_per_thread;
      threads_.push_back(std::move(th));
    }
  }
  // QP m N + j of thread t on machine n <-> QP m N + n of thread t on machine j.
  for (unsigned t = 0; t < c.threads; ++t)
    for (uint32_t m = 0; m < c.vms; ++m)
      for (unsigned n = 0; n < machines; ++n)
        for (unsigned j = n + 1; j < machines; ++j) {
          Thread& a = *threads_[n * c.threads + t];
          Thread& b = *threads_[j * c.threads + t];
          const QpEnd ea{a.driver, port_of(n, t), a.qpns[m * machines + j], a.cqs[m * machines + j]};
          const QpEnd eb{b.driver, port_of(j, t), b.qpns[m * machines + n], b.cqs[m * machines + n]};
          bring_up(ea, b.driver->lid(eb.port), eb.qpn, params.psn_a, params.psn_b, params);
          bring_up(eb, a.driver->lid(ea.port), ea.qpn, params.psn_b, params.psn_a, params);
        }
}

Swarm::~Swarm() = default;

unsigned Swarm::port_of(unsigned machine, unsigned thread) const {
  return spec_.machines[machine].port + thread % spec_.config.ports;
}

void Swarm::start_of_simulation() {
  if (!deferred_) begin(0);
}

void Swarm::begin(uint64_t offset_ps) {
  const uint64_t start = offset_ps + spec_.config.start_ps;
  result_.count_from_ps = start + spec_.config.warmup_ps;
  for (auto& t : threads_) t->wake.notify_at(start);
}

void Swarm::finish(uint64_t now_ps) { result_.count_to_ps = std::max(now_ps, result_.count_from_ps); }

void Swarm::fail(Thread& t, const std::string& message) {
  constexpr std::size_t kKept = 20;
  if (result_.failures.size() < kKept)
    result_.failures.push_back(spec_.config.name + ": machine " + std::to_string(t.machine) + " thread " +
                               std::to_string(t.index) + ": " + message);
  t.stopped = true;
}

void Swarm::run(Thread& t) {
  const uint32_t window = spec_.config.window;
  while (!t.stopped) {
    Thread::Slot& s = t.slots[t.head];
    if (s.busy) {
      wcs_.clear();
      if (t.driver->poll_cq(t.cqs[s.qp], 1, wcs_) == 0) return;  // its CQ's event wakes the thread again
      const transport::WorkCompletion& wc = wcs_.front();
      if (wc.status != transport::WcStatus::Success) {
        fail(t, "QP " + std::to_string(t.qpns[s.qp]) + ": completion " + transport::to_string(wc.status));
        return;
      }
      const uint64_t now = link::now_ps();
      if (now >= result_.count_from_ps) {
        ++result_.machines[t.machine].completed;
        result_.latency_ps.add(now - s.posted_ps, now);
        result_.parts.add(s.posted_ps, wc.times, now);
      }
      s.busy = false;
    }
    if (!post(t)) return;
    t.head = (t.head + 1) % window;
  }
}

bool Swarm::post(Thread& t) {
  const config::SwarmConfig& c = spec_.config;
  const auto machines = static_cast<uint32_t>(spec_.machines.size());
  const uint32_t k = t.targets[t.rng() % t.targets.size()];
  const Thread& remote = *threads_[(k % machines) * c.threads + t.index];
  // A random line past the remote window's slots, the operation inside the buffer.
  const uint64_t first = (uint64_t{c.window} * c.size + kLine) / kLine * kLine;
  const uint64_t lines = (c.buffer / c.regions - c.size - first) / kLine + 1;
  transport::SendWr w;
  w.wr_id = t.head;
  w.opcode = c.op == config::SwarmOp::Read ? transport::WrOpcode::RdmaRead : transport::WrOpcode::RdmaWrite;
  w.sg_list = {{t.base + uint64_t{t.head} * c.size, static_cast<uint32_t>(c.size), t.mrs.front().lkey}};
  // A random line of a random region, past the window's slots and with the operation inside the region.
  const uint64_t part = c.buffer / c.regions;
  const uint32_t region = static_cast<uint32_t>(t.rng() % c.regions);
  w.remote_addr = remote.base + region * part + first + t.rng() % lines * kLine;
  w.rkey = remote.mrs[region].rkey;
  w.signaled = true;
  const std::string why = t.driver->post_send(t.qpns[k], w);
  if (!why.empty()) {
    fail(t, "QP " + std::to_string(t.qpns[k]) + ": post_send: " + why);
    return false;
  }
  t.slots[t.head] = {true, k, link::now_ps()};
  ++result_.machines[t.machine].posted;
  return true;
}

}  // namespace hcasim::workloads
