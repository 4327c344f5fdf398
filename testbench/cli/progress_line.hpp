#pragma once
// The progress report a run prints on stderr (unless --quiet), as plain text.
//
// Rules:
// - One line: simulated time, then percent done and the wall-clock time left
//   (ETA) when the run's end is known (fraction_done >= 0), then the packets
//   the run moved per wall second: packet-hops (every packet's transmission
//   on every link, data and flow control, raw traffic and transport alike)
//   over the wall time so far.
// - ETA = wall so far x (1 - done) / done; none before anything is done.
// - On a terminal a report rewrites the one line in place ('\r', then the
//   rest of the old line cleared); elsewhere (a file, a pipe, a CI log) each
//   report is a line of its own ending in '\n'. The final report always ends
//   the line.

#include <cstdint>
#include <string>

namespace hcasim {

struct ProgressSample {
  uint64_t sim_ps = 0;
  double wall_s = 0;
  uint64_t packet_hops = 0;
  double fraction_done = -1;  // < 0: the run's end is not known
};

std::string progress_line(const ProgressSample& s);
// The bytes to write for one report: the line framed for a terminal or not.
std::string progress_text(const ProgressSample& s, bool terminal, bool final_line);

}  // namespace hcasim
