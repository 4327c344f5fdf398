#include "models/link/link_timing.hpp"

#include <cmath>

namespace hcasim::link {

double lane_signalling_bps(Speed s) {
  switch (s) {
    case Speed::Sdr: return 2.5e9;
    case Speed::Ddr: return 5e9;
    case Speed::Qdr: return 10e9;
    case Speed::Fdr: return 14.0625e9;
    case Speed::Edr: return 25.78125e9;
    case Speed::Hdr: return 53.125e9;
    case Speed::Ndr: return 106.25e9;
  }
  return 0;
}

double line_code_efficiency(Speed s) {
  switch (s) {
    case Speed::Sdr:
    case Speed::Ddr:
    case Speed::Qdr: return 8.0 / 10.0;
    case Speed::Fdr:
    case Speed::Edr: return 64.0 / 66.0;
    case Speed::Hdr:
    case Speed::Ndr: return (256.0 / 257.0) * (514.0 / 544.0);
  }
  return 0;
}

double data_rate_bps(Speed s, Width w) {
  return static_cast<double>(static_cast<int>(w)) * lane_signalling_bps(s) * line_code_efficiency(s);
}

const char* to_string(Speed s) {
  switch (s) {
    case Speed::Sdr: return "SDR";
    case Speed::Ddr: return "DDR";
    case Speed::Qdr: return "QDR";
    case Speed::Fdr: return "FDR";
    case Speed::Edr: return "EDR";
    case Speed::Hdr: return "HDR";
    case Speed::Ndr: return "NDR";
  }
  return "?";
}

const char* to_string(Width w) {
  switch (w) {
    case Width::X1: return "1x";
    case Width::X2: return "2x";
    case Width::X4: return "4x";
    case Width::X8: return "8x";
    case Width::X12: return "12x";
  }
  return "?";
}

LinkTiming::LinkTiming(const LinkConfig& c)
    : ps_per_byte_(8.0 * static_cast<double>(kPsPerSecond) / link::data_rate_bps(c.speed, c.width)),
      rate_bps_(link::data_rate_bps(c.speed, c.width)),
      propagation_ps_(c.propagation_ps != 0
                          ? c.propagation_ps
                          : static_cast<uint64_t>(std::llround(c.length_m * static_cast<double>(c.ps_per_m)))),
      framing_(c.framing_bytes) {}

}  // namespace hcasim::link
