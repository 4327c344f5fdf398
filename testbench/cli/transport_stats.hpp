#pragma once
// stats.json sections of the transport workloads: perftest results per test
// and size, verbs-script outcomes per operation, per-QP counters (QpStats) and
// the transport engines' counters per HCA; and the human summary of them.
//
// Rules:
// - Bandwidth: payload bytes of the completed messages over the size's time
//   (first post to last completion at the client), in MiB/s as perftest
//   counts them (1 MiB = 2^20 bytes, its format_factor 0x100000) and in Gb/s
//   (10^9 bits); message rate in Mpps (10^6 messages per second). bw_average
//   repeats the one the table prints: Gb/s with report_gbits, else MiB/s.
// - Each size carries its transport counters (perftest_counters.hpp), printed
//   after perftest's columns.
// - Each bandwidth size carries its bounds and names the least
//   (perftest_bound_json.hpp), printed one line a size after the table.
// - Latency: t_min, t_max, t_typical (median), t_avg, p99, p99.9 in
//   nanoseconds; send_lat and write_lat report half the round trip, read_lat
//   and atomic_lat the full round trip (perftest's conventions).
// - QPs and engines come for HCAs that have QPs, in HCA and QP-number order
//   (the detail tables qps and engines). A perftest test's "qp_numbers"
//   lists its first 16 (client, server) pairs.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/fabric/fabric.hpp"
#include "testbench/cli/json_sink.hpp"
#include "testbench/workloads/perftest.hpp"
#include "testbench/workloads/swarm.hpp"
#include "testbench/workloads/verbs_script.hpp"

namespace hcasim {

// (HCA index, QP number) -> the test or connection that owns the QP.
using QpOwners = std::map<std::pair<unsigned, uint32_t>, std::string>;

nlohmann::json perftest_json(const workloads::Perftest& t, const fabric::Fabric& f);
nlohmann::json verbs_script_json(const workloads::VerbsScript& v);
nlohmann::json swarms_json(const std::vector<std::unique_ptr<workloads::Swarm>>& swarms, const fabric::Fabric& f);
// Each QP's object (HCA order, then QP order), and each HCA-with-QPs' engines' object.
void each_qp_json(const fabric::Fabric& f, uint64_t sim_ps, const QpOwners& owners, const JsonSink& sink);
void each_engine_json(const fabric::Fabric& f, uint64_t sim_ps, const JsonSink& sink);
// perftest-style tables, one line per swarm and per verbs connection, from a stats document.
std::string transport_summary(const nlohmann::json& stats);

}  // namespace hcasim
