// The progress report's text: what it shows when the run's end is known or
// not, and how it is framed for a terminal and for a file.
#include <catch2/catch.hpp>

#include <string>

#include "testbench/cli/progress_line.hpp"

using hcasim::ProgressSample;

TEST_CASE("progress line: simulated time, packet-hops per wall second, and no % or ETA when the end is unknown") {
  ProgressSample s;
  s.sim_ps = 12'345'678;  // 12.346 us
  s.wall_s = 2;
  s.packet_hops = 3'000'000;
  CHECK(hcasim::progress_line(s) == "sim 12.346 us  1500000 packet-hops/s");
}

TEST_CASE("progress line: percent done and ETA = wall x (1 - done) / done when the end is known") {
  ProgressSample s;
  s.sim_ps = 25'000'000;
  s.wall_s = 10;
  s.packet_hops = 1000;
  s.fraction_done = 0.25;  // a quarter in 10 s: 30 s to go
  CHECK(hcasim::progress_line(s) == "sim 25.000 us   25.0%  ETA 30 s  100 packet-hops/s");
  s.fraction_done = 1.0;  // done: no ETA
  CHECK(hcasim::progress_line(s) == "sim 25.000 us  100.0%  100 packet-hops/s");
  s.fraction_done = 0;  // nothing done yet: no ETA to give
  CHECK(hcasim::progress_line(s).find("ETA") == std::string::npos);
}

TEST_CASE("progress text: a line of its own per report into a file, one line rewritten on a terminal") {
  ProgressSample s;
  s.sim_ps = 1'000'000;
  const std::string line = hcasim::progress_line(s);
  CHECK(hcasim::progress_text(s, false, false) == line + "\n");
  CHECK(hcasim::progress_text(s, false, true) == line + "\n");
  CHECK(hcasim::progress_text(s, true, false) == "\r" + line + "\033[K");
  CHECK(hcasim::progress_text(s, true, true) == "\r" + line + "\033[K\n");
}
