// Data rates per generation: iba-facts 2 "Speeds" (signalling x line code).
#include <catch2/catch.hpp>

#include "models/link/link_timing.hpp"

using namespace hcasim::link;

TEST_CASE("per-lane data rates match the generation table") {
  REQUIRE(data_rate_bps(Speed::Sdr, Width::X1) == Approx(2e9));
  REQUIRE(data_rate_bps(Speed::Ddr, Width::X1) == Approx(4e9));
  REQUIRE(data_rate_bps(Speed::Qdr, Width::X1) == Approx(8e9));
  REQUIRE(data_rate_bps(Speed::Fdr, Width::X1) == Approx(13.636e9).epsilon(1e-4));
  REQUIRE(data_rate_bps(Speed::Edr, Width::X1) == Approx(25e9));
  REQUIRE(data_rate_bps(Speed::Hdr, Width::X1) == Approx(50e9));
  REQUIRE(data_rate_bps(Speed::Ndr, Width::X1) == Approx(100e9));
}

TEST_CASE("width multiplies the lane rate") {
  REQUIRE(data_rate_bps(Speed::Hdr, Width::X4) == Approx(200e9));
  REQUIRE(data_rate_bps(Speed::Edr, Width::X12) == Approx(300e9));
  REQUIRE(data_rate_bps(Speed::Qdr, Width::X2) == Approx(16e9));
  REQUIRE(data_rate_bps(Speed::Ndr, Width::X8) == Approx(800e9));
}

TEST_CASE("serialization counts framing bytes - propagation from length or time") {
  LinkConfig c;
  c.speed = Speed::Hdr;
  c.width = Width::X4;  // 200 Gb/s: 40 ps per byte
  c.framing_bytes = 2;
  c.length_m = 3;
  LinkTiming t(c);
  REQUIRE(t.serialization_ps(4130) == 4132 * 40);
  REQUIRE(t.propagation_ps() == 15000);  // 3 m x 5 ns/m
  c.propagation_ps = 123456;
  REQUIRE(LinkTiming(c).propagation_ps() == 123456);
  c.speed = Speed::Sdr;
  c.width = Width::X1;  // 2 Gb/s: 4000 ps per byte
  REQUIRE(LinkTiming(c).serialization_ps(62) == 64 * 4000);
}
