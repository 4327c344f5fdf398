// Memory regions: keys, protection checks (host_memory.hpp rules), dereg and
// SEND-with-Invalidate.
#include <catch2/catch.hpp>

#include <cstdint>
#include <set>
#include <stdexcept>

#include "models/hca/memory_regions.hpp"

using namespace hcasim::hca;
using namespace hcasim::transport;

namespace {
constexpr uint32_t kAll = kLocalWrite | kRemoteWrite | kRemoteRead | kRemoteAtomic;
}

TEST_CASE("keys are deterministic distinct and never zero") {
  MemoryRegions a;
  MemoryRegions b;
  std::set<uint32_t> keys;
  for (int i = 0; i < 300; ++i) {
    MemoryRegion ra = a.reg_mr(uint64_t(i) * 4096, 4096, kAll);
    MemoryRegion rb = b.reg_mr(uint64_t(i) * 4096, 4096, kAll);
    REQUIRE(ra.lkey == rb.lkey);
    REQUIRE(ra.rkey == rb.rkey);
    REQUIRE(ra.lkey != ra.rkey);
    REQUIRE(ra.lkey != 0);
    REQUIRE(keys.insert(ra.lkey).second);
    REQUIRE(keys.insert(ra.rkey).second);
  }
  REQUIRE(a.regions() == 300);
}

TEST_CASE("a region's keys work only in their own role") {
  MemoryRegions m;
  MemoryRegion r = m.reg_mr(0x1000, 0x1000, kAll);
  REQUIRE(m.check_local(r.lkey, 0x1000, 16, kLocalWrite) == KeyCheck::Ok);
  REQUIRE(m.check_remote(r.rkey, 0x1000, 16, kRemoteRead) == KeyCheck::Ok);
  REQUIRE(m.check_local(r.rkey, 0x1000, 16, 0) == KeyCheck::BadKey);
  REQUIRE(m.check_remote(r.lkey, 0x1000, 16, kRemoteRead) == KeyCheck::BadKey);
  REQUIRE(m.check_local(0, 0x1000, 16, 0) == KeyCheck::BadKey);
  REQUIRE(m.check_remote(r.rkey + 0x100, 0x1000, 16, kRemoteRead) == KeyCheck::BadKey);
}

TEST_CASE("a range must lie wholly inside the region") {
  MemoryRegions m;
  MemoryRegion r = m.reg_mr(0x1000, 0x100, kAll);
  REQUIRE(m.check_local(r.lkey, 0x1000, 0x100, 0) == KeyCheck::Ok);
  REQUIRE(m.check_local(r.lkey, 0x10FF, 1, 0) == KeyCheck::Ok);
  REQUIRE(m.check_local(r.lkey, 0x0FFF, 2, 0) == KeyCheck::OutOfRange);
  REQUIRE(m.check_local(r.lkey, 0x1000, 0x101, 0) == KeyCheck::OutOfRange);
  REQUIRE(m.check_local(r.lkey, 0x1100, 1, 0) == KeyCheck::OutOfRange);
  REQUIRE(m.check_remote(r.rkey, 0x10F8, 16, kRemoteWrite) == KeyCheck::OutOfRange);
}

TEST_CASE("a range whose end overflows 64 bits is out of range") {
  MemoryRegions m;
  const uint64_t top = ~uint64_t{0} - 0xFF;  // the last 256 bytes of the address space
  MemoryRegion r = m.reg_mr(top, 0x100, kAll);
  REQUIRE(m.check_remote(r.rkey, top, 0x100, kRemoteRead) == KeyCheck::Ok);
  REQUIRE(m.check_remote(r.rkey, top + 0x80, ~uint64_t{0}, kRemoteRead) == KeyCheck::OutOfRange);
  REQUIRE(m.check_remote(r.rkey, top, 0x101, kRemoteRead) == KeyCheck::OutOfRange);
  REQUIRE(m.check_local(r.lkey, ~uint64_t{0}, 2, 0) == KeyCheck::OutOfRange);
  MemoryRegion low = m.reg_mr(0, 0x100, kAll);
  REQUIRE(m.check_local(low.lkey, ~uint64_t{0}, 2, 0) == KeyCheck::OutOfRange);  // would wrap to 0
}

TEST_CASE("access flags the region lacks give NoAccess") {
  MemoryRegions m;
  MemoryRegion ro = m.reg_mr(0x1000, 0x100, kRemoteRead);
  REQUIRE(m.check_local(ro.lkey, 0x1000, 8, 0) == KeyCheck::Ok);  // local reads need no flag
  REQUIRE(m.check_local(ro.lkey, 0x1000, 8, kLocalWrite) == KeyCheck::NoAccess);
  REQUIRE(m.check_remote(ro.rkey, 0x1000, 8, kRemoteRead) == KeyCheck::Ok);
  REQUIRE(m.check_remote(ro.rkey, 0x1000, 8, kRemoteWrite) == KeyCheck::NoAccess);
  REQUIRE(m.check_remote(ro.rkey, 0x1000, 8, kRemoteAtomic) == KeyCheck::NoAccess);
  MemoryRegion rw = m.reg_mr(0x2000, 0x100, kLocalWrite | kRemoteWrite);
  REQUIRE(m.check_remote(rw.rkey, 0x2000, 8, kRemoteWrite) == KeyCheck::Ok);
  REQUIRE(m.check_remote(rw.rkey, 0x2000, 8, kRemoteRead) == KeyCheck::NoAccess);
}

TEST_CASE("a zero-length range passes with any valid key") {
  MemoryRegions m;
  MemoryRegion r = m.reg_mr(0x1000, 0x100, kLocalWrite);
  REQUIRE(m.check_local(r.lkey, 0x9999, 0, kLocalWrite) == KeyCheck::Ok);
  REQUIRE(m.check_remote(r.rkey, 0, 0, kRemoteWrite) == KeyCheck::Ok);
  REQUIRE(m.check_local(0x7700, 0x1000, 0, 0) == KeyCheck::BadKey);
}

TEST_CASE("reg_mr refuses remote write or atomic without local write") {
  MemoryRegions m;
  REQUIRE_THROWS_AS(m.reg_mr(0, 64, kRemoteWrite), std::invalid_argument);
  REQUIRE_THROWS_AS(m.reg_mr(0, 64, kRemoteAtomic | kRemoteRead), std::invalid_argument);
  REQUIRE_THROWS_AS(m.reg_mr(0, 64, 16), std::invalid_argument);
  REQUIRE_THROWS_AS(m.reg_mr(~uint64_t{0}, 2, kLocalWrite), std::invalid_argument);
  REQUIRE(m.regions() == 0);
  REQUIRE_NOTHROW(m.reg_mr(0, 64, kRemoteRead));
  REQUIRE_NOTHROW(m.reg_mr(0, 64, kLocalWrite | kRemoteAtomic));
}

TEST_CASE("dereg_mr ends both keys and a reused slot gets new keys") {
  MemoryRegions m;
  MemoryRegion r = m.reg_mr(0x1000, 0x100, kAll);
  REQUIRE(m.dereg_mr(r.lkey));
  REQUIRE_FALSE(m.dereg_mr(r.lkey));
  REQUIRE_FALSE(m.dereg_mr(r.rkey));
  REQUIRE(m.regions() == 0);
  REQUIRE(m.check_local(r.lkey, 0x1000, 8, 0) == KeyCheck::BadKey);
  REQUIRE(m.check_remote(r.rkey, 0x1000, 8, kRemoteRead) == KeyCheck::BadKey);
  MemoryRegion again = m.reg_mr(0x1000, 0x100, kAll);
  REQUIRE(again.lkey >> 8 == r.lkey >> 8);  // the same slot
  REQUIRE(again.lkey != r.lkey);
  REQUIRE(m.check_local(r.lkey, 0x1000, 8, 0) == KeyCheck::BadKey);
  REQUIRE(m.check_local(again.lkey, 0x1000, 8, 0) == KeyCheck::Ok);
}

TEST_CASE("invalidate_rkey ends the R_Key and keeps the L_Key") {
  MemoryRegions m;
  MemoryRegion r = m.reg_mr(0x1000, 0x100, kAll);
  MemoryRegion other = m.reg_mr(0x2000, 0x100, kAll);
  REQUIRE(m.invalidate_rkey(r.rkey));
  REQUIRE(m.check_remote(r.rkey, 0x1000, 8, kRemoteRead) == KeyCheck::BadKey);
  REQUIRE(m.check_local(r.lkey, 0x1000, 8, kLocalWrite) == KeyCheck::Ok);
  REQUIRE(m.check_remote(other.rkey, 0x2000, 8, kRemoteRead) == KeyCheck::Ok);
  REQUIRE_FALSE(m.invalidate_rkey(r.rkey));      // already invalid
  REQUIRE_FALSE(m.invalidate_rkey(r.lkey));      // not an R_Key
  REQUIRE_FALSE(m.invalidate_rkey(0x12345680));  // no such region
  REQUIRE(m.dereg_mr(r.lkey));
}
