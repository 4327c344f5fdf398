// GetBulk throughput: the whole SA database of an in-band fabric to one HCA's
// client, measured against the bound the SA's packet pacing sets (one 192-byte
// Admin Data Area per packet gap, seeds/000) and printed for the benchmark.
// "[.bench]" runs the 1,024-host fabric (scripts/bench_sweep.sh).

#include <catch2/catch.hpp>

#include <systemc>

#include <chrono>

#include "models/config/scenario.hpp"
#include "models/fabric/fabric.hpp"

using namespace hcasim;

namespace {

void get_bulk(const nlohmann::json& topology, const std::string& label) {
  ib::PacketPool pool;
  const config::Scenario s = config::load_scenario({{"topology", topology}, {"management", {{"mode", "in_band"}}}});
  const config::FabricSpec spec = config::route_fabric(s).spec;
  const auto t0 = std::chrono::steady_clock::now();
  fabric::Fabric f(spec, pool);
  unsigned client = 0;
  for (unsigned i = 0; i < spec.nodes.size(); ++i)
    if (spec.nodes[i].kind == topology::NodeKind::Hca) client = i;  // the last HCA
  std::vector<mgmt::SaCompletion> done;
  uint64_t asked_ps = 0;
  f.on_sweep_done([&] {
    mgmt::SaAgent* a = f.sa_agent(client);
    a->set_callback([&](const mgmt::SaCompletion& c) { done.push_back(c); });
    asked_ps = sc_core::sc_time_stamp().value();
    a->get_bulk();
  });
  sc_core::sc_start();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(done.size() == 1);
  const mgmt::SaCompletion& c = done[0];
  REQUIRE(c.result == mgmt::SaResult::Ok);
  const mgmt::SaDatabase& db = f.sa_agent(spec.management.sm_node)->database();
  REQUIRE(c.data == db.get_bulk());  // every record of every table, exactly
  const uint64_t took_ps = c.stats.end_ps - asked_ps;
  const double bytes = static_cast<double>(c.data.size());
  const double segments = std::ceil(bytes / ib::kSaDataBytes);
  const double gbps = 8.0 * bytes / (static_cast<double>(took_ps) * 1e-12) / 1e9;
  // The SA sends at most one packet per packet gap.
  const double bound_gbps = 8.0 * ib::kSaDataBytes / (static_cast<double>(spec.management.sa_server.packet_gap_ps) * 1e-12) / 1e9;
  REQUIRE(gbps <= bound_gbps);
  REQUIRE(gbps >= 0.5 * bound_gbps);  // window Acks and the first response's preparation cost less than half
  WARN(label << ": GetBulk of " << db.total_records() << " records, " << bytes << " bytes, " << segments
             << " segments in " << took_ps / 1e6 << " us simulated: " << gbps << " Gb/s of Admin Data (bound "
             << bound_gbps << "); whole run " << wall << " s wall");
}

}  // namespace

TEST_CASE("GetBulk of a 32-host fabric's SA database arrives whole at more than half the pacing bound", "[mgmt][getbulk]") {
  get_bulk({{"pattern", "torus"}, {"x", 4}, {"y", 4}, {"hosts_per_switch", 2}}, "32 hosts");
}

TEST_CASE("GetBulk of a 1024-host fabric's SA database", "[.bench][getbulk1024]") {
  get_bulk({{"pattern", "fat_tree"}, {"k", 32}, {"levels", 2}}, "1,024 hosts");
}
