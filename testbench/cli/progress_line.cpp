#include "testbench/cli/progress_line.hpp"

#include <algorithm>
#include <cstdio>

namespace hcasim {

std::string progress_line(const ProgressSample& s) {
  char buf[160];
  int n = std::snprintf(buf, sizeof buf, "sim %.3f us", static_cast<double>(s.sim_ps) / 1e6);
  std::string line(buf, static_cast<std::size_t>(n));
  if (s.fraction_done >= 0) {
    const double done = std::min(s.fraction_done, 1.0);
    n = std::snprintf(buf, sizeof buf, "  %5.1f%%", 100.0 * done);
    line.append(buf, static_cast<std::size_t>(n));
    if (done > 0 && done < 1) {
      n = std::snprintf(buf, sizeof buf, "  ETA %.0f s", s.wall_s * (1 - done) / done);
      line.append(buf, static_cast<std::size_t>(n));
    }
  }
  n = std::snprintf(buf, sizeof buf, "  %.0f packet-hops/s",
                    s.wall_s > 0 ? static_cast<double>(s.packet_hops) / s.wall_s : 0.0);
  line.append(buf, static_cast<std::size_t>(n));
  return line;
}

std::string progress_text(const ProgressSample& s, bool terminal, bool final_line) {
  if (!terminal) return progress_line(s) + "\n";
  return "\r" + progress_line(s) + "\033[K" + (final_line ? "\n" : "");
}

}  // namespace hcasim
