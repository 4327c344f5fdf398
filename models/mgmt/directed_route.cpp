#include "models/mgmt/directed_route.hpp"

namespace hcasim::mgmt {

namespace {

DrAction out_of(uint8_t port, unsigned ports) {
  if (port == 0 || port > ports) return {};
  return {DrStep::Forward, port};
}

}  // namespace

DrAction dr_send(ib::Smp& smp, unsigned ports) {
  if (smp.hop_cnt == 0 || smp.hop_cnt >= ib::kSmpMaxHops) return {smp.hop_cnt == 0 ? DrStep::Deliver : DrStep::Drop, 0};
  if (!smp.direction) {
    if (smp.hop_ptr != 0) return {};
    smp.hop_ptr = 1;
    return out_of(smp.initial_path[1], ports);
  }
  if (smp.hop_ptr != smp.hop_cnt + 1) return {};
  smp.hop_ptr = smp.hop_cnt;
  return out_of(smp.return_path[smp.hop_ptr], ports);
}

DrAction dr_receive(ib::Smp& smp, bool is_switch, unsigned in, unsigned ports) {
  const unsigned ptr = smp.hop_ptr, cnt = smp.hop_cnt;
  if (cnt >= ib::kSmpMaxHops) return {};
  if (!smp.direction) {
    if (ptr == 0 || ptr > cnt) return {};
    smp.return_path[ptr] = static_cast<uint8_t>(in);
    smp.hop_ptr = static_cast<uint8_t>(ptr + 1);
    if (ptr == cnt) return {DrStep::Deliver, 0};
    if (!is_switch) return {};
    return out_of(smp.initial_path[ptr + 1], ports);
  }
  if (ptr == 1) {
    smp.hop_ptr = 0;
    return {DrStep::Deliver, 0};
  }
  if (ptr < 2 || ptr > cnt || !is_switch) return {};
  smp.hop_ptr = static_cast<uint8_t>(ptr - 1);
  return out_of(smp.return_path[ptr - 1], ports);
}

}  // namespace hcasim::mgmt
