// routing.adaptive end to end (docs/adaptive-routing.md): on the 2-level
// 8-ary fat tree (64 hosts, full bisection) under random permutation traffic,
// free AR carries at least 85 % of the bisection where static min-hop
// routing carries far less (link sharing: Hoefler et al. measured 55 to 60 %
// on full-bisection InfiniBand clusters); bounded AR keeps a flow's burst on
// one port, so its packets arrive in sequence order, where free AR reorders
// them; every run lossless and within its credits. RC under free AR: with
// out_of_order QPs, data byte-exact, completions in order and no NAK; without,
// reordering costs PSN sequence NAKs, counted alike by the QPs and the pcap.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "testbench/tests/scenarios/cli_util.hpp"
#include "testbench/tests/scenarios/tshark_util.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

// The k=8 two-level tree, HDR, one data VL, 4 KiB packets, each host to one
// other by a random permutation, `rate` offered by Poisson arrivals.
nlohmann::json permutation_tree(const nlohmann::json& adaptive, const std::string& architecture,
                                const std::string& rate) {
  return {{"name", "ar_tree"},
          {"topology", {{"pattern", "fat_tree"}, {"k", 8}, {"levels", 2}}},
          {"routing", {{"algorithm", "minhop"}, {"adaptive", adaptive}}},
          {"port", {{"data_vls", 1}, {"mtu", 4096}, {"vl_buffer", "64KiB"}}},
          {"link", {{"speed", "HDR"}, {"width", "4x"}, {"propagation", "5m"}}},
          {"switch", {{"architecture", architecture}}},
          {"workload",
           {{"patterns",
             {{{"name", "perm"}, {"kind", "permutation"}, {"payload", "4KiB"}, {"rate", rate},
               {"source", {{"arrival", "poisson"}}}}}}}},
          {"run", {{"warmup", "20us"}, {"measure", "50us"}, {"drain_limit", "2ms"}, {"seed", 1}}}};
}

nlohmann::json run_tree(const nlohmann::json& root) {
  nlohmann::json stats = run_checked(root, "adaptive-routing");  // credits never overrun, buffers within bounds
  for (const auto& [why, n] : stats["ports"]["drops"].items()) {  // lossless
    INFO("dropped for " << why);
    REQUIRE(n == 0);
  }
  const nlohmann::json& m = stats["patterns"][0]["measured_packets"];
  REQUIRE(m["delivered"] == m["offered"].get<uint64_t>() - m["lost_at_source"].get<uint64_t>());
  return stats;
}

const nlohmann::json kOff = {{"mode", "off"}};
const nlohmann::json kFree = {{"mode", "free"}};

}  // namespace

TEST_CASE("AR free on the k=8 tree carries at least 85 % of the bisection under random permutation") {
  for (const std::string arch : {"voq", "cioq"}) {
    INFO("architecture " << arch);
    const nlohmann::json fixed = run_tree(permutation_tree(kOff, arch, "100%"));
    const nlohmann::json adaptive = run_tree(permutation_tree(kFree, arch, "100%"));
    const double static_load = fixed["patterns"][0]["accepted_load"].get<double>();
    const double ar_load = adaptive["patterns"][0]["accepted_load"].get<double>();
    INFO("static " << static_load << ", free AR " << ar_load);
    CHECK(ar_load >= 0.85);
    // Static min-hop shares links between flows of the permutation; AR spreads them.
    CHECK(static_load < 0.80);
    CHECK(ar_load > static_load + 0.1);
    REQUIRE(fixed["switches"]["totals"]["ar_routed"] == 0);
    REQUIRE(adaptive["switches"]["totals"]["ar_routed"] > 0);
  }
}

TEST_CASE("AR bounded keeps a flow's burst on one port: its packets arrive in order, where free AR reorders") {
  // At 100 % offered a flow is never idle for 30 us: one burst, one port per switch.
  const nlohmann::json bounded = run_tree(permutation_tree({{"mode", "bounded"}}, "voq", "100%"));
  const nlohmann::json& b = bounded["patterns"][0];
  REQUIRE(bounded["switches"]["totals"]["ar_routed"] > 0);
  CHECK(b["packets_out_of_order"] == 0);
  CHECK(bounded["switches"]["totals"]["ar_reroutes"] == 0);
  // Free: packets of a flow take different up ports and overtake each other.
  const nlohmann::json free_ar = run_tree(permutation_tree(kFree, "voq", "100%"));
  CHECK(free_ar["switches"]["totals"]["ar_reroutes"] > 0);
  CHECK(free_ar["patterns"][0]["packets_out_of_order"] > 0);
  // Static routing: one path per flow, never reordered.
  const nlohmann::json fixed = run_tree(permutation_tree(kOff, "voq", "100%"));
  CHECK(fixed["patterns"][0]["packets_out_of_order"] == 0);
  // Bounded with an ageing shorter than the gaps between a flow's packets (a
  // 4 KiB packet every 164 ns at 100 % HDR): every packet chooses again.
  const nlohmann::json aged = run_tree(permutation_tree({{"mode", "bounded"}, {"ageing", "1ns"}}, "voq", "100%"));
  CHECK(aged["switches"]["totals"]["ar_reroutes"] > 0);
}

TEST_CASE("AR programmed in band by the SM gives the pre-configured run's results") {
  // The SM writes the groups and settings over hcasim's AR attributes
  // (in_band_test compares the tables entry by entry). The workloads start
  // when it is done, about 2.6 ms in: the links' own timers then run at another
  // phase, which moves a static run's accepted load by 0.03 % (measured), and
  // AR's choices follow the queues, so the runs agree within a margin, not
  // packet for packet.
  for (const nlohmann::json& adaptive :
       {nlohmann::json{{"mode", "free"}}, nlohmann::json{{"mode", "free"}, {"choice", "random"}},
        nlohmann::json{{"mode", "bounded"}, {"ageing", "100ns"}}}) {
    INFO("adaptive " << adaptive.dump());
    nlohmann::json scenario = permutation_tree(adaptive, "voq", "90%");
    const nlohmann::json pre = run_tree(scenario);
    scenario["management"] = {{"mode", "in_band"}};
    const nlohmann::json in_band = run_tree(scenario);
    REQUIRE(in_band["management"]["adaptive_routing"]["blocks"] > 0);
    REQUIRE(in_band["management"]["adaptive_routing"]["refusals"] == 0);
    const auto per_packet = [](const nlohmann::json& run, const nlohmann::json& count) {
      return count.get<double>() / run["patterns"][0]["packets_delivered"].get<double>();
    };
    for (const char* key : {"ar_routed", "ar_reroutes"}) {
      INFO(key);
      REQUIRE(pre["switches"]["totals"][key] > 0);
      CHECK(per_packet(in_band, in_band["switches"]["totals"][key]) ==
            Approx(per_packet(pre, pre["switches"]["totals"][key])).epsilon(0.05));
    }
    CHECK(in_band["patterns"][0]["accepted_load"].get<double>() ==
          Approx(pre["patterns"][0]["accepted_load"].get<double>()).epsilon(0.005));
    CHECK(per_packet(in_band, in_band["patterns"][0]["packets_out_of_order"]) ==
          Approx(per_packet(pre, pre["patterns"][0]["packets_out_of_order"])).epsilon(0.05));
  }
}

namespace {

// write_bw between the 16 hosts of a 2-level 4-ary tree, each to another leaf
// by a fixed permutation, all at once, under free AR.
nlohmann::json rc_permutation(bool out_of_order) {
  const std::vector<int> to = {8, 13, 15, 12, 14, 9, 10, 11, 5, 6, 4, 0, 3, 2, 7, 1};
  nlohmann::json tests = nlohmann::json::array(), hca_ports = nlohmann::json::array();
  for (int i = 0; i < 16; ++i) hca_ports.push_back("hca" + std::to_string(i) + ".p1");
  for (int i = 0; i < 16; ++i)
    tests.push_back({{"test", "write_bw"}, {"client", "hca" + std::to_string(i) + ".p1"},
                     {"server", "hca" + std::to_string(to[i]) + ".p1"}, {"sizes", {"64KiB"}}, {"iterations", 50},
                     {"start", "0ns"}});
  return {{"name", "ar_rc"},
          {"topology", {{"pattern", "fat_tree"}, {"k", 4}, {"levels", 2}}},
          {"routing", {{"algorithm", "minhop"}, {"adaptive", {{"mode", "free"}}}}},
          {"port", {{"data_vls", 1}, {"mtu", 4096}, {"vl_buffer", "64KiB"}}},
          {"link", {{"speed", "HDR"}, {"width", "4x"}, {"propagation", "5m"}}},
          {"switch", {{"architecture", "voq"}}},
          {"transport", {{"out_of_order", out_of_order}}},
          {"workload", {{"perftest", tests}}},
          {"outputs", {{"pcap", true}, {"pcap_ports", hca_ports}}}};
}

}  // namespace

TEST_CASE("RC under free AR: out_of_order QPs take reordered packets - data byte-exact, in order, no NAK") {
  REQUIRE(std::system("command -v tshark >/dev/null") == 0);
  for (const bool ooo : {true, false}) {
    INFO("out_of_order " << ooo);
    const ScratchDir dir = scratch("ar-rc");
    const CommandResult r = run_scenario_json(dir, "run", rc_permutation(ooo).dump());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const nlohmann::json stats = nlohmann::json::parse(slurp(dir / "run" / "stats.json"));
    REQUIRE(stats["checker"]["ok"] == true);
    REQUIRE(stats["switches"]["totals"]["ar_reroutes"] > 0);  // packets of a QP did take different paths
    uint64_t client_naks = 0;
    for (const auto& t : stats["perftest"]) {
      // perftest's own checks: every WRITE's bytes as sent (compared at its
      // completion), completions in posting order, every message done.
      INFO(t["name"] << ": " << t["failures"].dump());
      REQUIRE(t["ok"] == true);
      REQUIRE(t["failures"].empty());
      REQUIRE(t["sizes"][0]["done"] == true);
      client_naks += t["sizes"][0]["transport"]["naks_received"]["psn_seq_err"].get<uint64_t>();
    }
    const uint64_t sent = stats["qps"]["totals"]["naks_sent"]["psn_seq_err"].get<uint64_t>();
    const uint64_t taken = stats["qps"]["totals"]["out_of_order"].get<uint64_t>();
    // The NAKs in the pcap (captured once, as the responder's HCA port sends
    // them): RC Acknowledge with an AETH of NAK code 0 (0x60, iba-facts 5).
    uint64_t in_pcap = 0;
    for (const auto& row : tshark_fields((dir / "run" / "packets.pcap").string(),
                                         {"infiniband.bth.opcode", "infiniband.aeth.syndrome"}))
      if (!row[0].empty() && tshark_number(row[0]) == 17 && !row[1].empty() && tshark_number(row[1]) == 0x60) ++in_pcap;
    INFO("NAKs sent " << sent << ", received " << client_naks << ", in the pcap " << in_pcap << "; taken ahead " << taken);
    CHECK(in_pcap == sent);
    if (ooo) {
      CHECK(sent == 0);
      CHECK(taken > 0);
    } else {
      CHECK(sent > 0);            // reordering, with no loss, is every NAK's cause
      CHECK(client_naks <= sent);  // a NAK behind the acknowledged PSN is dropped by the requester as late
      CHECK(taken == 0);
    }
  }
}

TEST_CASE("RC under free AR with loss, corruption and duplicates: out_of_order QPs and go-back-N QPs both deliver "
          "every byte in order") {
  // A lost packet with out-of-order placement: the packets after it are kept,
  // not NAKed, up to the 256-PSN window (further ones are NAKed as without
  // it), and the transport timer resends from the first unacknowledged PSN;
  // kept packets behind a resend are duplicates. Without it, go-back-N.
  std::map<bool, nlohmann::json> totals;
  for (const bool ooo : {true, false}) {
    INFO("out_of_order " << ooo);
    nlohmann::json scenario = rc_permutation(ooo);
    scenario["outputs"] = nlohmann::json::object();
    scenario["link"]["faults"] = {{"drop_rate", 0.002},
                                  {"bit_error_rate", 1e-8},
                                  {"drops", {{{"action", "duplicate"}, {"opcode", "RC_WRITE_MIDDLE"}, {"nth", 40},
                                              {"count", 3}}}}};
    const nlohmann::json stats = run_checked(scenario, "ar-rc-faults");  // credits and buffers within bounds
    for (const auto& t : stats["perftest"]) {
      INFO(t["name"] << ": " << t["failures"].dump());
      REQUIRE(t["ok"] == true);  // every WRITE's bytes as sent, completions in posting order
      REQUIRE(t["failures"].empty());
      REQUIRE(t["sizes"][0]["done"] == true);
    }
    const nlohmann::json& drops = stats["ports"]["drops"];
    INFO("drops " << drops.dump());
    CHECK(drops["fault_drop"].get<uint64_t>() > 0);  // the faults did hit
    CHECK(drops["crc_error"].get<uint64_t>() > 0);
    totals[ooo] = stats["qps"]["totals"];
  }
  INFO("with out_of_order " << totals[true].dump() << "; without " << totals[false].dump());
  CHECK(totals[true]["out_of_order"] > 0);
  CHECK(totals[true]["timeouts"] > 0);  // a loss inside the window is found by the timer
  CHECK(totals[true]["naks_sent"]["psn_seq_err"].get<uint64_t>() * 10 <
        totals[false]["naks_sent"]["psn_seq_err"].get<uint64_t>());
}
