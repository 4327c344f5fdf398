// Ports with equal configurations share one record of it (share_port_configs),
// and what a subnet manager programs into one port stays that port's.
#include <catch2/catch.hpp>

#include "models/ib/packet.hpp"
#include "models/link/port.hpp"

using namespace hcasim;

TEST_CASE("runs of equal port configurations share one record, and any field that differs splits them") {
  link::PortConfig a;
  link::PortConfig b = a;
  b.mtu = 2048;
  const auto shared = link::share_port_configs({a, a, b, b, a});
  REQUIRE(shared.size() == 5);
  CHECK(shared[0] == shared[1]);
  CHECK(shared[1] != shared[2]);
  CHECK(shared[2] == shared[3]);
  CHECK(shared[3] != shared[4]);
  CHECK(shared[4]->config == a);
  CHECK(shared[2]->config.mtu == 2048);
  CHECK(shared[0]->vlarb == link::resolved_vlarb(a));

  // Each field takes part in the comparison.
  std::vector<link::PortConfig> variants(12, a);
  variants[0].data_vls = 4;
  variants[1].operational_vls = 2;
  variants[2].mtu = 1024;
  variants[3].vl_buffer_bytes = 4096;
  variants[4].vl_buffers = {8192};
  variants[5].vl15_buffer_bytes = 4096;
  variants[6].tx_buffer_bytes = 4096;
  variants[7].sl2vl = std::vector<uint32_t>(16, 0);
  variants[8].vlarb.low = {{0, 32}};
  variants[9].drain_rate_bps = 1000;
  variants[10].vl_arbiter = link::Implementation::Rtl;
  variants[11].credit_manager = link::Implementation::RtlCheck;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    INFO("field " << i);
    CHECK_FALSE(variants[i] == a);
    CHECK(link::share_port_configs({a, variants[i]})[1]->config == variants[i]);
  }
}

TEST_CASE("a port programmed with new arbitration tables keeps them to itself, its siblings keep the shared ones") {
  ib::PacketPool pool;
  link::PortConfig pc;
  const auto shared = link::share_port_configs({pc, pc});
  link::Port p1("p1", shared[0], pool);
  link::Port p2("p2", shared[1], pool);
  REQUIRE(&p1.config() == &p2.config());
  const link::VlArbConfig resolved = link::resolved_vlarb(pc);
  REQUIRE(p1.vlarb() == resolved);
  link::VlArbConfig programmed = resolved;
  programmed.high = {{1, 16}};
  programmed.high_limit = 4;
  p1.set_vlarb(programmed);
  CHECK(p1.vlarb() == programmed);
  CHECK(p2.vlarb() == resolved);
  CHECK(p1.config() == pc);
}

TEST_CASE("an unlinked port reports the default link configuration, linked ports report what connect was given") {
  ib::PacketPool pool;
  link::PortConfig pc;
  link::Port a("a", pc, pool);
  link::Port b("b", pc, pool);
  const link::LinkConfig defaults{};
  CHECK(a.link_config().fc_period_ps == defaults.fc_period_ps);
  link::LinkConfig lc;
  lc.fc_period_ps = defaults.fc_period_ps * 2;
  link::Port::connect(a, b, lc);
  CHECK(a.link_config().fc_period_ps == lc.fc_period_ps);
  CHECK(&a.link_config() == &b.link_config());
}
