// The QP scheduler's order (models/transport/qp_scheduler.hpp) against
// hand-written sequences: round robin, weighted turns, strict priority for
// responses, and forgotten places.
#include <catch2/catch.hpp>

#include <string>

#include "models/transport/qp_scheduler.hpp"

using namespace hcasim::transport;

namespace {

struct Q {
  char name;
  SchedSlot sched;
};

// Pops n turns; after each, the QP (still with work) is pushed again as the
// engine does when its packet is built.
std::string turns(QpScheduler<Q>& s, int n, uint32_t (*weight)(const Q&), bool (*response)(const Q&)) {
  std::string order;
  for (int i = 0; i < n && !s.empty(); ++i) {
    Q* q = s.pop();
    if (q == nullptr) continue;
    order += q->name;
    QpScheduler<Q>::served(*q);
    s.push(q, response(*q), weight(*q));
  }
  return order;
}

uint32_t one(const Q&) { return 1; }
bool never(const Q&) { return false; }

}  // namespace

TEST_CASE("round robin: one packet per turn, in the order the QPs came") {
  QpScheduler<Q> s(SchedulerKind::RoundRobin);
  Q a{'a', {}}, b{'b', {}}, c{'c', {}};
  for (Q* q : {&a, &b, &c}) s.push(q, false, 1);
  s.push(&a, false, 1);  // queued already: no second place
  CHECK(turns(s, 7, one, never) == "abcabca");
}

TEST_CASE("weighted round robin: a turn of weight packets, then the tail") {
  QpScheduler<Q> s(SchedulerKind::WeightedRoundRobin);
  Q a{'a', {}}, b{'b', {}}, c{'c', {}};
  for (Q* q : {&a, &b, &c}) s.push(q, false, q->name == 'a' ? 3 : q->name == 'b' ? 1 : 2);
  const auto weight = [](const Q& q) -> uint32_t { return q.name == 'a' ? 3 : q.name == 'b' ? 1 : 2; };
  CHECK(turns(s, 12, weight, never) == "aaabccaaabcc");
}

TEST_CASE("weighted round robin: a QP that runs out of work ends its turn") {
  QpScheduler<Q> s(SchedulerKind::WeightedRoundRobin);
  Q a{'a', {}}, b{'b', {}};
  s.push(&a, false, 3);
  s.push(&b, false, 3);
  Q* q = s.pop();
  REQUIRE(q == &a);
  QpScheduler<Q>::served(a);  // one packet, then nothing more to send
  QpScheduler<Q>::idle(a);
  s.push(&a, false, 3);       // new work later: a fresh turn at the tail
  CHECK(s.pop() == &b);
  CHECK(s.pop() == &a);
  CHECK(a.sched.turn_left == 3);
}

TEST_CASE("strict priority: QPs with responses go first, round robin within each class") {
  QpScheduler<Q> s(SchedulerKind::StrictPriority);
  Q r1{'R', {}}, r2{'S', {}}, q1{'a', {}}, q2{'b', {}};
  s.push(&q1, false, 1);
  s.push(&r1, true, 1);
  s.push(&q2, false, 1);
  s.push(&r2, true, 1);
  const auto is_response = [](const Q& q) { return q.name == 'R' || q.name == 'S'; };
  CHECK(turns(s, 6, one, is_response) == "RSRSRS");
  // A QP queued for its requests that gets a response to send is queued among the responses too.
  QpScheduler<Q> t(SchedulerKind::StrictPriority);
  Q x{'x', {}}, y{'y', {}};
  t.push(&x, false, 1);
  t.push(&y, false, 1);
  t.push(&y, true, 1);
  CHECK(t.pop() == &y);
  CHECK(t.pop() == &x);
  CHECK(t.pop() == &y);
  CHECK(t.empty());
}

TEST_CASE("a forgotten QP's places come back empty") {
  QpScheduler<Q> s(SchedulerKind::RoundRobin);
  Q a{'a', {}}, b{'b', {}};
  s.push(&a, false, 1);
  s.push(&b, false, 1);
  s.forget(&a);
  CHECK(s.pop() == nullptr);
  CHECK(s.pop() == &b);
  CHECK(s.empty());
}
