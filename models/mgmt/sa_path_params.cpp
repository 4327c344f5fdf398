// PathRecord parameters by following the LFTs (rules in sa_path_params.hpp).
#include "models/mgmt/sa_path_params.hpp"

#include <algorithm>
#include <array>

#include "models/mgmt/port_codes.hpp"

namespace hcasim::mgmt {
namespace {

using topology::LinkEnd;
using topology::NodeKind;

// Nominal lane rate of a generation in units of 0.5 Gb/s (see the header).
unsigned nominal_lane_half_gbps(link::Speed s) {
  switch (s) {
    case link::Speed::Sdr: return 5;     // 2.5 Gb/s signalling
    case link::Speed::Ddr: return 10;    // 5
    case link::Speed::Qdr: return 20;    // 10
    case link::Speed::Fdr: return 28;    // 14 (14.0625 signalling)
    case link::Speed::Edr: return 50;    // 25 data
    case link::Speed::Hdr: return 100;   // 50 data
    case link::Speed::Ndr: return 200;   // 100 data
  }
  return 0;
}

// IB_PATH_RECORD_RATE_* (OpenSM ib_types.h; 23, 24 rdma-core iba_types.h):
// code -> rate in units of 0.5 Gb/s; codes 0 and 1 are not rates.
constexpr std::array<unsigned, 25> kRateHalfGbps = {0,  0,   5,   20,  60,  10,  40,  80,  120, 160, 240, 28,  112,
                                                    224, 336, 50, 200, 400, 600, 56, 100, 800, 1200, 1600, 2400};

}  // namespace

uint8_t rate_code(link::Speed s, link::Width w) {
  const unsigned want = nominal_lane_half_gbps(s) * static_cast<unsigned>(w);
  for (unsigned c = 2; c < kRateHalfGbps.size(); ++c)
    if (kRateHalfGbps[c] == want) return static_cast<uint8_t>(c);
  return 0;
}

double rate_code_gbps(uint8_t code) { return code < kRateHalfGbps.size() ? kRateHalfGbps[code] / 2.0 : 0.0; }

std::optional<LinkRate> active_link_rate(const ib::PortInfo& pi) {
  static constexpr link::Speed kSpeeds[] = {link::Speed::Sdr, link::Speed::Ddr, link::Speed::Qdr, link::Speed::Fdr,
                                            link::Speed::Edr, link::Speed::Hdr, link::Speed::Ndr};
  static constexpr link::Width kWidths[] = {link::Width::X1, link::Width::X2, link::Width::X4, link::Width::X8,
                                            link::Width::X12};
  std::optional<LinkRate> r;
  // LinkSpeedExtActive overrides LinkSpeedActive when set (OpenSM
  // ib_port_info_compute_rate reads the extended field first).
  for (link::Speed s : kSpeeds) {
    const SpeedCodes c = speed_codes(s);
    const bool match = pi.link_speed_ext_active != 0 ? c.ext == pi.link_speed_ext_active
                                                     : c.ext == 0 && c.speed == pi.link_speed_active;
    if (match) r = LinkRate{s, link::Width::X1};
  }
  if (!r) return std::nullopt;
  for (link::Width w : kWidths) {
    if (width_code(w) == pi.link_width_active) {
      r->width = w;
      return r;
    }
  }
  return std::nullopt;
}

PathTracer::PathTracer(const SubnetView& view) : view_(&view), index_(view.topology) {
  const topology::Topology& t = view.topology;
  mtu_.resize(t.nodes.size());
  for (unsigned n = 0; n < t.nodes.size(); ++n) {
    mtu_[n].assign(t.nodes[n].ports + 1, kNoLimitMtu);
    if (n >= view.nodes.size()) continue;
    const std::vector<ib::PortInfo>& pis = view.nodes[n].port_info;
    for (unsigned p = 0; p < mtu_[n].size() && p < pis.size(); ++p) {
      uint8_t m = pis[p].mtu_cap != 0 ? pis[p].mtu_cap : kNoLimitMtu;
      if (pis[p].neighbor_mtu != 0) m = std::min(m, pis[p].neighbor_mtu);
      mtu_[n][p] = m;
    }
  }
  link_rate_.resize(t.links.size());
  for (size_t i = 0; i < t.links.size(); ++i) {
    const topology::TopoLink& l = t.links[i];
    std::optional<LinkRate> r;
    if (l.params.speed && l.params.width) {
      r = LinkRate{*l.params.speed, *l.params.width};
    } else {
      for (const LinkEnd& e : {l.a, l.b}) {
        if (r || e.node >= view.nodes.size() || e.port >= view.nodes[e.node].port_info.size()) continue;
        r = active_link_rate(view.nodes[e.node].port_info[e.port]);
      }
    }
    if (r) link_rate_[i] = Limit{kNoLimitMtu, link::data_rate_bps(r->speed, r->width), rate_code(r->speed, r->width)};
  }
  memo_.resize(t.nodes.size());
  walk_.reserve(t.nodes.size());
}

uint8_t PathTracer::port_mtu(unsigned node, unsigned port) const {
  return node < mtu_.size() && port < mtu_[node].size() ? mtu_[node][port] : kNoLimitMtu;
}

void PathTracer::narrow(Limit& into, const Limit& by) {
  into.mtu = std::min(into.mtu, by.mtu);
  if (by.rate_bps > 0 && (into.rate_bps == 0 || by.rate_bps < into.rate_bps)) {
    into.rate_bps = by.rate_bps;
    into.rate = by.rate;
  }
}

PathTracer::Limit PathTracer::link_limit(unsigned node, unsigned port) const {
  Limit l;
  const int li = index_.link_of(node, port);
  if (li >= 0) l = link_rate_[static_cast<size_t>(li)];
  l.mtu = port_mtu(node, port);
  if (const auto peer = index_.peer(node, port)) l.mtu = std::min(l.mtu, port_mtu(peer->node, peer->port));
  return l;
}

void PathTracer::set_destination(uint16_t dlid) {
  dlid_ = dlid;
  const routing::Lids& lids = view_->lids;
  owner_ =
      (dlid != 0 && dlid <= lids.top && dlid < lids.owner.size()) ? lids.owner[dlid] : LinkEnd{topology::kNoNode, 0};
  for (Memo& m : memo_) m = Memo{};
  const topology::Topology& t = view_->topology;
  for (unsigned n = 0; n < t.nodes.size(); ++n)
    if (t.nodes[n].kind == NodeKind::Switch && memo_[n].state == 0) resolve(n);
}

// Walks from `sw` along the LFT entries of dlid_ until a resolved switch or the
// end of the path, then resolves the switches walked, last first.
void PathTracer::resolve(unsigned sw) {
  const topology::Topology& t = view_->topology;
  const routing::Routes& routes = view_->routes;
  walk_.clear();
  Memo tail;  // the path after the last switch on the walk
  unsigned cur = sw;
  for (;;) {
    Memo& m = memo_[cur];
    if (m.state == 2) {
      tail = m;
      break;
    }
    if (m.state == 1) {  // a loop: no switch on it reaches the destination
      tail = Memo{};
      break;
    }
    m.state = 1;
    const std::vector<uint8_t>* lft = cur < routes.lft.size() ? &routes.lft[cur] : nullptr;
    const uint8_t out =
        (owner_.node != topology::kNoNode && lft && dlid_ < lft->size()) ? (*lft)[dlid_] : routing::kNoPath;
    Memo end;  // the switch's own result when the walk stops here
    end.state = 2;
    if (out == routing::kNoPath || out > t.nodes[cur].ports) {
      memo_[cur] = end;  // not ok
      tail = end;
      break;
    }
    if (out == 0) {  // the switch itself
      end.ok = owner_.node == cur && owner_.port == 0;
      memo_[cur] = end;
      tail = end;
      break;
    }
    const auto peer = index_.peer(cur, out);
    if (!peer) {
      memo_[cur] = end;
      tail = end;
      break;
    }
    if (t.nodes[peer->node].kind == NodeKind::Hca) {
      end.ok = *peer == owner_;
      end.limit = link_limit(cur, out);
      end.hops = 1;
      memo_[cur] = end;
      tail = end;
      break;
    }
    walk_.emplace_back(cur, link_limit(cur, out));
    cur = peer->node;
  }
  for (auto it = walk_.rbegin(); it != walk_.rend(); ++it) {
    Memo m;
    m.state = 2;
    m.ok = tail.ok;
    if (m.ok) {
      m.limit = it->second;
      narrow(m.limit, tail.limit);
      m.hops = static_cast<uint16_t>(tail.hops + 1);
    }
    memo_[it->first] = m;
    tail = m;
  }
}

PathParams PathTracer::from(LinkEnd src) const {
  PathParams r;
  const topology::Topology& t = view_->topology;
  if (owner_.node == topology::kNoNode || src.node >= t.nodes.size()) return r;
  Limit l;
  if (src == owner_) {  // the port's own LID: loopback, no link crossed
    r.ok = true;
    l.mtu = port_mtu(src.node, src.port);
  } else {
    const auto peer = index_.peer(src.node, src.port);
    if (!peer) return r;
    l = link_limit(src.node, src.port);
    if (t.nodes[peer->node].kind == NodeKind::Hca) {
      r.ok = *peer == owner_;
    } else {
      const Memo& m = memo_[peer->node];
      r.ok = m.ok;
      narrow(l, m.limit);
      r.hops = m.hops;
    }
  }
  if (!r.ok) return PathParams{};
  r.mtu = l.mtu == kNoLimitMtu ? 0 : l.mtu;
  r.rate = l.rate;
  r.rate_bps = l.rate_bps;
  return r;
}

PathParams PathTracer::trace(LinkEnd src, uint16_t dlid) {
  if (dlid != dlid_) set_destination(dlid);
  return from(src);
}

}  // namespace hcasim::mgmt
