// Directed-route hop-pointer rules (iba-facts 6, rules C14-9 and C14-13): an
// SMP's trip out along InitialPath and back along the ReturnPath it recorded.

#include <catch2/catch.hpp>

#include "models/mgmt/directed_route.hpp"

using namespace hcasim;
using mgmt::DrStep;

TEST_CASE("a directed-route SMP goes out along its initial path and back along the return path it recorded", "[mgmt][dr]") {
  // SM on a CA port 1 -> switch A (in 3, out 5) -> switch B (in 2, out 7) -> CA C (in 1).
  ib::Smp smp;
  smp.hdr.mgmt_class = ib::kClassSubnDr;
  smp.hop_cnt = 3;
  smp.initial_path[1] = 1;
  smp.initial_path[2] = 5;
  smp.initial_path[3] = 7;
  auto a = mgmt::dr_send(smp, 1);
  REQUIRE(a.step == DrStep::Forward);
  REQUIRE(a.out_port == 1);
  REQUIRE(smp.hop_ptr == 1);
  a = mgmt::dr_receive(smp, true, 3, 8);  // switch A
  REQUIRE(a.step == DrStep::Forward);
  REQUIRE(a.out_port == 5);
  REQUIRE(smp.return_path[1] == 3);
  REQUIRE(smp.hop_ptr == 2);
  a = mgmt::dr_receive(smp, true, 2, 8);  // switch B
  REQUIRE(a.step == DrStep::Forward);
  REQUIRE(a.out_port == 7);
  REQUIRE(smp.return_path[2] == 2);
  a = mgmt::dr_receive(smp, false, 1, 1);  // CA C: hop pointer = hop count, the directed part ends
  REQUIRE(a.step == DrStep::Deliver);
  REQUIRE(smp.return_path[3] == 1);
  REQUIRE(smp.hop_ptr == 4);
  // The answer: D = 1, hop pointer hop count + 1.
  smp.direction = true;
  a = mgmt::dr_send(smp, 1);
  REQUIRE(a.step == DrStep::Forward);
  REQUIRE(a.out_port == 1);
  REQUIRE(smp.hop_ptr == 3);
  a = mgmt::dr_receive(smp, true, 7, 8);  // switch B sends it back where it came in
  REQUIRE(a.step == DrStep::Forward);
  REQUIRE(a.out_port == 2);
  REQUIRE(smp.hop_ptr == 2);
  a = mgmt::dr_receive(smp, true, 5, 8);  // switch A
  REQUIRE(a.step == DrStep::Forward);
  REQUIRE(a.out_port == 3);
  REQUIRE(smp.hop_ptr == 1);
  a = mgmt::dr_receive(smp, false, 1, 1);  // the SM's CA
  REQUIRE(a.step == DrStep::Deliver);
  REQUIRE(smp.hop_ptr == 0);
}

TEST_CASE("only switches forward directed-route SMPs and a bad hop pointer or port drops them", "[mgmt][dr]") {
  ib::Smp smp;
  smp.hdr.mgmt_class = ib::kClassSubnDr;
  smp.hop_cnt = 2;
  smp.initial_path[1] = 1;
  smp.initial_path[2] = 4;
  smp.hop_ptr = 1;
  ib::Smp at_ca = smp;
  REQUIRE(mgmt::dr_receive(at_ca, false, 1, 2).step == DrStep::Drop);  // a CA in the middle of the path
  ib::Smp no_port = smp;
  REQUIRE(mgmt::dr_receive(no_port, true, 1, 3).step == DrStep::Drop);  // out port 4 of a 3-port switch
  ib::Smp late = smp;
  late.hop_ptr = 3;  // beyond the hop count on the way out
  REQUIRE(mgmt::dr_receive(late, true, 1, 8).step == DrStep::Drop);
  ib::Smp local;
  local.hdr.mgmt_class = ib::kClassSubnDr;
  REQUIRE(mgmt::dr_send(local, 1).step == DrStep::Deliver);  // hop count 0: the node's own SMA
  ib::Smp back = smp;
  back.direction = true;
  back.hop_ptr = 2;
  REQUIRE(mgmt::dr_receive(back, false, 1, 1).step == DrStep::Drop);  // a CA does not pass answers on
}
