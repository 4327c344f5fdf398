// The Response and Segment Timeout formulas of seeds/000 ("Timeouts"), checked
// against numbers computed by hand in the comments.

#include <catch2/catch.hpp>

#include "models/mgmt/sa_timeouts.hpp"

using namespace hcasim::mgmt;

TEST_CASE("SA timeouts with SubnetTimeout 0 and RespTimeValue 0", "[sa_timeouts]") {
  // Response: 2 x 4.096 us + 4.096 us = 12.288 us. Segment: 4.096 + 4.096 = 8.192 us.
  CHECK(sa_response_timeout_ps(0, 0) == 12'288'000ull);
  CHECK(sa_segment_timeout_ps(0, 0) == 8'192'000ull);
  const SaTimeouts t = SaTimeouts::from(0, 0);
  CHECK(t.response_ps == 12'288'000ull);
  CHECK(t.segment_ps == 8'192'000ull);
}

TEST_CASE("SA timeouts with SubnetTimeout 18 and RespTimeValue 16", "[sa_timeouts]") {
  // 4.096 us x 2^18 = 4.096 us x 262144 = 1,073,741.824 us = 1.073741824 s.
  // 4.096 us x 2^16 = 4.096 us x 65536  =   268,435.456 us = 0.268435456 s.
  // Response: 2 x 1.073741824 s + 0.268435456 s = 2.415919104 s = 2,415,919,104,000 ps.
  // Segment:      1.073741824 s + 0.268435456 s = 1.342177280 s = 1,342,177,280,000 ps.
  CHECK(sa_response_timeout_ps(18, 16) == 2'415'919'104'000ull);
  CHECK(sa_segment_timeout_ps(18, 16) == 1'342'177'280'000ull);
}

TEST_CASE("SA timeouts with SubnetTimeout 8 and RespTimeValue 10", "[sa_timeouts]") {
  // 4.096 us x 256 = 1048.576 us; 4.096 us x 1024 = 4194.304 us.
  // Response: 2097.152 + 4194.304 = 6291.456 us. Segment: 1048.576 + 4194.304 = 5242.880 us.
  CHECK(sa_response_timeout_ps(8, 10) == 6'291'456'000ull);
  CHECK(sa_segment_timeout_ps(8, 10) == 5'242'880'000ull);
}

TEST_CASE("SA timeouts with SubnetTimeout 1 and RespTimeValue 0", "[sa_timeouts]") {
  // Flight 8.192 us: Response 16.384 + 4.096 = 20.480 us; Segment 8.192 + 4.096 = 12.288 us.
  CHECK(sa_response_timeout_ps(1, 0) == 20'480'000ull);
  CHECK(sa_segment_timeout_ps(1, 0) == 12'288'000ull);
}

TEST_CASE("SA timeouts at the largest 5-bit exponents do not overflow", "[sa_timeouts]") {
  // 4.096 us x 2^31 = 4,096,000 ps x 2,147,483,648 = 8,796,093,022,208,000 ps.
  // Response = 3 x that = 26,388,279,066,624,000 ps; Segment = 2 x = 17,592,186,044,416,000 ps.
  CHECK(sa_response_timeout_ps(31, 31) == 26'388'279'066'624'000ull);
  CHECK(sa_segment_timeout_ps(31, 31) == 17'592'186'044'416'000ull);
}

TEST_CASE("SA timeouts use only the 5 low bits of the exponents", "[sa_timeouts]") {
  // SubnetTimeout and RespTimeValue are 5-bit fields: 32 reads as 0, 33 as 1.
  CHECK(sa_response_timeout_ps(32, 32) == 12'288'000ull);
  CHECK(sa_segment_timeout_ps(33, 32) == 12'288'000ull);
}

TEST_CASE("SA retry and resend limits are seven", "[sa_timeouts]") {
  // seeds/000: a request may be retried at most seven times; at most seven
  // Resend requests for one missing packet.
  CHECK(kSaMaxRetries == 7);
  CHECK(kSaMaxResends == 7);
}
