// Every perftest knob's default is the real tool's, as docs/perftest.md's table
// states with its perftest source: each test kind is read with no knob set, and
// the table's default cell of each key must give the value each kind got.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "models/config/scenario.hpp"
#include "models/config/units.hpp"

using namespace hcasim;

namespace {

// docs/perftest.md's knob table: key -> its default cell.
std::map<std::string, std::string> documented_defaults() {
  std::ifstream in(std::string(HCASIM_SOURCE_DIR) + "/docs/perftest.md");
  std::map<std::string, std::string> out;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    std::vector<std::string> cells;
    std::stringstream row(line.substr(1));
    for (std::string cell; std::getline(row, cell, '|');) cells.push_back(cell);
    if (cells.size() < 5) continue;
    const std::string key = cells[0].substr(cells[0].find('`') + 1, cells[0].rfind('`') - cells[0].find('`') - 1);
    out[key] = cells[2];
  }
  return out;
}

}  // namespace

TEST_CASE("every perftest default is the tool's, as docs/perftest.md's table gives it with its source") {
  const nlohmann::json kinds = nlohmann::json::array({
      {{"test", "write_bw"}}, {{"test", "send_bw"}}, {{"test", "read_bw"}}, {{"test", "write_lat"}},
      {{"test", "send_lat"}}, {{"test", "send_lat"}, {"qp_type", "ud"}}, {{"test", "read_lat"}},
      {{"test", "atomic_lat"}}});
  nlohmann::json tests = kinds;
  for (auto& t : tests) {
    t["client"] = "hca0.p1";
    t["server"] = "hca1.p1";
  }
  const config::Scenario s = config::load_scenario(
      {{"name", "defaults"}, {"topology", {{"pattern", "back_to_back"}}}, {"workload", {{"perftest", tests}}}});
  const auto table = documented_defaults();
  // Values each kind got, per key, as the table writes them.
  std::map<std::string, std::vector<std::string>> got;
  for (const config::PerftestConfig& t : s.workload.perftest) {
    const bool bw = config::is_bandwidth(t.test);
    got["timeout"].push_back(std::to_string(t.timeout));
    got["retry_cnt"].push_back(std::to_string(t.retry_cnt));
    got["rnr_retry"].push_back(std::to_string(t.rnr_retry));
    got["min_rnr_timer"].push_back(std::to_string(t.min_rnr_timer));
    got["sl"].push_back(std::to_string(t.sl));
    got["weight"].push_back(std::to_string(t.weight));
    got["report_gbits"].push_back(t.report_gbits ? "true" : "false");
    got["qp_type"].push_back(t.qp_type == transport::QpType::Ud ? "" : "RC");  // UD was asked for
    got["mtu"].push_back(t.mtu == 4096 ? "the port's active MTU" : std::to_string(t.mtu));
    REQUIRE(t.sizes.size() == 1);
    got["sizes"].push_back(std::to_string(t.sizes[0]));
    got["iterations"].push_back(std::to_string(t.iterations));
    got["qps"].push_back(std::to_string(t.qps));
    if (bw) got["tx_depth"].push_back(std::to_string(t.tx_depth));
    got["rx_depth"].push_back(std::to_string(t.rx_depth));
    got["cq_moderation"].push_back(std::to_string(t.cq_moderation) + (bw ? " (`DEF_CQ_MOD`)" : ""));
    got["inline_size"].push_back(std::to_string(t.inline_size));
    got["post_list"].push_back(std::to_string(t.post_list));
    got["threads"].push_back(std::to_string(t.threads));
    got["atomic"].push_back(t.atomic == config::AtomicKind::FetchAdd ? "fetch_add" : "cmp_swap");
    got["pkey_index"].push_back(std::to_string(t.pkey_index));
    got["start"].push_back(config::format_perftest_start(t.start_ps).get<std::string>());
  }
  for (const auto& [key, values] : got) {
    INFO(key);
    REQUIRE(table.count(key) == 1);
    for (const std::string& v : values) {
      INFO("value " << v << " in \"" << table.at(key) << "\"");
      CHECK(table.at(key).find(v) != std::string::npos);
    }
  }
  // The values themselves (perftest_parameters.h): DEF_CQ_MOD, DEF_INLINE_*,
  // DEF_SIZE_*, DEF_ITERS*, DEF_TX_BW, DEF_RX_SEND.
  const auto& t = s.workload.perftest;
  CHECK(t[0].cq_moderation == 100);
  CHECK(t[3].cq_moderation == 1);
  CHECK(t[0].inline_size == 0);
  CHECK(t[3].inline_size == 220);
  CHECK(t[4].inline_size == 236);
  CHECK(t[5].inline_size == 188);
  CHECK(t[6].inline_size == 0);
  CHECK(t[0].sizes[0] == 65536);
  CHECK(t[3].sizes[0] == 2);
  CHECK(t[7].sizes[0] == 8);
  CHECK(t[0].iterations == 5000);
  CHECK(t[3].iterations == 1000);
  CHECK(t[0].tx_depth == 128);
  CHECK(t[1].rx_depth == 512);
}

TEST_CASE("perftest: cq_moderation's default is lowered to tx_depth, as the tool does") {
  const config::Scenario s = config::load_scenario(
      {{"name", "defaults"},
       {"topology", {{"pattern", "back_to_back"}}},
       {"workload",
        {{"perftest", {{{"test", "write_bw"}, {"client", "hca0.p1"}, {"server", "hca1.p1"}, {"tx_depth", 16}}}}}}});
  CHECK(s.workload.perftest[0].cq_moderation == 16);
}
