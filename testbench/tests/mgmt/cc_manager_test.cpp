// The CC manager's logic (cc_manager.hpp; OpenSM osm_congestion_control.c):
// what setup() sends, how answers are stored and later setups skip unchanged
// items, UNSUP statuses and timeouts marking a port cc-unavailable.

#include <catch2/catch.hpp>

#include <set>

#include "models/mgmt/cc_manager.hpp"

using namespace hcasim;

namespace {

mgmt::CcManagerConfig config(uint16_t ccti_limit) {
  mgmt::CcManagerConfig c;
  c.cc_key = 0xABCD;
  c.timeout_ps = 1000;
  c.retries = 2;
  c.switch_setting.control_map = ib::kSwCcMapThreshold;
  c.switch_setting.threshold = 8;
  c.ca_setting.control_map = 0xFFFF;
  std::vector<ib::CctEntry> entries;
  for (unsigned i = 0; i <= ccti_limit; ++i) entries.push_back({2, static_cast<uint16_t>(i)});
  c.cct = mgmt::cc_table_blocks(entries, ccti_limit);
  return c;
}

// An agent that accepts everything: the answer echoes the Set's data.
ib::CcMad ok_answer(const ib::CcMad& req, uint16_t status = ib::kStatusOk) {
  ib::CcMad r = req;
  r.hdr.method = ib::kMethodGetResp;
  r.hdr.status = status;
  return r;
}

const std::vector<mgmt::CcTarget> kTargets = {{0x100, 1, true}, {0x201, 2, false}, {0x301, 3, false}};

}  // namespace

TEST_CASE("the CCT is Set in blocks 0 to ccti_limit / 64, each carrying CCTI_Limit", "[mgmt][cc]") {
  std::vector<ib::CctEntry> e(130);
  for (unsigned i = 0; i < e.size(); ++i) e[i] = {1, static_cast<uint16_t>(i)};
  const auto blocks = mgmt::cc_table_blocks(e, 129);
  REQUIRE(blocks.size() == 3);  // CCTIs 0..63, 64..127, 128..129
  for (const auto& b : blocks) REQUIRE(b.ccti_limit == 129);
  REQUIRE(blocks[1].entries[0] == ib::CctEntry{1, 64});
  REQUIRE(blocks[2].entries[1] == ib::CctEntry{1, 129});
  REQUIRE(blocks[2].entries[2] == ib::CctEntry{});
  REQUIRE(mgmt::cc_table_blocks(e, 63).size() == 1);
}

TEST_CASE("the CC manager Sets one setting per switch and per CA port its setting and CCT blocks, then skips what is unchanged", "[mgmt][cc]") {
  mgmt::CcManager m(config(127));  // 2 CCT blocks
  std::vector<mgmt::CcSend> out;
  m.setup(kTargets, 0, out);
  REQUIRE(out.size() == 1 + 2 * (1 + 2));
  std::set<uint64_t> tids;
  for (const mgmt::CcSend& s : out) {
    REQUIRE(s.mad.hdr.mgmt_class == 0x21);
    REQUIRE(s.mad.hdr.class_version == 2);
    REQUIRE(s.mad.hdr.method == ib::kMethodSet);
    REQUIRE(s.mad.cc_key == 0xABCD);
    REQUIRE(s.mad.hdr.tid >= 0x7A93);
    tids.insert(s.mad.hdr.tid);
  }
  REQUIRE(tids.size() == out.size());
  REQUIRE(out[0].dlid == 1);
  REQUIRE(out[0].mad.hdr.attr_id == ib::kAttrSwitchCongestionSetting);
  REQUIRE(out[1].mad.hdr.attr_id == ib::kAttrCaCongestionSetting);
  REQUIRE(out[2].mad.hdr.attr_id == ib::kAttrCongestionControlTable);
  REQUIRE(out[3].mad.hdr.attr_mod == 1);
  REQUIRE(out[3].dlid == 2);
  const std::vector<mgmt::CcSend> sent = out;
  out.clear();
  for (const mgmt::CcSend& s : sent) m.on_response(ok_answer(s.mad), 10, out);
  REQUIRE(out.empty());
  REQUIRE(m.idle());
  REQUIRE(m.stats().answered == sent.size());
  REQUIRE(m.deadline_ps() == UINT64_MAX);
  ib::CaCongestionSetting stored = m.port(0x201)->ca_setting;
  REQUIRE(stored == m.config().ca_setting);
  // The next sweep: everything answered is as wanted, nothing goes.
  m.setup(kTargets, 20, out);
  REQUIRE(out.empty());
  REQUIRE(m.stats().skipped == sent.size());
}

TEST_CASE("an UNSUP status marks the port cc-unavailable and later setups skip it", "[mgmt][cc]") {
  mgmt::CcManager m(config(63));
  std::vector<mgmt::CcSend> out;
  m.setup(kTargets, 0, out);
  REQUIRE(out.size() == 1 + 2 * 2);
  const std::vector<mgmt::CcSend> sent = out;
  out.clear();
  m.on_response(ok_answer(sent[0].mad, 0x000C), 1, out);  // the switch: UNSUP_METHOD_ATTR
  m.on_response(ok_answer(sent[1].mad, 0x001C), 1, out);  // port 0x201: invalid value, not UNSUP
  REQUIRE(m.port(0x100)->unavailable);
  REQUIRE_FALSE(m.port(0x201)->unavailable);
  REQUIRE(m.unavailable_ports() == 1);
  REQUIRE(m.stats().errors == 2);
  for (std::size_t i = 2; i < sent.size(); ++i) m.on_response(ok_answer(sent[i].mad), 2, out);
  out.clear();
  m.setup(kTargets, 3, out);
  REQUIRE(out.size() == 1);  // only 0x201's CACongestionSetting again
  REQUIRE(out[0].dlid == 2);
  REQUIRE(out[0].mad.hdr.attr_id == ib::kAttrCaCongestionSetting);
}

TEST_CASE("an unanswered CC MAD is resent with its TID up to the retries, then fails", "[mgmt][cc]") {
  mgmt::CcManager m(config(63));
  std::vector<mgmt::CcSend> out;
  m.setup({{0x100, 1, true}}, 0, out);
  REQUIRE(out.size() == 1);
  const uint64_t tid = out[0].mad.hdr.tid;
  REQUIRE(m.deadline_ps() == 1000);
  for (uint64_t t = 1000; t <= 3000; t += 1000) {  // retries = 2: tries at 0, 1000, 2000
    out.clear();
    m.on_timer(t, out);
    if (t < 3000) {
      REQUIRE(out.size() == 1);
      REQUIRE(out[0].mad.hdr.tid == tid);
    } else {
      REQUIRE(out.empty());
    }
  }
  REQUIRE(m.stats().sent == 3);
  REQUIRE(m.stats().timeouts == 3);
  REQUIRE(m.stats().failed == 1);
  REQUIRE(m.idle());
  // More than 3 failed MADs (OpenSM OSM_CC_TIMEOUT_COUNT_THRESHOLD) mark the port unavailable.
  for (unsigned round = 0; round < 3; ++round) {
    REQUIRE_FALSE(m.port(0x100)->unavailable);
    out.clear();
    m.setup({{0x100, 1, true}}, 0, out);
    for (uint64_t t = 1000; t <= 3000; t += 1000) m.on_timer(t, out);
  }
  REQUIRE(m.port(0x100)->unavailable);
  out.clear();
  m.setup({{0x100, 1, true}}, 0, out);
  REQUIRE(out.empty());
}
