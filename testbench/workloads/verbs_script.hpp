#pragma once
// A verbs script: one connection (a QP on side a, one on side b), operations
// posted in order, each checked against the completion status it must end in.
//
// Rules:
// - Each side has one CQ and one memory region over its buffers (every access
//   allowed on the region; the QP access flags decide what a responder
//   allows). Operation i has its own local buffer on its side (sources filled
//   with a pattern, destinations zeroed) and its own remote buffer on the
//   other side; atomics all act on one 8-byte word of the other side, which
//   starts at 0. A receive buffer is `bytes` long (UD: plus the 40-byte GRH
//   space in front).
// - Posting: in list order, each at its "at" time but never before the
//   previous one; without "at", right after the previous one. Send-queue
//   operations are signaled. A post the QP refuses fails the run.
// - Every operation must complete with its expected status. A different
//   status, no completion by the end of the run, or wrong data fails the run
//   with a message naming the connection, the operation (index, verb, side)
//   and the status it got.
// - Data, on success: write: remote bytes = local bytes; read: local = remote;
//   fetch_add / cmp_swap: the value returned = the word before (tracked in
//   completion order: fetch_add adds, cmp_swap swaps when it compared equal);
//   a receive: byte_len and bytes equal those of the message it took, the
//   other side's next message (send, send_with_imm, send_with_inv,
//   write_with_imm; the latter's data is checked as a write) in posting order.
//   A receive completed in error other than a flush also took a message.

#include <systemc>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "models/config/verbs_workload_config.hpp"
#include "models/link/timeline.hpp"
#include "models/transport/verbs.hpp"
#include "testbench/workloads/connection.hpp"
#include "testbench/workloads/flow.hpp"

namespace hcasim::workloads {

struct VerbsScriptSpec {
  config::VerbsConnectionConfig config;  // names resolved (check_verbs_workloads)
  Endpoint a, b;
  unsigned index = 0;                    // the connection's index: its buffers' addresses
  std::shared_ptr<const routing::PathSlTable> path_sls;  // sl "path": the SLs of the paths; else null
};

struct VerbsOpResult {
  bool posted = false;
  bool completed = false;
  transport::WcStatus status = transport::WcStatus::Success;
  uint64_t posted_ps = 0;
  uint64_t completed_ps = 0;
  transport::WrTimes times;  // a send-side operation's stages (latency_parts.hpp)
};

class VerbsScript : public sc_core::sc_module {
 public:
  VerbsScript(const sc_core::sc_module_name& name, const VerbsScriptSpec& spec, host::Driver& a, host::Driver& b);
  VerbsScript() = delete;
  VerbsScript(const VerbsScript&) = delete;
  VerbsScript& operator=(const VerbsScript&) = delete;
  // A fabric managed in band: hold the start until the SM is done, then
  // begin() at the current time, start times counted from `offset_ps`.
  void defer_start() { deferred_ = true; }
  void begin(uint64_t offset_ps);

  const VerbsScriptSpec& spec() const { return spec_; }
  const std::vector<VerbsOpResult>& results() const { return results_; }
  const std::vector<std::string>& failures() const { return failures_; }
  // How a failure names operation i: "op 2 (write on a)", after "<connection>: ".
  std::string op_text(std::size_t i) const;
  uint32_t qpn(config::Side s) const { return side(s).qp.qpn; }
  // After the run: an operation without a completion fails the script.
  void finish();

 private:
  struct End {
    QpEnd qp;
    hca::MemoryRegion mr;
    uint64_t local = 0, remote = 0;   // this side's buffers, and where the other side's ops land here
    uint64_t word = 0;                // the atomic word here, as the completions say it is
    std::deque<std::size_t> incoming; // messages from the other side not yet received here
  };

  void start_of_simulation() override;
  bool deferred_ = false;
  uint64_t offset_ps_ = 0;          // added to every op's at_ps (begin)
  void post_due();
  void post(std::size_t i);
  void poll();
  void on_completion(std::size_t i, const transport::WorkCompletion& wc);
  void check_data(std::size_t i, const transport::WorkCompletion& wc);
  bool same_bytes(std::size_t i, host::Driver& x, uint64_t xa, host::Driver& y, uint64_t ya, uint64_t len);
  void fail(std::size_t i, const std::string& message);
  End& side(config::Side s) { return s == config::Side::A ? a_ : b_; }
  const End& side(config::Side s) const { return s == config::Side::A ? a_ : b_; }
  End& other(config::Side s) { return s == config::Side::A ? b_ : a_; }

  VerbsScriptSpec spec_;
  const config::VerbsConnectionConfig& cfg_;
  ConnectionParams params_;
  End a_, b_;
  std::vector<uint64_t> offsets_;     // per operation, in its buffers
  std::vector<VerbsOpResult> results_;
  std::vector<std::string> failures_;
  std::size_t next_ = 0;
  std::vector<transport::WorkCompletion> wcs_;
  link::Alarm post_alarm_ = link::Alarm::method<&VerbsScript::post_due>(this);
  link::Alarm poll_alarm_ = link::Alarm::method<&VerbsScript::poll>(this);
};

}  // namespace hcasim::workloads
