#pragma once
// The QP scheduler: which QP with transmit work a free transmit unit serves
// next (transport.scheduler; docs/hca-processing.md). Plain C++: it knows
// nothing of SystemC or of what a QP holds.
//
// Rules:
// - A QP is queued at most once per class. The engine pushes a QP when it has
//   work and may take a turn, and pops one when a unit is free; a popped QP
//   that cannot go after all (no work left, destroyed) is the engine's to
//   skip, and it is pushed again when it can go.
// - round_robin: one FIFO. A QP gets one packet per turn and goes to the tail.
// - weighted_round_robin: a QP's turn lasts `weight` packets (its SL's weight
//   or its own, transport.weights): while its turn lasts it goes back ahead of
//   the queue, then to the tail with a fresh turn. Saturating QPs served by busy
//   units get packet (and, with equal packets, byte) shares in the ratio of
//   their weights. A QP that runs out of work ends its turn.
// - strict_priority: QPs with a response to send (an ACK or NAK, a READ
//   response, an atomic ACK) go ahead of QPs with only requests, across QPs;
//   round robin within each class. A QP queued for requests that gets a
//   response to send is queued once more, among the responses.

#include <cstdint>

#include "models/ib/ring_fifo.hpp"

namespace hcasim::transport {

enum class SchedulerKind : uint8_t { RoundRobin, WeightedRoundRobin, StrictPriority };

// The scheduler's state kept in each QP's record (member `sched` of T).
struct SchedSlot {
  bool queued[2] = {false, false};  // in the response / request queue
  uint32_t turn_left = 0;           // weighted_round_robin: packets left in its turn
};

template <class T>  // T has a public member `SchedSlot sched`
class QpScheduler {
 public:
  explicit QpScheduler(SchedulerKind kind = SchedulerKind::RoundRobin) : kind_(kind) {}

  bool empty() const {
    return queue_[0].empty() && queue_[1].empty() && resume_[0].empty() && resume_[1].empty();
  }

  // q has work; response: its next packet is a response; weight: packets per
  // turn (weighted_round_robin, at least 1).
  void push(T* q, bool response, uint32_t weight) {
    const unsigned c = kind_ == SchedulerKind::StrictPriority && response ? 0 : 1;
    SchedSlot& s = q->sched;
    if (s.queued[c]) return;
    s.queued[c] = true;
    if (kind_ == SchedulerKind::WeightedRoundRobin) {
      if (s.turn_left > 0) {
        resume_[c].push_back(q);
        return;
      }
      s.turn_left = weight;
    }
    queue_[c].push_back(q);
  }

  // The QP whose turn it is (null when none, or for a place forgotten).
  // Check empty() first.
  T* pop() {
    const unsigned c = resume_[0].empty() && queue_[0].empty() ? 1 : 0;
    T* q;
    if (!resume_[c].empty()) {
      q = resume_[c].front();
      resume_[c].pop_front();
    } else {
      q = queue_[c].front();
      queue_[c].pop_front();
    }
    if (q != nullptr) q->sched.queued[c] = false;
    return q;
  }

  // A packet of q was built (its turn goes on); or q had nothing to send (its turn ends).
  static void served(T& q) {
    if (q.sched.turn_left > 0) --q.sched.turn_left;
  }
  static void idle(T& q) { q.sched.turn_left = 0; }

  // q is going away: its places are left empty (pop returns null for them).
  void forget(const T* q) {
    const auto clear = [q](auto& queue) {
      for (std::size_t i = 0; i < queue.size(); ++i)
        if (queue[i] == q) queue[i] = nullptr;
    };
    for (unsigned c = 0; c < 2; ++c) {
      clear(queue_[c]);
      clear(resume_[c]);
    }
  }

 private:
  SchedulerKind kind_;
  // [0] responses (strict_priority only), [1] everything else; resume_: QPs
  // in the middle of a weighted turn, served before the others of their class.
  ib::RingFifo<T*, 8> queue_[2];
  ib::RingFifo<T*, 2> resume_[2];
};

}  // namespace hcasim::transport
