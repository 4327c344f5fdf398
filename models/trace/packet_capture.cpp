#include "models/trace/packet_capture.hpp"

namespace hcasim::trace {

PacketCapture::PacketCapture(const std::string& path, const std::vector<link::Port*>& ports) : writer_(path) {
  for (link::Port* p : ports) p->add_observer(this);
}

void PacketCapture::on_transmit(const link::Port&, const ib::Packet& p, uint64_t now_ps, uint64_t) {
  writer_.write(now_ps, p);
  ++packets_;
}

}  // namespace hcasim::trace
