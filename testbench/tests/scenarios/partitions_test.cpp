// Partitions on the data path (issue 34, "What must be shown" item 4;
// docs/partitions.md): a packet whose P_Key the receiving port does not hold
// is dropped and counted; limited members do not talk to limited members;
// full members talk to limited ones; traffic inside a partition is delivered
// byte for byte at the throughput of a fabric without partitions; switch
// enforcement drops at the switch; in band, the violation reaches the SM as
// Trap 257 / 259, and tshark reads the P_KeyTable SMPs and the trap.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <set>
#include <sstream>
#include <tuple>

#include "testbench/tests/scenarios/cli_util.hpp"
#include "testbench/tests/scenarios/tshark_util.hpp"

using namespace hcasim::test;

namespace {

// RC write of 64 bytes (one packet) from a to b with retry_cnt 2: when b
// refuses its P_Key the requester sends it 1 + 2 times (IBA: retry_cnt
// retries) and completes with retry_exc_err.
constexpr unsigned kRetryCnt = 2;
constexpr uint64_t kTransmissions = 1 + kRetryCnt;

nlohmann::json verbs_scenario(const std::string& rules, unsigned pkey_index, const std::string& expect) {
  nlohmann::json s = nlohmann::json::parse(R"({
    "name": "pkeys",
    "topology": {"pattern": "back_to_back"},
    "workload": {"verbs": [{"name": "c", "type": "rc", "a": "hca0.p1", "b": "hca1.p1", "timeout": 4,
      "ops": [{"side": "a", "op": "write", "bytes": 64}]}]}
  })");
  s["workload"]["verbs"][0]["retry_cnt"] = kRetryCnt;
  s["workload"]["verbs"][0]["pkey_index"] = pkey_index;
  s["workload"]["verbs"][0]["ops"][0]["expect"] = expect;
  if (!rules.empty()) s["management"]["partitions"]["rules"] = rules;
  return s;
}

nlohmann::json run_ok(const std::filesystem::path& dir, const std::string& name, const nlohmann::json& s,
                      const std::string& extra = "") {
  const std::string file = write_file(dir / (name + ".json"), s.dump());
  const CommandResult r =
      run_command("run " + file + " --quiet --out " + (dir / name).string() + extra + kWithDetails, dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  nlohmann::json stats = nlohmann::json::parse(slurp(dir / name / "stats.json"));
  stats["port_objects"] = read_details(dir / name)["ports"];
  return stats;
}

const nlohmann::json& port(const nlohmann::json& stats, const std::string& name) {
  for (const auto& p : stats["port_objects"])
    if (p["name"] == name) return p;
  FAIL("no port " << name);
  return stats;
}

uint64_t violations(const nlohmann::json& stats, const std::string& name) {
  const nlohmann::json& p = port(stats, name);
  return p.contains("pkey_violations") ? p["pkey_violations"].get<uint64_t>() : 0;
}

}  // namespace

TEST_CASE("a packet whose P_Key the receiving port does not hold is dropped and counted", "[partitions]") {
  const auto dir = scratch("pkey-drop");
  // hca0.p1 holds {0xFFFF, 0x8001}, hca1.p1 only {0xFFFF}: index 1 sends 0x8001.
  const auto stats = run_ok(std::filesystem::path(dir), "drop",
                            verbs_scenario("Default=0x7fff : ALL=full ; P1=0x8001 : hca0.p1=full ;", 1, "retry_exc_err"));
  CHECK(port(stats, "hca0.p1")["pkeys"] == nlohmann::json::array({0xFFFF, 0x8001}));
  CHECK(port(stats, "hca1.p1")["pkeys"] == nlohmann::json::array({0xFFFF}));
  CHECK(violations(stats, "hca1.p1") == kTransmissions);
  CHECK(violations(stats, "hca0.p1") == 0);
  CHECK(stats["verbs"][0]["ok"] == true);  // the write completed with retry_exc_err, as expected
}

TEST_CASE("limited members do not talk to limited members", "[partitions]") {
  const auto dir = scratch("pkey-limited");
  const auto stats = run_ok(
      std::filesystem::path(dir), "ll",
      verbs_scenario("Default=0x7fff : ALL=full ; P1=0x0001 : hca0.p1=limited, hca1.p1=limited ;", 1, "retry_exc_err"));
  CHECK(port(stats, "hca0.p1")["pkeys"] == nlohmann::json::array({0xFFFF, 0x0001}));
  CHECK(port(stats, "hca1.p1")["pkeys"] == nlohmann::json::array({0xFFFF, 0x0001}));
  CHECK(violations(stats, "hca1.p1") == kTransmissions);
  CHECK(stats["verbs"][0]["ok"] == true);
}

TEST_CASE("a full member talks to a limited member and the limited member answers", "[partitions]") {
  const auto dir = scratch("pkey-full-limited");
  for (const char* rules : {"Default=0x7fff : ALL=full ; P1=0x0001 : hca0.p1=full, hca1.p1 ;",  // defmember limited
                            "Default=0x7fff : ALL=full ; P1=0x0001 : hca0.p1, hca1.p1=full ;"}) {
    INFO(rules);
    const auto stats = run_ok(std::filesystem::path(dir), "fl", verbs_scenario(rules, 1, "success"));
    CHECK(violations(stats, "hca0.p1") == 0);  // the ACK (P_Key of the limited side) is accepted
    CHECK(violations(stats, "hca1.p1") == 0);
    CHECK(stats["verbs"][0]["ok"] == true);     // the data pattern landed byte for byte
  }
}

TEST_CASE("traffic inside a partition is unaffected: same bytes, same throughput as without partitions", "[partitions]") {
  const auto dir = scratch("pkey-same");
  nlohmann::json s = nlohmann::json::parse(slurp(std::string(HCASIM_SOURCE_DIR) + "/configs/perftest_write_bw.json"));
  s["workload"]["perftest"][0]["sizes"] = {"4KiB", "64KiB"};
  s["workload"]["perftest"][0]["iterations"] = 100;
  const auto plain = run_ok(std::filesystem::path(dir), "plain", s);
  s["management"]["partitions"]["rules"] = "Default=0x7fff : ALL ; Storage=0x8123 : ALL=full ;";
  s["workload"]["perftest"][0]["pkey_index"] = 1;
  const auto parted = run_ok(std::filesystem::path(dir), "parted", s, " --pcap");
  const auto& a = plain["perftest"][0];
  const auto& b = parted["perftest"][0];
  REQUIRE(b["ok"] == true);
  REQUIRE(a["sizes"].size() == b["sizes"].size());
  for (size_t i = 0; i < a["sizes"].size(); ++i) {
    CHECK(b["sizes"][i]["messages"] == a["sizes"][i]["messages"]);
    CHECK(b["sizes"][i]["bw_Gbps"].get<double>() == a["sizes"][i]["bw_Gbps"].get<double>());
  }
  CHECK(parted["checker"]["ok"] == true);
  CHECK(parted["checker"]["packets_checked"] == plain["checker"]["packets_checked"]);
  for (const char* p : {"hca0.p1", "hca1.p1"}) {
    CHECK(port(parted, p)["pkeys"] == nlohmann::json::array({0x7FFF, 0x8123}));  // default limited at index 0
    CHECK(violations(parted, p) == 0);
  }
  // On the wire every data packet and ACK carries the partition's key.
  const auto rows = tshark_fields((std::filesystem::path(dir) / "parted" / "packets.pcap").string(),
                                  {"infiniband.bth.p_key", "infiniband.lrh.vl"});
  uint64_t data = 0;
  for (const auto& r : rows) {
    if (r[0].empty() || r[1] == "15") continue;
    CHECK(std::stoul(r[0], nullptr, 0) == 0x8123);
    ++data;
  }
  CHECK(data > 0);
}

TEST_CASE("a switch port with partition enforcement drops and counts what its table refuses", "[partitions]") {
  const auto dir = scratch("pkey-switch");
  auto scenario = [](const std::string& enforcement) {
    nlohmann::json s = verbs_scenario("Default=0x7fff : ALL=full ; P1=0x8001 : hca0.p1=full ;", 1, "retry_exc_err");
    s["topology"] = {{"pattern", "single_switch"}, {"hosts", 2}};
    s["management"]["partitions"]["switch_enforcement"] = enforcement;
    return s;
  };
  // sw0.p2 faces hca1.p1 and gets its table {0xFFFF}: outbound enforcement drops 0x8001 there.
  const auto both = run_ok(std::filesystem::path(dir), "both", scenario("both"));
  CHECK(port(both, "sw0.p1")["pkeys"] == nlohmann::json::array({0xFFFF, 0x8001}));
  CHECK(port(both, "sw0.p2")["pkeys"] == nlohmann::json::array({0xFFFF}));
  CHECK(violations(both, "sw0.p2") == kTransmissions);
  CHECK(violations(both, "sw0.p1") == 0);
  CHECK(violations(both, "hca1.p1") == 0);  // nothing got through
  // Inbound only: sw0.p1 holds 0x8001, so the packet passes and hca1.p1 drops it.
  const auto in = run_ok(std::filesystem::path(dir), "in", scenario("in"));
  CHECK(violations(in, "sw0.p2") == 0);
  CHECK(violations(in, "hca1.p1") == kTransmissions);
  // Off: the switch ports keep {0xFFFF} and enforce nothing.
  const auto off = run_ok(std::filesystem::path(dir), "off", scenario("off"));
  CHECK(!port(off, "sw0.p2").contains("pkeys"));
  CHECK(violations(off, "hca1.p1") == kTransmissions);
}

TEST_CASE("in band: the SM programs P_KeyTables with SMPs tshark reads, and a violation reaches it as a trap", "[partitions][tshark]") {
  if (std::system("command -v tshark >/dev/null 2>&1") != 0) FAIL("tshark is missing (Debian package 'tshark')");
  const auto dir = scratch("pkey-inband");
  for (const char* enforcement : {"off", "both"}) {
    INFO("switch_enforcement " << enforcement);
    nlohmann::json s = verbs_scenario("Default=0x7fff : ALL=full ; P1=0x8001 : hca0.p1=full ;", 1, "retry_exc_err");
    // The SM on hca2.p1, so that the P_KeyTable Sets of hca0.p1 and hca1.p1 cross the wire.
    s["topology"] = {{"pattern", "single_switch"}, {"hosts", 3}};
    s["management"]["mode"] = "in_band";
    s["management"]["sm"] = "hca2.p1";
    s["management"]["partitions"]["switch_enforcement"] = enforcement;
    s["workload"]["verbs"][0]["ops"][0]["at"] = "1ms";  // after the sweep
    const std::string name = std::string("inband_") + enforcement;
    const auto stats = run_ok(std::filesystem::path(dir), name, s, " --pcap");
    const bool at_switch = std::string(enforcement) == "both";
    CHECK(violations(stats, at_switch ? "sw0.p2" : "hca1.p1") == kTransmissions);
    // One trap per port until the SM's TrapRepress: the first violation sends
    // it; the others, while it is outstanding or after, are counted as held back
    // or sent again once repressed.
    const auto& traps = stats["management"]["traps"];
    CHECK(traps["traps_sent"].get<uint64_t>() >= 1);
    CHECK(traps["traps_at_sm"] == traps["traps_sent"]);
    CHECK(traps["traps_sent"].get<uint64_t>() + traps["held_back"].get<uint64_t>() == kTransmissions);

    const auto rows = tshark_fields((std::filesystem::path(dir) / name / "packets.pcap").string(),
                                    {"infiniband.mad.attributeid", "infiniband.mad.method", "infiniband.mad.attributemodifier",
                                     "infiniband.p_keytable.p_keybase", "infiniband.p_keytable.membershiptype",
                                     "infiniband.notice.trapnumberdeviceid", "infiniband.trap.lidaddr1",
                                     "infiniband.trap.lidaddr2", "infiniband.trap.key", "infiniband.notice.issuerlid",
                                     "infiniband.bth.destqp", "infiniband.mad.transactionid"});
    // The pcap holds each packet once per link it crosses: count each SMP once (attribute, method, TID).
    std::set<std::tuple<unsigned, unsigned, std::string>> seen;
    uint64_t pkey_sets = 0, traps_seen = 0, represses = 0;
    bool saw_p1 = false;
    for (const auto& r : rows) {
      if (r[0].empty() || r[10].empty() || std::stoul(r[10], nullptr, 0) != 0) continue;  // SMPs only (QP0)
      const unsigned attr = static_cast<unsigned>(std::stoul(r[0], nullptr, 0));
      const unsigned method = static_cast<unsigned>(std::stoul(r[1], nullptr, 0));
      if (!seen.emplace(attr, method, r[11]).second) continue;
      if (attr == 0x0016 && method == 0x02) {
        ++pkey_sets;
        // tshark lists the 32 entries' bases and membership bits.
        std::stringstream bases(r[3]);
        for (std::string b; std::getline(bases, b, ',');) saw_p1 = saw_p1 || std::stoul(b, nullptr, 0) == 0x0001;
      }
      if (attr == 0x0002 && method == 0x05) {
        ++traps_seen;
        CHECK(std::stoul(r[5], nullptr, 0) == (at_switch ? 259u : 257u));
        if (!at_switch) {  // Wireshark's Trap 257 fields (packet-infiniband.c)
          CHECK(std::stoul(r[6], nullptr, 0) != std::stoul(r[7], nullptr, 0));  // LID1 = the sender's SLID
          CHECK(std::stoul(r[7], nullptr, 0) == std::stoul(r[9], nullptr, 0));  // LID2 = the DLID = the issuer
          CHECK(std::stoul(r[8], nullptr, 0) == 0x8001);                       // the refused P_Key
        }
      }
      if (attr == 0x0002 && method == 0x07) ++represses;
    }
    // One block each on the wire: hca0.p1, hca1.p1 and the switch's port 0
    // (the SM's own port is programmed without the wire) and, with
    // enforcement, the 3 switch ports facing the HCAs.
    CHECK(pkey_sets == (at_switch ? 6u : 3u));
    CHECK(saw_p1);
    CHECK(traps_seen == traps["traps_sent"].get<uint64_t>());
    CHECK(represses == traps_seen);
  }
}

TEST_CASE("partitions config mistakes give one line naming the file, line and what is accepted, exit 2", "[partitions]") {
  const auto dir = scratch("pkey-errors");
  struct Case {
    const char* conf;
    const char* says;
  };
  const Case cases[] = {
      {"Default=0x7fff : ALL=full ;\nP1=0x8001 : hca0.p1=full\n", "partitions.conf line 2: the rule does not end with ';'"},
      {"# comment\nP1 : ALL ;\n", "partitions.conf line 2: partition 'P1' has no P_Key"},
      {"P1=0x8000 : ALL ;", "partitions.conf line 1: P_Key '0x8000' is not valid"},
      {"P1=0x8001 : hca0.p1=fullish ;", "partitions.conf line 1: membership 'fullish'"},
      {"\n\nP1=0x8001,turbo : ALL ;", "partitions.conf line 3: unknown partition flag 'turbo'"},
      {"P1=0x8001 ALL ;", "partitions.conf line 1: no ':'"},
      {"P1=0x8001 : hca7.p1 ;", "partitions.conf line 1: member 'hca7.p1' names no end port"},
      {"P1=0x8001 : 0x1234 ;", "partitions.conf line 1: no end port has GUID 0x1234"},
      {"P1=0x8001 : mgid=ff12:401b::1 ;", "multicast groups (mgid=) are not modelled"},
  };
  for (const Case& c : cases) {
    INFO(c.conf);
    write_file(std::filesystem::path(dir) / "partitions.conf", c.conf);
    nlohmann::json s = verbs_scenario("", 0, "success");
    s["management"]["partitions"]["file"] = "partitions.conf";
    const std::string file = write_file(std::filesystem::path(dir) / "bad.json", s.dump());
    const CommandResult r = run_command("validate " + file, std::filesystem::path(dir));
    CHECK(r.exit_code == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.find("management.partitions") != std::string::npos);
    CHECK(r.err.find(c.says) != std::string::npos);
    CHECK(r.err.find("accepted") != std::string::npos);
  }
}
