#pragma once
// The scenario's transport workloads: perftest-like tests and verbs scripts
// (workload.perftest, workload.verbs), described once for reading, writing and
// documenting. What they do at run time is testbench/workloads/perftest.hpp
// and verbs_script.hpp.
//
// Rules:
// - A perftest entry is one test between two HCA ports: the tool (write_bw ...
//   atomic_lat), the message sizes (a list of sizes, or "all" = 2 B ... 8 MiB
//   in powers of two as perftest -a), iterations per size and QP, and the QP
//   parameters. sizes [] and iterations 0 mean the tool's own defaults
//   (perftest: 65536 B and 5000 iterations for bandwidth, 2 B and 1000
//   iterations for latency, 8 B for atomics). The QP knobs take perftest's
//   defaults (docs/perftest.md): timeout 14, retry_cnt 7, rnr_retry 7,
//   min_rnr_timer 12, SL 0, the ports' MTU (mtu 0).
// - A verbs connection joins two HCA ports with one QP each ("a", "b") and
//   lists operations in order, each with the completion status it must end in.
// - A swarm (workload.swarm) is rdma_bench's rc-swarm (Kalia et al., ATC
//   2016 and OSDI 2016): machines (HCA ports; [] = port 1 of every HCA), each
//   with `threads` worker threads; each thread makes one QP per machine per
//   virtual machine (vms, M), each QP with its own CQ, so each HCA holds
//   threads x machines x vms QPs (the QPs a machine makes to itself stay
//   unused, as in rc-swarm), and keeps `window` signaled operations (READ or
//   WRITE of `size` bytes) outstanding over its QPs to the other machines
//   (testbench/workloads/swarm.hpp).
// - check_verbs_workloads (after the topology is known): ports exist and are
//   HCA ports, client differs from server, the QP type suits the test, sizes
//   suit the QP type (UD: at most the MTU; "all" stops at it, as perftest -a),
//   the MTU suits the ports (0 becomes theirs), the RC-only knobs keep their
//   defaults on UC and UD, report_gbits only on bandwidth tests, and no port
//   is used both by a raw flow / traffic pattern
//   and by a transport workload. A swarm's machines are distinct HCA ports,
//   at least two; its buffer holds the window and an operation; it needs a
//   run duration (it runs until the run ends). Errors name the JSON path.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/config/config_io.hpp"
#include "models/config/service_level.hpp"
#include "models/transport/verbs.hpp"

namespace hcasim::config {

struct Scenario;

enum class PerftestKind { WriteBw, SendBw, ReadBw, WriteLat, SendLat, ReadLat, AtomicLat };
enum class AtomicKind { FetchAdd, CmpSwap };

constexpr uint64_t kPerftestMaxSize = uint64_t{1} << 23;  // perftest -a: 2 B .. 8 MiB
constexpr uint64_t kAfterPrevious = UINT64_MAX;           // a perftest's start: when the one before it ends
constexpr uint32_t kToolInline = UINT32_MAX;              // a perftest's inline_size: the tool's choice
constexpr uint32_t kToolCqModeration = 100;               // perftest DEF_CQ_MOD

struct PerftestConfig {
  std::string name;                    // "" = "<test><index>", e.g. "write_bw0"
  PerftestKind test = PerftestKind::WriteBw;
  std::string client = "hca0.p1";      // the requester side (perftest's client)
  std::string server = "hca1.p1";
  std::vector<uint64_t> sizes;         // message bytes, run one after another; [] = the tool's default
  uint64_t iterations = 0;             // per size and per QP; 0 = the tool's default
  uint32_t qps = 1;                    // bandwidth tests: QPs, each doing the iterations
  uint32_t tx_depth = 128;             // bandwidth tests: WRs kept posted per QP
  uint32_t rx_depth = 512;             // send_bw: receive WRs posted ahead per QP
  uint32_t mtu = 0;                    // path MTU, bytes; 0 = the smaller MTU of the two ports (perftest -m: the
                                       // port's active MTU); check_verbs_workloads fills it in
  uint32_t sl = 0;                     // service level (perftest -S, default 0), or kPathSl (perftest -R: the SA's)
  uint32_t weight = 1;                 // the QPs' weight for the weighted_round_robin scheduler (weights "qp")
  uint32_t pkey_index = 0;             // the QPs' P_Key: this index of each port's P_KeyTable (perftest --pkey_index)
  // RC QPs (perftest sets them for RC only; src/perftest_resources.c, ctx_modify_qp_to_rts / _rtr):
  uint32_t timeout = 14;               // Local ACK timeout: Ttr = 4.096 us x 2^timeout, 0 = no timer (-u, default 14)
  uint32_t retry_cnt = 7;              // transport retries (the tool sets 7; --retry_count only with rdma_cm)
  uint32_t rnr_retry = 7;              // RNR retries, 7 = infinite (the tool sets 7)
  uint32_t min_rnr_timer = 12;         // RNR NAK timer code the QPs return as responders (MIN_RNR_TIMER 12: 0.64 ms)
  bool out_of_order = false;           // rc: both QPs place data out of order (mlx5dv MLX5DV_QP_CREATE_OOO_DP)
  bool report_gbits = false;           // bandwidth tests: the table in Gb/sec instead of MiB/sec (--report_gbits)
  transport::QpType qp_type = transport::QpType::Rc;
  AtomicKind atomic = AtomicKind::FetchAdd;  // atomic_lat: the operation
  bool idle = false;                   // create and connect the QPs, send nothing (memory measurements)
  uint32_t inline_size = kToolInline;  // messages of at most this size go inline (perftest -I); kToolInline =
                                       // the tool's choice for the test (perftest_inline_default), filled in by
                                       // check_verbs_workloads
  uint32_t post_list = 1;              // bandwidth tests: WRs per post, one doorbell each list (perftest -l)
  uint32_t threads = 1;                // bandwidth tests: posting threads per side, QP q on thread q mod threads
  uint32_t cq_depth = 0;               // model only: entries of each CQ the test makes; 0 = perftest's
                                       // (perftest_send_cq_depth, perftest_receives_ahead)
  uint32_t cq_moderation = 0;          // bandwidth tests: every this-many-th WR is signaled (perftest -Q); 0 = the
                                       // tool's: 100, at most tx_depth; latency tests 1 (check_verbs_workloads)
  uint64_t start_ps = kAfterPrevious;  // when the first size starts: after the test before it (the first: 0), or this time
};

enum class VerbsOpKind { Send, SendWithImm, SendWithInv, Write, WriteWithImm, Read, CmpSwap, FetchAdd, PostRecv };
enum class Side { A, B };
enum class RkeyChoice { Valid, Bad };

struct VerbsOpConfig {
  Side side = Side::A;                 // the side that posts it
  VerbsOpKind op = VerbsOpKind::Send;
  uint64_t bytes = 64;                 // message (post_recv: buffer) bytes; atomics 8
  uint64_t at_ps = 0;                  // post time; 0 = right after the previous operation
  transport::WcStatus expect = transport::WcStatus::Success;  // the completion status it must end in
  RkeyChoice rkey = RkeyChoice::Valid; // "bad": an R_Key no region has (provokes rem_access_err)
  uint64_t compare = 0;                // cmp_swap
  uint64_t swap = 0;                   // cmp_swap
  uint64_t add = 1;                    // fetch_add
};

struct VerbsConnectionConfig {
  std::string name;                    // "" = "conn<index>"
  transport::QpType type = transport::QpType::Rc;
  std::string a = "hca0.p1";
  std::string b = "hca1.p1";
  uint32_t mtu = 4096;                 // path MTU, bytes
  uint32_t sl = 0;                     // 0-15, or kPathSl (service_level.hpp)
  uint32_t psn_a = 0;                  // a's send start PSN (b's first ePSN)
  uint32_t psn_b = 0;
  uint32_t timeout = 14;               // Local ACK timeout code: Ttr = 4.096 us x 2^timeout; 0 = off
  uint32_t retry_cnt = 7;
  uint32_t rnr_retry = 7;              // 7 = infinite
  uint32_t min_rnr_timer = 1;          // RNR NAK timer code each responder returns
  uint32_t pkey_index = 0;             // both QPs' P_Key: this index of their port's P_KeyTable
  uint32_t max_rd_atomic = 16;
  uint32_t max_dest_rd_atomic = 16;
  std::vector<std::string> access{"local_write", "remote_write", "remote_read", "remote_atomic"};  // QP access flags
  std::vector<VerbsOpConfig> ops;
};

enum class SwarmOp { Read, Write };

// The port `offset` numbers past a swarm machine's listed port ("hca0.p1", 1: "hca0.p2").
std::string swarm_port(const std::string& listed, uint32_t offset);

struct SwarmConfig {
  std::string name;                    // "" = "swarm<index>"
  std::vector<std::string> machines;   // HCA ports; [] = port 1 of every HCA
  uint32_t threads = 14;               // worker threads per machine (rc-swarm on the Connect-IB cluster: 14)
  uint32_t ports = 1;                  // ports per machine: thread t's QPs on the listed port's HCA port number + t mod ports
  uint32_t vms = 1;                    // virtual machines emulated per machine (M)
  SwarmOp op = SwarmOp::Read;
  uint64_t size = 32;                  // bytes per operation
  uint32_t window = 24;                // operations a thread keeps outstanding
  uint64_t buffer = 2ull << 20;        // each thread's registered buffer (rc-swarm: 2 MiB)
  uint32_t regions = 1;                // memory regions the buffer is registered as, equal parts
  uint32_t max_rd_atomic = 16;         // READs a QP keeps outstanding, and accepts as responder
  uint32_t sq_depth = 128;             // send queue depth of each QP
  uint64_t start_ps = 0;               // when the threads start posting
  uint64_t warmup_ps = 0;              // operations completed before start + warmup are not counted
};

// Host memory the transport workloads use, known to the resource estimate
// (resource_limits.hpp) as well as to the workloads:
// - each side of a perftest or verbs connection registers one region of
//   2 x kVerbsAreaBytes: its own buffers, then where the other side's operations land;
// - a perftest's slots of all QPs hold at most kPerftestSlotBudget bytes per
//   side, at least one slot per QP.
constexpr uint64_t kVerbsAreaBytes = uint64_t{1} << 39;
constexpr uint64_t kPerftestSlotBudget = uint64_t{64} << 20;

// The sizes of "all": 2, 4, ... 8 MiB.
std::vector<uint64_t> perftest_all_sizes();
const char* to_string(PerftestKind k);
bool is_bandwidth(PerftestKind k);
// transport::Access bits of access names; throws ConfigError at path for an unknown name.
uint32_t access_bits(const std::vector<std::string>& names, const std::string& path);

std::vector<uint64_t> parse_perftest_sizes(const nlohmann::json& v, const std::string& path);
nlohmann::json format_perftest_sizes(const std::vector<uint64_t>& sizes);
std::vector<std::string> parse_access_names(const nlohmann::json& v, const std::string& path);
nlohmann::json format_access_names(const std::vector<std::string>& names);
nlohmann::json perftest_sizes_schema();  // JSON Schemas of the two forms above (config_schema.hpp)
nlohmann::json access_names_schema();
// A perftest's "start": "after_previous" (kAfterPrevious) or a time.
uint64_t parse_perftest_start(const nlohmann::json& v, const std::string& path);
nlohmann::json format_perftest_start(uint64_t start_ps);
nlohmann::json perftest_start_schema();
// A perftest's "inline_size": "tool" (kToolInline) or a size of at most 4000 bytes.
uint32_t parse_perftest_inline(const nlohmann::json& v, const std::string& path);
nlohmann::json format_perftest_inline(uint32_t bytes);
nlohmann::json perftest_inline_schema();
// perftest's inline size for a test (perftest_parameters.c, ctx_set_max_inline):
// write_lat 220 (DEF_INLINE_WRITE), send_lat 236 on RC and UC
// (DEF_INLINE_SEND_RC_UC) and 188 on UD (DEF_INLINE_SEND_UD), 0 otherwise.
uint32_t perftest_inline_default(PerftestKind test, transport::QpType type);
// Fills in the knobs left to the tool: sizes [] and iterations 0 (the tool's
// per test), cq_moderation 0 (DEF_CQ_MOD 100, lowered to tx_depth as
// perftest's force_dependecies does; latency tests 1) and inline_size
// kToolInline (perftest_inline_default). Call after mtu is known.
void resolve_perftest_tool_defaults(PerftestConfig& t);
// The completion queues perftest makes (perftest_resources.c create_cqs, with
// the depths force_dependecies leaves), per QP: the send CQ holds tx_depth
// (latency tests DEF_TX_LAT 1; at most the iterations); the tests with
// receive completions (send_bw, send_lat) have a receive CQ of the receives
// posted ahead, perftest_receives_ahead, and the others take receive
// completions on the send CQ. Call after resolve_perftest_tool_defaults.
uint32_t perftest_send_cq_depth(const PerftestConfig& t);
bool perftest_has_receive_cq(const PerftestConfig& t);
// The receives perftest posts ahead per QP (send tests): rx_depth, at most
// the iterations; on UD and UC a default rx_depth (DEF_RX_SEND 512) becomes the
// iterations up to UC_MAX_RX 16000; then one more when odd (perftest's
// workaround for an odd rx_depth with SEND).
uint32_t perftest_receives_ahead(const PerftestConfig& t);
const Names<transport::WcStatus>& wc_status_names();
const Names<transport::QpType>& qp_type_names();
const Names<VerbsOpKind>& verbs_op_names();
const char* to_string(VerbsOpKind k);

// Cross-field and topology checks of workload.perftest and workload.verbs;
// names are filled in ("" -> defaults). Throws ConfigError.
void check_verbs_workloads(Scenario& s);

template <class Io>
void describe(Io& io, PerftestConfig& c) {
  io.string("name", c.name, "test name in stats.json; empty = <test><index>");
  io.choice("test", c.test,
            Names<PerftestKind>{{"write_bw", PerftestKind::WriteBw},   {"send_bw", PerftestKind::SendBw},
                                {"read_bw", PerftestKind::ReadBw},     {"write_lat", PerftestKind::WriteLat},
                                {"send_lat", PerftestKind::SendLat},   {"read_lat", PerftestKind::ReadLat},
                                {"atomic_lat", PerftestKind::AtomicLat}},
            "the perftest tool (ib_write_bw ... ib_atomic_lat)");
  io.string("client", c.client, "HCA port of the client (the side that posts the measured operations)");
  io.string("server", c.server, "HCA port of the server");
  io.custom("sizes", c.sizes, parse_perftest_sizes, format_perftest_sizes,
            {"a list of sizes such as [\"64KiB\"], or \"all\" (2 B ... 8 MiB, powers of two)", perftest_sizes_schema},
            "message sizes, run one after another; [] = 65536 B (bw), 2 B (lat), 8 B (atomic)");
  io.uint64("iterations", c.iterations, 0, uint64_t{1} << 40,
            "messages per size and QP; 0 = 5000 (bw) or 1000 (lat)");
  io.uint("qps", c.qps, 1, 1u << 20, "bandwidth tests: QPs, each doing the iterations");
  io.uint("tx_depth", c.tx_depth, 1, 1u << 16, "bandwidth tests: WRs kept posted per QP");
  io.uint("rx_depth", c.rx_depth, 1, 1u << 16, "send_bw: receive WRs posted ahead per QP");
  io.uint_of("mtu", c.mtu, {0, 256, 512, 1024, 2048, 4096},
             "path MTU, bytes (perftest -m); 0 = the smaller MTU of the two ports, the tool's default (its port's "
             "active MTU); UD: the largest message");
  describe_sl(io, c.sl, "service level of the QPs (perftest -S); the ports' sl2vl tables map it to a VL");
  io.uint("pkey_index", c.pkey_index, 0, 127,
          "the QPs' P_Key: this index of each port's P_KeyTable (perftest --pkey_index; docs/partitions.md)");
  io.uint("weight", c.weight, 1, 255,
          "the QPs' packets per turn under transport.scheduler weighted_round_robin with weights \"qp\"");
  io.uint("timeout", c.timeout, 0, 31,
          "rc: Local ACK timeout exponent, Ttr = 4.096us x 2^timeout, 0 = no timer (perftest -u, default 14)");
  io.uint("retry_cnt", c.retry_cnt, 0, 7,
          "rc: transport retries after a timeout or a PSN sequence NAK (perftest sets 7)");
  io.uint("rnr_retry", c.rnr_retry, 0, 7, "rc: retries after an RNR NAK; 7 = infinite (perftest sets 7)");
  io.boolean("out_of_order", c.out_of_order,
             "rc: both QPs take requests and responses that arrive ahead of their PSN (reordered by adaptive "
             "routing) instead of NAKing them, completing in order: mlx5dv's MLX5DV_QP_CREATE_OOO_DP, which "
             "perftest does not set (docs/adaptive-routing.md)");
  io.uint("min_rnr_timer", c.min_rnr_timer, 0, 31,
          "rc: RNR NAK timer code the QPs return as responders, IBA table: 1 = 0.01ms ... 12 = 0.64ms ... "
          "31 = 491.52ms, 0 = 655.36ms (perftest sets 12)");
  io.boolean("report_gbits", c.report_gbits,
             "bandwidth tests: the printed table in Gb/sec (10^9 bits) instead of MiB/sec (2^20 bytes), as perftest "
             "--report_gbits; stats.json has both");
  io.choice("qp_type", c.qp_type, qp_type_names(),
            "rc; uc for write and send tests; ud for send tests (perftest -c UD: no GRH, no GID; messages up to "
            "the MTU)");
  if (c.out_of_order && c.qp_type != transport::QpType::Rc)
    io.fail("out_of_order", "applies only to RC QPs; accepted: qp_type \"rc\", or false");
  io.choice("atomic", c.atomic,
            Names<AtomicKind>{{"fetch_add", AtomicKind::FetchAdd}, {"cmp_swap", AtomicKind::CmpSwap}},
            "atomic_lat: the operation");
  io.boolean("idle", c.idle, "create and connect the QPs but send nothing (memory per QP)");
  io.custom("inline_size", c.inline_size, parse_perftest_inline, format_perftest_inline,
            {"\"tool\" or a size from 0B to 4000B", perftest_inline_schema},
            "messages of at most this size go inline in the WQE (perftest -I); \"tool\" = perftest's choice: "
            "220B for write_lat, 236B for send_lat on RC and UC, 188B on UD, 0B for the other tests");
  io.uint("post_list", c.post_list, 1, 1u << 16, "bandwidth tests: WRs posted together with one doorbell (perftest -l)");
  io.uint("threads", c.threads, 1, 1u << 10,
          "bandwidth tests: CPU threads posting and polling on each side, each with its own CQ and QPs "
          "(QP q on thread q mod threads), as several ib_write_bw processes");
  io.uint("cq_depth", c.cq_depth, 0, 1u << 22,
          "model only: entries of each completion queue the test makes; 0 = perftest's (a send CQ of tx_depth per "
          "QP, latency tests 1; send tests a receive CQ of the receives posted ahead). The HCA reads a CQ's "
          "consumer counter each time the CQ may be full as far as it knows: a CQ with room for all of a test's "
          "completions never does, to study a mechanism without that read");
  io.uint("cq_moderation", c.cq_moderation, 0, 1u << 16,
          "bandwidth tests: every this-many-th WR is signaled, and the last (perftest -Q); 0 = the tool's: 100, "
          "at most tx_depth (latency tests: 1)");
  io.custom("start", c.start_ps, parse_perftest_start, format_perftest_start,
            {"\"after_previous\" or a time such as \"10us\"", perftest_start_schema},
            "when the first size starts: \"after_previous\" = when the test before it in the list ends (the first "
            "test: at 0), as the tools run one after another; a time = then, whether or not another test runs (tests "
            "that share a port while both run get a warning)");
}

template <class Io>
void describe(Io& io, VerbsOpConfig& c) {
  io.choice("side", c.side, Names<Side>{{"a", Side::A}, {"b", Side::B}}, "the side that posts it");
  io.choice("op", c.op, verbs_op_names(),
            "the verb: a send-queue operation, or post_recv (a receive buffer of `bytes`)");
  io.bytes("bytes", c.bytes, 0, uint64_t{1} << 31, "message bytes (post_recv: buffer bytes; atomics: 8)");
  io.time("at", c.at_ps, 0, UINT64_MAX, "post time; 0ns = right after the previous operation");
  io.choice("expect", c.expect, wc_status_names(), "the completion status it must end in");
  io.choice("rkey", c.rkey, Names<RkeyChoice>{{"valid", RkeyChoice::Valid}, {"bad", RkeyChoice::Bad}},
            "RDMA and atomics: bad = an R_Key no region has");
  io.uint64("compare", c.compare, 0, UINT64_MAX, "cmp_swap: compare value");
  io.uint64("swap", c.swap, 0, UINT64_MAX, "cmp_swap: swap value");
  io.uint64("add", c.add, 0, UINT64_MAX, "fetch_add: addend");
}

template <class Io>
void describe(Io& io, VerbsConnectionConfig& c) {
  io.string("name", c.name, "connection name in stats.json and messages; empty = conn<index>");
  io.choice("type", c.type, qp_type_names(), "QP type");
  io.string("a", c.a, "HCA port of side a");
  io.string("b", c.b, "HCA port of side b");
  io.uint_of("mtu", c.mtu, {256, 512, 1024, 2048, 4096}, "path MTU, bytes");
  describe_sl(io, c.sl, "service level");
  io.uint("psn_a", c.psn_a, 0, (1u << 24) - 1, "a's send start PSN (b's first expected PSN)");
  io.uint("psn_b", c.psn_b, 0, (1u << 24) - 1, "b's send start PSN");
  io.uint("timeout", c.timeout, 0, 31, "Local ACK timeout: Ttr = 4.096us x 2^timeout; 0 = no timer");
  io.uint("retry_cnt", c.retry_cnt, 0, 7, "transport retries");
  io.uint("rnr_retry", c.rnr_retry, 0, 7, "RNR retries; 7 = infinite");
  io.uint("min_rnr_timer", c.min_rnr_timer, 0, 31, "RNR NAK timer code each responder returns");
  io.uint("pkey_index", c.pkey_index, 0, 127,
          "both QPs' P_Key: this index of their port's P_KeyTable (docs/partitions.md)");
  io.uint("max_rd_atomic", c.max_rd_atomic, 0, 255, "READs and atomics outstanding as requester");
  io.uint("max_dest_rd_atomic", c.max_dest_rd_atomic, 0, 255, "READs and atomics kept as responder");
  io.custom("access", c.access, parse_access_names, format_access_names,
            {"a list of local_write, remote_write, remote_read, remote_atomic", access_names_schema},
            "QP access flags: what each responder allows");
  io.list("ops", c.ops, "operations, posted in order");
}

}  // namespace hcasim::config
