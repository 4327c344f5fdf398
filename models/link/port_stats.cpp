#include "models/link/port_stats.hpp"

namespace hcasim::link {

const char* to_string(DropReason r) {
  switch (r) {
    case DropReason::SlToVl15: return "sl_to_vl15";
    case DropReason::MtuExceeded: return "mtu_exceeded";
    case DropReason::BadVl: return "bad_vl";
    case DropReason::BufferOverflow: return "buffer_overflow";
    case DropReason::Vl15Overflow: return "vl15_overflow";
    case DropReason::LinkDown: return "link_down";
    case DropReason::NoRoute: return "no_route";
    case DropReason::HoqLifetime: return "hoq_lifetime";
    case DropReason::SwitchLifetime: return "switch_lifetime";
    case DropReason::VlStalled: return "vl_stalled";
    case DropReason::FaultDrop: return "fault_drop";
    case DropReason::CrcError: return "crc_error";
    case DropReason::Count: break;
  }
  return "?";
}

}  // namespace hcasim::link
