// stats.json's summary of the detail objects (detail_summary.hpp) against
// the objects themselves, recomputed here from details.json, and results.db's
// row counts against the fabric.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <vector>

#include "testbench/cli/detail_summary.hpp"
#include "testbench/cli/details_output.hpp"
#include "testbench/cli/sqlite_db.hpp"
#include "testbench/cli/stats_document.hpp"
#include "testbench/tests/scenarios/scenario_fixture.hpp"
#include "testbench/tests/scratch_dir.hpp"

using namespace hcasim;
using nlohmann::json;

TEST_CASE("a distribution's percentiles are nearest ranks: of 1..100, p50 50, p90 90, p99 99") {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  const json d = distribution_json(v);
  CHECK(d["count"] == 100);
  CHECK(d["min"] == 1.0);
  CHECK(d["max"] == 100.0);
  CHECK(d["mean"] == 50.5);
  CHECK(d["p50"] == 50.0);
  CHECK(d["p90"] == 90.0);
  CHECK(d["p99"] == 99.0);
  CHECK(distribution_json({7.0})["p99"] == 7.0);   // one value is every percentile
  CHECK(distribution_json({})["count"] == 0);
}

TEST_CASE("the summary's port and flow figures are the sums, extremes and busiest of the objects, and the database "
          "holds a row per port and flow") {
  // A switch and nine HCAs: 18 ports; eight flows into one host.
  const test::ScenarioRun r = test::run_config("incast_8to1.json");
  const Simulation& sim = *r.sim;
  const test::ScratchDir dir("stats-summary");
  const json sections = write_details(sim, {"incast", 1, "-"}, config::DetailsOutput::Both, dir.file(""));
  std::ifstream in(dir.file("details.json"));
  const json objects = json::parse(in);

  const json& ports = sections["ports"];
  REQUIRE(objects["ports"].size() == sim.fabric().ports().size());
  CHECK(ports["count"] == objects["ports"].size());
  uint64_t tx_packets = 0, overflow = 0;
  std::vector<double> utilization;
  for (const json& p : objects["ports"]) {
    for (const json& v : p["vls"]) {
      tx_packets += v["tx_packets"].get<uint64_t>();
      overflow += v["drops"]["buffer_overflow"].get<uint64_t>();
    }
    if (!p["peer"].get<std::string>().empty()) utilization.push_back(p["utilization"].get<double>());
  }
  CHECK(ports["totals"]["tx_packets"] == tx_packets);
  CHECK(ports["drops"]["buffer_overflow"] == overflow);
  CHECK(ports["connected"] == utilization.size());
  std::sort(utilization.rbegin(), utilization.rend());
  CHECK(ports["utilization"]["all"]["max"] == utilization.front());
  // The busiest first, as many as kHottest, each with its own utilisation.
  REQUIRE(ports["hottest"].size() == std::min<std::size_t>(DetailSummary::kHottest, utilization.size()));
  for (std::size_t i = 0; i < ports["hottest"].size(); ++i) CHECK(ports["hottest"][i]["utilization"] == utilization[i]);
  // The incast's bottleneck: the switch port toward the receiver, the busiest link.
  CHECK(ports["hottest"][0]["level"] == 1);
  CHECK(ports["hottest"][0]["peer_level"] == 0);

  const json& flows = sections["flows"];
  uint64_t delivered = 0;
  for (const json& f : objects["flows"]) delivered += f["packets_delivered"].get<uint64_t>();
  CHECK(flows["count"] == objects["flows"].size());
  CHECK(flows["totals"]["packets_delivered"] == delivered);
  CHECK(flows["first"] == json(std::vector<json>(objects["flows"].begin(), objects["flows"].begin() +
                                                 std::min<std::ptrdiff_t>(8, objects["flows"].size()))));

  // results.db: a row per port and flow, and per port VL with traffic (the rest counted as left out).
  SqliteDb db(dir.file("results.db"), SqliteDb::Mode::ReadOnly);
  uint64_t rows = 0, vls = 0;
  db.each_row("SELECT count(*) AS n FROM ports", [&](const json& x) { rows = x["n"]; });
  CHECK(rows == objects["ports"].size());
  db.each_row("SELECT count(*) AS n FROM flows", [&](const json& x) { rows = x["n"]; });
  CHECK(rows == objects["flows"].size());
  for (const json& p : objects["ports"]) vls += p["vls"].size();
  const json& counts = sections["details"]["tables"]["port_vls"];
  CHECK(counts["rows"].get<uint64_t>() + counts["omitted"].get<uint64_t>() == vls);
  db.each_row("SELECT count(*) AS n FROM port_vls", [&](const json& x) { rows = x["n"]; });
  CHECK(rows == counts["rows"]);
  CHECK(counts["omitted"].get<uint64_t>() > 0);  // VL15 and idle data VLs
}

TEST_CASE("details.json is for at most 20,000 ports and flows together, results.db for any number") {
  CHECK(details_refusal(config::DetailsOutput::Json, 14000, 6000).empty());
  const std::string why = details_refusal(config::DetailsOutput::Both, 14000, 6001);
  CHECK(why.rfind("outputs.details: \"both\"", 0) == 0);
  CHECK(why.find("14000 ports and 6001 flows") != std::string::npos);
  CHECK(details_refusal(config::DetailsOutput::Db, 1u << 30, 1u << 30).empty());
  CHECK(details_refusal(config::DetailsOutput::None, 1u << 30, 1u << 30).empty());
}
