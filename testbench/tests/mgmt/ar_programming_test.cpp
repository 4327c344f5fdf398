// The switch side of hcasim's AR attributes (ar_programming.hpp): Sets land
// in the router, Gets read it back, and a bad block or value changes nothing.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <vector>

#include "models/ib/ar_attributes.hpp"
#include "models/ib/mad.hpp"
#include "models/mgmt/ar_programming.hpp"

using namespace hcasim;

namespace {

using Data = std::array<uint8_t, ib::kSmpDataBytes>;

template <typename T>
Data data_of(const T& a) {
  Data d{};
  a.encode(d.data());
  return d;
}

constexpr unsigned kPorts = 8;

sw::AdaptiveRouter unprogrammed() {
  sw::AdaptiveRoutingConfig off;
  off.mode = sw::ArMode::Off;
  return sw::AdaptiveRouter(off, {}, 0);
}

}  // namespace

TEST_CASE("AR attributes: the SM's Sets program groups, LIDs and settings, and Gets read them back") {
  sw::AdaptiveRouter ar = unprogrammed();
  ib::ArGroupBlock groups;  // block 1: groups 2 and 3
  groups.ports[0] = {5, 6, 7, 8};
  groups.ports[1] = {2};
  REQUIRE(mgmt::set_ar_attribute(ar, kPorts, ib::kAttrHcasimArGroupTable, 1, data_of(groups).data()) == ib::kStatusOk);
  ib::ArLidBlock lids;  // block 2: LIDs 64..95
  lids.group[0] = 2;    // LID 64
  lids.group[5] = 3;    // LID 69
  REQUIRE(mgmt::set_ar_attribute(ar, kPorts, ib::kAttrHcasimArLidTable, 2, data_of(lids).data()) == ib::kStatusOk);
  ib::ArInfo info;
  info.mode = 2;  // bounded
  info.choice = 2;
  info.k = 3;
  info.sl_mask = 0x0001;
  info.ageing_ps = 5'000'000;
  REQUIRE(mgmt::set_ar_attribute(ar, kPorts, ib::kAttrHcasimArInfo, 0, data_of(info).data()) == ib::kStatusOk);

  CHECK(ar.config().mode == sw::ArMode::Bounded);
  CHECK(ar.config().choice == sw::ArChoice::LeastQueuedOfK);
  CHECK(ar.config().k == 3);
  CHECK(ar.config().ageing_ps == 5'000'000);
  CHECK(ar.group(64, 0) == 2);
  CHECK(ar.group(69, 0) == 3);
  CHECK(ar.group(65, 0) == 0);
  CHECK(ar.group(64, 1) == 0);  // SL 1 is not in the mask
  CHECK(ar.groups().ports[2] == std::vector<uint8_t>{5, 6, 7, 8});

  Data out{};
  REQUIRE(mgmt::get_ar_attribute(ar, ib::kAttrHcasimArGroupTable, 1, out.data()) == ib::kStatusOk);
  CHECK(out == data_of(groups));
  REQUIRE(mgmt::get_ar_attribute(ar, ib::kAttrHcasimArLidTable, 2, out.data()) == ib::kStatusOk);
  CHECK(out == data_of(lids));
  REQUIRE(mgmt::get_ar_attribute(ar, ib::kAttrHcasimArInfo, 0, out.data()) == ib::kStatusOk);
  info.group_cap = sw::kArGroupCap;  // read only: the switch's own
  CHECK(out == data_of(info));
  // Blocks never written read empty.
  REQUIRE(mgmt::get_ar_attribute(ar, ib::kAttrHcasimArLidTable, 100, out.data()) == ib::kStatusOk);
  CHECK(out == Data{});
}

TEST_CASE("AR attributes: a block beyond the capacity, a port beyond the switch or a bad setting is refused and "
          "changes nothing") {
  sw::AdaptiveRouter ar = unprogrammed();
  const auto invalid = [&](uint16_t attr, uint32_t mod, const Data& d) {
    return mgmt::set_ar_attribute(ar, kPorts, attr, mod, d.data()) == ib::kStatusInvalidAttribute;
  };
  ib::ArGroupBlock groups;
  groups.ports[0] = {1, kPorts + 1};
  CHECK(invalid(ib::kAttrHcasimArGroupTable, 0, data_of(groups)));
  groups.ports[0] = {1};
  CHECK(invalid(ib::kAttrHcasimArGroupTable, sw::kArGroupCap / 2, data_of(groups)));
  ib::ArLidBlock lids;
  lids.group[3] = sw::kArGroupCap;
  CHECK(invalid(ib::kAttrHcasimArLidTable, 0, data_of(lids)));
  lids.group[3] = 1;
  CHECK(invalid(ib::kAttrHcasimArLidTable, 0xC000 / 32, data_of(lids)));
  ib::ArInfo info;
  info.mode = 3;
  info.k = 2;
  CHECK(invalid(ib::kAttrHcasimArInfo, 0, data_of(info)));
  info.mode = 1;
  info.choice = 3;
  CHECK(invalid(ib::kAttrHcasimArInfo, 0, data_of(info)));
  info.choice = 0;
  info.k = 0;
  CHECK(invalid(ib::kAttrHcasimArInfo, 0, data_of(info)));
  info.k = 2;
  CHECK(invalid(ib::kAttrHcasimArInfo, 1, data_of(info)));
  CHECK(ar.config().mode == sw::ArMode::Off);
  CHECK(ar.groups().ports.size() == 1);
  CHECK(ar.groups().of_lid.empty());
  Data out{};
  CHECK(mgmt::get_ar_attribute(ar, ib::kAttrHcasimArGroupTable, sw::kArGroupCap / 2, out.data()) ==
        ib::kStatusInvalidAttribute);
  CHECK(mgmt::get_ar_attribute(ar, ib::kAttrLft, 0, out.data()) == ib::kStatusUnsupportedMethodAttr);
}
