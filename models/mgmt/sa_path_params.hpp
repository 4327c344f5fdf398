#pragma once
// The parameters of a PathRecord found by following the subnet manager's
// linear forwarding tables: does the path reach the destination, its smallest
// MTU, its slowest link, and how many switches it crosses. Pure C++, no SystemC.
//
// Rules:
// - A path from HCA port `src` to `dlid` is the one routing::trace_path follows:
//   the source's link, then at each switch the LFT entry of `dlid`, until an
//   HCA port (it must own `dlid`) or the switch owning `dlid` (entry 0). It
//   fails on kNoPath, an unlinked port, the wrong HCA or a loop. hops = the
//   switches crossed (= trace_path's hops.size()); a port's own LID is reached
//   with no hop.
// - MTU (OpenSM osm_sa_path_record.c, pr_rcv_get_path_parms): the smallest
//   MTUCap of the ports crossed: the source port, each switch's ingress and
//   egress ports, the destination port. The model also counts a port's
//   NeighborMTU when it is set (non-zero): the SM programs it to what the link
//   carries. A port whose MTUCap is 0 (unknown) does not limit the path.
// - Rate: the slowest link crossed, compared by data rate (link::data_rate_bps,
//   the rate the link model serializes at), reported as the IBA rate enum of
//   that link (rate_code). OpenSM compares the enums themselves; they are not
//   ordered by speed (5 = 5 Gb/s < 3 = 10 Gb/s), so the model compares rates.
//   A link's speed and width are its LinkParams; when unset, the PortInfo
//   LinkSpeed(Ext)Active / LinkWidthActive of its ports (port_codes.hpp). A link
//   with neither does not limit the path.
// - Rate enum (OpenSM ib_types.h IB_PATH_RECORD_RATE_*; 23 and 24 from rdma-core
//   iba_types.h): 2 = 2.5, 3 = 10, 4 = 30, 5 = 5, 6 = 20, 7 = 40, 8 = 60,
//   9 = 80, 10 = 120, 11 = 14, 12 = 56, 13 = 112, 14 = 168, 15 = 25, 16 = 100,
//   17 = 200, 18 = 300, 19 = 28, 20 = 50, 21 = 400, 22 = 600, 23 = 800,
//   24 = 1200 Gb/s. A link's enum is the one equal to lanes x its generation's
//   nominal lane rate: SDR 2.5, DDR 5, QDR 10 (their signalling rates, 8b/10b),
//   FDR 14 (14.0625 signalling), EDR 25, HDR 50, NDR 100 (their data rates after
//   64b/66b or FEC). So QDR 4x = 7 (40), FDR 4x = 12 (56), EDR 4x = 16 (100),
//   HDR 4x = 17 (200). Every speed x width of link_timing.hpp has one.
// - Cost: PathTracer::set_destination is O(nodes), after which from() is O(1)
//   per source: the LFTs make the paths to one DLID a tree, so each switch's
//   remaining path is resolved once. No allocation after construction.

#include <cstdint>
#include <optional>
#include <vector>

#include "models/link/link_timing.hpp"
#include "models/mgmt/subnet_view.hpp"
#include "models/routing/routing.hpp"
#include "models/topology/topology.hpp"

namespace hcasim::mgmt {

// IBA PathRecord rate enum of a link (see above); 0 when none matches.
uint8_t rate_code(link::Speed s, link::Width w);
// Gb/s of a rate enum; 0 for an unknown code.
double rate_code_gbps(uint8_t code);

// Speed and width from PortInfo's active fields (port_codes.hpp encodings), if
// they name one speed and one width.
struct LinkRate {
  link::Speed speed = link::Speed::Sdr;
  link::Width width = link::Width::X1;
};
std::optional<LinkRate> active_link_rate(const ib::PortInfo& pi);

struct PathParams {
  bool ok = false;        // the path reaches the destination
  uint8_t mtu = 0;        // MTU enum (1 = 256 ... 5 = 4096), smallest along the path; 0 = none known
  uint8_t rate = 0;       // IBA rate enum of the slowest link; 0 = none known
  double rate_bps = 0;    // that link's data rate (link::data_rate_bps); 0 = none known
  uint16_t hops = 0;      // switches crossed
};

// Follows the LFTs of a SubnetView (which must outlive it) to one DLID at a time.
class PathTracer {
 public:
  explicit PathTracer(const SubnetView& view);
  PathTracer(const PathTracer&) = delete;
  PathTracer& operator=(const PathTracer&) = delete;

  // Resolves every switch's path to `dlid`; from() then answers for any source.
  void set_destination(uint16_t dlid);
  uint16_t destination() const { return dlid_; }
  // The path from HCA port `src` to the current destination.
  PathParams from(topology::LinkEnd src) const;
  // set_destination(dlid) then from(src).
  PathParams trace(topology::LinkEnd src, uint16_t dlid);

  const topology::TopologyIndex& index() const { return index_; }

 private:
  static constexpr uint8_t kNoLimitMtu = 0xFF;
  struct Limit {            // what a stretch of path allows
    uint8_t mtu = kNoLimitMtu;
    double rate_bps = 0;    // 0 = no limit known
    uint8_t rate = 0;
  };
  struct Memo {
    uint8_t state = 0;      // 0 unresolved, 1 on the walk, 2 resolved
    bool ok = false;
    Limit limit;
    uint16_t hops = 0;
  };

  uint8_t port_mtu(unsigned node, unsigned port) const;
  // The limit of the link on (node, port) and of both its ports.
  Limit link_limit(unsigned node, unsigned port) const;
  static void narrow(Limit& into, const Limit& by);
  void resolve(unsigned sw);

  const SubnetView* view_;
  topology::TopologyIndex index_;
  std::vector<std::vector<uint8_t>> mtu_;   // [node][port]: MTU limit of the port
  std::vector<Limit> link_rate_;            // [link]: rate limit of the link
  std::vector<Memo> memo_;                  // [node]: switch's path to dlid_
  std::vector<std::pair<unsigned, Limit>> walk_;  // scratch: switches on the current walk
  uint16_t dlid_ = 0;
  topology::LinkEnd owner_{topology::kNoNode, 0};
};

}  // namespace hcasim::mgmt
