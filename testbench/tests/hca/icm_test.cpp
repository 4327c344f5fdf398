// The ICM tables the driver writes at reg_mr and dereg_mr (icm_layout.hpp,
// host_formats.hpp "Context tables"): the MPT entry's fields and one MTT
// entry per page, identity mapped, for 4 KiB and 2 MiB pages.
#include <catch2/catch.hpp>

#include <cstdint>

#include "models/hca/host_formats.hpp"
#include "testbench/tests/hca/host_platform.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

void check_region(uint64_t page_bytes, uint8_t shift) {
  config::HcaSettings s = ideal_settings();
  s.hca.page_bytes = page_bytes;
  HostPair t(s);
  host::Driver& d = t.a();
  const hca::IcmLayout& icm = t.hca_a().contexts().layout();
  // 3 pages and a bit, starting mid-page: pages 1 .. 4 of the page size.
  const uint64_t addr = page_bytes + 100;
  const uint64_t length = 3 * page_bytes;
  const hca::MemoryRegion mr = d.reg_mr(addr, length, transport::kLocalWrite | transport::kRemoteRead);
  uint8_t mpt[hca::kMptBytes];
  d.memory().read(icm.mpt(mr.lkey >> 8), mpt, sizeof mpt);
  const hca::MptEntry e = hca::decode_mpt(mpt);
  CHECK(e.lkey == mr.lkey);
  CHECK(e.rkey == mr.rkey);
  CHECK(e.access == (transport::kLocalWrite | transport::kRemoteRead));
  CHECK(e.page_shift == shift);
  CHECK(e.valid);
  CHECK(e.rkey_valid);
  CHECK(e.start == addr);
  CHECK(e.length == length);
  CHECK(e.mtt_count == 4);  // [page + 100, 4 pages + 100) touches 4 pages
  CHECK(e.mtt_first == mr.mtt_first);
  for (uint64_t i = 0; i < 4; ++i) {
    uint8_t mtt[hca::kMttBytes];
    d.memory().read(icm.mtt(e.mtt_first + i), mtt, sizeof mtt);
    CHECK(hca::get_u64(mtt) == ((1 + i) * page_bytes | 1));  // the page's address, present
  }
  REQUIRE(d.dereg_mr(mr.lkey));
  d.memory().read(icm.mpt(mr.lkey >> 8), mpt, sizeof mpt);
  CHECK_FALSE(hca::decode_mpt(mpt).valid);
  uint8_t mtt[hca::kMttBytes];
  d.memory().read(icm.mtt(e.mtt_first), mtt, sizeof mtt);
  CHECK(hca::get_u64(mtt) == page_bytes);  // present bit clear
}

}  // namespace

TEST_CASE("reg_mr writes the MPT entry and an MTT entry per 4 KiB page, and dereg_mr invalidates them") {
  check_region(4096, 12);
}

TEST_CASE("reg_mr writes the MPT entry and an MTT entry per 2 MiB page, and dereg_mr invalidates them") {
  check_region(uint64_t{2} << 20, 21);
}
