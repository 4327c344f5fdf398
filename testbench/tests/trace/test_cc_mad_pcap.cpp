// Congestion Control MADs (class 0x21, cc_mad.hpp / cc_attributes.hpp) through
// the stock tshark: one GMP of each attribute, UD SEND_ONLY to QP1 with the
// GSI Q_Key, written by PcapWriter. tshark 4.0.17 dissects the common MAD
// header of class 0x21 but has no dissector for its attributes (it shows
// "APP - Application Specific MAD (Dissector Not Implemented)" and the MAD's
// bytes 24-255 as infiniband.mad.data), so the test checks the header fields
// tshark decodes and, in tshark's data bytes, the CC_Key at MAD byte 24 and
// fields of each attribute at the MAD offsets worked out by hand below.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "models/ib/cc_attributes.hpp"
#include "models/ib/cc_mad.hpp"
#include "models/ib/headers.hpp"
#include "models/ib/opcodes.hpp"
#include "models/ib/packet.hpp"
#include "models/trace/pcap_writer.hpp"
#include "testbench/tests/scenarios/tshark_util.hpp"
#include "testbench/tests/trace/mad_packet.hpp"
#include "testbench/tests/scratch_dir.hpp"

using namespace hcasim;

namespace {

constexpr unsigned kTsharkDataOffset = 24;  // infiniband.mad.data starts at MAD byte 24

// A GMP as it travels: VL0, LNH IBA local, UD SEND_ONLY from QP1 to QP1, GSI Q_Key.
std::vector<uint8_t> hex_bytes(const std::string& s) {
  INFO("tshark bytes '" << s << "'");
  REQUIRE(s.size() % 2 == 0);
  std::vector<uint8_t> out;
  for (std::size_t i = 0; i < s.size(); i += 2) out.push_back(static_cast<uint8_t>(std::stoul(s.substr(i, 2), nullptr, 16)));
  return out;
}

struct Sent {
  ib::CcMad mad;
  // MAD byte offset and the value hand-computed from the layout.
  std::vector<std::pair<unsigned, uint8_t>> bytes;
};

template <class A>
ib::CcMad mad_with(uint8_t method, uint32_t attr_mod, uint64_t tid, const A& a) {
  ib::CcMad m = ib::cc_request(method, A::kAttrId, attr_mod, tid, 0xC0FFEE0000000000ull | tid);
  ib::put_attribute(m, a);
  return m;
}

}  // namespace

TEST_CASE("tshark decodes CC MADs of each attribute: class 0x21 header and the bytes encoded", "[cc][tshark]") {
  if (std::system("command -v tshark >/dev/null 2>&1") != 0) {
    FAIL("tshark is missing: this test needs the stock tshark (Debian package 'tshark', "
         "installed by the project's setup script)");
  }
  std::vector<Sent> sent;

  ib::CongestionInfo info;
  info.congestion_info = ib::kCongestionInfoCreditStarvation;
  info.control_table_cap = 2;
  sent.push_back({mad_with(ib::kMethodGetResp, 0, 1, info), {{64, 0x00}, {65, 0x01}, {66, 0x02}}});

  ib::CongestionKeyInfo key;
  key.cc_key = 0x1122334455667788ull;
  key.protect = true;
  key.lease_period = 0x0A0B;
  sent.push_back({mad_with(ib::kMethodSet, 0, 2, key), {{64, 0x11}, {71, 0x88}, {72, 0x80}, {74, 0x0A}, {75, 0x0B}}});

  ib::CongestionLogSwitch swlog;
  swlog.event_counter = 0x0203;
  swlog.port_map.set(254);
  swlog.events[0] = {0x0011, 0x0022, 5, 0x01020304};
  // From MAD byte 32: LogType 32, counter 34-35, PortMap 40-71 (port 254 -> byte 40 bit 6), event 0 at 72.
  sent.push_back({mad_with(ib::kMethodGetResp, 0, 3, swlog),
                  {{32, 0x01}, {34, 0x02}, {35, 0x03}, {40, 0x40}, {73, 0x11}, {75, 0x22}, {76, 0x50}, {83, 0x04}}});

  ib::CongestionLogCa calog;
  calog.event_map = 1u << 3;
  calog.events[0] = {0x123456, 0x654321, 7, 3, 0x0042, 0};
  // From MAD byte 32: LogType 32, event map 36-37, event 0 at 44: QP 44-46, remote QP 48-50, SL|type 51, LID 52-53.
  sent.push_back({mad_with(ib::kMethodGetResp, 0, 4, calog),
                  {{32, 0x02}, {37, 0x08}, {44, 0x12}, {46, 0x56}, {48, 0x65}, {51, 0x73}, {53, 0x42}}});

  ib::SwitchCongestionSetting sw;
  sw.control_map = 0x1F;
  sw.victim_mask.set(1);
  sw.threshold = 15;
  sw.packet_size = 4;
  sw.marking_rate = 10;
  // From MAD byte 64: Control_Map 64-67, Victim_Mask 68-99 (port 1 -> byte 99 bit 1), Threshold 132,
  // Packet_Size 133, Marking_Rate 138-139.
  sent.push_back({mad_with(ib::kMethodSet, 0, 5, sw), {{67, 0x1F}, {99, 0x02}, {132, 0xF0}, {133, 0x04}, {139, 0x0A}}});

  ib::SwitchPortCongestionSetting ports;
  ports.ports[0] = {true, false, 8, 2, 0x0102};  // port 32 (block 1, element 0)
  sent.push_back({mad_with(ib::kMethodSet, 1, 6, ports), {{64, 0x88}, {65, 0x02}, {66, 0x01}, {67, 0x02}}});

  ib::CaCongestionSetting ca;
  ca.port_control = ib::kCaPortControlPerSl;
  ca.control_map = 0x0001;
  ca.entries[0] = {0x0123, 2, 5, 1};
  // Port_Control 64-65, Control_Map 66-67, SL 0's entry 68-75.
  sent.push_back({mad_with(ib::kMethodSet, 0, 7, ca),
                  {{65, 0x01}, {67, 0x01}, {68, 0x01}, {69, 0x23}, {70, 0x02}, {71, 0x05}, {72, 0x01}}});

  ib::CongestionControlTable cct;
  cct.ccti_limit = 127;
  cct.entries[1] = {1, 0x3FFF};
  // CCTI_Limit 64-65, entry 1 (CCTI 65 of block 1) at 70-71.
  sent.push_back({mad_with(ib::kMethodSet, 1, 8, cct), {{65, 0x7F}, {70, 0x7F}, {71, 0xFF}}});

  ib::TimeStamp ts;
  ts.value = 0x89ABCDEF;
  sent.push_back({mad_with(ib::kMethodGetResp, 0, 9, ts), {{64, 0x89}, {65, 0xAB}, {66, 0xCD}, {67, 0xEF}}});

  const test::ScratchDir dir("cc-mad-pcap");
  const std::string pcap = dir.file("cc_mads.pcap");
  {
    trace::PcapWriter w(pcap);
    uint64_t t = 1000;
    for (const Sent& s : sent) w.write(t += 1000, test::encoded_mad_packet(s.mad, ib::kQp1, 0x0005, 0x0001));
    w.close();
  }

  const std::vector<std::string> fields = {
      "infiniband.bth.destqp",             // 0
      "infiniband.deth.q_key",             // 1
      "infiniband.mad.mgmtclass",          // 2
      "infiniband.mad.classversion",       // 3
      "infiniband.mad.method",             // 4
      "infiniband.mad.transactionid",      // 5
      "infiniband.mad.attributeid",        // 6
      "infiniband.mad.attributemodifier",  // 7
      "infiniband.mad.data",               // 8: MAD bytes 24-255
  };
  const auto rows = test::tshark_fields(pcap, fields);
  REQUIRE(rows.size() == sent.size());

  for (std::size_t i = 0; i < sent.size(); ++i) {
    const ib::CcMad& m = sent[i].mad;
    INFO("frame " << i + 1 << ", attribute 0x" << std::hex << m.hdr.attr_id);
    const auto& r = rows[i];
    CHECK(test::tshark_number(r[0]) == 1);            // QP1
    CHECK(test::tshark_number(r[1]) == 0x80010000);   // GSI Q_Key
    CHECK(test::tshark_number(r[2]) == 0x21);
    CHECK(test::tshark_number(r[3]) == 2);
    CHECK(test::tshark_number(r[4]) == m.hdr.method);
    CHECK(test::tshark_number(r[5]) == m.hdr.tid);
    CHECK(test::tshark_number(r[6]) == m.hdr.attr_id);
    CHECK(test::tshark_number(r[7]) == m.hdr.attr_mod);
    const std::vector<uint8_t> data = hex_bytes(r[8]);
    REQUIRE(data.size() == ib::kMadBytes - kTsharkDataOffset);
    uint64_t cc_key = 0;
    for (unsigned b = 0; b < 8; ++b) cc_key = cc_key << 8 | data[b];  // MAD bytes 24-31
    CHECK(cc_key == m.cc_key);
    for (const auto& [offset, value] : sent[i].bytes) {
      INFO("MAD byte " << std::dec << offset);
      CHECK(static_cast<unsigned>(data[offset - kTsharkDataOffset]) == value);
    }
  }
}
