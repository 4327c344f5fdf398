#pragma once
// PortInfo encodings of the model's port parameters (iba-facts 2 and 6;
// seed 004 for VLCap / OperationalVLs).

#include <cstdint>
#include <optional>

#include "models/link/link_timing.hpp"

namespace hcasim::mgmt {

// MTU enum: 1 = 256 ... 5 = 4096 bytes (iba-facts 2); 0 for other sizes.
constexpr uint8_t mtu_code(uint32_t bytes) {
  for (uint8_t c = 1; c <= 5; ++c)
    if ((128u << c) == bytes) return c;
  return 0;
}
constexpr uint32_t mtu_bytes(uint8_t code) { return code >= 1 && code <= 5 ? 128u << code : 0; }

// VLCap / OperationalVLs: 1 = VL0, 2 = VL0-1, 3 = VL0-3, 4 = VL0-7, 5 = VL0-14
// (seed 004); 0 for other counts.
constexpr uint8_t vl_code(uint32_t data_vls) {
  switch (data_vls) {
    case 1: return 1;
    case 2: return 2;
    case 4: return 3;
    case 8: return 4;
    case 15: return 5;
    default: return 0;
  }
}
constexpr uint32_t vl_count(uint8_t code) {
  constexpr uint32_t counts[] = {0, 1, 2, 4, 8, 15};
  return code <= 5 ? counts[code] : 0;
}

// LinkWidth bits (OpenSM IB_LINK_WIDTH_ACTIVE_*): 1x 1, 4x 2, 8x 4, 12x 8, 2x 16.
constexpr uint8_t width_code(link::Width w) {
  switch (w) {
    case link::Width::X1: return 1;
    case link::Width::X2: return 16;
    case link::Width::X4: return 2;
    case link::Width::X8: return 4;
    case link::Width::X12: return 8;
  }
  return 0;
}

// LinkSpeed (SDR 1, DDR 2, QDR 4) and LinkSpeedExt (FDR 1, EDR 2, HDR 4,
// NDR 8) bits (OpenSM IB_LINK_SPEED_*, IB_LINK_SPEED_EXT_*): {speed, ext}.
struct SpeedCodes {
  uint8_t speed = 0;
  uint8_t ext = 0;
};
constexpr SpeedCodes speed_codes(link::Speed s) {
  switch (s) {
    case link::Speed::Sdr: return {1, 0};
    case link::Speed::Ddr: return {2, 0};
    case link::Speed::Qdr: return {4, 0};
    case link::Speed::Fdr: return {0, 1};
    case link::Speed::Edr: return {0, 2};
    case link::Speed::Hdr: return {0, 4};
    case link::Speed::Ndr: return {0, 8};
  }
  return {};
}

// The model's width and speed back from PortInfo codes; empty for none.
inline std::optional<link::Width> width_of(uint8_t code) {
  for (link::Width w : {link::Width::X1, link::Width::X2, link::Width::X4, link::Width::X8, link::Width::X12})
    if (width_code(w) == code) return w;
  return std::nullopt;
}
inline std::optional<link::Speed> speed_of(uint8_t speed, uint8_t ext) {
  for (link::Speed s : {link::Speed::Sdr, link::Speed::Ddr, link::Speed::Qdr, link::Speed::Fdr, link::Speed::Edr,
                        link::Speed::Hdr, link::Speed::Ndr}) {
    const SpeedCodes c = speed_codes(s);
    if (c.speed == speed && c.ext == ext) return s;
  }
  return std::nullopt;
}

}  // namespace hcasim::mgmt
