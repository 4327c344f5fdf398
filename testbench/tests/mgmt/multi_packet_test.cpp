// The SA reliable multi-packet protocol (seeds/000): sender and receiver back
// to back (mp_loop.hpp) and step by step. Numbers come from seeds/000: 192-byte
// Admin Data Areas, Fragment Flag bits First 0x01 / Last 0x04 / Resend 0x08 /
// Ack 0x20 / KeepAlive 0x80 (Table 33-11), default window 64, at most 7
// retries / resends, and the timeouts with SubnetTimeout = RespTimeValue = 0:
// Response 12.288 us, Segment 8.192 us.

#include <catch2/catch.hpp>

#include "testbench/tests/mgmt/mp_loop.hpp"

using namespace hcasim::mgmt;
using hcasim::mgmt::test::MpLoop;
using hcasim::mgmt::test::pattern;

namespace {

constexpr uint64_t kRt = 12'288'000;  // 2 x 4.096 + 4.096 us
constexpr uint64_t kSt = 8'192'000;   // 4.096 + 4.096 us
constexpr size_t kArea = 192;         // seeds/000 Table 33-10

MpSenderConfig response_sender(uint16_t window = 64) {
  MpSenderConfig c;
  c.role = MpRole::Response;
  c.response_timeout_ps = kRt;
  c.window = window;
  return c;
}

MpReceiverConfig requester(uint16_t request_window = 64, uint16_t ack_window = 64) {
  MpReceiverConfig c;
  c.role = MpRole::Response;
  c.response_timeout_ps = kRt;
  c.segment_timeout_ps = kSt;
  c.request_window = request_window;
  c.ack_window = ack_window;
  return c;
}

std::vector<uint32_t> segments_of(const std::vector<MpPacket>& v) {
  std::vector<uint32_t> s;
  for (const auto& p : v) s.push_back(p.segment);
  return s;
}

std::vector<uint32_t> range(uint32_t from, uint32_t to) {
  std::vector<uint32_t> s;
  for (uint32_t i = from; i <= to; ++i) s.push_back(i);
  return s;
}

}  // namespace

TEST_CASE("A 200-segment response with window 64 follows Figure 33-2", "[multi_packet]") {
  const size_t total = 199 * kArea + 100;  // 38,308 bytes: 199 full areas and 100 bytes
  const auto bytes = pattern(total);
  MpLoop loop(response_sender(64), bytes, requester(64));
  // Steps 1-2: the request carries Window = n (64); the Response Timer runs.
  CHECK(loop.rcv.request_window() == 64);
  loop.rcv.start_request(0);
  CHECK(loop.rcv.deadline_ps() == kRt);
  loop.run(loop.delay_ps);

  // Steps 4 and 9: segments 1..200, First on 1, Last on 200, Payload Length
  // = total on the first and the valid bytes on the last, reserved elsewhere.
  const auto data = loop.data_sent();
  REQUIRE(segments_of(data) == range(1, 200));
  for (const auto& p : data) {
    INFO("segment " << p.segment);
    CHECK(p.kind == MpKind::Data);
    CHECK(p.window == 64);
    if (p.segment == 1) {
      CHECK(p.fragment_flag == 0x01);
      CHECK(p.payload_length == 38'308u);
    } else if (p.segment == 200) {
      CHECK(p.fragment_flag == 0x04);
      CHECK(p.payload_length == 100u);
    } else {
      CHECK(p.fragment_flag == 0);
      CHECK(p.payload_length == 0u);
    }
  }
  // Steps 6-8 and 10: an Ack (flag 0x20) after the last packet of each window
  // and after the Last packet, and the SA sends nothing past a window before
  // its Ack.
  const auto acks = loop.back(MpKind::Ack);
  REQUIRE(segments_of(acks) == std::vector<uint32_t>{64, 128, 192, 200});
  for (const auto& a : acks) {
    CHECK(a.fragment_flag == 0x20);
    CHECK(a.window == 64);
  }
  std::vector<uint32_t> order;  // data segments, with 1000 + k for an Ack of k
  for (const auto& l : loop.log) order.push_back(l.to_receiver ? l.p.segment : 1000 + l.p.segment);
  std::vector<uint32_t> want = range(1, 64);
  want.push_back(1064);
  for (uint32_t s : range(65, 128)) want.push_back(s);
  want.push_back(1128);
  for (uint32_t s : range(129, 192)) want.push_back(s);
  want.push_back(1192);
  for (uint32_t s : range(193, 200)) want.push_back(s);
  want.push_back(1200);
  CHECK(order == want);

  REQUIRE(loop.delivered);
  CHECK(loop.rcv.data() == bytes);
  CHECK(loop.rcv.data().size() == 199 * 192 + 100u);
  CHECK(loop.completed);
  CHECK(loop.snd.stats().segments_sent == 200);
  CHECK(loop.snd.stats().segments_resent == 0);
  CHECK(loop.snd.stats().acks_received == 4);
  CHECK(loop.rcv.stats().segments_received == 200);
  CHECK(loop.rcv.stats().acks_sent == 4);
  CHECK(loop.rcv.stats().resends_sent == 0);
  CHECK(loop.rcv.stats().timeouts == 0);
}

TEST_CASE("The sender pauses after each window and arms the Response Timeout", "[multi_packet]") {
  MpSender s(response_sender(4), pattern(10 * kArea));
  std::vector<MpAction> out;
  for (uint64_t t = 0; t < 4; ++t) REQUIRE(s.send_next(t * 1000, out));
  // Step 6: after the nth packet the SA triggers the Response Timer.
  CHECK_FALSE(s.can_send());
  CHECK(s.deadline_ps() == 3000 + kRt);
  CHECK_FALSE(s.send_next(4000, out));
  // Step 8: the Ack of 4 lets 5.. go, with the Ack's window (2 here).
  MpPacket ack;
  ack.kind = MpKind::Ack;
  ack.fragment_flag = 0x20;
  ack.segment = 4;
  ack.window = 2;
  s.on_packet(ack, 5000, out);
  CHECK(s.can_send());
  CHECK(s.deadline_ps() == kMpNever);
  out.clear();
  REQUIRE(s.send_next(6000, out));
  REQUIRE(s.send_next(7000, out));
  CHECK_FALSE(s.can_send());
  REQUIRE(out.size() == 2);
  CHECK(out[0].packet.segment == 5);
  CHECK(out[1].packet.segment == 6);
  CHECK(out[1].packet.window == 2);  // the responder's current window
  CHECK(s.deadline_ps() == 7000 + kRt);
}

TEST_CASE("A Config request Ack window below 64 counts as 64", "[multi_packet]") {
  MpSenderConfig c;
  c.role = MpRole::ConfigRequest;
  c.response_timeout_ps = kRt;
  MpSender s(c, pattern(200 * kArea));
  std::vector<MpAction> out;
  uint32_t sent = 0;
  while (s.send_next(sent, out)) ++sent;
  CHECK(sent == 64);  // the default window for the first burst
  MpPacket ack;
  ack.kind = MpKind::Ack;
  ack.fragment_flag = 0x20;
  ack.segment = 64;
  ack.window = 10;  // < 64: the recipient uses 64
  s.on_packet(ack, 100, out);
  CHECK(s.window() == 64);
  uint32_t more = 0;
  while (s.send_next(200 + more, out)) ++more;
  CHECK(more == 64);
}

TEST_CASE("A 150-segment Config request follows the request protocol steps 1-7", "[multi_packet]") {
  const size_t total = 149 * kArea + 17;
  const auto bytes = pattern(total, 5);
  MpSenderConfig sc;
  sc.role = MpRole::ConfigRequest;
  sc.response_timeout_ps = kRt;
  MpReceiverConfig rc;
  rc.role = MpRole::ConfigRequest;
  rc.response_timeout_ps = kRt;
  rc.segment_timeout_ps = kSt;
  rc.ack_window = 16;  // the SA offers 16; the requester uses 64
  MpLoop loop(sc, bytes, rc);
  loop.run(0);  // the SA's receiver starts from the first segment

  const auto data = loop.data_sent();
  REQUIRE(segments_of(data) == range(1, 150));
  for (const auto& p : data) {
    INFO("segment " << p.segment);
    CHECK(p.window == 0);  // Window is valid only in Acks of a Config
    if (p.segment == 1) {
      CHECK(p.fragment_flag == 0x01);
      CHECK(p.payload_length == 149u * 192 + 17);  // step 1: the sum of the areas
    } else if (p.segment == 150) {
      CHECK(p.fragment_flag == 0x04);  // step 6
      CHECK(p.payload_length == 17u);
    } else {
      CHECK(p.fragment_flag == 0);
    }
  }
  // Steps 4-5: 64 packets, an Ack; the window stays 64 because 16 < 64.
  const auto acks = loop.back(MpKind::Ack);
  REQUIRE(segments_of(acks) == std::vector<uint32_t>{64, 128, 150});
  for (const auto& a : acks) CHECK(a.window == 16);
  REQUIRE(loop.delivered);
  CHECK(loop.rcv.data() == bytes);
  CHECK(loop.completed);
}

TEST_CASE("The receiver's window policy sets where Acks fall", "[multi_packet]") {
  // The requester asks for 16 and then offers 32 in its Acks.
  MpLoop loop(response_sender(16), pattern(100 * kArea), requester(16, 32));
  loop.rcv.start_request(0);
  loop.run(loop.delay_ps);
  CHECK(segments_of(loop.back(MpKind::Ack)) == std::vector<uint32_t>{16, 48, 80, 100});
  CHECK(loop.delivered);
  CHECK(loop.completed);
  CHECK(loop.snd.stats().segments_resent == 0);
}

TEST_CASE("A lost segment is recovered with a Resend of that segment", "[multi_packet]") {
  const auto bytes = pattern(200 * kArea - 50);
  MpLoop loop(response_sender(64), bytes, requester(64));
  loop.drop = [](const MpPacket& p, bool to_rcv, unsigned copy) {
    return to_rcv && p.kind == MpKind::Data && p.segment == 10 && copy == 0;
  };
  loop.rcv.start_request(0);
  loop.run(loop.delay_ps);

  // Segment error recovery: one Resend, Fragment Flag bit 3 (0x08), segment 10.
  const auto resends = loop.back(MpKind::Resend);
  REQUIRE(resends.size() == 1);
  CHECK(resends[0].fragment_flag == 0x08);
  CHECK(resends[0].segment == 10);
  // Later segments that arrived before the restart were discarded.
  CHECK(loop.rcv.stats().discarded > 0);
  CHECK(loop.rcv.stats().segments_received == 200);
  // The sender restarted at 10: the data after the Resend begins with 10.
  const auto data = loop.data_sent();
  size_t second10 = 0;
  for (size_t i = 0, n = 0; i < data.size(); ++i)
    if (data[i].segment == 10 && n++ == 1) second10 = i;
  REQUIRE(second10 > 0);
  CHECK(data[second10 - 1].segment > 10);
  CHECK(data[second10 + 1].segment == 11);
  REQUIRE(loop.delivered);
  CHECK(loop.rcv.data() == bytes);
  CHECK(loop.completed);
}

TEST_CASE("A segment lost every time ends the transfer after seven Resends", "[multi_packet]") {
  MpLoop loop(response_sender(64), pattern(200 * kArea), requester(64));
  loop.drop = [](const MpPacket& p, bool to_rcv, unsigned) {
    return to_rcv && p.kind == MpKind::Data && p.segment == 10;
  };
  loop.rcv.start_request(0);
  loop.run(loop.delay_ps);

  const auto resends = loop.back(MpKind::Resend);
  REQUIRE(resends.size() == 7);  // seeds/000: not more than seven
  for (const auto& r : resends) {
    CHECK(r.segment == 10);
    CHECK(r.fragment_flag == 0x08);
  }
  CHECK(loop.rcv_failed);
  CHECK_FALSE(loop.delivered);
  // The eighth segment error is the Segment Timeout after the seventh Resend.
  uint64_t last_resend = 0;
  for (const auto& l : loop.log)
    if (!l.to_receiver && l.p.kind == MpKind::Resend) last_resend = l.t_ps;
  CHECK(loop.rcv_fail_time == last_resend + kSt);
  CHECK(loop.rcv.stats().segments_received == 9);
}

TEST_CASE("A lost final Ack is recovered by the sender's Response Timeout", "[multi_packet]") {
  const auto bytes = pattern(200 * kArea);
  MpLoop loop(response_sender(64), bytes, requester(64));
  loop.drop = [](const MpPacket& p, bool to_rcv, unsigned copy) {
    return !to_rcv && p.kind == MpKind::Ack && p.segment == 200 && copy == 0;
  };
  loop.rcv.start_request(0);
  loop.run(loop.delay_ps);

  uint64_t t200 = 0;  // first send of the Last packet
  for (const auto& l : loop.log)
    if (l.to_receiver && l.p.segment == 200) { t200 = l.t_ps; break; }
  // The sender resends the unacknowledged packets 193..200 one Response Timeout later.
  const auto data = loop.data_sent();
  REQUIRE(data.size() == 208);
  CHECK(segments_of({data.begin() + 200, data.end()}) == range(193, 200));
  uint64_t t_resend = 0;
  for (const auto& l : loop.log)
    if (l.to_receiver && l.p.segment == 193 && t_resend == 0 && l.t_ps > t200) t_resend = l.t_ps;
  CHECK(t_resend == t200 + kRt);
  // The receiver ignores the duplicates and Acks the Last packet again.
  CHECK(segments_of(loop.back(MpKind::Ack)) == std::vector<uint32_t>{64, 128, 192, 200, 200});
  CHECK(loop.rcv.stats().duplicates == 8);
  CHECK(loop.snd.stats().timeouts == 1);
  CHECK(loop.snd.stats().retries == 1);
  CHECK(loop.snd.stats().segments_resent == 8);
  CHECK(loop.completed);
  CHECK(loop.rcv.data() == bytes);
}

TEST_CASE("On a Response Timeout the sender may resend only its last packet", "[multi_packet]") {
  MpSenderConfig sc = response_sender(64);
  sc.timeout_resend = MpTimeoutResend::LastPacket;
  MpLoop loop(sc, pattern(100 * kArea), requester(64));
  loop.drop = [](const MpPacket& p, bool to_rcv, unsigned copy) {
    return !to_rcv && p.kind == MpKind::Ack && p.segment == 100 && copy == 0;
  };
  loop.rcv.start_request(0);
  loop.run(loop.delay_ps);
  CHECK(loop.snd.stats().segments_resent == 1);
  CHECK(loop.completed);
}

TEST_CASE("A lost mid-transfer Ack is recovered by the receiver's Resend", "[multi_packet]") {
  // Model: the Segment Timeout (8.192 us) expires before the sender's
  // Response Timeout (12.288 us); the Resend of 65 also acknowledges 1..64.
  const auto bytes = pattern(150 * kArea);
  MpLoop loop(response_sender(64), bytes, requester(64));
  loop.drop = [](const MpPacket& p, bool to_rcv, unsigned copy) {
    return !to_rcv && p.kind == MpKind::Ack && p.segment == 64 && copy == 0;
  };
  loop.rcv.start_request(0);
  loop.run(loop.delay_ps);
  const auto resends = loop.back(MpKind::Resend);
  REQUIRE(resends.size() == 1);
  CHECK(resends[0].segment == 65);
  CHECK(loop.snd.stats().segments_resent == 0);
  CHECK(loop.snd.stats().timeouts == 0);
  CHECK(loop.completed);
  CHECK(loop.rcv.data() == bytes);
}

TEST_CASE("Every Ack lost fails the sender after seven Response Timeouts", "[multi_packet]") {
  MpLoop loop(response_sender(64), pattern(10 * kArea), requester(64));
  loop.drop = [](const MpPacket& p, bool to_rcv, unsigned) { return !to_rcv && p.kind == MpKind::Ack; };
  loop.rcv.start_request(0);
  loop.run(loop.delay_ps);
  CHECK(loop.delivered);
  CHECK(loop.snd_failed);
  CHECK(loop.snd.stats().timeouts == 8);  // seven retries, the eighth timeout gives up
  CHECK(loop.snd.stats().retries == 7);
}

TEST_CASE("A Resend of acknowledged data is answered with Invalid Attribute", "[multi_packet]") {
  MpSender s(response_sender(4), pattern(10 * kArea));
  std::vector<MpAction> out;
  for (int i = 0; i < 4; ++i) s.send_next(0, out);
  MpPacket ack;
  ack.kind = MpKind::Ack;
  ack.fragment_flag = 0x20;
  ack.segment = 4;
  ack.window = 4;
  s.on_packet(ack, 10, out);
  out.clear();
  MpPacket resend;
  resend.kind = MpKind::Resend;
  resend.fragment_flag = 0x08;
  resend.segment = 3;
  s.on_packet(resend, 20, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].kind == MpAction::Kind::Send);
  CHECK(out[0].packet.kind == MpKind::Error);
  CHECK(out[0].packet.status == 0x001C);  // IBA Table 27-2: Invalid Attribute, code 7 in bits 4:2
  CHECK(out[0].packet.segment == 3);
  CHECK(s.stats().resends_rejected == 1);
  // The transfer goes on: the next packet is 5.
  out.clear();
  REQUIRE(s.send_next(30, out));
  CHECK(out[0].packet.segment == 5);
  // A Resend of a sent, unacknowledged segment restarts from it.
  for (int i = 0; i < 3; ++i) s.send_next(40, out);  // 6, 7, 8: window full
  CHECK_FALSE(s.can_send());
  out.clear();
  resend.segment = 6;
  s.on_packet(resend, 50, out);
  CHECK(out.empty());
  CHECK(s.can_send());
  CHECK(s.acknowledged() == 5);  // model: the receiver holds 1..5
  REQUIRE(s.send_next(60, out));
  CHECK(out[0].packet.segment == 6);
}

TEST_CASE("A requester without KeepAlives times out at the Response Timeout", "[multi_packet]") {
  MpReceiver r(requester());
  r.start_request(1000);
  CHECK(r.deadline_ps() == 1000 + kRt);
  std::vector<MpAction> out;
  r.on_timer(1000 + kRt - 1, out);
  CHECK(out.empty());
  // Each expiry retries the request: seven times, then it fails.
  for (unsigned i = 1; i <= 7; ++i) {
    out.clear();
    r.on_timer(1000 + i * kRt, out);
    REQUIRE(out.size() == 1);
    CHECK(out[0].kind == MpAction::Kind::RetryRequest);
    CHECK(r.deadline_ps() == 1000 + (i + 1) * kRt);
  }
  out.clear();
  r.on_timer(1000 + 8 * kRt, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].kind == MpAction::Kind::Fail);
  CHECK(r.state() == MpReceiver::State::Failed);
  CHECK(r.stats().retries == 7);
  CHECK(r.stats().timeouts == 8);
}

TEST_CASE("KeepAlives keep a requester waiting past the Response Timeout", "[multi_packet]") {
  MpReceiver r(requester());
  r.start_request(0);
  std::vector<MpAction> out;
  MpPacket ka;
  ka.kind = MpKind::KeepAlive;
  ka.fragment_flag = 0x80;
  // A KeepAlive every 8 us (< the 8.192 us Segment Timeout) up to 96 us.
  for (uint64_t t = 8'000'000; t <= 96'000'000; t += 8'000'000) {
    r.on_timer(t, out);  // nothing is due yet
    r.on_packet(ka, t, out);
    CHECK(r.deadline_ps() == t + kSt);  // re-initialized to the Segment Timeout
  }
  CHECK(out.empty());
  CHECK(r.stats().keepalives_received == 12);
  // Without further KeepAlives it times out one Segment Timeout after the last.
  r.on_timer(96'000'000 + kSt - 1, out);
  CHECK(out.empty());
  r.on_timer(96'000'000 + kSt, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].kind == MpAction::Kind::RetryRequest);
}

TEST_CASE("A response arriving after KeepAlives is received", "[multi_packet]") {
  // The SA sends KeepAlives every 8 us for 100 us, then the response.
  MpLoop loop(response_sender(64), pattern(70 * kArea), requester(64));
  loop.rcv.start_request(0);
  std::vector<MpAction> out;
  for (uint64_t t = 8'000'000; t <= 96'000'000; t += 8'000'000) {
    loop.rcv.on_timer(t, out);
    loop.rcv.on_packet(loop.snd.keepalive(), t, out);
  }
  CHECK(out.empty());
  loop.now = 100'000'000;
  loop.run(100'000'000);
  CHECK(loop.retry_times.empty());
  CHECK(loop.delivered);
  CHECK(loop.completed);
  CHECK(loop.snd.stats().keepalives_sent == 12);
}

TEST_CASE("Data that grows mid-transfer is delivered with its final length", "[multi_packet]") {
  const auto first = pattern(100 * kArea, 1);
  const auto tail = pattern(80 * kArea + 50, 2);
  MpLoop loop(response_sender(64), first, requester(64));
  loop.after_send = [&](MpLoop& l, const MpPacket& p) {
    if (p.kind == MpKind::Data && p.segment == 30 && l.snd.committed_bytes() == 30 * kArea)
      REQUIRE(l.snd.replace_tail(tail));
  };
  loop.rcv.start_request(0);
  loop.run(loop.delay_ps);
  std::vector<uint8_t> want(first.begin(), first.begin() + 30 * kArea);
  want.insert(want.end(), tail.begin(), tail.end());
  const auto data = loop.data_sent();
  // 30 areas sent + 80 full areas + 50 bytes: 111 segments.
  REQUIRE(segments_of(data) == range(1, 111));
  CHECK(data.front().payload_length == 100 * 192u);  // the total when segment 1 went
  CHECK(data.back().payload_length == 50u);          // valid bytes of the Last packet
  CHECK(data.back().fragment_flag == 0x04);
  REQUIRE(loop.delivered);
  CHECK(loop.rcv.announced_total() == 100 * 192u);
  CHECK(loop.rcv.data().size() == 110 * 192u + 50);
  CHECK(loop.rcv.data() == want);
  CHECK(loop.completed);
}

TEST_CASE("Data that shrinks mid-transfer is delivered with its final length", "[multi_packet]") {
  const auto first = pattern(100 * kArea, 1);
  const auto tail = pattern(5 * kArea + 7, 3);
  MpLoop loop(response_sender(64), first, requester(64));
  loop.after_send = [&](MpLoop& l, const MpPacket& p) {
    if (p.kind == MpKind::Data && p.segment == 30 && l.snd.committed_bytes() == 30 * kArea)
      REQUIRE(l.snd.replace_tail(tail));
  };
  loop.rcv.start_request(0);
  loop.run(loop.delay_ps);
  std::vector<uint8_t> want(first.begin(), first.begin() + 30 * kArea);
  want.insert(want.end(), tail.begin(), tail.end());
  const auto data = loop.data_sent();
  REQUIRE(segments_of(data) == range(1, 36));
  CHECK(data.back().payload_length == 7u);
  REQUIRE(loop.delivered);
  CHECK(loop.rcv.data() == want);
  CHECK(loop.completed);
}

TEST_CASE("Data that ends exactly at the sent segments gets an empty Last packet", "[multi_packet]") {
  MpSender s(response_sender(64), pattern(50 * kArea));
  std::vector<MpAction> out;
  for (int i = 0; i < 10; ++i) s.send_next(0, out);
  REQUIRE(s.replace_tail({}));
  CHECK(s.segments() == 11);
  out.clear();
  REQUIRE(s.send_next(1, out));
  CHECK(out[0].packet.segment == 11);
  CHECK(out[0].packet.fragment_flag == 0x04);
  CHECK(out[0].packet.payload_length == 0u);
  CHECK_FALSE(s.replace_tail({1, 2, 3}));  // the Last packet has gone
}

TEST_CASE("A series of one packet goes as a single packet with segment 0", "[multi_packet]") {
  const auto bytes = pattern(100);
  MpLoop loop(response_sender(64), bytes, requester(64));
  loop.rcv.start_request(0);
  loop.run(loop.delay_ps);
  const auto data = loop.data_sent();
  REQUIRE(data.size() == 1);
  CHECK(data[0].segment == 0);        // Table 33-10: single packet -> segment 0
  CHECK(data[0].fragment_flag == 0);  // Fragment Flag 0
  CHECK(data[0].payload_length == 100u);
  CHECK(loop.back(MpKind::Ack).empty());
  CHECK(loop.completed);
  REQUIRE(loop.delivered);
  CHECK(loop.rcv.data() == bytes);
}

TEST_CASE("An empty series goes as a single packet with no data", "[multi_packet]") {
  MpLoop loop(response_sender(64), {}, requester(64));
  loop.rcv.start_request(0);
  loop.run(loop.delay_ps);
  REQUIRE(loop.data_sent().size() == 1);
  CHECK(loop.data_sent()[0].payload_length == 0u);
  CHECK(loop.delivered);
  CHECK(loop.rcv.data().empty());
}

TEST_CASE("Duplicates are ignored unless they end an Acked window", "[multi_packet]") {
  MpReceiver r(requester(2, 2));
  r.start_request(0);
  std::vector<MpAction> out;
  auto seg = [](uint32_t k) {
    MpPacket p;
    p.segment = k;
    p.fragment_flag = k == 1 ? 0x01 : 0;
    p.payload_length = k == 1 ? 5 * 192 : 0;
    return p;
  };
  r.on_packet(seg(1), 10, out);
  CHECK(r.deadline_ps() == 10 + kSt);  // Figure 33-2 step 5: the Segment Timer starts
  r.on_packet(seg(1), 20, out);  // duplicate, not a window end
  CHECK(out.empty());
  r.on_packet(seg(2), 30, out);  // window end: Ack 2
  REQUIRE(out.size() == 1);
  CHECK(out[0].packet.kind == MpKind::Ack);
  out.clear();
  r.on_packet(seg(2), 40, out);  // the Ack was lost: Ack again
  REQUIRE(out.size() == 1);
  CHECK(out[0].packet.kind == MpKind::Ack);
  CHECK(out[0].packet.segment == 2);
  CHECK(r.stats().duplicates == 2);
  CHECK(r.expected() == 3);
  // The Last packet stops the Segment Timer: no responses are outstanding.
  MpPacket last = seg(3);
  last.fragment_flag = 0x04;
  last.payload_length = 10;
  out.clear();
  r.on_packet(last, 50, out);
  CHECK(r.deadline_ps() == kMpNever);
  REQUIRE(out.size() == 2);
  CHECK(out[0].packet.kind == MpKind::Ack);
  CHECK(out[0].packet.segment == 3);
  CHECK(out[1].kind == MpAction::Kind::Deliver);
  CHECK(r.data().size() == 2 * 192u + 10);
}

TEST_CASE("SA MAD fields map to protocol packets and back", "[multi_packet]") {
  hcasim::ib::SaMad m;
  m.fragment_flag = 0x08;
  m.segment = 7;
  CHECK(from_mad(m).kind == MpKind::Resend);
  m.fragment_flag = 0x20;
  CHECK(from_mad(m).kind == MpKind::Ack);
  m.fragment_flag = 0x80;
  CHECK(from_mad(m).kind == MpKind::KeepAlive);
  m.fragment_flag = 0x05;
  CHECK(from_mad(m).kind == MpKind::Data);
  m.hdr.status = 0x001C;
  CHECK(from_mad(m).kind == MpKind::Error);
  MpPacket p;
  p.segment = 3;
  p.payload_length = 99;
  p.fragment_flag = 0x04;
  p.window = 12;
  p.data[5] = 0xAB;
  hcasim::ib::SaMad n;
  to_mad(p, n);
  CHECK(n.segment == 3);
  CHECK(n.payload_length == 99u);
  CHECK(n.fragment_flag == 0x04);
  CHECK(n.window == 12);
  CHECK(n.data[5] == 0xAB);
  CHECK(n.hdr.status == 0);
}
