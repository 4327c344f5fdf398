#pragma once
// One run of the model: a fabric, the raw-traffic workload, the transport
// workloads (perftest tests, verbs scripts), the link checker and the optional
// pcap / VCD outputs, elaborated together and run to the end.
// The command line and the scenario tests both drive it.
//
// Rules: without a duration the run goes until nothing is left to do (every
// flow sent its count, every transport workload is done and the fabric
// drained); with one, it stops at that simulated time. A transport workload's
// failures (a completion status or data not as expected) fail the run. Progress goes to stderr about once a second of wall time
// unless quiet (progress_line.hpp). Ports whose config asks for RTL blocks get them (testbench/rtl/cosim.hpp); the
// first RTL divergence stops the run and fails it.
// With more than one partition (RunOptions::partitions) the partitions run in
// windows (windowed_run.hpp), each with its own packet pool, flow recorder
// and link checker, merged at the end; transport workloads, management in
// band, pcap, VCD, RTL blocks and the time series need the one SystemC
// timeline and are refused (std::invalid_argument).
// With a sample interval and an output folder, DIR/timeseries.csv gets the
// run's time series (models/trace/time_series.hpp): the ports, the raw flows
// and the transport QPs (bytes of send-queue work requests completed
// successfully, QpStats::bytes_sent), sampled by one alarm per interval.

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/fabric/fabric.hpp"
#include "models/trace/hop_latency.hpp"
#include "models/trace/packet_capture.hpp"
#include "models/trace/time_series.hpp"
#include "models/trace/waves.hpp"
#include "testbench/checkers/link_checker.hpp"
#include "testbench/cli/measurement.hpp"
#include "testbench/cli/transport_stats.hpp"
#include "testbench/rtl/cosim.hpp"
#include "testbench/workloads/flow_recorder.hpp"
#include "testbench/workloads/dma_test.hpp"
#include "testbench/workloads/perftest.hpp"
#include "testbench/workloads/raw_generator.hpp"
#include "testbench/workloads/swarm.hpp"
#include "testbench/workloads/verbs_script.hpp"

namespace hcasim {

struct RunOptions {
  uint64_t duration_ps = 0;               // 0 = until idle
  bool quiet = true;
  std::string out_dir;                    // for pcap / vcd; "" = none written
  bool pcap = false;
  std::vector<std::string> pcap_ports;    // port names; empty = every port
  bool vcd = false;
  bool rtl_vcd = false;                   // DIR/rtl.vcd, when ports use RTL blocks
  rtl::CosimBlocks rtl_blocks;            // the Verilated blocks; default: this build's
  uint64_t sample_interval_ps = 0;        // DIR/timeseries.csv every this many ps; 0 = none
  // Parallel simulation (models/link/partition.hpp): the fabric split in this
  // many partitions (1 = the SystemC kernel runs the model, as ever), run on
  // this many threads (0 = one per partition, at most the machine's cores).
  // The threads do not change the results; the partitions do (the order of
  // events at equal times), deterministically.
  unsigned partitions = 1;
  unsigned threads = 0;
  config::MeasureSettings measure;        // raw flows: warm-up, measured window, drain (measurement.hpp)
  bool hop_latency = false;               // per switch port latency histograms (trace/hop_latency.hpp)
};

struct TransportWorkloads {
  std::vector<workloads::PerftestSpec> perftest;
  std::vector<workloads::VerbsScriptSpec> verbs;
  std::vector<workloads::DmaTestSpec> dma;
  std::vector<workloads::SwarmSpec> swarm;
};

class Simulation {
 public:
  // Flows name HCAs and ports by index; their LIDs are filled in here. Throws
  // std::invalid_argument for a flow naming a port the fabric lacks.
  Simulation(config::FabricSpec fabric, std::vector<workloads::FlowSpec> flows, RunOptions options,
             const TransportWorkloads& transport = {});
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  void run();
  // Management external (hcasim serve): `serve` runs the SystemC kernel (the
  // ibsim server's loop, until it is stopped); the workloads start when the
  // outside SM has brought the subnet up, and the run ends where serve left
  // the model. workloads_finished() says whether every flow with a count
  // has offered it all, every perftest test ended and every DMA test is done
  // (false while any has not started).
  void run_served(const std::function<void()>& serve);
  bool workloads_finished() const;
  // Closes the files the run still holds open (the pcap and the VCD), as
  // destroying the simulation would: for a program that ends without
  // destroying it (exit_without_teardown).
  void close_outputs();

  fabric::Fabric& fabric() { return *fabric_; }
  const fabric::Fabric& fabric() const { return *fabric_; }
  const std::vector<workloads::FlowSpec>& flows() const { return flows_; }
  const std::vector<workloads::FlowResult>& flow_results() const { return results_; }
  const checkers::LinkChecker& checker() const { return checker_; }
  const std::vector<std::unique_ptr<workloads::Perftest>>& perftests() const { return perftests_; }
  const std::vector<std::unique_ptr<workloads::VerbsScript>>& verbs_scripts() const { return scripts_; }
  const std::vector<std::unique_ptr<workloads::DmaTest>>& dma_tests() const { return dma_tests_; }
  const std::vector<std::unique_ptr<workloads::Swarm>>& swarms() const { return swarms_; }
  // What the transport workloads found wrong (empty = every expectation held):
  // the management failures below, then the perftest tests' and verbs scripts'.
  std::vector<std::string> workload_failures() const;
  // In band: the SM's sweep failing or not finishing, a PathRecord lookup failing.
  std::vector<std::string> management_failures() const;
  // RTL co-simulation divergences and broken pin contracts (empty = none, or no RTL).
  const std::vector<std::string>& rtl_failures() const;
  const rtl::Cosim* cosim() const { return cosim_.get(); }
  uint64_t sim_time_ps() const { return end_ps_; }
  double wall_seconds() const { return wall_s_; }
  // Peak resident memory of the process up to the end of the run (the model's
  // state, before any results are formatted).
  uint64_t peak_rss_bytes() const { return peak_rss_; }
  // The process's memory on transparent huge pages at the end of the run (huge_page_heap.hpp).
  uint64_t huge_page_bytes() const { return huge_page_bytes_; }
  uint64_t packets_delivered() const;
  // Work done so far: completions the HCAs wrote, packets delivered to raw
  // flows' destinations, DMA test transfers finished (the watchdog's measure).
  uint64_t work_done() const;
  // Alarms run (the model's wakeups), over every partition, and by partition
  // (one entry without partitions): how evenly the work was split.
  uint64_t wakeups() const;
  std::vector<uint64_t> partition_wakeups() const;
  // Delta cycles of the model's own (RTL co-simulation's left out; timeline.hpp).
  uint64_t model_delta_cycles() const;
  // Partitions and cut links of a parallel simulation (1 and 0 without), and
  // the window it ran in (0 without).
  unsigned partitions() const { return fabric_->partition_count(); }
  unsigned cut_links() const { return cut_links_; }
  uint64_t window_ps() const { return window_ps_; }
  unsigned threads() const { return threads_; }
  // In band: PathRecords the transport workloads looked up before starting.
  uint64_t path_lookups() const { return path_lookups_; }
  // Packet transmissions on all links (data and flow control): one per packet-hop.
  uint64_t packet_hops() const;

  // stats.json's sections of the workloads and the checker: patterns,
  // perftest, dma, swarm (its machines counted: they are rows of
  // swarm_machines), verbs and checker.
  nlohmann::json results_json() const;
  // One port's object (detail kind ports; trace/port_stats_json.hpp, with the
  // measured window and hop latency where the run has them).
  nlohmann::json port_json(const link::Port& p) const;
  // Flow f's object (detail kind flows): its spec, load and latency.
  nlohmann::json flow_json(std::size_t f) const;
  // Which perftest test or verbs connection made each transport QP.
  QpOwners qp_owners() const;
  // Where a flow's throughput is measured to (from its start): its last
  // delivery, unless the run's duration cut it while it was still sending or
  // had packets not delivered; then the run's end, so that a starved flow
  // reads as slow rather than as its few packets over a short span.
  uint64_t measured_until(const workloads::FlowSpec& s, const workloads::FlowResult& r) const;
  // The span a flow's rates are taken over: its measured window (from its
  // start) with run.warmup or run.measure, else from its start to measured_until.
  std::pair<uint64_t, uint64_t> rate_span(const workloads::FlowSpec& s, const workloads::FlowResult& r) const;
  // Flows that carried less than kCarriedWarning of the load they were offered
  // by more than chance explains (load_shortfall.hpp; rate-limited flows
  // only), as one line each for the summary.
  std::vector<std::string> load_warnings() const;
  static constexpr double kCarriedWarning = 0.95;
  // Perftests that shared an HCA port while both ran (a test with a start
  // time beside another), as one line each for the summary: each one's
  // figures include the other's traffic.
  std::vector<std::string> perftest_overlaps() const;
  // stats.json's run.measurement (measurement.hpp); null without run.warmup or run.measure.
  nlohmann::json measurement_json() const { return measurement_ ? measurement_->json(end_ps_) : nlohmann::json(); }

 private:
  // In band: the workloads start when the SM's sweep is done (their start
  // times counted from then).
  void hold_workloads_for_sweep();
  void defer_workloads();  // every workload waits for its begin()
  // Management external: the workloads start when the subnet is up
  // (Fabric::on_subnet_up), flows with the LIDs the outside SM assigned and
  // perftest's QPs connected then; no PathRecord lookups (real perftest
  // exchanges its LIDs itself).
  void hold_workloads_for_subnet_up();
  // Flows' source and destination LIDs from their HCA ports' LIDs now.
  void resolve_flow_lids();
  // Before a transport workload starts, its initiator looks up the PathRecord
  // to its peer through its HCA's SA client; the workload begins when the
  // answer is in (a wrong or missing record fails the run).
  void look_up_path(const workloads::Endpoint& from, const workloads::Endpoint& to, std::function<void()> begin);
  std::string sweep_failure_;
  std::vector<std::string> lookup_failures_;
  uint64_t path_lookups_ = 0;
  std::map<std::pair<mgmt::SaAgent*, uint64_t>, std::function<void(const mgmt::SaCompletion&)>> lookups_;
  std::vector<std::pair<workloads::Endpoint, workloads::Endpoint>> perftest_ends_, verbs_ends_;
  // Perftests run one after another (perftest.hpp): test i > 0 whose start
  // is after_previous begins when test i - 1 ends.
  bool chained_perftest(std::size_t i) const;
  void chain_perftests();
  bool workloads_held_ = false;  // in band: transport workloads look up their paths first
  void report_progress(bool final_line, uint64_t now_ps);
  void make_time_series();
  void run_kernel();       // one partition: the SystemC kernel runs the model
  void run_partitioned();  // windowed_run.hpp
  void end_kernel_run(bool reported);  // the kernel's clock is the run's end; then finish_run
  void finish_run(bool reported);  // workloads, checker, wall time and memory
  void check_partitioning(const TransportWorkloads& transport) const;
  checkers::LinkChecker& checker_of(unsigned partition) {
    return partition == 0 ? checker_ : *part_checkers_[partition - 1];
  }
  std::string destination_text(const workloads::FlowSpec& s) const;
  uint64_t expected_packets() const;

  ib::PacketPool pool_;
  std::vector<workloads::FlowSpec> flows_;
  std::vector<workloads::FlowResult> results_;
  RunOptions options_;
  // Parallel simulation: the partitions and each node's (empty: one, on the kernel).
  std::vector<std::unique_ptr<link::Partition>> parts_;
  fabric::FabricPartitions partitioning_;
  std::unique_ptr<fabric::Fabric> fabric_;
  // By partition: its flow recorder (with partitions, its own records are
  // merged into results_ at the end) and its link checker (checker_ is 0's).
  std::vector<std::unique_ptr<workloads::FlowRecorder>> recorders_;
  std::vector<std::unique_ptr<checkers::LinkChecker>> part_checkers_;
  unsigned cut_links_ = 0;
  uint64_t window_ps_ = 0;
  unsigned threads_ = 1;
  std::vector<std::unique_ptr<workloads::RawGenerator>> generators_;
  std::vector<std::unique_ptr<workloads::Perftest>> perftests_;
  std::vector<std::unique_ptr<workloads::DmaTest>> dma_tests_;
  std::vector<std::unique_ptr<workloads::Swarm>> swarms_;
  std::vector<std::unique_ptr<workloads::VerbsScript>> scripts_;
  checkers::LinkChecker checker_;
  std::unique_ptr<trace::PacketCapture> capture_;
  std::unique_ptr<trace::WaveTrace> waves_;
  std::unique_ptr<trace::TimeSeries> series_;
  std::unique_ptr<rtl::Cosim> cosim_;
  std::unique_ptr<Measurement> measurement_;  // with run.warmup or run.measure
  std::unique_ptr<trace::HopLatency> hops_;   // with outputs.hop_latency
  // With a measured window: every port's transmit counters when it opened and
  // when it closed (or the run ended), for the ports' "measured" entries.
  struct PortCounters {
    uint64_t at_ps = 0, busy_ps = 0, tx_packets = 0, tx_bytes = 0, tx_payload = 0, credit_stall_ps = 0;
  };
  std::vector<PortCounters> port_counters(uint64_t now_ps) const;
  std::vector<PortCounters> window_open_, window_close_;
  uint64_t end_ps_ = 0;
  bool cut_ = false;  // the run ended at its duration, not because nothing was left to do
  std::string stall_;  // why a run without a duration was stopped (run_kernel's watchdog); "" = it was not
  // The deadlock found when the kernel run ended (find_deadlock), "" = none.
  std::string deadlock_;
  void note_deadlock(uint64_t at_ps);
  double wall_s_ = 0;
  uint64_t peak_rss_ = 0;
  uint64_t huge_page_bytes_ = 0;
  std::chrono::steady_clock::time_point started_;
  double progress_every_s_ = 1.0;  // wall seconds between progress reports
  bool progress_terminal_ = false; // stderr is a terminal
};

}  // namespace hcasim
