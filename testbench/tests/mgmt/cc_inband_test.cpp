// Congestion control in band (docs/congestion-control.md "CC manager"): after
// the SM's sweep the CC manager on its node Sets every switch and CA port
// through their CC agents, and leaves exactly the attributes the
// pre-configured mode installs at time zero, with one MAD per switch and
// 1 + (ccti_limit / 64 + 1) per CA port (OpenSM osm_congestion_control.c).

#include <catch2/catch.hpp>

#include <systemc>

#include <nlohmann/json.hpp>

#include "models/config/scenario.hpp"
#include "models/fabric/fabric.hpp"

using namespace hcasim;

namespace {

constexpr unsigned kCctiLimit = 130;  // CCT blocks 0..2

nlohmann::json scenario() {
  nlohmann::json s = {{"topology", {{"pattern", "fat_tree"}, {"k", 2}, {"levels", 2}}}};
  s["congestion_control"] = {{"enabled", true},
                             {"cc_key", 0x1234},
                             {"switch", {{"threshold", 12}, {"marking_rate", 3}, {"victim_marking", true}}},
                             {"ca", {{"ccti_limit", kCctiLimit}, {"ccti_timer", 20}, {"cct_step", 3}}}};
  return s;
}

config::FabricSpec spec_of(nlohmann::json s, bool in_band) {
  if (in_band) s["management"]["mode"] = "in_band";
  config::FabricSpec spec = config::route_fabric(config::load_scenario(s)).spec;
  REQUIRE(spec.management.in_band == in_band);
  return spec;
}

// What a fabric's nodes hold, as attributes.
struct Installed {
  std::vector<ib::SwitchCongestionSetting> switches;
  std::vector<std::vector<ib::SwitchPortCongestionElement>> switch_ports;
  std::vector<ib::CaCongestionSetting> ca;               // by HCA port, in HCA order
  std::vector<std::vector<ib::CongestionControlTable>> cct;
  std::vector<uint16_t> ccti_limit;
};

Installed installed(const fabric::Fabric& f) {
  Installed in;
  for (unsigned i = 0; i < f.switch_count(); ++i) {
    const sw::CongestionMarker* m = f.switch_at(i).congestion();
    REQUIRE(m != nullptr);
    in.switches.push_back(m->switch_setting());
    std::vector<ib::SwitchPortCongestionElement> ports;
    for (unsigned p = 1; p <= m->ports(); ++p) ports.push_back(m->port_element(p));
    in.switch_ports.push_back(ports);
  }
  for (unsigned i = 0; i < f.hca_count(); ++i)
    for (unsigned p = 0; p < f.hca(i).port_count(); ++p) {
      const hca::CaCongestionControl* cc = f.hca(i).congestion(p);
      REQUIRE(cc != nullptr);
      in.ca.push_back(cc->setting());
      std::vector<ib::CongestionControlTable> blocks;
      for (unsigned b = 0; b < cc->table().blocks(); ++b) blocks.push_back(cc->table().get_block(b));
      in.cct.push_back(blocks);
      in.ccti_limit.push_back(cc->table().ccti_limit());
    }
  return in;
}

}  // namespace

TEST_CASE("in band the CC manager leaves every switch and CA port as the pre-configured mode installs them", "[mgmt][cc][inband]") {
  ib::PacketPool pool;
  Installed want;
  {
    const fabric::Fabric pre(spec_of(scenario(), false), pool);
    want = installed(pre);
  }
  const config::FabricSpec spec = spec_of(scenario(), true);
  fabric::Fabric f(spec, pool);
  sc_core::sc_start();
  const mgmt::SubnetManager& sm = *f.subnet_manager();
  INFO(sm.failure());
  REQUIRE(sm.done());
  const mgmt::CcManager* m = f.cc_manager();
  REQUIRE(m != nullptr);
  REQUIRE(m->idle());

  unsigned ca_ports = 0;
  for (unsigned i = 0; i < f.hca_count(); ++i) ca_ports += f.hca(i).port_count();
  const unsigned blocks = kCctiLimit / 64 + 1;
  const uint64_t analytic = f.switch_count() + uint64_t{ca_ports} * (1 + blocks);
  REQUIRE(m->stats().sent == analytic);
  REQUIRE(m->stats().answered == analytic);
  REQUIRE(m->stats().timeouts == 0);
  REQUIRE(m->stats().errors == 0);
  REQUIRE(m->unavailable_ports() == 0);

  const Installed got = installed(f);
  REQUIRE(got.switches == want.switches);
  REQUIRE(got.switch_ports == want.switch_ports);
  REQUIRE(got.ca == want.ca);
  REQUIRE(got.cct == want.cct);
  REQUIRE(got.ccti_limit == want.ccti_limit);
  REQUIRE(got.ccti_limit.front() == kCctiLimit);
  // The manager's MADs carry cc_key, but it Sets no CongestionKeyInfo (nor
  // does OpenSM): the agents' keys stay 0.
  for (unsigned n = 0; n < spec.nodes.size(); ++n) REQUIRE(f.cc_node(n)->agent().key_info(1).cc_key == 0);
}

TEST_CASE("in band with congestion control off no CC MAD is sent and nothing is installed", "[mgmt][cc][inband]") {
  ib::PacketPool pool;
  nlohmann::json s = scenario();
  s["congestion_control"]["enabled"] = false;
  fabric::Fabric f(spec_of(s, true), pool);
  sc_core::sc_start();
  REQUIRE(f.subnet_manager()->done());
  REQUIRE(f.cc_manager() == nullptr);
  for (unsigned i = 0; i < f.switch_count(); ++i) REQUIRE(f.switch_at(i).congestion() == nullptr);
  for (unsigned i = 0; i < f.hca_count(); ++i) REQUIRE(f.hca(i).congestion(0) == nullptr);
}

TEST_CASE("a second sweep of the master sends no CC MAD for settings already installed", "[mgmt][cc][inband]") {
  ib::PacketPool pool;
  fabric::Fabric f(spec_of(scenario(), true), pool);
  bool resweep_asked = false;
  f.on_sweep_done([&] {
    if (resweep_asked) return;
    resweep_asked = true;
    f.mad_node(f.master_node())->request_sweep();
  });
  sc_core::sc_start();
  REQUIRE(resweep_asked);
  const mgmt::CcManager* m = f.cc_manager();
  REQUIRE(m != nullptr);
  REQUIRE(m->stats().setups == 2);
  const uint64_t first = m->stats().sent;
  REQUIRE(m->stats().skipped == first);  // the second setup skipped every item the first sent
}
