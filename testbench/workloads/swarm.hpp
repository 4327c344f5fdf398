#pragma once
// rdma_bench's rc-swarm (Kalia et al., ATC 2016 "Design Guidelines for High
// Performance RDMA Systems" and OSDI 2016 "FaSST"): N machines, each with
// `threads` worker threads, every machine issuing RDMA to all the others and
// answering theirs, over as many QPs as a cluster of N x vms machines would
// need. It shows an HCA's message rate as its QPs outgrow its context cache.
//
// Rules (rc-swarm's connection and window logic, rc-swarm/README.md):
// - Thread t of machine n makes QPs k = 0 .. N x vms - 1, each with its own CQ
//   (depth sq_depth) on the thread's CPU thread of the host's driver. QP k is
//   for machine k mod N and virtual machine k / N; it is connected to QP
//   m N + n of thread t on machine k mod N (same thread index, same virtual
//   machine). QPs a machine makes for itself are created and left in RESET:
//   they count against the HCA's QPs but carry nothing, as in rc-swarm.
// - With `ports` P > 1, thread t makes its QPs on its machine's listed port
//   number + t mod P (rc-swarm on dual-port cards: thread t on port t mod P),
//   and so connects to the same port of the other machines.
// - Each thread registers its buffer of `buffer` bytes as `regions` memory
//   regions of equal size. The first window x size bytes are the window's
//   local slots; a remote address is a random region, and in it a random
//   64-byte line past the first window x size bytes with the operation inside
//   the region (one region: rc-swarm's random offsets).
// - A thread keeps `window` operations outstanding. Slot i of the window is
//   reused in order: the thread posts into the next slot once the operation
//   in it completed (it polls that operation's QP's CQ, as rc-swarm does), on
//   a QP chosen uniformly at random among those to other machines (from
//   run.seed, the swarm's index, the machine and the thread). Every operation
//   is signaled. Posting and polling cost the thread its driver's CPU costs.
// - Counting: operations whose completion is polled at or after start +
//   warmup, up to the run's end; the rate of a machine is those over that
//   time. A completion that is not success fails the swarm (named by machine,
//   thread and QP), and its thread stops.

#include <systemc>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "models/config/verbs_workload_config.hpp"
#include "models/host/driver.hpp"
#include "models/link/timeline.hpp"
#include "models/trace/latency_record.hpp"
#include "testbench/workloads/flow.hpp"
#include "testbench/workloads/latency_parts.hpp"

namespace hcasim::workloads {

struct SwarmSpec {
  config::SwarmConfig config;        // names resolved (check_verbs_workloads)
  std::vector<Endpoint> machines;    // HCA ports, in the config's order
  unsigned index = 0;                // the swarm's index: its buffers' addresses
  uint64_t seed = 1;                 // run.seed
};

struct SwarmMachineResult {
  uint32_t qps = 0;                  // QPs it made (threads x machines x vms)
  uint64_t posted = 0;               // operations posted
  uint64_t completed = 0;            // counted completions (after the warm-up)
};

struct SwarmResult {
  std::vector<SwarmMachineResult> machines;
  uint64_t count_from_ps = 0;        // start + warmup
  uint64_t count_to_ps = 0;          // the run's end
  trace::LatencyRecord latency_ps;   // counted operations: post to completion polled
  LatencyParts parts;                // the same, in parts (latency_parts.hpp)
  std::vector<std::string> failures;
};

class Swarm : public sc_core::sc_module {
 public:
  // drivers[i]: the host driver of machines[i]'s HCA.
  Swarm(const sc_core::sc_module_name& name, const SwarmSpec& spec, const std::vector<host::Driver*>& drivers);
  Swarm() = delete;
  Swarm(const Swarm&) = delete;
  Swarm& operator=(const Swarm&) = delete;
  ~Swarm() override;
  void defer_start() { deferred_ = true; }
  void begin(uint64_t offset_ps);
  // At the run's end: closes the counting time.
  void finish(uint64_t now_ps);

  const SwarmSpec& spec() const { return spec_; }
  const SwarmResult& result() const { return result_; }

 private:
  struct Thread;
  void start_of_simulation() override;
  void run(Thread& t);                // post while the window's next slot is free
  bool post(Thread& t);
  void fail(Thread& t, const std::string& message);
  unsigned port_of(unsigned machine, unsigned thread) const;  // the HCA port thread's QPs use

  SwarmSpec spec_;
  std::vector<host::Driver*> drivers_;
  std::vector<std::unique_ptr<Thread>> threads_;  // machine-major: machine n's thread t at n x threads + t
  std::vector<transport::WorkCompletion> wcs_;
  SwarmResult result_;
  bool deferred_ = false;
};

}  // namespace hcasim::workloads
