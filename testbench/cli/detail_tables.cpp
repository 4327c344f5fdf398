#include "testbench/cli/detail_tables.hpp"
#include "testbench/cli/metric_paths.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <sstream>

#include "models/hca/dma_engine.hpp"
#include "models/hca/hca_contexts.hpp"
#include "models/ib/codec.hpp"
#include "models/link/fault_injector.hpp"
#include "models/link/port_stats.hpp"
#include "models/pcie/pcie_stats.hpp"

namespace hcasim {

const char* sql_type(ColumnType t) {
  switch (t) {
    case ColumnType::Integer: return "INTEGER";
    case ColumnType::Real: return "REAL";
    case ColumnType::Text: return "TEXT";
    case ColumnType::Boolean: return "INTEGER";
  }
  return "";
}

std::string column_name(const std::string& path) {
  std::string out = path;
  for (char& c : out)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) c = '_';
  return out;
}

namespace {

// Columns of a table, named from their paths (detail_tables.hpp) unless a key's.
class Columns {
 public:
  explicit Columns(std::string prefix = "") : prefix_(std::move(prefix)) {}
  // A key column (names the row), with a name of its own.
  Columns& key(const std::string& name, const std::string& path, ColumnType type, const std::string& meaning) {
    cols_.push_back({name, path, type, "", meaning});
    return *this;
  }
  Columns& add(const std::string& path, ColumnType type, const std::string& unit, const std::string& meaning) {
    cols_.push_back({column_name(prefix_ + path), prefix_ + path, type, unit, meaning});
    return *this;
  }
  Columns& count(const std::string& path, const std::string& meaning) { return add(path, ColumnType::Integer, "", meaning); }
  Columns& bytes(const std::string& path, const std::string& meaning) { return add(path, ColumnType::Integer, "bytes", meaning); }
  Columns& ps(const std::string& path, const std::string& meaning) { return add(path, ColumnType::Integer, "ps", meaning); }
  Columns& bps(const std::string& path, const std::string& meaning) { return add(path, ColumnType::Real, "b/s", meaning); }
  Columns& share(const std::string& path, const std::string& meaning) { return add(path, ColumnType::Real, "share", meaning); }
  Columns& text(const std::string& path, const std::string& meaning) { return add(path, ColumnType::Text, "", meaning); }
  Columns& flag(const std::string& path, const std::string& meaning) { return add(path, ColumnType::Boolean, "", meaning); }
  Columns& real(const std::string& path, const std::string& unit, const std::string& meaning) {
    return add(path, ColumnType::Real, unit, meaning);
  }
  // A latency object (trace::latency_json): count, min, mean and its 95 %
  // confidence interval, batches, lag-1 autocorrelation, percentiles, max.
  Columns& latency(const std::string& path, const std::string& what) {
    count(path + ".count", what + ": samples");
    real(path + ".min_ns", "ns", what + ": minimum");
    real(path + ".mean_ns", "ns", what + ": mean");
    real(path + ".mean_ci95_ns", "ns", what + ": the mean's 95 % confidence half-width over batch means (NULL: too few)");
    count(path + ".batches", what + ": batches of the batch-means estimate");
    real(path + ".batch_lag1_autocorrelation", "", what + ": lag-1 autocorrelation of the batch means (NULL: undefined)");
    for (const char* p : {"p50", "p90", "p99", "p999", "p9999"})
      real(path + "." + p + "_ns", "ns", what + ": " + percentile(p));
    return real(path + ".max_ns", "ns", what + ": maximum");
  }
  std::vector<DetailColumn> take() { return std::move(cols_); }

 private:
  static std::string percentile(const std::string& p) {
    if (p == "p999") return "99.9th percentile";
    if (p == "p9999") return "99.99th percentile";
    return p.substr(1) + "th percentile";
  }
  std::string prefix_;
  std::vector<DetailColumn> cols_;
};

std::vector<DetailColumn> port_columns() {
  Columns c;
  c.key("name", "name", ColumnType::Text, "the port, as node.pN (h0.p1, sw3.p2)")
      .text("peer", "the port at the other end of its link (empty: unconnected)")
      .count("level", "its node's level: 0 an HCA, else the switch's distance in links from the nearest HCA (1 a leaf)")
      .count("peer_level", "the level of the node at the other end (0 also when unconnected)")
      .bps("data_rate_bps", "the link's data rate (0: unconnected)")
      .bytes("mtu", "the port's MTU")
      .count("operational_vls", "data VLs in operation")
      .count("fc_packets_sent", "flow-control packets sent")
      .count("fc_packets_received", "flow-control packets received")
      .ps("busy_ps", "time its transmitter was serializing (flow control included)")
      .share("utilization", "busy_ps over the simulated time")
      .ps("xmit_wait_ps", "time the link sat idle while a data VL's head packet lacked credits (the union of its "
                          "VLs' credit stalls; the PMA's PortXmitWait counts it in ticks of 8 byte times)")
      .text("pkeys", "its P_Key table, as a JSON list (NULL: the default table, no enforcement, no violation)")
      .count("pkey_violations", "packets refused for their P_Key (NULL as pkeys)");
  c.count("measured.tx_packets", "measured window (run.warmup or run.measure; NULL without): packets sent")
      .bytes("measured.tx_bytes", "measured window: wire bytes sent")
      .bps("measured.tx_throughput_bps", "measured window: wire bytes sent per second")
      .bps("measured.tx_data_throughput_bps", "measured window: payload bytes sent per second")
      .share("measured.utilization", "measured window: share of the window the transmitter was busy")
      .ps("measured.credit_stall_ps", "measured window: time the link sat idle for want of credits");
  c.latency("hop_latency", "switch ports with outputs.hop_latency (NULL otherwise): arrival at the switch to first byte on this wire");
  return c.take();
}

std::vector<DetailColumn> port_vl_columns() {
  Columns c;
  c.key("port", "/name", ColumnType::Text, "the port (ports.name)")
      .count("vl", "the VL (15: management)")
      .count("tx_packets", "packets sent")
      .bytes("tx_bytes", "wire bytes sent, LRH through VCRC")
      .bytes("tx_payload_bytes", "payload bytes sent")
      .bps("tx_throughput_bps", "wire bytes sent per second of simulated time")
      .bps("tx_data_throughput_bps", "payload bytes sent per second of simulated time")
      .count("rx_packets", "packets received")
      .bytes("rx_bytes", "wire bytes received")
      .bytes("rx_payload_bytes", "payload bytes received")
      .bps("rx_throughput_bps", "wire bytes received per second of simulated time")
      .ps("credit_stall_ps", "time the link sat idle while this VL's head packet lacked credits")
      .bytes("rx_buffer_high_water_bytes", "the most its receive buffer held")
      .bytes("tx_buffer_high_water_bytes", "the most its transmit buffer held");
  for (std::size_t r = 0; r < link::kDropReasonCount; ++r) {
    const std::string reason = link::to_string(static_cast<link::DropReason>(r));
    c.count("drops." + reason, "packets dropped: " + reason);
  }
  return c.take();
}

std::vector<DetailColumn> port_fault_columns() {
  Columns c;
  c.key("port", "/name", ColumnType::Text, "the port whose link has fault injection (link.faults)")
      .count("judged", "packets the injector judged")
      .count("dropped_targeted", "dropped by a rule")
      .count("delayed", "delayed by a rule")
      .count("duplicated", "duplicated by a rule")
      .count("dropped_random", "dropped at random (loss rate)")
      .count("corrupted", "corrupted by bit errors");
  for (std::size_t e = 1; e < link::kDecodeErrorCount; ++e) {
    std::string name = ib::to_string(static_cast<ib::DecodeError>(e));
    for (char& ch : name) ch = ch == ' ' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    c.count("corrupted_by_error." + name, "corruptions the receiver caught as " + std::string(ib::to_string(static_cast<ib::DecodeError>(e))) + " (NULL: none)");
  }
  c.count("undetected", "corruptions no check caught").count("bits_flipped", "bits flipped in all");
  return c.take();
}

std::vector<DetailColumn> fault_rule_columns() {
  Columns c;
  c.key("port", "/name", ColumnType::Text, "the port whose injector has the rule")
      .text("action", "drop, delay or duplicate")
      .count("matches", "packets the rule matched")
      .count("dropped", "packets it dropped")
      .count("delayed", "packets it delayed")
      .count("duplicated", "packets it duplicated");
  return c.take();
}

std::vector<DetailColumn> switch_columns() {
  Columns c;
  c.key("name", "name", ColumnType::Text, "the switch")
      .count("lid", "its LID")
      .count("level", "its distance in links from the nearest HCA (1: a leaf)")
      .count("ports", "its ports")
      .count("forwarded", "packets forwarded")
      .count("to_management", "packets taken by its management port (port 0)")
      .ps("crossbar_wait_ps", "time its forwarded packets waited in the inputs, from arrival to the start of their "
                              "crossbar transfer, summed (over forwarded: the mean wait; head-of-line blocking shows here)")
      .bytes("pool_peak_bytes", "architecture shared: the most of its pool's shared part its input VLs had drawn "
                                "(advertised beyond their reserved shares) at once; 0 for the other architectures")
      .count("ar_routed", "packets it routed adaptively (routing.adaptive): a port of the DLID's group")
      .count("ar_reroutes", "of those, packets that left on another port than the previous packet of their flow "
                            "(SLID, DLID) through this switch: each may overtake or be overtaken");
  return c.take();
}

void add_load_and_latency(Columns& c) {
  c.count("packets_created", "packets made")
      .count("packets_sent", "packets its port accepted")
      .count("packets_dropped_at_source", "packets refused at the source (no room, no route)")
      .count("packets_dropped_source_queue", "packets dropped by the bounded source queue")
      .count("source_queue_high_water", "the longest the source queue got, packets")
      .count("packets_delivered", "packets taken by the destination host")
      .bytes("bytes_delivered", "wire bytes delivered")
      .bytes("payload_bytes_delivered", "payload bytes delivered")
      .count("packets_out_of_order", "flows with one destination (a flow, a permutation's): packets delivered "
                                     "after a later packet of their flow (reordered on the way, by adaptive routing)")
      .count("measured_packets.offered", "of the packets made in the measured window: offered")
      .count("measured_packets.delivered", "of the packets made in the measured window: delivered")
      .count("measured_packets.lost_at_source", "of the packets made in the measured window: lost at the source")
      .bps("offered_bps", "wire bytes made per second over the rate span")
      .share("offered_load", "offered_bps over the source link's data rate")
      .bps("accepted_bps", "wire bytes delivered per second over the rate span")
      .share("accepted_load", "accepted_bps over the source link's data rate")
      .share("carried", "accepted over offered")
      .bps("throughput_bps", "the same as accepted_bps")
      .bps("data_throughput_bps", "payload bytes delivered per second over the rate span");
  c.latency("latency", "creation to delivery (docs/measurements.md)")
      .latency("latency_parts.source_queue", "creation to first byte on the source link")
      .latency("latency_parts.port_queue", "accepted by the source port to first byte on the source link")
      .latency("latency_parts.network", "first byte on the source link to delivery");
}

std::vector<DetailColumn> flow_columns() {
  Columns c;
  c.key("name", "name", ColumnType::Text, "the flow (a pattern's flows are PATTERN.SOURCE)")
      .text("src", "its source port")
      .text("dst", "its destination: a port, or the pattern's rule")
      .count("sl", "its service level")
      .flag("vl15", "sent on VL15")
      .bytes("payload_bytes", "payload per packet")
      .flag("saturating", "sends as fast as its port takes packets (no rate or load)");
  add_load_and_latency(c);
  return c.take();
}

std::vector<DetailColumn> qp_columns() {
  Columns c;
  c.key("hca", "hca", ColumnType::Text, "the HCA")
      .count("qpn", "the QP number")
      .text("owner", "the perftest test or verbs connection that made it (empty: none)")
      .text("type", "rc, uc or ud")
      .text("state", "its state at the end: reset, init, rtr, rts, sqd, sqe or err")
      .count("port", "its port number")
      .count("messages_sent", "send-queue messages completed")
      .count("messages_received", "messages received")
      .bytes("bytes_sent", "payload bytes of messages sent")
      .bytes("bytes_received", "payload bytes received")
      .bps("tx_throughput_bps", "bytes_sent per second of simulated time")
      .count("request_packets", "request packets sent")
      .count("resent_packets", "request packets sent again")
      .count("response_packets", "response packets sent (ACKs, read responses)")
      .count("retries", "retries (timeouts and NAKs)")
      .count("timeouts", "local ACK timeouts")
      .count("rnr_naks_received", "RNR NAKs received")
      .count("rnr_naks_sent", "RNR NAKs sent");
  for (const char* dir : {"received", "sent"})
    for (const char* n : {"psn_seq_err", "inv_req", "rem_access", "rem_op"})
      c.count(std::string("naks_") + dir + "." + n, std::string("NAKs ") + dir + ": " + n);
  c.count("duplicates", "duplicate requests received")
      .count("out_of_order", "out_of_order QPs: requests and responses taken ahead of their PSN (reordered on the "
                             "way), where another QP would NAK or resend")
      .count("dropped", "packets dropped");
  return c.take();
}

std::vector<DetailColumn> engine_columns() {
  Columns c;
  c.key("hca", "hca", ColumnType::Text, "the HCA (HCAs with QPs)")
      .count("engines", "transmit units")
      .count("qps", "QPs")
      .count("packets_built", "packets the transmit units built")
      .count("packets_received", "packets the receive side took")
      .count("unknown_qp_drops", "packets for a QP that does not exist")
      .count("port_full_waits", "times a unit waited for room in the port")
      .count("context_waits", "times a QP waited for its QPC's fill (no unit held)")
      .count("wqe_waits", "times a send WQE's first packet waited for the WQE's refetch (no unit held)")
      .count("response_wqe_waits", "responses that waited beside the receive pipeline for their send WQE's refetch")
      .count("data_waits", "times a unit waited for gather data")
      .ps("data_wait_ps", "time units waited for gather data")
      .ps("busy_ps", "time the units were busy, summed over units")
      .share("utilization", "busy_ps over the simulated time times the units");
  return c.take();
}

// What every cache reports (host_stats.cpp's cache_counts_json).
void add_cache_counts(Columns& c, const std::string& at, const std::string& what) {
  c.count(at + "lookups", what + ": lookups")
      .count(at + "hits", what + ": hits")
      .count(at + "misses", what + ": misses")
      .count(at + "merged", what + ": lookups merged into a fill under way")
      .count(at + "evictions", what + ": lines evicted")
      .share(at + "hit_rate", what + ": hits over lookups (1 without lookups)")
      .latency(at + "miss_latency", what + ": a miss's lookup to its line on chip");
}

std::vector<DetailColumn> host_columns() {
  Columns c;
  c.key("hca", "hca", ColumnType::Text, "the HCA (HCAs with QPs, DMA or MMIO)");
  for (const char* dir : {"upstream", "downstream"}) {
    const std::string d = std::string("pcie.") + dir;
    for (std::size_t k = 0; k < pcie::kTlpKinds; ++k) {
      const std::string kind = pcie::to_string(static_cast<pcie::TlpKind>(k));
      c.count(d + "." + kind + ".tlps", std::string("PCIe ") + dir + " " + kind + " TLPs (NULL: none)")
          .bytes(d + "." + kind + ".payload_bytes", std::string("PCIe ") + dir + " " + kind + " payload")
          .bytes(d + "." + kind + ".wire_bytes", std::string("PCIe ") + dir + " " + kind + " bytes on the wire");
    }
    c.count(d + ".tlps", std::string("PCIe ") + dir + ": TLPs")
        .bytes(d + ".payload_bytes", std::string("PCIe ") + dir + ": payload")
        .bytes(d + ".wire_bytes", std::string("PCIe ") + dir + ": bytes on the wire")
        .ps(d + ".busy_ps", std::string("PCIe ") + dir + ": time the direction was busy")
        .share(d + ".utilization", std::string("PCIe ") + dir + ": busy over the simulated time");
  }
  c.count("pcie.dma_reads", "DMA reads over the link")
      .latency("pcie.dma_read_latency", "DMA read request to last completion")
      .count("pcie.max_outstanding_reads", "the most DMA reads outstanding at once")
      .count("pcie.tag_waits", "DMA reads that waited for a free tag")
      .count("host_memory.reads", "host memory reads")
      .bytes("host_memory.read_bytes", "host memory bytes read")
      .count("host_memory.writes", "host memory writes")
      .bytes("host_memory.write_bytes", "host memory bytes written")
      .ps("host_memory.busy_ps", "time host memory was busy")
      .share("host_memory.utilization", "host memory busy over the simulated time");
  for (const char* n : {"posts", "recv_posts", "doorbells", "blueflame_writes", "inline_wqes", "cq_polls", "cqes", "arms",
                        "interrupts", "mmio_errors"})
    c.count(std::string("driver.") + n, std::string("driver: ") + n);
  c.ps("driver.cpu_busy_ps", "driver: CPU time spent, summed over its threads")
      .count("driver.cpu_threads", "driver: its CPU threads")
      .share("driver.cpu_utilization", "driver: CPU time over the simulated time, the mean of its threads")
      .share("driver.cpu_utilization_max", "driver: the busiest thread's CPU time over the simulated time")
      .text("driver.cpu_thread_utilization", "driver: each thread's CPU time over the simulated time, as a JSON list");
  for (const char* n : {"doorbells", "blueflame_writes", "blueflame_wqes", "blueflame_refused", "blueflame_wqe_reads",
                        "read_wqes_released", "wqe_fetches", "send_wqes", "record_reads",
                        "recv_wqe_fetches", "recv_wqes", "cqes", "cqes_lost", "arms", "interrupts", "interrupts_masked",
                        "bad_doorbells", "bad_wqes", "mmio_errors"})
    c.count(std::string("front_end.") + n, std::string("HCA front end: ") + n);
  for (const char* n : {"completions", "cqe_blocks", "mini_cqes"})
    c.count(std::string("front_end.") + n, std::string("HCA front end, CQE compression (NULL: off): ") + n);
  for (std::size_t p = 0; p < static_cast<std::size_t>(hca::DmaPurpose::kCount); ++p) {
    const std::string purpose = hca::to_string(static_cast<hca::DmaPurpose>(p));
    c.count("dma." + purpose + ".reads", "DMA for " + purpose + ": reads (NULL: none)")
        .bytes("dma." + purpose + ".read_bytes", "DMA for " + purpose + ": bytes read")
        .count("dma." + purpose + ".writes", "DMA for " + purpose + ": writes")
        .bytes("dma." + purpose + ".write_bytes", "DMA for " + purpose + ": bytes written");
  }
  c.count("dma.errors", "DMA transactions that failed")
      .bytes("iommu.page_size", "IOMMU (NULL: none): page size")
      .count("iommu.translations", "IOMMU: translations")
      .count("iommu.walk_reads", "IOMMU: page-table reads of the walks");
  add_cache_counts(c, "iommu.iotlb.", "IOTLB");
  c.count("iommu.iotlb.entries", "IOTLB: entries").count("iommu.iotlb.walk_waits", "IOTLB: misses that waited for a walker");
  return c.take();
}


std::vector<DetailColumn> cache_columns() {
  Columns c;
  c.key("hca", "/hca", ColumnType::Text, "the HCA (hosts.hca)")
      .key("cache", "@key", ColumnType::Text, "qpc, cqc, mpt, mtt or wqe (docs/context-caches.md)");
  add_cache_counts(c, "", "the cache");
  c.count("conflict_evictions", "evictions while another set had room (set conflicts)")
      .count("write_backs", "dirty lines written back")
      .count("mshr_full_waits", "misses that waited for a free MSHR")
      .count("inserts", "lines put in by other means (prefetched WQEs)")
      .count("bypasses", "misses and inserts that found every way of their set pinned (nothing kept)")
      .count("prefetches", "lines the WQE prefetch filled")
      .count("occupancy", "valid lines at the end");
  return c.take();
}

std::vector<DetailColumn> swarm_machine_columns() {
  Columns c;
  c.key("swarm", "/name", ColumnType::Text, "the swarm (workload.swarm)")
      .text("port", "the machine's HCA port")
      .count("qps", "its QPs")
      .count("posted", "operations posted")
      .count("completed", "operations completed in the counted span")
      .real("ops_per_s", "1/s", "completed per second of the counted span");
  return c.take();
}

std::vector<DetailColumn> cc_switch_vl_columns() {
  Columns c;
  c.key("switch", "/name", ColumnType::Text, "the switch")
      .count("port", "its port")
      .count("vl", "the VL")
      .count("marked", "packets marked with FECN")
      .ps("congested_ps", "time the port and VL were congested");
  return c.take();
}

std::vector<DetailColumn> cc_hca_port_columns() {
  Columns c;
  c.key("hca", "name", ColumnType::Text, "the HCA")
      .count("port", "its port number")
      .count("fecn_received", "data packets received with FECN")
      .count("becns_sent", "responses sent with BECN")
      .count("cnps_sent", "CNPs sent")
      .count("cnps_refused", "CNPs that found the transmit queue full")
      .count("becns_received", "responses received with BECN")
      .count("cnps_received", "CNPs received")
      .count("trigger_events", "congestion-control trigger events");
  return c.take();
}

std::vector<DetailColumn> cc_ccti_columns() {
  Columns c;
  c.key("hca", "/name", ColumnType::Text, "the HCA")
      .key("port", "/port", ColumnType::Integer, "its port number")
      .count("sl", "the SL the CCTI is kept for (NULL: per QP or flow)")
      .count("qp_or_flow", "the QP number or raw flow the CCTI is kept for (NULL: per SL)")
      .count("ccti", "its CCTI at the end")
      .count("ccti_max", "the highest it reached")
      .count("packets", "packets it delayed")
      .ps("mean_delay_ps", "the mean injection delay applied");
  return c.take();
}

std::vector<DetailColumn> sa_transfer_columns() {
  Columns c;
  c.key("server", "/node", ColumnType::Text, "the SA that answered (the master's or standby's node)")
      .count("tid", "the transaction ID")
      .count("peer_lid", "the requester's LID")
      .count("method", "the MAD method")
      .count("attribute", "the attribute ID")
      .count("status", "the MAD status answered")
      .flag("failed", "the transfer failed")
      .real("start_us", "us", "its start")
      .real("end_us", "us", "its end")
      .bytes("bytes", "bytes of records")
      .count("records", "records")
      .count("segments", "segments")
      .count("acks", "ACKs sent and received")
      .count("resends", "resends sent and received")
      .count("keepalives", "keep-alives")
      .count("retries", "retries");
  return c.take();
}

std::vector<DetailColumn> run_columns() {
  Columns c;
  c.key("scenario", "scenario", ColumnType::Text, "the scenario's name")
      .count("seed", "run.seed")
      .text("config_hash", "the resolved configuration's hash (stats.json run.config_hash)")
      .ps("sim_time_ps", "simulated time")
      .text("version", "the hcasim that wrote the file (hcasim --version)");
  return c.take();
}

std::vector<DetailTable> make_tables() {
  std::vector<DetailTable> t;
  t.push_back({"run", "run", "", "run (the table has one row)", 1, false, run_columns()});
  t.push_back({"ports", "ports", "", "port of an HCA or a switch (a switch's management port 0 is not one)", 1,
               false, port_columns()});
  t.push_back({"port_vls", "ports", "vls", "VL of a port (its data VLs in operation, and VL15)", 2, true,
               port_vl_columns()});
  t.push_back({"port_faults", "ports", "faults", "port whose link has fault injection (link.faults)", 1, false,
               port_fault_columns()});
  t.push_back({"port_fault_rules", "ports", "faults.rules", "fault rule of a port's injector, in rule order", 1, false,
               fault_rule_columns()});
  t.push_back({"switches", "switches", "", "switch", 1, false, switch_columns()});
  t.push_back({"flows", "flows", "", "raw-traffic flow (workload.flows, and each source of workload.patterns)", 1,
               false, flow_columns()});
  t.push_back({"qps", "qps", "", "transport QP, in HCA and QP-number order", 2, false, qp_columns()});
  t.push_back({"engines", "engines", "", "HCA with QPs: its transport engines", 1, false, engine_columns()});
  t.push_back({"hosts", "hosts", "", "HCA with QPs, DMA or MMIO: its host side (PCIe, host memory, driver, front end, DMA, IOMMU)",
               1, false, host_columns()});
  t.push_back({"caches", "hosts", "caches", "context cache of an HCA of the hosts table", 2, false, cache_columns()});
  t.push_back({"swarm_machines", "swarms", "machines", "machine of an rc-swarm workload (docs/swarm.md)", 1, false,
               swarm_machine_columns()});
  t.push_back({"cc_switch_vls", "cc_switches", "vls", "switch port and VL that marked packets or was congested", 3, false,
               cc_switch_vl_columns()});
  t.push_back({"cc_hca_ports", "cc_hca_ports", "", "HCA port with congestion control on", 2, false,
               cc_hca_port_columns()});
  t.push_back({"cc_cctis", "cc_hca_ports", "cctis", "CCTI an HCA port keeps (per QP or flow, or per SL)", 2, false,
               cc_ccti_columns()});
  t.push_back({"sa_transfers", "sa_servers", "transfers", "SA transfer, as the server that answered saw it", 1, false,
               sa_transfer_columns()});
  for (DetailTable& table : t) {
    if (!table.each.empty()) table.each_steps = split_dotted(table.each);
    for (DetailColumn& c : table.columns)
      if (c.path != "@key") c.steps = split_dotted(c.path[0] == '/' ? c.path.substr(1) : c.path);
  }
  return t;
}

// The value at a path of keys in a JSON value; null when absent.
const nlohmann::json* at_steps(const nlohmann::json& v, const std::vector<std::string>& steps) {
  const nlohmann::json* at = &v;
  for (const std::string& key : steps) {
    if (!at->is_object()) return nullptr;
    const auto it = at->find(key);
    if (it == at->end()) return nullptr;
    at = &*it;
  }
  return at;
}

bool is_zero(const nlohmann::json& v) {
  return v.is_null() || (v.is_number() && v.get<double>() == 0.0) || (v.is_boolean() && !v.get<bool>());
}

}  // namespace

const std::vector<DetailTable>& detail_tables() {
  static const std::vector<DetailTable> tables = make_tables();
  return tables;
}

const DetailTable* find_detail_table(const std::string& name) {
  for (const DetailTable& t : detail_tables())
    if (t.name == name) return &t;
  return nullptr;
}

std::vector<std::string> detail_kinds() {
  std::vector<std::string> kinds;
  for (const DetailTable& t : detail_tables())
    if (std::find(kinds.begin(), kinds.end(), t.kind) == kinds.end()) kinds.push_back(t.kind);
  return kinds;
}

void table_rows(const DetailTable& t, const nlohmann::json& object, std::vector<std::vector<nlohmann::json>>& rows,
                uint64_t& omitted) {
  const auto row_of = [&](const nlohmann::json& source, const std::string& key) {
    std::vector<nlohmann::json> row;
    row.reserve(t.columns.size());
    bool zero = true;
    for (std::size_t i = 0; i < t.columns.size(); ++i) {
      const DetailColumn& c = t.columns[i];
      const nlohmann::json* v = c.path == "@key"   ? nullptr
                                : c.path[0] == '/' ? at_steps(object, c.steps)
                                                   : at_steps(source, c.steps);
      nlohmann::json value = c.path == "@key" ? nlohmann::json(key) : v != nullptr ? *v : nlohmann::json();
      if (c.type == ColumnType::Text && !value.is_null() && !value.is_string()) value = value.dump();
      if (i >= t.key_columns && !is_zero(value)) zero = false;
      row.push_back(std::move(value));
    }
    if (t.omit_zero && zero) ++omitted;
    else rows.push_back(std::move(row));
  };
  if (t.each.empty()) return row_of(object, "");
  const nlohmann::json* each = at_steps(object, t.each_steps);
  if (each == nullptr) return;
  if (each->is_array()) {
    for (const nlohmann::json& e : *each) row_of(e, "");
  } else if (each->is_object()) {
    const bool members = std::any_of(t.columns.begin(), t.columns.end(), [](const DetailColumn& c) { return c.path == "@key"; });
    if (!members) return row_of(*each, "");
    for (const auto& [key, e] : each->items()) row_of(e, key);
  }
}

std::string detail_tables_reference() {
  std::ostringstream o;
  o << "# results.db: the tables\n\n"
       "<!-- Generated by `hcasim tables`; do not edit (a test compares them). -->\n\n"
       "A run writes its detail, one row per object, into `DIR/results.db`, an SQLite database that\n"
       "`sqlite3` and Python's `sqlite3` module read without hcasim (docs/results.md: how to use it).\n"
       "Each table below: what one row is, then its columns. A column is NULL where its statistic was\n"
       "not reported for that row (a feature that was off). Units: ps and ns are simulated time, b/s\n"
       "bits per second of simulated time, a share is 0 to 1.\n\n";
  for (const DetailTable& t : detail_tables()) {
    o << "## `" << t.name << "`\n\n"
      << "One row per " << t.row << ".";
    if (t.omit_zero)
      o << " Rows whose statistics are all 0 are left out; stats.json's `details.tables." << t.name
        << ".omitted` counts them.";
    o << "\n\n| column | type | unit | meaning |\n|---|---|---|---|\n";
    for (const DetailColumn& c : t.columns)
      o << "| `" << c.name << "` | " << (c.type == ColumnType::Boolean ? "0 or 1" : sql_type(c.type)) << " | " << c.unit
        << " | " << c.meaning << " |\n";
    o << "\n";
  }
  return o.str();
}

}  // namespace hcasim
