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
  ib::SmInfo other;
  other.guid = 0x100;
  other.priority = 2;
  // Not started: NotActive, and what it finds changes nothing.
  SmRole idle(c, 0x500);
  CHECK(idle.state() == ib::SmState::NotActive);
  CHECK(idle.info(0).state == ib::SmState::NotActive);
  // A master, even of lower priority: this one stands by (osm_sminfo_rcv.c).
  SmRole a(c, 0x500);
  a.start();
  other.state = ib::SmState::Master;
  a.found(other);
  CHECK(a.state() == ib::SmState::Standby);
  CHECK(a.master().guid == 0x100);
  CHECK(a.sweep_done() == ib::SmState::Standby);
  // A discovering SM of lower priority: this one becomes master.
  SmRole b(c, 0x500);
  b.start();
  other.state = ib::SmState::Discovering;
  b.found(other);
  CHECK(b.sweep_done() == ib::SmState::Master);
  CHECK(b.info(7).state == ib::SmState::Master);
  CHECK(b.info(7).act_count == 7);
  CHECK(b.info(7).priority == 3);
  // The same priority and a lower GUID, discovering or standing by: stand by.
  for (ib::SmState st : {ib::SmState::Discovering, ib::SmState::Standby}) {
    SmRole d(c, 0x500);
    d.start();
    other.priority = 3;
    other.state = st;
    d.found(other);
    CHECK(d.sweep_done() == ib::SmState::Standby);
  }
  // A NotActive SM is ignored.
  SmRole e(c, 0x500);
  e.start();
  other.priority = 15;
  other.state = ib::SmState::NotActive;
  e.found(other);
  CHECK(e.sweep_done() == ib::SmState::Master);
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
      s.start();
      ib::SmInfo master;
      master.guid = 0x100;
      master.state = ib::SmState::Master;
      s.found(master);
      REQUIRE(s.sweep_done() == ib::SmState::Standby);
      uint64_t took_over = 0;
      for (uint64_t now = c.polling_ps; now < 100 * c.polling_ps && took_over == 0; now += c.polling_ps) {
        const SmRole::Action a = s.tick();
        if (a == SmRole::Action::TakeOver) took_over = now;
        if (a == SmRole::Action::Poll && now < fail) s.poll_answer(master);
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
  m.start();
  REQUIRE(m.sweep_done() == ib::SmState::Master);
  CHECK_FALSE(m.handover({0x400, 0}));
  CHECK(m.state() == ib::SmState::Master);
  CHECK(m.handover({0x400, 1}));
  CHECK(m.state() == ib::SmState::Standby);
  CHECK(m.master().guid == 0x400);
  CHECK(m.tick() == SmRole::Action::Poll);
}

TEST_CASE("a standby counts only answers that say its master lives") {
  mgmt::SmRoleConfig c;
  c.retries = 0;
  SmRole s(c, 0x500);
  s.start();
  ib::SmInfo m;
  m.guid = 0x100;
  m.state = ib::SmState::Master;
  s.found(m);
  REQUIRE(s.sweep_done() == ib::SmState::Standby);
  CHECK(s.tick() == SmRole::Action::Poll);
  ib::SmInfo answer = m;
  answer.state = ib::SmState::Discovering;  // not an answer of a live master
  s.poll_answer(answer);
  CHECK(s.unanswered() == 1);
  answer.guid = 0x200;                      // another SM's answer
  answer.state = ib::SmState::Master;
  s.poll_answer(answer);
  CHECK(s.unanswered() == 1);
  s.poll_answer(m);
  CHECK(s.unanswered() == 0);
  // A handover makes the standby master at once.
  CHECK(s.handover_received());
  CHECK(s.state() == ib::SmState::Master);
  CHECK_FALSE(s.handover_received());
}
