#pragma once
// perftest-like tests over the verbs API of two HCAs: ib_write_bw, ib_send_bw,
// ib_read_bw, ib_write_lat, ib_send_lat, ib_read_lat, ib_atomic_lat.
//
// Rules:
// - Set-up as perftest: one CQ per side shared by the test's QPs (with
//   `threads` > 1 one CQ per thread, on that driver thread: QP pair q uses
//   thread q mod threads on both sides, as several processes would), `qps` QP
//   pairs connected RESET -> INIT -> RTR -> RTS (connection.hpp), one memory
//   region per side. Sizes run one after another: a size starts when the
//   previous one is done (the first at `start`).
// - Tests run one after another too, as the tools do: a test whose start is
//   after_previous is begun by the Simulation when the test before it ends
//   (then()): its last size done, or the test failed; an idle test ends when it
//   begins. A test with a start time begins then, whatever runs.
// - The host polls its CQ: a completion is acted on at the simulated time it is
//   made (a deferred alarm at the same time, never inside the engine's call).
// - Bandwidth tests: each QP keeps `outstanding` WRs posted until it has
//   posted `iterations`, post_list at a time (one doorbell each: a list is
//   posted when all of it fits); every cq_moderation-th WR and the last are
//   signaled (a completion covers the unsignaled WRs before it). Messages of
//   at most inline_size bytes go inline. A size's time runs from its
//   first post to its last completion at the client (perftest's tposted[0] ..
//   tcompleted[last]). send_bw: the server posts up to rx_depth receives per QP
//   ahead and re-posts each one it consumes. read_bw: the engine keeps at most
//   max_rd_atomic (16) READs outstanding per QP; later ones wait in the send
//   queue, as ib_read_bw's -o limit does.
// - Latency tests, one QP, ping-pong: send_lat: the client sends; the server's
//   receive completion makes it send back; the client's receive completion ends
//   the round trip. write_lat: perftest's "poll the last byte of the buffer" is
//   modelled as the host seeing the write when the responder's write of the
//   buffer's last byte is visible in host memory (host::Driver::watch_memory).
//   Both report round trip / 2, as perftest. read_lat, atomic_lat: post to completion of each operation, the
//   full round trip, as perftest. Latencies are also split into parts
//   (latency_parts.hpp): read_lat, atomic_lat each round trip, post to the
//   client acting on the completion; send_lat, write_lat each one-way trip
//   (two an iteration: their mean is the half round trip reported), post to
//   the receiver acting on the message, with the receiver's CQE (send) or
//   the landing (write) as the completion's cut and no answer parts. A trip's
//   parts are added when both the sender's completion (its WR's times) and
//   the receiver's sight of it are in, so a trip whose sender completes after
//   its size ended still counts in that size.
// - Data check: source slots hold a pattern of address and test, destination
//   slots start zeroed. WR k of a QP uses slot k mod slots at both ends; once
//   its data has landed (write, read: the client's completion; send: the
//   server's receive completion; write_lat: when seen) the destination bytes
//   must equal the source bytes, and are zeroed, so the next WR on that slot
//   must land its bytes anew (a UC write completes when sent: it is checked
//   when its last byte lands). fetch_add must return the sum of the earlier
//   addends, cmp_swap the previous swap value; the final word is checked.
// - Slots per QP are tx_depth (send_bw receives: rx_depth), but one side's
//   slots of all QPs hold at most kSlotBudget bytes: with large messages or
//   many QPs the WRs kept outstanding per QP drop to fit (at least one).
// - A completion that is not success, a data mismatch, or (without a run
//   duration) a size that never finishes fails the test with a message naming
//   test, size, QP and WR; a failed test posts nothing more.
// - idle: the QPs are created and connected; nothing is posted.
// - The QPs get the test's knobs as perftest sets them: path MTU (-m; over UD
//   the largest message, and "all" sizes stop at it), SL (-S) in the address
//   vectors, and on RC the Local ACK timeout (-u), retry_cnt, rnr_retry and
//   the server's min_rnr_timer. UD address vectors carry no GRH (perftest's
//   default GID index -1 on an InfiniBand port: no GID needed).
// - Each size records the transport counters of the test's QPs over its run
//   (perftest_counters.hpp).

#include <systemc>

#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "models/config/verbs_workload_config.hpp"
#include "models/link/timeline.hpp"
#include "models/trace/latency_record.hpp"
#include "testbench/workloads/connection.hpp"
#include "testbench/workloads/flow.hpp"
#include "testbench/workloads/latency_parts.hpp"
#include "testbench/workloads/perftest_counters.hpp"

namespace hcasim::workloads {

constexpr uint64_t kSlotBudget = config::kPerftestSlotBudget;  // buffer bytes per side and test

struct PerftestSpec {
  config::PerftestConfig config;  // names resolved (check_verbs_workloads)
  Endpoint client, server;
  unsigned index = 0;             // the test's index: its buffers' addresses
  // Management external (hcasim serve): the QPs are made at once but go to
  // RTS when the test begins, with the LIDs the outside SM gave the ports
  // (real perftest exchanges them when it starts); else at construction.
  bool connect_at_begin = false;
  std::shared_ptr<const routing::PathSlTable> path_sls;  // sl "path": the SLs of the paths; else null
};

struct PerftestSizeResult {
  uint64_t bytes = 0;
  uint64_t iterations = 0;        // per QP
  uint32_t outstanding = 0;       // WRs kept posted per QP
  uint64_t messages = 0;          // completed at the client, all QPs
  uint64_t start_ps = 0;
  uint64_t end_ps = 0;
  bool done = false;
  trace::LatencyRecord round_trip_ps; // latency tests: one sample per iteration
  LatencyParts parts;             // latency tests: each round trip (one-way trip: send_lat, write_lat) in parts
  TransportCounters counters;     // the test's QPs, over this size
};

struct PerftestResult {
  std::vector<PerftestSizeResult> sizes;
  std::vector<std::string> failures;
  std::vector<std::pair<uint32_t, uint32_t>> qpns;  // (client, server) per QP pair
  bool halved = false;            // latency reported as round trip / 2
};

class Perftest : public sc_core::sc_module {
 public:
  Perftest(const sc_core::sc_module_name& name, const PerftestSpec& spec, host::Driver& client, host::Driver& server);
  Perftest() = delete;
  Perftest(const Perftest&) = delete;
  Perftest& operator=(const Perftest&) = delete;
  // A fabric managed in band: hold the start until the SM is done, then
  // begin() at the current time, start times counted from `offset_ps`.
  void defer_start() { deferred_ = true; }
  // Begins at offset_ps plus the test's start (after_previous: plus 0).
  void begin(uint64_t offset_ps);
  // Called once, when the test ends (see the rules).
  void then(std::function<void()> f) { then_ = std::move(f); }
  bool ended() const { return ended_; }

  const PerftestSpec& spec() const { return spec_; }
  const PerftestResult& result() const { return result_; }
  // The message sizes it runs, in order (the tool's default when the config lists none).
  const std::vector<uint64_t>& sizes() const { return sizes_; }
  // After the run: a size left unfinished fails the test, naming what its QPs
  // wait on. Cut by the run's duration, it fails only as stuck: no message
  // completed in the last 100 us or the last half of the time since the size
  // began (whichever is longer), and a QP held by more than the traffic's
  // pace (describe_wait's `blocked`: an RNR NAK, a timeout, its port down or
  // out of credits, ...); a size still moving was only cut short.
  void finish(bool cut_by_duration);

 private:
  struct Side {
    host::Driver* driver = nullptr;
    unsigned port = 0;
    std::vector<uint32_t> cqs;    // every CQ, polled in this order
    // Per thread: QP pair q's send CQ is send_cqs[q mod threads], its receive
    // CQ recv_cqs[q mod threads] (the send CQ in the tests without receive completions).
    std::vector<uint32_t> send_cqs, recv_cqs;
    uint64_t recv_posted = 0;       // send_lat: receives posted on this side's QP in this size
    uint64_t recv_outstanding = 0;  // send_lat: receives posted and not completed
    hca::MemoryRegion mr;
    uint64_t src = 0, dst = 0;    // slot areas
    bool landed = false;          // write_lat: the last byte of dst slot 0 was written
  };
  struct QpRun {
    uint32_t client_qpn = 0, server_qpn = 0;
    uint64_t posted = 0, completed = 0;      // client WRs
    uint64_t recv_posted = 0, received = 0;  // server receives (send_bw)
  };

  void start_of_simulation() override;
  bool deferred_ = false;
  std::vector<std::pair<QpEnd, QpEnd>> unconnected_;  // connect_at_begin: (client, server) QPs in RESET
  void connect(const QpEnd& a, const QpEnd& b);
  void watch_uc_writes();
  // A CQ of `depth` entries (cq_depth instead, when set) on the side's thread, polled by poll().
  uint32_t make_cq(Side& side, unsigned thread, uint64_t depth);
  void begin_size();
  void end_size();
  void poll();
  void on_client(const transport::WorkCompletion& wc);
  void on_server(const transport::WorkCompletion& wc);
  void post_bw(unsigned q);
  void post_recv(Side& s, uint32_t qpn, uint64_t addr, uint64_t id);
  void repost_lat_recv(Side& s, uint32_t qpn);  // send_lat: the side's next receive
  void ping();                    // latency tests: the client's next operation
  void pong();                    // send_lat, write_lat: the server answers
  void post(Side& s, uint32_t qpn, transport::SendWr& w);
  void post_list(Side& s, uint32_t qpn);  // list_, with one doorbell
  void address(Side& s, uint32_t qpn, transport::SendWr& w);  // UD: where it goes
  bool signaled(uint64_t k) const;        // bandwidth tests: WR k makes a completion
  bool check(const std::string& what, Side& dst_side, uint64_t dst, const Side& src_side, uint64_t src, uint64_t len);
  void fail(const std::string& message);
  TransportCounters counters_now() const;  // summed over the test's QPs, both sides
  void close_counters();                  // the running size's counters, once
  uint64_t slot_addr(uint64_t area, unsigned q, uint64_t k, uint32_t slots) const;
  std::string where(unsigned q, uint64_t wr) const;
  // What the test's QPs wait on (connection.hpp describe_wait); `blocked`
  // is set when one of them is held by more than the traffic's pace.
  std::string waits(bool* blocked = nullptr) const;
  transport::SendWr wr(uint64_t id, transport::WrOpcode op, uint64_t local, uint32_t len, const Side& s) const;

  PerftestSpec spec_;
  const config::PerftestConfig& cfg_;
  Side client_, server_;
  ConnectionParams params_;
  std::vector<QpRun> qps_;
  std::unordered_map<uint32_t, unsigned> client_index_, server_index_;  // QP number -> pair
  std::vector<uint64_t> sizes_;
  uint64_t iterations_ = 0;
  std::size_t size_at_ = 0;
  uint64_t size_ = 0, slot_bytes_ = 0;
  uint32_t slots_ = 1, rx_slots_ = 1;
  uint32_t receives_ahead_ = 0;   // send tests: receives posted ahead per QP (config::perftest_receives_ahead)
  uint64_t pending_ = 0;          // client completions still due in this size, all QPs
  uint64_t recv_pending_ = 0;     // send_bw: receives still due
  uint64_t round_ = 0;            // latency tests: the iteration
  uint64_t posted_ps_ = 0;        // latency tests: when it started
  uint64_t atomic_value_ = 0;     // atomic_lat: what the server's word holds
  // send_lat, write_lat: the one-way trips whose parts are not yet known, by trip_key().
  struct Trip {
    std::size_t size = 0;         // index in result_.sizes
    uint64_t start_ps = 0, seen_ps = 0, landed_ps = 0;
    uint64_t arrived_ps = 0;      // send_lat: the receive's at_responder_ps
    transport::WrTimes times;     // the sender's WR
    bool sent = false, seen = false;
  };
  std::unordered_map<uint64_t, Trip> trips_;
  bool one_way_trips() const;     // send_lat, write_lat
  uint64_t lat_wr_id() const;     // latency tests: the WR id of this size's round
  static uint64_t trip_key(uint64_t wr_id, bool from_server) { return wr_id << 1 | (from_server ? 1 : 0); }
  void trip_posted(bool from_server);
  void trip_sent(bool from_server, uint64_t wr_id, const transport::WrTimes& times);
  void trip_seen(bool from_server, uint64_t landed_ps, uint64_t arrived_ps = 0);  // at now, the receiver acts on it
  void trip_parts(uint64_t key);  // adds the trip's parts once both ends are in
  uint64_t progress_ps_ = 0;      // when the running size began or last completed a message
  bool running_ = false, failed_ = false;
  bool ended_ = false;
  std::function<void()> then_;
  void end_test();
  TransportCounters size_base_;   // counters_now() when the running size began
  bool counting_ = false;         // a size's counters are open
  PerftestResult result_;
  std::vector<transport::WorkCompletion> wcs_;
  std::vector<transport::SendWr> list_;   // the WRs of one post
  uint32_t post_list_ = 1, cq_mod_ = 1;   // as configured, at most the WRs kept posted
  std::vector<uint8_t> a_, b_;    // scratch for checks
  std::vector<uint64_t> landings_;  // UC write_bw: slots whose last byte landed, to check
  link::Alarm start_ = link::Alarm::method<&Perftest::begin_size>(this);
  link::Alarm poll_ = link::Alarm::method<&Perftest::poll>(this);
};

}  // namespace hcasim::workloads
