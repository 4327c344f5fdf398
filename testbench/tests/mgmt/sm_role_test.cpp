// The SM roles (mgmt/sm_role.hpp): election by priority then GUID, and when a
// standby takes over from a master that stops answering, against the window
// OpenSM's polling rule gives (osm_sm_state_mgr.c).
#include <catch2/catch.hpp>

#include "models/mgmt/sm_role.hpp"

using namespace hcasim;
using mgmt::SmIdentity;
using mgmt::SmRole;

TEST_CASE("SM election: the higher priority wins, then the lower GUID") {
  CHECK(mgmt::wins({0x200, 5}, {0x100, 4}));
  CHECK(mgmt::wins({0x100, 4}, {0x200, 4}));
  CHECK_FALSE(mgmt::wins({0x200, 4}, {0x100, 4}));
  CHECK_FALSE(mgmt::wins({0x100, 4}, {0x100, 4}));
  mgmt::SmRoleConfig c;
  c.priority = 3;
  // A lower-priority master found: this one becomes master itself.
  SmRole a(c, 0x500);
  ib::SmInfo other;
  other.guid = 0x100;
  other.priority = 2;
  other.state = ib::SmState::Master;
  a.found(other);
  CHECK(a.state() == ib::SmState::Discovering);
  CHECK(a.sweep_done() == ib::SmState::Master);
  // The same priority and a lower GUID: standby, polling that master.
  SmRole b(c, 0x500);
  other.priority = 3;
  b.found(other);
  CHECK(b.state() == ib::SmState::Standby);
  CHECK(b.master().guid == 0x100);
  CHECK(b.sweep_done() == ib::SmState::Standby);
  // A winning SM that is only a standby itself does not make this one stand by.
  SmRole d(c, 0x500);
  other.state = ib::SmState::Standby;
  d.found(other);
  CHECK(d.sweep_done() == ib::SmState::Master);
  CHECK(d.info(7).state == ib::SmState::Master);
  CHECK(d.info(7).act_count == 7);
  CHECK(d.info(7).priority == 3);
}

TEST_CASE("a standby takes over (retries + 1) to (retries + 2) polling periods after its master fails") {
  for (unsigned retries : {0u, 1u, 4u}) {
    mgmt::SmRoleConfig c;
    c.polling_ps = 1'000'000;  // 1 us
    c.retries = retries;
    // The master fails at various points of a polling period; a poll sent
    // before the failure is answered at once.
    for (uint64_t fail : {3'000'000ull, 3'000'001ull, 3'500'000ull, 3'999'999ull}) {
      INFO("retries " << retries << ", master fails at " << fail << " ps");
      SmRole s(c, 0x900);
      ib::SmInfo master;
      master.guid = 0x100;
      master.state = ib::SmState::Master;
      s.found(master);
      REQUIRE(s.sweep_done() == ib::SmState::Standby);
      uint64_t took_over = 0;
      for (uint64_t now = c.polling_ps; now < 100 * c.polling_ps && took_over == 0; now += c.polling_ps) {
        const SmRole::Action a = s.tick();
        if (a == SmRole::Action::TakeOver) took_over = now;
        if (a == SmRole::Action::Poll && now < fail) s.master_alive();
      }
      const auto [after, by] = mgmt::takeover_bounds(c, fail);
      CHECK(took_over >= after);
      CHECK(took_over <= by);
      CHECK(s.state() == ib::SmState::Discovering);
      CHECK(s.sweep_done() == ib::SmState::Master);
    }
  }
}

TEST_CASE("a master hands over only to an SM that wins against it") {
  mgmt::SmRoleConfig c;
  SmRole m(c, 0x300);
  REQUIRE(m.sweep_done() == ib::SmState::Master);
  CHECK_FALSE(m.handover({0x400, 0}));
  CHECK(m.state() == ib::SmState::Master);
  CHECK(m.handover({0x400, 1}));
  CHECK(m.state() == ib::SmState::Standby);
  CHECK(m.master().guid == 0x400);
  CHECK(m.tick() == SmRole::Action::Poll);
}
