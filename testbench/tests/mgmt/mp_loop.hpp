#pragma once
// Test rig: an MpSender and an MpReceiver wired back to back through a wire
// with a fixed one-way delay (so packets arrive in the order they were sent),
// a fixed pacing between the sender's packets, and a drop filter. A small
// event loop: arrivals first, then timers, then the sender's next packet.

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "models/mgmt/multi_packet.hpp"

namespace hcasim::mgmt::test {

struct LoggedPacket {
  uint64_t t_ps;        // when it was sent
  bool to_receiver;     // sender -> receiver (data) or back (Ack, Resend, error)
  bool dropped;         // lost on the wire
  MpPacket p;
};

struct MpLoop {
  MpSender snd;
  MpReceiver rcv;
  uint64_t delay_ps = 1'000'000;   // 1 us one way
  uint64_t pacing_ps = 100'000;    // 0.1 us between the sender's packets
  // True to lose the packet. `copy` counts the packets with the same kind
  // and segment in the same direction sent before this one.
  std::function<bool(const MpPacket&, bool to_receiver, unsigned copy)> drop;
  // Called after each packet the sender sends.
  std::function<void(MpLoop&, const MpPacket&)> after_send;

  std::vector<LoggedPacket> log;
  std::vector<uint64_t> retry_times;
  bool delivered = false, completed = false, snd_failed = false, rcv_failed = false;
  uint64_t deliver_time = 0, rcv_fail_time = 0, complete_time = 0;
  uint64_t now = 0;

  MpLoop(const MpSenderConfig& sc, std::vector<uint8_t> data, const MpReceiverConfig& rc)
      : snd(sc, std::move(data)), rcv(rc) {}

  // Data packets that reached the receiver, in order.
  std::vector<MpPacket> data_sent(bool include_dropped = true) const {
    std::vector<MpPacket> v;
    for (const auto& l : log)
      if (l.to_receiver && l.p.kind == MpKind::Data && (include_dropped || !l.dropped)) v.push_back(l.p);
    return v;
  }
  std::vector<MpPacket> back(MpKind k) const {
    std::vector<MpPacket> v;
    for (const auto& l : log)
      if (!l.to_receiver && l.p.kind == k) v.push_back(l.p);
    return v;
  }

  // Runs from `start_ps` (the sender's first packet may go then) until both
  // sides have finished and the wire is empty, or until `limit_ps`.
  void run(uint64_t start_ps, uint64_t limit_ps = 10'000'000'000'000ull) {
    next_send_ = start_ps;
    for (;;) {
      uint64_t t = kMpNever;
      if (!wire_.empty()) t = std::min(t, wire_.front().arrival);
      t = std::min(t, snd.deadline_ps());
      t = std::min(t, rcv.deadline_ps());
      if (snd.can_send()) t = std::min(t, std::max(now, next_send_));
      if (t == kMpNever || t > limit_ps) return;
      now = t;
      std::vector<MpAction> out;
      if (!wire_.empty() && wire_.front().arrival == now) {
        Flight f = wire_.front();
        wire_.pop_front();
        if (f.to_receiver) {
          rcv.on_packet(f.p, now, out);
          handle_rcv(out);
        } else {
          snd.on_packet(f.p, now, out);
          handle_snd(out);
        }
        continue;
      }
      if (rcv.deadline_ps() == now) {
        rcv.on_timer(now, out);
        handle_rcv(out);
        continue;
      }
      if (snd.deadline_ps() == now) {
        snd.on_timer(now, out);
        handle_snd(out);
        continue;
      }
      snd.send_next(now, out);
      next_send_ = now + pacing_ps;
      handle_snd(out);
    }
  }

 private:
  struct Flight {
    uint64_t arrival;
    bool to_receiver;
    MpPacket p;
  };

  void put(const MpPacket& p, bool to_receiver) {
    unsigned copy = 0;
    for (const auto& l : log)
      if (l.to_receiver == to_receiver && l.p.kind == p.kind && l.p.segment == p.segment) ++copy;
    const bool lost = drop && drop(p, to_receiver, copy);
    log.push_back({now, to_receiver, lost, p});
    if (!lost) wire_.push_back({now + delay_ps, to_receiver, p});
  }
  void handle_snd(const std::vector<MpAction>& out) {
    for (const auto& a : out) {
      if (a.kind == MpAction::Kind::Send) {
        put(a.packet, true);
        if (after_send) after_send(*this, a.packet);
      } else if (a.kind == MpAction::Kind::Complete) {
        completed = true;
        complete_time = now;
      } else if (a.kind == MpAction::Kind::Fail) {
        snd_failed = true;
      }
    }
  }
  void handle_rcv(const std::vector<MpAction>& out) {
    for (const auto& a : out) {
      if (a.kind == MpAction::Kind::Send) put(a.packet, false);
      else if (a.kind == MpAction::Kind::Deliver) { delivered = true; deliver_time = now; }
      else if (a.kind == MpAction::Kind::RetryRequest) retry_times.push_back(now);
      else if (a.kind == MpAction::Kind::Fail) { rcv_failed = true; rcv_fail_time = now; }
    }
  }

  std::deque<Flight> wire_;
  uint64_t next_send_ = 0;
};

inline std::vector<uint8_t> pattern(size_t n, unsigned seed = 1) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>((i * 7 + seed * 13 + (i >> 8)) & 0xFF);
  return v;
}

}  // namespace hcasim::mgmt::test
