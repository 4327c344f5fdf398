// SM roles in band (docs/sm-roles.md): two SMs on a k = 4 fat tree. The
// standby polls the master's SMInfo and takes over when the master's link
// fails, within the window its polling parameters give (sm_role.hpp:
// takeover_bounds); the LIDs stay, every switch again reaches every live HCA
// port, every port names the new master, and a client whose SA died
// re-queries the new one after the new master's ClientReregister. A handover
// on request moves mastership to a standby that wins the election, and two
// SMs started together elect the higher priority.
#include <catch2/catch.hpp>

#include <systemc>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/config/scenario.hpp"
#include "models/fabric/fabric.hpp"
#include "models/ib/mad.hpp"
#include "models/link/timeline.hpp"
#include "models/mgmt/sa_node.hpp"
#include "models/mgmt/sm_role.hpp"

using namespace hcasim;

namespace {

constexpr uint64_t kUs = 1'000'000;  // ps

nlohmann::json fat_tree(nlohmann::json management) {
  management["mode"] = "in_band";
  management["standby"] = "hca3.p1";
  return {{"topology", {{"pattern", "fat_tree"}, {"k", 4}, {"levels", 2}}},
          {"link", {{"speed", "HDR"}, {"width", "4x"}}},
          {"management", management}};
}

config::FabricSpec spec_of(const nlohmann::json& j) { return config::route_fabric(config::load_scenario(j)).spec; }

unsigned node_named(const config::FabricSpec& spec, const std::string& name) {
  for (unsigned n = 0; n < spec.nodes.size(); ++n)
    if (spec.nodes[n].name == name) return n;
  FAIL("no node " << name);
  return 0;
}

// Every port's LID by port name (a switch: its name).
std::map<std::string, uint16_t> lids_of(fabric::Fabric& f) {
  std::map<std::string, uint16_t> out;
  for (unsigned i = 0; i < f.hca_count(); ++i)
    for (unsigned p = 0; p < f.hca(i).port_count(); ++p) out[f.hca(i).port(p).name()] = f.hca(i).lid(p);
  for (unsigned s = 0; s < f.switch_count(); ++s) out[f.switch_at(s).name()] = f.switch_at(s).lid();
  return out;
}

// "" when every switch's LFT leads to every Active HCA port's LID, else the first failure.
std::string route_problem(fabric::Fabric& f) {
  std::map<const link::Port*, unsigned> switch_of;
  for (unsigned s = 0; s < f.switch_count(); ++s)
    for (unsigned n = 1; n <= f.switch_at(s).port_count(); ++n) switch_of[&f.switch_at(s).port(n)] = s;
  for (unsigned i = 0; i < f.hca_count(); ++i) {
    for (unsigned p = 0; p < f.hca(i).port_count(); ++p) {
      const link::Port& target = f.hca(i).port(p);
      if (target.state() != link::PortState::Active) continue;
      const uint16_t lid = f.hca(i).lid(p);
      for (unsigned s0 = 0; s0 < f.switch_count(); ++s0) {
        unsigned s = s0;
        bool reached = false;
        for (unsigned hops = 0; hops < 16 && !reached; ++hops) {
          const unsigned out = f.switch_at(s).forwarding().lookup(lid);
          if (out == 0 || out > f.switch_at(s).port_count())
            return std::string(f.switch_at(s).name()) + " has no route to LID " + std::to_string(lid);
          const link::Port* peer = f.switch_at(s).port(out).peer();
          if (peer == &target) reached = true;
          else if (const auto it = switch_of.find(peer); it != switch_of.end()) s = it->second;
          else return std::string(f.switch_at(s).name()) + " sends LID " + std::to_string(lid) + " to a dead end";
        }
        if (!reached) return "a loop toward LID " + std::to_string(lid);
      }
    }
  }
  return "";
}

uint64_t role_time(const mgmt::SubnetManager& sm, ib::SmState state, size_t nth = 0) {
  for (const mgmt::RoleChange& c : sm.role_changes())
    if (c.state == state && nth-- == 0) return c.time_ps;
  return 0;
}

}  // namespace

TEST_CASE("SM failover: the standby takes over within its polling window, tables and LIDs stay, SA clients re-query") {
  ib::PacketPool pool;
  const uint64_t fail = 1000 * kUs;
  nlohmann::json j = fat_tree({{"sminfo_polling_timeout", "100us"},
                               {"polling_retry_number", 2},
                               {"subnet_timeout", 6},
                               {"sa_resp_time_value", 4}});
  j["link_events"] = {{{"link", "hca0.p1"}, {"down", "1ms"}}};
  const config::FabricSpec spec = spec_of(j);
  REQUIRE(spec.management.sm_node == node_named(spec, "hca0"));
  const unsigned standby_node = node_named(spec, "hca3");
  fabric::Fabric f(spec, pool);
  mgmt::MadNode& standby = *f.mad_node(standby_node);

  std::map<std::string, uint16_t> before;
  link::Alarm snapshot([&] { before = lids_of(f); });
  snapshot.notify_at(fail - 10 * kUs);
  // A client asks the SA for every PathRecord just after the master died.
  mgmt::SaAgent& client = *f.sa_agent(node_named(spec, "hca5"));
  std::vector<mgmt::SaCompletion> answers;
  uint64_t request_in_ps = 0;
  link::Alarm ask([&] {
    client.set_callback([&](const mgmt::SaCompletion& c) {
      answers.push_back(c);
      request_in_ps = link::now_ps();
    });
    client.get_table(ib::kAttrPathRecord, 0, std::vector<uint8_t>(64, 0));
  });
  ask.notify_at(fail + 50 * kUs);
  sc_core::sc_start();

  const mgmt::SubnetManager& old_sm = *f.mad_node(spec.management.sm_node)->sm();
  const mgmt::SubnetManager& new_sm = *standby.sm();
  CHECK(old_sm.role() == ib::SmState::Master);  // it never learnt it was cut off
  REQUIRE(new_sm.role() == ib::SmState::Master);
  CHECK(f.master_node() == standby_node);
  // Standby first (it found the master), then the takeover.
  const uint64_t stood_by = role_time(new_sm, ib::SmState::Standby);
  const uint64_t took_over = role_time(new_sm, ib::SmState::Discovering, 1);
  REQUIRE(stood_by != 0);
  REQUIRE(stood_by < fail);
  REQUIRE(took_over != 0);
  // sm_role.hpp: polls every T; more than R unanswered -> takeover, so within
  // [fail + (R+1) T, fail + (R+2) T]. The lower end is earlier by at most one
  // poll's round trip (a poll sent just before the failure whose answer was
  // cut off): 3 switch hops each way plus the master's SMA, each at most
  // sma_latency (1 us) plus wire time; 20 us bounds it.
  mgmt::SmRoleConfig rc;
  rc.polling_ps = 100 * kUs;
  rc.retries = 2;
  const auto [after, by] = mgmt::takeover_bounds(rc, fail);
  CHECK(took_over + 20 * kUs >= after);
  CHECK(took_over <= by);
  // Its polls: one per period from standing by to the takeover.
  CHECK(new_sm.role_stats().polls == (took_over - stood_by) / rc.polling_ps - 1);
  CHECK(new_sm.role_stats().poll_answers >= 1);
  // The takeover sweep: found the subnet without hca0, kept every LID.
  REQUIRE(!new_sm.resweeps().empty());
  const mgmt::ResweepRecord& r = new_sm.resweeps().front();
  CHECK(std::string(mgmt::to_string(r.trigger)) == "takeover");
  CHECK(r.done_ps > r.start_ps);
  INFO("takeover sweep: " << (r.done_ps - r.start_ps) / kUs << " us, " << r.smps << " SMPs, " << r.lft_blocks
                          << " LFT blocks");
  std::map<std::string, uint16_t> after_lids = lids_of(f);
  before.erase("hca0.p1");
  after_lids.erase("hca0.p1");
  CHECK(after_lids == before);
  CHECK(route_problem(f) == "");
  // Every live port names the new master, whose SA serves.
  const uint16_t new_lid = f.mad_node(standby_node)->lid(1);
  for (unsigned n = 0; n < spec.nodes.size(); ++n) {
    if (n == spec.management.sm_node) continue;
    INFO(spec.nodes[n].name);
    CHECK(f.mad_node(n)->sma().master_sm_lid(spec.nodes[n].kind == topology::NodeKind::Switch ? 0 : 1) == new_lid);
  }
  REQUIRE(f.sa_agent(standby_node)->server() != nullptr);
  CHECK(f.sa_agent(standby_node)->server()->config().master_sm_lid == new_lid);
  // The client's query went to the dead SA, then (ClientReregister) to the new one.
  CHECK(client.client()->config().sa.lid == new_lid);
  REQUIRE(answers.size() == 1);
  CHECK(answers[0].result == mgmt::SaResult::Ok);
  // Answered from the copy the old master kept in sync (every ordered pair of
  // HCA ports) until the takeover sweep is done; then from what that sweep
  // found: none to or from hca0.
  const size_t all = f.hca_count(), live = all - 1;
  CHECK(answers[0].records == (request_in_ps < r.done_ps ? all * (all - 1) : live * (live - 1)));
  CHECK(f.sa_agent(standby_node)->database().size(ib::kAttrPathRecord) == live * (live - 1));
  CHECK(request_in_ps > r.start_ps);
  CHECK(answers[0].stats.request_retries >= 1);
}

TEST_CASE("SM handover on request: the master hands over to a standby of higher priority, which keeps the LIDs") {
  ib::PacketPool pool;
  const nlohmann::json j =
      fat_tree({{"standby_priority", 15}, {"handover", "1ms"}, {"sminfo_polling_timeout", "200us"}});
  const config::FabricSpec spec = spec_of(j);
  const unsigned standby_node = node_named(spec, "hca3");
  fabric::Fabric f(spec, pool);
  std::map<std::string, uint16_t> before;
  link::Alarm snapshot([&] { before = lids_of(f); });
  snapshot.notify_at(990 * kUs);
  // Run past a few of the old master's polls.
  link::Alarm keep_going([] {});
  keep_going.notify_at(3000 * kUs);
  sc_core::sc_start();

  const mgmt::SubnetManager& old_sm = *f.mad_node(spec.management.sm_node)->sm();
  const mgmt::SubnetManager& new_sm = *f.mad_node(standby_node)->sm();
  // It found a master when it started, so it stood by despite its priority.
  CHECK(role_time(new_sm, ib::SmState::Standby) != 0);
  REQUIRE(new_sm.role() == ib::SmState::Master);
  REQUIRE(old_sm.role() == ib::SmState::Standby);
  CHECK(old_sm.role_stats().handovers_sent == 1);
  CHECK(new_sm.role_stats().handovers_received == 1);
  CHECK(f.master_node() == standby_node);
  REQUIRE(!old_sm.resweeps().empty());
  CHECK(std::string(mgmt::to_string(old_sm.resweeps().front().trigger)) == "request");
  CHECK(old_sm.resweeps().front().requested_ps == 1000 * kUs);
  CHECK(old_sm.resweeps().front().lft_blocks == 0);  // it handed over before programming
  REQUIRE(!new_sm.resweeps().empty());
  CHECK(std::string(mgmt::to_string(new_sm.resweeps().front().trigger)) == "handover");
  // The old master polls the new one, which answers Master: no takeover back.
  CHECK(old_sm.role_stats().polls >= 5);
  CHECK(old_sm.role_stats().poll_answers == old_sm.role_stats().polls);
  CHECK(lids_of(f) == before);
  CHECK(route_problem(f) == "");
  const uint16_t new_lid = f.mad_node(standby_node)->lid(1);
  for (unsigned n = 0; n < spec.nodes.size(); ++n)
    CHECK(f.mad_node(n)->sma().master_sm_lid(spec.nodes[n].kind == topology::NodeKind::Switch ? 0 : 1) == new_lid);
}

namespace {

// Two SMs started together; `priority` is the second's (hca3.p1), the first's is 0.
void elect(unsigned priority) {
  ib::PacketPool pool;
  const config::FabricSpec spec = spec_of(fat_tree({{"standby_priority", priority}, {"standby_start", "with_master"}}));
  // With equal priorities the lower port GUID (hca0's) wins; with 15 the
  // second SM does, and the builder names it the SM (its port decides the LIDs).
  const unsigned winner = node_named(spec, priority == 0 ? "hca0" : "hca3");
  const unsigned loser = node_named(spec, priority == 0 ? "hca3" : "hca0");
  REQUIRE(config::node_guid(spec, node_named(spec, "hca0")) < config::node_guid(spec, node_named(spec, "hca3")));
  CHECK(spec.management.sm_node == winner);
  fabric::Fabric f(spec, pool);
  sc_core::sc_start();
  REQUIRE(f.subnet_manager() == f.mad_node(winner)->sm());
  CHECK(f.mad_node(winner)->sm()->role() == ib::SmState::Master);
  CHECK(f.mad_node(loser)->sm()->role() == ib::SmState::Standby);
  CHECK(f.mad_node(loser)->sm()->role_stats().sms_found >= 1);
  CHECK(f.mad_node(loser)->sm()->resweeps().empty());
  // The LIDs are the ones the builder computed from the winner's port.
  for (unsigned i = 0; i < f.hca_count(); ++i) CHECK(f.hca(i).lid(0) == spec.nodes[f.node_of_hca(i)].lids[0]);
  CHECK(route_problem(f) == "");
  // SMInfo is the SM's: its port answers with the SM's GUID, priority, state
  // and ActCount (its SMPs); any other port answers "unsupported".
  ib::Smp get;
  get.hdr.mgmt_class = ib::kClassSubnDr;
  get.hdr.class_version = ib::kSmpClassVersion;
  get.hdr.method = ib::kMethodGet;
  get.hdr.attr_id = ib::kAttrSmInfo;
  ib::Smp resp;
  REQUIRE(f.mad_node(winner)->sma().process(get, 1, resp));
  CHECK(resp.hdr.status == ib::kStatusOk);
  ib::SmInfo info;
  info.decode(resp.data.data());
  CHECK(info.guid == config::node_guid(spec, winner) + 1);
  CHECK(info.state == ib::SmState::Master);
  CHECK(info.priority == priority);
  CHECK(info.act_count == f.mad_node(winner)->sm()->stats().smps_sent);
  REQUIRE(f.mad_node(node_named(spec, "hca5"))->sma().process(get, 1, resp));
  CHECK(resp.hdr.status == ib::kStatusUnsupportedMethodAttr);
  unsigned a_switch = 0;
  while (spec.nodes[a_switch].kind != topology::NodeKind::Switch) ++a_switch;
  REQUIRE(f.mad_node(a_switch)->sma().process(get, 1, resp));
  CHECK(resp.hdr.status == ib::kStatusUnsupportedMethodAttr);
}

}  // namespace

TEST_CASE("SM election: two SMs started together with equal priority, the lower port GUID is master") { elect(0); }

TEST_CASE("SM election: two SMs started together, the higher priority is master and decides the LIDs") { elect(15); }

TEST_CASE("SM handover with no request: a heavy sweep of the master finds a standby of higher priority and hands over") {
  // The second SM starts after the first has programmed the subnet, so the
  // first sweep did not find it. hca5's link fails at 1 ms: the Trap 128
  // makes the master sweep again, and that sweep finds the standby, which
  // wins (priority 15), so the master hands over. Both run light sweeps
  // every 500 us; the new master's ask each switch and the old master.
  ib::PacketPool pool;
  nlohmann::json j = fat_tree({{"standby_priority", 15}, {"sweep_interval", "500us"}});
  j["link_events"] = {{{"link", "hca5.p1"}, {"down", "1ms"}}};
  const config::FabricSpec spec = spec_of(j);
  const unsigned standby_node = node_named(spec, "hca3");
  unsigned switches = 0;
  for (const config::NodeSpec& n : spec.nodes) switches += n.kind == topology::NodeKind::Switch ? 1 : 0;
  fabric::Fabric f(spec, pool);
  link::Alarm keep_going([] {});  // light sweeps and polls do not keep a run going
  keep_going.notify_at(4000 * kUs);
  sc_core::sc_start();
  const mgmt::SubnetManager& old_sm = *f.mad_node(spec.management.sm_node)->sm();
  const mgmt::SubnetManager& new_sm = *f.mad_node(standby_node)->sm();
  REQUIRE(new_sm.role() == ib::SmState::Master);
  REQUIRE(old_sm.role() == ib::SmState::Standby);
  REQUIRE(!old_sm.resweeps().empty());
  CHECK(old_sm.resweeps().front().trigger == mgmt::SweepTrigger::Trap);
  CHECK(old_sm.resweeps().front().requested_ps >= 1000 * kUs);
  CHECK(old_sm.role_stats().handovers_sent == 1);
  CHECK(f.master_node() == standby_node);
  CHECK(route_problem(f) == "");
  // The new master's light sweeps: one SwitchInfo per switch and one SMInfo
  // to the old master, which no longer wins: no change found.
  REQUIRE(new_sm.stats().light_sweeps >= 2);
  CHECK(new_sm.stats().light_sweep_smps == (switches + 1) * new_sm.stats().light_sweeps);
  CHECK(new_sm.stats().light_changes == 0);
}
