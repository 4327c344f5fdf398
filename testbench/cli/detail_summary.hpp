#pragma once
// What stats.json says about the detail objects (detail_objects.hpp): per
// kind, how many there are, their totals and distributions, and the first
// few in full, so that the document stays small for any fabric (every object
// is a row of results.db) and a small run still reads object by object.
//
// Rules:
// - A distribution is {count, mean, min, p50, p90, p99, max} over the
//   objects' values; a percentile is the nearest rank (the smallest value
//   with at least that share of the values at or below it); count 0 gives
//   zeros.
// - "first": the first few objects of the kind in full, in their order
//   (first_count: flows, QPs, engines, hosts; ports and switches have none,
//   their summary names the busiest ports).
// - ports: count and connected; totals of the VL counters over every VL of
//   every port; drops by reason; credit_stall: ports that stalled and the
//   distribution, over connected ports, of their credit-stall time summed
//   over VLs as a share of the simulated time (above 1 where VLs stalled at
//   once); utilization over connected ports, in all and by link (the
//   port's level to its peer's: 0 -> 1 is an HCA's link up to its leaf
//   switch); hottest: the kHottest connected ports by utilisation (ties by
//   name), each with peer, levels, utilisation, data throughput sent,
//   credit-stall time and drops.
// - switches: count, forwarded, to_management, by level.
// - flows: count; sums of packet and byte counts and of offered and
//   accepted b/s; distributions of accepted_load, carried and latency p99
//   (over flows that delivered); worst_p99: the kWorst flows by p99 latency.
// - qps: count, by type and by state, totals of the counters.
// - engines: count, totals, utilisation distribution.
// - hosts: count; caches: per kind, the counters summed and the hit rate
//   of the sums; driver and front-end totals; PCIe utilisation per
//   direction as distributions.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hcasim {

// {count, mean, min, p50, p90, p99, max} of the values (sorted here).
nlohmann::json distribution_json(std::vector<double> values);

class DetailSummary {
 public:
  // How many objects of a kind stats.json gives in full (0: none).
  static std::size_t first_count(const std::string& kind);
  static constexpr std::size_t kHottest = 16;
  static constexpr std::size_t kWorst = 8;

  explicit DetailSummary(uint64_t sim_ps) : sim_ps_(sim_ps) {}
  void add(const std::string& kind, const nlohmann::json& object);
  // Sets the sections ports, switches, flows, qps, engines and hosts of doc.
  void write(nlohmann::json& doc) const;

 private:
  struct Hot {
    double utilization;
    std::string name;
    nlohmann::json entry;
  };
  void add_port(const nlohmann::json& p);
  void add_flow(const nlohmann::json& f);
  void add_host(const nlohmann::json& h);
  nlohmann::json ports_json() const;

  uint64_t sim_ps_;
  std::map<std::string, std::vector<nlohmann::json>> first_;
  std::map<std::string, uint64_t> counts_;
  // ports
  uint64_t connected_ = 0, stalled_ = 0;
  nlohmann::json port_totals_ = nlohmann::json::object(), drops_ = nlohmann::json::object();
  std::vector<double> utilization_, stall_share_;
  std::map<std::pair<unsigned, unsigned>, std::vector<double>> by_link_;
  std::vector<Hot> hottest_;
  // switches
  nlohmann::json switch_totals_ = nlohmann::json::object();
  std::map<unsigned, std::pair<uint64_t, uint64_t>> switch_levels_;  // level -> (switches, forwarded)
  // flows
  nlohmann::json flow_totals_ = nlohmann::json::object();
  std::vector<double> accepted_load_, carried_, p99_;
  std::vector<std::pair<double, nlohmann::json>> worst_;
  // qps, engines, hosts
  nlohmann::json qp_totals_ = nlohmann::json::object(), qp_types_ = nlohmann::json::object(),
                 qp_states_ = nlohmann::json::object();
  nlohmann::json engine_totals_ = nlohmann::json::object();
  std::vector<double> engine_utilization_;
  nlohmann::json caches_ = nlohmann::json::object(), driver_ = nlohmann::json::object(),
                 front_end_ = nlohmann::json::object();
  std::vector<double> pcie_up_, pcie_down_;
};

}  // namespace hcasim
