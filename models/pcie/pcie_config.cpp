#include "models/pcie/pcie_config.hpp"

namespace hcasim::pcie {

namespace {

bool power_of_two_between(uint32_t v, uint32_t lo, uint32_t hi) {
  return v >= lo && v <= hi && (v & (v - 1)) == 0;
}

}  // namespace

std::string check(const PcieConfig& c) {
  if (c.gen < 1 || c.gen > 6)
    return "gen is " + std::to_string(c.gen) + "; accepted: 1, 2, 3, 4, 5 or 6 (6 = FLIT mode)";
  if (c.lanes != 1 && c.lanes != 2 && c.lanes != 4 && c.lanes != 8 && c.lanes != 16)
    return "lanes is " + std::to_string(c.lanes) + "; accepted: 1, 2, 4, 8 or 16";
  if (!power_of_two_between(c.mps, 128, 4096))
    return "mps is " + std::to_string(c.mps) + "; accepted: 128, 256, 512, 1024, 2048 or 4096 (bytes)";
  if (!power_of_two_between(c.mrrs, 128, 4096))
    return "mrrs is " + std::to_string(c.mrrs) + "; accepted: 128, 256, 512, 1024, 2048 or 4096 (bytes)";
  if (c.rcb != 64 && c.rcb != 128) return "rcb is " + std::to_string(c.rcb) + "; accepted: 64 or 128 (bytes)";
  if (c.tlp_header_dw != 3 && c.tlp_header_dw != 4)
    return "tlp_header_dw is " + std::to_string(c.tlp_header_dw) +
           "; accepted: 3 (32-bit addresses) or 4 (64-bit addresses)";
  if (!(c.dllp_share < 1.0))  // also rejects NaN
    return "dllp_share is " + std::to_string(c.dllp_share) +
           "; accepted: a share from 0 up to (not including) 1, or negative for the spec's tables";
  if (c.tags < 1 || c.tags > 16384)
    return "tags is " + std::to_string(c.tags) + "; accepted: 1 to 16384 outstanding read requests";
  return "";
}

}  // namespace hcasim::pcie
