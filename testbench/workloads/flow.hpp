#pragma once
// A raw-packet flow: what the generator sends, and what the recorder measured.
//
// A flow has one source port. Its destination is fixed, or chosen per packet
// from a list: uniformly at random, in turn (all-to-all), or with a share of
// hot_fraction going to a hot list (hot spot). Random choices come from the
// flow's own seeded generator, so a run is the same for the same seed.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/config/raw_traffic_settings.hpp"
#include "models/trace/latency_record.hpp"

namespace hcasim::routing {
class PathSlTable;
}

namespace hcasim::workloads {

// An HCA port: index of the HCA among the fabric's HCAs, and port index on it.
struct Endpoint {
  unsigned node = 0;
  unsigned port = 0;
  bool operator==(const Endpoint& o) const { return node == o.node && port == o.port; }
};

enum class DestChoice { Fixed, Uniform, Cycle, HotSpot };

// A flow's list of destinations as a view of a list its pattern's flows share
// (a uniform pattern over n hosts keeps one list of n, not n lists of n - 1):
// entry i of the view is entry (first + i) mod n of the shared list, counting
// past entry `skip` (the source itself; none when kNoSkip). Its LIDs are the
// shared list's base LIDs plus the flow's own offset (the path it takes with
// an LMC above 0).
class Destinations {
 public:
  static constexpr std::size_t kNoSkip = SIZE_MAX;
  Destinations() = default;
  // The whole list but entry `skip` (kNoSkip: all of it), in its order.
  static Destinations without(std::shared_ptr<const std::vector<Endpoint>> list, std::size_t skip) {
    Destinations d;
    d.count_ = list->size() - (skip < list->size() ? 1 : 0);
    d.skip_ = skip < list->size() ? skip : kNoSkip;
    d.list_ = std::move(list);
    return d;
  }
  // The n - 1 entries after entry `from`, in turn, wrapping round (all but `from`).
  static Destinations after(std::shared_ptr<const std::vector<Endpoint>> list, std::size_t from) {
    Destinations d;
    d.count_ = list->size() - 1;
    d.first_ = from + 1 == list->size() ? 0 : from + 1;
    d.list_ = std::move(list);
    return d;
  }

  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  Endpoint operator[](std::size_t i) const { return (*list_)[index(i)]; }
  // The shared list (the simulation resolves its LIDs once per list).
  const std::shared_ptr<const std::vector<Endpoint>>& list() const { return list_; }
  // The shared list's LIDs, entry by entry, and this flow's offset to add.
  void set_lids(std::shared_ptr<const std::vector<uint16_t>> lids, uint16_t offset) {
    lids_ = std::move(lids);
    offset_ = offset;
  }
  uint16_t lid(std::size_t i) const { return static_cast<uint16_t>((*lids_)[index(i)] + offset_); }

 private:
  std::size_t index(std::size_t i) const {
    const std::size_t j = first_ + (i < skip_ ? i : i + 1);  // first_ < n and j - first_ < n
    return j >= list_->size() ? j - list_->size() : j;
  }
  std::shared_ptr<const std::vector<Endpoint>> list_;
  std::shared_ptr<const std::vector<uint16_t>> lids_;
  std::size_t first_ = 0;
  std::size_t skip_ = kNoSkip;
  std::size_t count_ = 0;
  uint16_t offset_ = 0;
};

struct FlowSpec {
  std::string name;
  std::string pattern;         // the traffic pattern it came from; "" = a single flow
  unsigned src_node = 0;       // index of the source HCA
  unsigned src_port = 0;       // port index on it
  unsigned dst_node = 0;       // Fixed: the destination HCA and port
  unsigned dst_port = 0;
  DestChoice choice = DestChoice::Fixed;
  Destinations dsts;           // Uniform, Cycle, HotSpot: the destinations to pick from
  Destinations hot;            // HotSpot: the hot destinations
  double hot_fraction = 0;     // HotSpot: share of packets to `hot`
  uint64_t seed = 0;           // Uniform, HotSpot: seed of the flow's random choices
  uint32_t dest_qp = 0;
  uint8_t sl = 0;
  // sl "path": each packet's SL is the path's from its SLID to its DLID (the
  // SA's answer), `sl` unused; null: every packet on `sl`.
  std::shared_ptr<const routing::PathSlTable> path_sls;
  bool vl15 = false;           // send on VL15 (management) to QP0: each packet one 256-byte SMP, SubnGet(NodeInfo)
  uint32_t payload = 4096;     // bytes per packet (vl15: always 256, the SMP)
  double rate_bps = 0;         // offered rate of packet bytes (LRH..VCRC); 0 with load 0 = saturate
  double load = 0;             // offered load as a fraction of the source link; 0 = use rate_bps
  config::SourceSettings source; // rate-limited: arrival process and source queue bound
  uint64_t count = 0;          // packets to send; 0 = until the run ends
  uint64_t start_ps = 0;

  // Filled by the simulation from the fabric's LIDs.
  uint16_t slid = 0;
  uint16_t dlid = 0;               // Fixed (dsts and hot hold the others' LIDs)
};

// Counts of the whole run, counts of the measured window (measure_window.hpp),
// and the latencies of the measured packets (those made in the window).
struct FlowResult {
  // The source, over the whole run.
  uint64_t created = 0;                  // packets made (offered)
  uint64_t sent = 0;                     // accepted by the source port
  uint64_t dropped_at_source = 0;        // refused by the source port (MTU, SL to VL15)
  uint64_t dropped_source_queue = 0;     // arrivals that found a bounded source queue full
  uint64_t source_queue_high_water = 0;  // most packets waiting in the source queue
  // Delivery, over the whole run.
  uint64_t delivered = 0;
  uint64_t delivered_bytes = 0;      // wire bytes
  uint64_t delivered_payload = 0;
  uint64_t first_delivery_ps = 0;
  uint64_t last_delivery_ps = 0;
  // A flow with one destination (FlowRecorder::track_order): packets delivered
  // after a later packet of the flow (reordered on the way: adaptive routing).
  uint64_t out_of_order = 0;
  uint64_t next_seq = 0;             // one past the latest packet delivered in order
  // The measured window.
  uint64_t offered = 0;              // packets made in the window
  uint64_t offered_bytes = 0;        // their wire bytes
  uint64_t offered_lost = 0;         // of them, dropped at the source (queue full, refused by the port)
  uint64_t measured_delivered = 0;   // of them, delivered
  uint64_t accepted_bytes = 0;       // wire bytes delivered in the window (made in it or before)
  uint64_t accepted_payload = 0;
  // Latencies of the measured packets, ps: the whole, and its parts.
  trace::LatencyRecord latency_ps;       // made -> taken by the destination host
  trace::LatencyRecord source_wait_ps;   // made -> first byte on the source link (source queue and transmit buffer)
  trace::LatencyRecord port_wait_ps;     // accepted by the source port -> first byte on the source link
  trace::LatencyRecord network_ps;       // first byte on the source link -> taken by the destination host

  // Adds what another record saw delivered (a partition's recorder).
  void add_deliveries(const FlowResult& r);
  // Adds another record's source counts (a pattern's total over its flows).
  void add_sources(const FlowResult& r);
};

}  // namespace hcasim::workloads
