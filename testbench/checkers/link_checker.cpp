#include "testbench/checkers/link_checker.hpp"

#include <sstream>

namespace hcasim::checkers {

namespace {
constexpr std::size_t kMaxMessages = 20;

std::string describe(const ib::Packet& p) {
  std::ostringstream o;
  if (p.kind == ib::PacketKind::FlowControl)
    o << "flow-control VL" << unsigned(p.fc.vl) << " FCTBS " << p.fc.fctbs << " FCCL " << p.fc.fccl;
  else
    o << "packet " << p.id << " VL" << unsigned(p.hdr.lrh.vl) << " " << p.wire_bytes() << " B";
  return o.str();
}
}  // namespace

void LinkChecker::reserve(std::size_t ports) {
  views_.reserve(ports);
  peer_.reserve(ports);
  ports_.reserve(ports);
}

LinkChecker::VlView& LinkChecker::upper_vl(std::size_t view, unsigned vl) {
  if (upper_.size() < views_.size()) upper_.resize(views_.size());
  return upper_[view][vl - kViewVls];
}

void LinkChecker::add(const link::Port& port) {
  if (views_.size() <= port.id()) {
    views_.resize(port.id() + 1);
    peer_.resize(port.id() + 1, kUnknown);
    ports_.resize(port.id() + 1, nullptr);
  }
  ports_[port.id()] = &port;
}

void LinkChecker::watch(link::Port& port) {
  port.add_observer(this);
  add(port);
}

void LinkChecker::know(const link::Port& port, unsigned partition) {
  add(port);
  if (remote_.size() <= port.id()) remote_.resize(port.id() + 1, 0);
  remote_[port.id()] = partition + 1;
  if (handed_.size() <= partition) handed_.resize(partition + 1);
}

void LinkChecker::mail_slots(unsigned slots) {
  slots_ = slots;
  sealed_.assign(handed_.size() * slots, {});
}

void LinkChecker::seal(unsigned slot) {
  for (std::size_t q = 0; q < handed_.size(); ++q) sealed_[q * slots_ + slot].swap(handed_[q]);
}

void LinkChecker::take_handed(LinkChecker& from, unsigned me, unsigned slot) {
  if (from.handed_.size() <= me) return;
  Handed& box = from.sealed_[std::size_t(me) * from.slots_ + slot];
  for (const auto& [port, f] : box) views_[port].wire.push_back(f);
  box.clear();
}

void LinkChecker::absorb(const LinkChecker& other) {
  violations_ += other.violations_;
  checked_ += other.checked_;
  announced_ += other.announced_;
  link_down_ += other.link_down_;
  for (const std::string& m : other.messages_)
    if (messages_.size() < kMaxMessages) messages_.push_back(m);
}

LinkChecker::DirectionView* LinkChecker::out_of(const link::Port& sender) {
  uint32_t& peer = peer_[sender.id()];
  if (peer == kUnknown) {
    // Found once and kept: a port's peer and its id do not change.
    const link::Port* r = sender.peer();
    peer = r != nullptr && r->id() < views_.size() && ports_[r->id()] == r ? r->id() : kNone;
  }
  return peer == kNone ? nullptr : &views_[peer];
}

void LinkChecker::warm(const link::Port& port) const {
  // A view's two lines; each hook reads one view or both, and a view is
  // touched once per packet on its link, long enough ago to have left the
  // caches on a large fabric.
  const auto prefetch = [](const DirectionView& v) {
    __builtin_prefetch(&v);
    __builtin_prefetch(reinterpret_cast<const char*>(&v) + 64);
  };
  const uint32_t id = port.id();
  prefetch(views_[id]);  // into the port (watch() made it)
  if (const uint32_t peer = peer_[id]; peer < views_.size()) prefetch(views_[peer]);  // out of it
}

void LinkChecker::fail(uint64_t now_ps, const std::string& what) {
  ++violations_;
  if (messages_.size() < kMaxMessages) {
    std::ostringstream o;
    o << "t=" << now_ps << "ps: " << what;
    messages_.push_back(o.str());
  }
}

void LinkChecker::on_transmit(const link::Port& port, const ib::Packet& p, uint64_t now_ps, uint64_t arrival_ps) {
  ++checked_;
  DirectionView* d = out_of(port);
  if (d == nullptr) return;
  const bool fc = p.kind == ib::PacketKind::FlowControl;
  const InFlight f{fc ? InFlight::kFlowControl : p.id, arrival_ps};
  const auto to = static_cast<uint32_t>(d - views_.data());
  if (to < remote_.size() && remote_[to] != 0) handed_[remote_[to] - 1].emplace_back(to, f);
  else d->wire.push_back(f);
  if (fc || p.hdr.lrh.vl == link::kVl15) return;
  VlView& vl = vl_view(*d, p.hdr.lrh.vl);
  vl.sent_blocks += link::blocks_for(p.wire_len);
  if (!vl.limit_known || vl.sent_blocks > vl.limit_blocks)
    fail(now_ps, std::string(port.name()) + " sent " + describe(p) + " without credit (blocks sent " +
                     std::to_string(vl.sent_blocks) + ", limit " + std::to_string(vl.limit_blocks) + ")");
}

void LinkChecker::on_arrival(const link::Port& port, const ib::Packet& p, uint64_t now_ps) {
  const bool fc = p.kind == ib::PacketKind::FlowControl;
  // The direction back to the sender: non-null when the sender is watched.
  DirectionView* const out = out_of(port);
  if (out != nullptr) {
    DirectionView& d = into(port);
    if (d.wire.empty()) {
      fail(now_ps, std::string(port.name()) + " received " + describe(p) + " that no one sent");
    } else {
      const InFlight f = d.wire.front();
      d.wire.pop_front();
      if (f.tag != (fc ? InFlight::kFlowControl : p.id) || f.arrival_ps != now_ps)
        fail(now_ps, std::string(port.name()) + " received " + describe(p) + " out of order or at the wrong time");
    }
  }
  if (!fc) {
    arrived_port_ = &port;
    arrived_ = &p;
    arrived_ps_ = now_ps;
    return;
  }
  if (p.fc.vl >= link::kVl15) return;
  // The flow-control packet grants credit to this port's own transmissions.
  if (out == nullptr) return;
  VlView& vl = vl_view(*out, p.fc.vl);
  if (!vl.limit_known) {
    vl.limit_blocks = p.fc.fccl;  // the counters start at 0 on both sides
    vl.limit_known = true;
  } else {
    const uint32_t delta = (p.fc.fccl - vl.last_fccl) & link::kCreditMask;
    if (delta <= link::kMaxAdvertisedBlocks) vl.limit_blocks += delta;
    else vl.limit_blocks -= link::kCreditModulus - delta;
  }
  vl.last_fccl = p.fc.fccl;
}

void LinkChecker::on_buffered(const link::Port& port, const ib::Packet& p, unsigned vl, uint32_t blocks) {
  if (vl == link::kVl15) return;
  VlView& v = vl_view(into(port), vl);
  v.buffered_blocks += static_cast<int32_t>(blocks);
  if (v.buffered_blocks > static_cast<int64_t>(port.rx_capacity_blocks(vl)))
    fail(link::now_ps(),
         std::string(port.name()) + " VL" + std::to_string(vl) + " receive buffer overflows with " + describe(p));
}

void LinkChecker::on_released(const link::Port& port, unsigned vl, uint32_t blocks) {
  if (vl != link::kVl15) vl_view(into(port), vl).buffered_blocks -= static_cast<int32_t>(blocks);
}

void LinkChecker::on_drop(const link::Port& port, const ib::Packet& p, link::DropReason why, uint64_t now_ps) {
  if (why == link::DropReason::BufferOverflow)
    fail(now_ps, std::string(port.name()) + " dropped " + describe(p) + ": receive buffer full");
  if (why == link::DropReason::LinkDown && p.kind == ib::PacketKind::Data && port.id() < downed_.size() &&
      downed_[port.id()]) {
    ++announced_;
    ++link_down_;
  }
  if (why == link::DropReason::FaultDrop || why == link::DropReason::CrcError) {
    if (&port == arrived_port_ && &p == arrived_ && now_ps == arrived_ps_) ++announced_;
    else fail(now_ps, std::string(port.name()) + " dropped " + describe(p) + " as a link fault, but it had not just arrived there");
  }
}

void LinkChecker::on_link_down(const link::Port& port, uint64_t) {
  if (downed_.size() <= port.id()) downed_.resize(port.id() + 1, false);
  downed_[port.id()] = true;
  DirectionView& in = into(port);
  in.wire.clear();  // the port drops these next (on_drop, link_down)
  // The credit counts restart; what the receiver buffered stays.
  const auto restart = [](VlView& v) { v.sent_blocks = v.limit_blocks = v.last_fccl = 0, v.limit_known = false; };
  for (VlView& v : in.vl) restart(v);
  if (port.id() < upper_.size())
    for (VlView& v : upper_[port.id()]) restart(v);
}

void LinkChecker::finish(uint64_t now_ps) {
  for (std::size_t i = 0; i < views_.size(); ++i)
    views_[i].wire.for_each([&](const InFlight& f) {
      if (f.arrival_ps < now_ps)  // one due at the very end may not have been taken yet
        fail(now_ps, std::string(ports_[i]->peer()->name()) + ": " +
                       (f.tag == InFlight::kFlowControl ? std::string("a flow-control packet") : "packet " + std::to_string(f.tag)) +
                       " due at " + std::to_string(f.arrival_ps) + "ps was lost on the link to " + ports_[i]->name());
    });
}

}  // namespace hcasim::checkers
