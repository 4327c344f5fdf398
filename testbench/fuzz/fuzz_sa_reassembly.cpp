// libFuzzer harness: the SA multi-packet receiver (models/mgmt/multi_packet.hpp,
// MpReceiver) reassembling a series from segments in any order, with
// duplicates, gaps, KeepAlives and timer expiries.
//
// Input: byte 0 = mode (bit 0: the requester of a response, started with
// start_request, else the SA receiving a Config request from Idle; bit 1:
// forged packets with any field values instead of the true segments), bytes
// 1-2 = the series' total T (modulo 16 x 192 + 1), then one operation per
// byte (true segments) or per 6 bytes (forged packets). The series' data is a
// fixed function of T; its segments are built as MpSender's rules say
// (segment 0 for a single packet; First on 1, Last on N; Payload Length T on
// 1, the valid bytes on N).
// Asserts:
// - never more than one Deliver, and none after Done or Failed;
// - true segments: what is reassembled is at every step a prefix of the data;
//   a Deliver gives exactly the data; every Ack or Resend names a segment of
//   the series; and, unless the receiver has failed (resends or retries used
//   up), sending the missing segments in order afterwards completes it with
//   exactly the data (a gap is always recoverable);
// - forged packets: the reassembled bytes never exceed 192 per accepted
//   segment (no out-of-bounds read of a data area, whatever Payload Length says).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/mgmt/multi_packet.hpp"
#include "testbench/fuzz/fuzz_check.hpp"

using namespace hcasim;
using namespace hcasim::mgmt;

namespace {

constexpr uint32_t kSeg = ib::kSaDataBytes;
constexpr uint32_t kMaxSegments = 16;

struct Series {
  std::vector<uint8_t> data;
  uint32_t n = 1;  // segments; 1 = a single packet (segment 0)

  explicit Series(uint32_t total) : data(total) {
    for (uint32_t i = 0; i < total; ++i) data[i] = static_cast<uint8_t>(i * 131u + total);
    n = total <= kSeg ? 1 : (total + kSeg - 1) / kSeg;
  }
  // Segment k (1..n) as the sender sends it.
  MpPacket segment(uint32_t k) const {
    MpPacket p;
    const auto total = static_cast<uint32_t>(data.size());
    const uint32_t from = n == 1 ? 0 : (k - 1) * kSeg;
    const uint32_t valid = std::min(kSeg, total - from);
    std::copy(data.begin() + from, data.begin() + from + valid, p.data.begin());
    if (n == 1) {
      p.payload_length = total;
      return p;  // segment 0, no flags
    }
    p.segment = k;
    if (k == 1) {
      p.fragment_flag |= ib::kFragFirst;
      p.payload_length = total;
    }
    if (k == n) {
      p.fragment_flag |= ib::kFragLast;
      p.payload_length = valid;
    }
    return p;
  }
};

struct Run {
  MpReceiver rx;
  uint64_t now = 0;
  unsigned delivers = 0;
  std::vector<MpAction> out;

  explicit Run(const MpReceiverConfig& cfg) : rx(cfg) {}
  // Checks the actions of one call.
  void take(MpReceiver::State before, uint32_t n, bool honest) {
    for (const MpAction& a : out) {
      if (a.kind == MpAction::Kind::Deliver) {
        FUZZ_CHECK(before != MpReceiver::State::Done && before != MpReceiver::State::Failed,
                   "no Deliver after Done or Failed");
        ++delivers;
      }
      if (honest && a.kind == MpAction::Kind::Send) {
        FUZZ_CHECK(a.packet.segment <= n + 1, "an Ack or Resend names a segment of the series");
      }
    }
    FUZZ_CHECK(delivers <= 1, "at most one Deliver");
    out.clear();
  }
  void packet(const MpPacket& p, uint32_t n, bool honest) {
    const auto before = rx.state();
    rx.on_packet(p, now, out);
    take(before, n, honest);
  }
  void timer(uint32_t n, bool honest) {
    if (rx.deadline_ps() == kMpNever) return;
    now = rx.deadline_ps();
    const auto before = rx.state();
    rx.on_timer(now, out);
    take(before, n, honest);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* in, size_t size) {
  if (size < 3) return 0;
  const bool requester = in[0] & 1u;
  const bool honest = !(in[0] & 2u);
  const uint32_t total = (in[1] | in[2] << 8) % (kMaxSegments * kSeg + 1);
  const Series series(total);
  const uint32_t n = series.n;

  MpReceiverConfig cfg;
  cfg.role = requester ? MpRole::Response : MpRole::ConfigRequest;
  Run run(cfg);
  if (requester) run.rx.start_request(0);

  size_t i = 3;
  while (i < size) {
    run.now += 1000;
    if (honest) {
      const uint8_t op = in[i++];
      if (op >= 0xF0) {
        if (op & 1u) run.timer(n, true);
        else run.packet(MpPacket{MpKind::KeepAlive, 0, 0, ib::kFragKeepAlive}, n, true);
      } else {
        run.packet(series.segment(op % n + 1), n, true);
      }
      const std::vector<uint8_t>& got = run.rx.data();
      FUZZ_CHECK(got.size() <= total && std::equal(got.begin(), got.end(), series.data.begin()),
                 "true segments reassemble a prefix of the data");
      if (run.delivers == 1) FUZZ_CHECK(got == series.data, "a Deliver gives exactly the data");
    } else {
      if (size - i < 6) break;
      MpPacket p = series.segment(1);
      p.kind = static_cast<MpKind>(in[i] % 5);
      p.segment = in[i + 1] % (kMaxSegments + 2);
      p.payload_length = static_cast<uint32_t>(in[i + 2] | in[i + 3] << 8);
      p.fragment_flag = in[i + 4];
      p.window = in[i + 5];
      i += 6;
      if (p.kind == MpKind::Error) p.status = 1;
      run.packet(p, n, false);
      if (p.segment % 3 == 0) run.timer(n, false);
      FUZZ_CHECK(run.rx.data().size() <= size_t{run.rx.expected()} * kSeg,
                 "at most 192 bytes per accepted segment");
    }
  }
  if (honest && run.rx.state() != MpReceiver::State::Failed && run.rx.state() != MpReceiver::State::Done) {
    const uint32_t from = n == 1 ? 1 : run.rx.expected();
    for (uint32_t k = from; k <= n; ++k) run.packet(series.segment(k), n, true);
    FUZZ_CHECK(run.rx.state() == MpReceiver::State::Done && run.delivers == 1,
               "the missing segments in order complete the series");
    FUZZ_CHECK(run.rx.data() == series.data, "the completed series is exactly the data");
  }
  return 0;
}
