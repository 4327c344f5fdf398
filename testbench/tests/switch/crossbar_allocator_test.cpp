// The crossbar allocator's rules (crossbar_allocator.hpp), driven directly.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <map>
#include <random>
#include <stdexcept>
#include <vector>

#include "models/link/port_config.hpp"
#include "models/switch/crossbar_allocator.hpp"

using namespace hcasim;
using namespace hcasim::sw;
using Grant = CrossbarAllocator::Grant;

namespace {

const auto always = [](unsigned, unsigned, unsigned) { return true; };

// Outputs with the port's default arbitration: VL0..VL7 at weight 64 each.
std::vector<link::VlArbConfig> outputs(unsigned n, const link::VlArbConfig& c = link::resolved_vlarb(link::PortConfig{})) {
  return std::vector<link::VlArbConfig>(n, c);
}

constexpr uint32_t kBig = 4130;   // wire bytes of a 4 KiB UD packet: 65 credit blocks
constexpr uint32_t kSmall = 64;   // one credit block

// A request whose output VL is its input VL, for a 4 KiB packet.
void req(CrossbarAllocator& a, unsigned in, unsigned vl, unsigned out) { a.request(in, vl, out, vl, kBig); }

// Runs transfers one after another through `a`: each ends before the next
// decision, and the granted requester asks again at once (always requesting).
// Returns grants per (input, vl); `current` (in flight) ends as the next one.
template <class Ok>
std::map<std::pair<unsigned, unsigned>, int> serve(CrossbarAllocator& a, Grant& current, int n, const Ok& ok,
                                                   std::vector<Grant>* order = nullptr) {
  std::map<std::pair<unsigned, unsigned>, int> got;
  for (int k = 0; k < n; ++k) {
    ++got[{current.input, current.vl}];
    if (order) order->push_back(current);
    const auto out_vl = current.vl;
    a.request(current.input, current.vl, current.output, out_vl, kBig);
    const auto gs = a.after_release(current.input, current.output, ok);
    REQUIRE(gs.count == 1);
    current = gs.list[0];
  }
  return got;
}

}  // namespace

TEST_CASE("8 always-requesting inputs to one output: each gets exactly 1/8 of 8k grants") {
  CrossbarAllocator a(8, outputs(1));
  std::optional<Grant> first;
  for (unsigned i = 0; i < 8; ++i) {
    req(a, i, 0, 0);
    if (auto g = a.after_request(i, 0, always)) first = g;
  }
  REQUIRE(first);
  REQUIRE(first->input == 0);
  Grant cur = *first;
  const auto got = serve(a, cur, 8000, always);
  for (unsigned i = 0; i < 8; ++i) REQUIRE(got.at({i, 0}) == 1000);
}

TEST_CASE("grants rotate in input order - the pointer moves past the granted requester") {
  CrossbarAllocator a(4, outputs(1));
  for (unsigned i = 0; i < 4; ++i) req(a, i, 2, 0);
  auto g = a.after_request(0, 2, always);
  REQUIRE(g);
  for (unsigned i = 1; i < 4; ++i) REQUIRE_FALSE(a.after_request(i, 2, always));  // the output is busy
  std::vector<Grant> order;
  Grant cur = *g;
  serve(a, cur, 8, always, &order);
  std::vector<unsigned> inputs;
  for (const Grant& x : order) inputs.push_back(x.input);
  REQUIRE(inputs == std::vector<unsigned>{0, 1, 2, 3, 0, 1, 2, 3});
}

TEST_CASE("a requester without room is skipped and served within one round once it has room") {
  CrossbarAllocator a(8, outputs(1));
  for (unsigned i = 0; i < 8; ++i) req(a, i, 0, 0);
  bool three_ok = false;
  const auto ok = [&](unsigned in, unsigned, unsigned) { return in != 3 || three_ok; };
  auto g = a.after_request(0, 0, ok);
  REQUIRE(g);
  Grant cur = *g;
  std::vector<Grant> order;
  serve(a, cur, 20, ok, &order);
  for (const Grant& x : order) REQUIRE(x.input != 3);
  three_ok = true;
  // Input 3 is at most 7 grants away, whatever the pointer.
  std::vector<Grant> more;
  serve(a, cur, 800 + 8, ok, &more);
  int waited = 0;
  while (more[static_cast<std::size_t>(waited)].input != 3) ++waited;
  REQUIRE(waited <= 7);
  // And from then on it keeps its 1/8.
  std::map<unsigned, int> share;
  for (std::size_t k = static_cast<std::size_t>(waited); k < static_cast<std::size_t>(waited) + 800; ++k)
    ++share[more[k].input];
  REQUIRE(share[3] == 100);
}

TEST_CASE("a full output VL does not block the input's other VLs (VL isolation)") {
  CrossbarAllocator a(1, outputs(2));
  req(a, 0, 0, 0);  // VL0 -> output 0, which has no room
  req(a, 0, 1, 1);  // VL1 -> output 1
  const auto room = [](unsigned, unsigned, unsigned out) { return out != 0; };
  REQUIRE_FALSE(a.after_request(0, 0, room));
  auto g = a.after_request(0, 1, room);
  REQUIRE(g);
  REQUIRE(g->vl == 1);
  REQUIRE(g->output == 1);
  REQUIRE(a.input_busy(0));
  REQUIRE(a.output_busy(1));
  REQUIRE_FALSE(a.output_busy(0));
  REQUIRE(a.requesting(0, 0));
  REQUIRE_FALSE(a.requesting(0, 1));
}

TEST_CASE("an input's VLs take turns even when one output always wants it back") {
  // Input 0: VL0 -> output 0 (its only requester) and VL1 -> output 1.
  CrossbarAllocator a(1, outputs(2));
  req(a, 0, 0, 0);
  req(a, 0, 1, 1);
  auto g = a.after_request(0, 0, always);
  REQUIRE(g);
  Grant cur = *g;
  const auto got = serve(a, cur, 100, always);
  REQUIRE(got.at({0, 0}) == 50);
  REQUIRE(got.at({0, 1}) == 50);
}

TEST_CASE("a transfer end frees both sides: the output takes another input and the input another output") {
  CrossbarAllocator a(2, outputs(2));
  req(a, 0, 0, 0);
  auto first = a.after_request(0, 0, always);
  REQUIRE(first);
  req(a, 1, 0, 0);  // waits for output 0
  req(a, 0, 1, 1);  // waits for input 0
  REQUIRE_FALSE(a.after_request(1, 0, always));
  REQUIRE_FALSE(a.after_request(0, 1, always));
  const auto gs = a.after_release(0, 0, always);
  REQUIRE(gs.count == 2);
  REQUIRE(gs.list[0].input == 1);
  REQUIRE(gs.list[0].output == 0);
  REQUIRE(gs.list[1].input == 0);
  REQUIRE(gs.list[1].output == 1);
}

TEST_CASE("room freed at an output grants its next eligible requester") {
  CrossbarAllocator a(3, outputs(1));
  bool room = false;
  const auto ok = [&](unsigned, unsigned, unsigned) { return room; };
  for (unsigned i = 0; i < 3; ++i) {
    req(a, i, 4, 0);
    REQUIRE_FALSE(a.after_request(i, 4, ok));
  }
  REQUIRE(a.requests_for(0) == 3);
  room = true;
  auto g = a.after_room(0, ok);
  REQUIRE(g);
  REQUIRE(g->input == 0);
  REQUIRE(g->vl == 4);
  REQUIRE(a.requests_for(0) == 2);
  REQUIRE_FALSE(a.after_room(0, ok));  // busy until the transfer ends
}

TEST_CASE("64 inputs on 16 input VLs into one output VL: requester ids across many mask words rotate fairly") {
  CrossbarAllocator a(64, outputs(1));
  for (unsigned i = 0; i < 64; ++i) a.request(i, i % 16, 0, 0, kBig);
  std::optional<Grant> g;
  for (unsigned i = 0; i < 64 && !g; ++i) g = a.after_request(i, i % 16, always);
  REQUIRE(g);
  std::map<unsigned, int> got;
  Grant cur = *g;
  for (int n = 0; n < 64 * 10; ++n) {
    ++got[cur.input];
    a.request(cur.input, cur.vl, 0, 0, kBig);
    const auto gs = a.after_release(cur.input, 0, always);
    REQUIRE(gs.count == 1);
    cur = gs.list[0];
  }
  REQUIRE(got.size() == 64);
  for (const auto& [in, n] : got) REQUIRE(n == 10);
}

namespace {

// Always-requesting inputs into output 0, input i on output VL vls[i], with
// room everywhere; returns grants per input over `n` grants.
std::map<unsigned, int> run_output(CrossbarAllocator& a, const std::vector<unsigned>& vls, uint32_t bytes, int n) {
  std::optional<Grant> current;
  for (unsigned i = 0; i < vls.size(); ++i) {
    a.request(i, 0, 0, vls[i], bytes);
    if (auto g = a.after_request(i, 0, always)) current = g;
  }
  std::map<unsigned, int> got;
  for (int k = 0; k < n && current; ++k) {
    ++got[current->input];
    a.request(current->input, 0, 0, vls[current->input], bytes);
    const auto gs = a.after_release(current->input, 0, always);
    current = gs.count ? std::optional<Grant>(gs.list[0]) : std::nullopt;
  }
  return got;
}

}  // namespace

TEST_CASE("the output's VL arbitration weights decide between output VLs - round robin within each") {
  // VL0 weight 1, VL1 weight 3, one-block packets: VL1 gets 3/4 of the grants.
  link::VlArbConfig c;
  c.low = {{0, 1}, {1, 3}};
  CrossbarAllocator a(5, outputs(1, c));
  // Inputs 0-3 on output VL0, input 4 on output VL1.
  const auto got = run_output(a, {0, 0, 0, 0, 1}, kSmall, 8000);
  REQUIRE(got.at(4) == 6000);
  for (unsigned i = 0; i < 4; ++i) REQUIRE(got.at(i) == 500);
}

TEST_CASE("equal weights and 4 KiB packets: two output VLs alternate whatever their requester counts") {
  CrossbarAllocator a(5, outputs(1));
  const auto got = run_output(a, {0, 0, 0, 0, 1}, kBig, 8000);
  REQUIRE(got.at(4) == 4000);
  for (unsigned i = 0; i < 4; ++i) REQUIRE(got.at(i) == 1000);
}

TEST_CASE("VL15 goes first - a data VL missing from the output's tables is never granted") {
  link::VlArbConfig c;
  c.low = {{0, 64}};  // VL1 has no entry
  CrossbarAllocator a(4, outputs(1, c));
  a.request(3, 0, 0, 0, kBig);
  REQUIRE(a.after_request(3, 0, always));  // keeps the output busy while the others ask
  a.request(0, 0, 0, 0, kBig);
  a.request(1, 1, 0, 1, kBig);
  a.request(2, 15, 0, 15, kSmall);
  for (unsigned i = 0; i < 3; ++i) REQUIRE_FALSE(a.after_request(i, i == 2 ? 15 : i, always));
  auto gs = a.after_release(3, 0, always);
  REQUIRE(gs.count == 1);
  REQUIRE(gs.list[0].input == 2);
  gs = a.after_release(2, 0, always);
  REQUIRE(gs.count == 1);
  REQUIRE(gs.list[0].input == 0);
  gs = a.after_release(0, 0, always);
  REQUIRE(gs.count == 0);  // only VL1 is left
  REQUIRE_FALSE(a.after_room(0, always));
}

TEST_CASE("an input's two VLs into one output follow the output's weights, not the input's turns") {
  link::VlArbConfig c;
  c.low = {{0, 1}, {1, 3}};
  CrossbarAllocator a(1, outputs(1, c));
  a.request(0, 0, 0, 0, kSmall);
  a.request(0, 1, 0, 1, kSmall);
  auto g = a.after_request(0, 0, always);
  REQUIRE(g);
  std::map<unsigned, int> by_vl;
  for (int n = 0; n < 400; ++n) {
    ++by_vl[g->vl];
    a.request(0, g->vl, 0, g->vl, kSmall);
    const auto gs = a.after_release(0, 0, always);
    REQUIRE(gs.count == 1);
    g = gs.list[0];
  }
  // The first grant came before the arbiter had a choice; from then on 1:3.
  REQUIRE(by_vl[0] + by_vl[1] == 400);
  REQUIRE(std::abs(by_vl[1] - 300) <= 1);
}

TEST_CASE("an output passing over a busy input owes it a turn and waits for it the next time") {
  // Inputs 0 and 1 request output 0; input 0 is busy on output 1.
  CrossbarAllocator a(2, outputs(2));
  a.request(0, 1, 1, 1, kBig);
  REQUIRE(a.after_request(0, 1, always));  // input 0 -> output 1
  a.request(1, 0, 0, 0, kBig);
  REQUIRE(a.after_request(1, 0, always));  // input 1 -> output 0
  a.request(0, 0, 0, 0, kBig);               // input 0 wants output 0 too
  a.request(1, 0, 0, 0, kBig);
  // Output 0 frees while input 0 is busy: it serves input 1 again and owes input 0.
  auto gs = a.after_release(1, 0, always);
  REQUIRE(gs.count == 1);
  REQUIRE(gs.list[0].input == 1);
  a.request(1, 0, 0, 0, kBig);
  // Output 0 frees again, input 0 still busy: now it reserves input 0 and takes no one.
  gs = a.after_release(1, 0, always);
  REQUIRE(gs.count == 0);
  REQUIRE(a.output_reserved(0));
  REQUIRE_FALSE(a.output_busy(0));
  // Input 0's transfer ends: the reservation goes first, before its own VL1.
  a.request(0, 1, 1, 1, kBig);
  gs = a.after_release(0, 1, always);
  REQUIRE(gs.count == 1);  // output 1 then finds its only requester busy
  REQUIRE(gs.list[0].input == 0);
  REQUIRE(gs.list[0].output == 0);
  REQUIRE_FALSE(a.output_reserved(0));
}

namespace {

// A crossbar in time: every transfer through output o lasts duration[o], and a
// granted requester asks again at once (always requesting, room everywhere).
// Requests are (input, input VL) -> (output, output VL); returns grants per
// (input, input VL) once `grants` transfers have ended.
struct Timed {
  struct Want {
    unsigned input, vl, output, out_vl;
  };
  CrossbarAllocator& a;
  std::vector<uint64_t> duration;  // per output
  std::multimap<uint64_t, Grant> ends;
  std::map<std::pair<unsigned, unsigned>, int> got;
  std::map<std::pair<unsigned, unsigned>, Want> wants;
  std::vector<Grant> log;  // every grant, in order

  void start(const Grant& g, uint64_t now) {
    ++got[{g.input, g.vl}];
    log.push_back(g);
    ends.emplace(now + duration[g.output], g);
    const Want& w = wants.at({g.input, g.vl});
    a.request(w.input, w.vl, w.output, w.out_vl, kSmall);
    REQUIRE_FALSE(a.after_request(w.input, w.vl, always));  // its input is busy now
  }
  void run(const std::vector<Want>& all, int grants) {
    for (const Want& w : all) {
      wants[{w.input, w.vl}] = w;
      a.request(w.input, w.vl, w.output, w.out_vl, kSmall);
      if (auto g = a.after_request(w.input, w.vl, always)) start(*g, 0);
    }
    for (int k = 0; k < grants; ++k) {
      REQUIRE_FALSE(ends.empty());
      const auto [now, g] = *ends.begin();
      ends.erase(ends.begin());
      for (const Grant& next : a.after_release(g.input, g.output, always)) start(next, now);
    }
  }
};

}  // namespace

TEST_CASE("an input also busy at another output keeps its turn among its output VL's requesters, whatever the VL weights") {
  // Output 0 weighs its VL0:VL1 at 1:3 (one-block packets): input 4 alone on
  // VL1, inputs 0..3 share VL0's quarter. Input 0 also moves VL1 packets to
  // output 1, whose transfers are longer, so it is often busy when output 0
  // decides; it must still get one VL0 turn in four, no more and no less.
  link::VlArbConfig c;
  c.low = {{0, 1}, {1, 3}};
  for (const uint64_t other : {7u, 13u, 29u}) {
    INFO("transfers at output 1 last " << other << " units, at output 0 ten");
    CrossbarAllocator a(5, outputs(2, c));
    Timed t{a, {10, other}, {}, {}, {}, {}};
    std::vector<Timed::Want> all;
    for (unsigned i = 0; i < 4; ++i) all.push_back({i, 0, 0, 0});
    all.push_back({4, 1, 0, 1});
    all.push_back({0, 1, 1, 1});
    t.run(all, 20000);
    int vl0 = 0;
    for (unsigned i = 0; i < 4; ++i) vl0 += t.got[std::make_pair(i, 0u)];
    const int vl1 = t.got[std::make_pair(4u, 1u)];
    INFO("output 0: VL0 " << vl0 << ", VL1 " << vl1);
    REQUIRE(std::abs(static_cast<double>(vl1) / (vl0 + vl1) - 0.75) < 0.01);
    for (unsigned i = 0; i < 4; ++i) {
      const int mine = t.got[std::make_pair(i, 0u)];
      INFO("input " << i << ": " << mine << " of " << vl0);
      REQUIRE(std::abs(static_cast<double>(mine) / vl0 - 0.25) < 0.01);
    }
  }
}

TEST_CASE("random crossbars: no requester starves, and requesters with inputs of their own share evenly") {
  // Random switches: 4-12 inputs and outputs, transfers of different lengths
  // per output, random VL weights, each input with 1-3 VLs (1 for even seeds)
  // aimed at random (output, output VL)s, all always requesting.
  unsigned even_checked = 0;
  for (unsigned seed = 1; seed <= 40; ++seed) {
    std::mt19937 rng(seed);
    const unsigned inputs = 4 + rng() % 9, outs = 4 + rng() % 9;
    link::VlArbConfig c;
    for (unsigned v = 0; v < 4; ++v) c.low.push_back({static_cast<uint8_t>(v), static_cast<uint8_t>(1 + rng() % 8)});
    CrossbarAllocator a(inputs, outputs(outs, c));
    std::vector<uint64_t> duration;
    for (unsigned o = 0; o < outs; ++o) duration.push_back(5 + rng() % 20);
    Timed t{a, duration, {}, {}, {}, {}};
    std::vector<Timed::Want> all;
    std::vector<unsigned> vls_of(inputs);
    for (unsigned i = 0; i < inputs; ++i) {
      vls_of[i] = seed % 2 == 0 ? 1 : 1 + rng() % 3;  // even seeds: every input to itself
      for (unsigned v = 0; v < vls_of[i]; ++v)
        all.push_back({i, v, static_cast<unsigned>(rng() % outs), static_cast<unsigned>(rng() % 4)});
    }
    t.run(all, 30000);
    std::map<std::pair<unsigned, unsigned>, std::vector<std::pair<unsigned, unsigned>>> requesters;  // by (output, out VL)
    for (const Timed::Want& w : all) requesters[{w.output, w.out_vl}].push_back({w.input, w.vl});
    // Between two grants to one requester, each other requester of its output
    // VL is granted at most three times: its turn in the round the wait began
    // in, a turn paid back (it was passed over while busy), and its turn in
    // the next round, before the waiting requester's own turn comes (or, busy
    // then, it is owed and the output waits for it).
    std::map<std::pair<unsigned, unsigned>, std::map<std::pair<unsigned, unsigned>, unsigned>> since;
    for (const Grant& g : t.log) {
      auto& others = since[{g.output, g.out_vl}];
      const std::size_t n = requesters[{g.output, g.out_vl}].size();
      for (auto& [who, count] : others) {
        if (who == std::make_pair(g.input, g.vl)) continue;
        ++count;
        INFO("seed " << seed << ": requester (" << who.first << ", VL" << who.second << ") at output " << g.output
                     << " VL" << g.out_vl << " with " << n << " requesters waited " << count << " grants");
        REQUIRE(count <= 3 * (n - 1));
      }
      others[{g.input, g.vl}] = 0;
    }
    // Where every requester of an output VL has its input to itself (one VL
    // each), none is ever busy elsewhere: each gets 1/n of the grants.
    for (const auto& [where, who] : requesters) {
      bool alone = who.size() > 1;
      for (const auto& r : who) alone = alone && vls_of[r.first] == 1;
      if (!alone) continue;
      ++even_checked;
      int total = 0;
      for (const auto& r : who) total += t.got[r];
      for (const auto& r : who) {
        INFO("seed " << seed << ": output " << where.first << " VL" << where.second << ", input " << r.first << ": "
                     << t.got[r] << " of " << total);
        REQUIRE(std::abs(t.got[r] - total / static_cast<double>(who.size())) <= 1.0);
      }
    }
  }
  REQUIRE(even_checked >= 10);
}

TEST_CASE("a crossbar needs 1..4096 inputs (requester ids are 16 bits) and an output") {
  REQUIRE_THROWS_AS(CrossbarAllocator(0, outputs(1)), std::invalid_argument);
  REQUIRE_THROWS_AS(CrossbarAllocator(1, outputs(0)), std::invalid_argument);
  REQUIRE_THROWS_AS(CrossbarAllocator(CrossbarAllocator::kMaxInputs + 1, outputs(1)), std::invalid_argument);
  // The largest: the last requester id still rotates back to the first.
  CrossbarAllocator a(CrossbarAllocator::kMaxInputs, outputs(1));
  const unsigned last = CrossbarAllocator::kMaxInputs - 1;
  a.request(last, 15, 0, 0, kBig);
  REQUIRE(a.after_request(last, 15, always));
  a.request(0, 0, 0, 0, kBig);
  a.request(last, 15, 0, 0, kBig);
  const auto gs = a.after_release(last, 0, always);
  REQUIRE(gs.count == 1);
  REQUIRE(gs.list[0].input == 0);  // the pointer wrapped past id 65535 to 0
}
