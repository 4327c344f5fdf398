#include "testbench/workloads/traffic_patterns.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <utility>

#include "models/config/service_level.hpp"

namespace hcasim::workloads {

namespace {
uint64_t splitmix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
std::size_t below(std::mt19937_64& rng, std::size_t n) {
  return static_cast<std::size_t>((static_cast<unsigned __int128>(rng()) * n) >> 64);
}
// Position of each endpoint of a list, to find one without a search per flow.
class Positions {
 public:
  explicit Positions(const std::vector<Endpoint>& list) {
    for (std::size_t i = 0; i < list.size(); ++i) at_.emplace(std::make_pair(list[i].node, list[i].port), i);
  }
  // Its first position, or Destinations::kNoSkip when absent.
  std::size_t of(const Endpoint& e) const {
    auto it = at_.find({e.node, e.port});
    return it == at_.end() ? Destinations::kNoSkip : it->second;
  }

 private:
  std::map<std::pair<unsigned, unsigned>, std::size_t> at_;
};
}  // namespace

uint64_t mix_seed(uint64_t a, uint64_t b, uint64_t c) { return splitmix(splitmix(splitmix(a) ^ b) ^ c); }

std::vector<FlowSpec> expand_pattern(const config::TrafficPatternConfig& p, const std::vector<Endpoint>& hosts,
                                     const std::vector<Endpoint>& targets, uint64_t run_seed, unsigned pattern_index,
                                     const std::vector<std::string>& host_names, const std::string& where) {
  using config::TrafficKind;
  std::vector<Endpoint> sources = hosts;
  if (p.kind == TrafficKind::Incast) {
    sources.clear();
    for (const Endpoint& h : hosts)
      if (std::find(targets.begin(), targets.end(), h) == targets.end()) sources.push_back(h);
  }
  const std::size_t needed = p.kind == TrafficKind::Incast ? 1 : 2;
  if (sources.size() < needed)
    throw config::ConfigError(where + ".hosts", "the pattern has " + std::to_string(sources.size()) +
                                                    " sending hosts; accepted: at least " + std::to_string(needed));

  std::vector<std::size_t> image(hosts.size());
  if (p.kind == TrafficKind::Shift)  // load_scenario checked the shift against the hosts
    for (std::size_t i = 0; i < image.size(); ++i) image[i] = (i + p.shift) % image.size();
  if (p.kind == TrafficKind::Permutation) {
    std::mt19937_64 rng(mix_seed(run_seed, pattern_index, 0x7065726dull));
    for (std::size_t i = 0; i < image.size(); ++i) image[i] = i;
    for (std::size_t i = image.size() - 1; i > 0; --i) std::swap(image[i], image[below(rng, i)]);  // Sattolo
  }

  // One list of the hosts and one of the targets, shared by every flow's view
  // (the flow's own destinations are that list without itself).
  const auto all = std::make_shared<const std::vector<Endpoint>>(hosts);
  const auto hot = std::make_shared<const std::vector<Endpoint>>(targets);
  const Positions host_at(hosts), target_at(targets);
  std::vector<FlowSpec> flows;
  flows.reserve(sources.size());
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const Endpoint src = sources[i];
    const std::size_t at = p.kind == TrafficKind::Incast ? host_at.of(src) : i;  // the other kinds send from every host
    FlowSpec f;
    f.name = p.name + "." + host_names[at];
    f.pattern = p.name;
    f.src_node = src.node;
    f.src_port = src.port;
    f.sl = p.sl == config::kPathSl ? 0 : static_cast<uint8_t>(p.sl);  // "path": the caller gives the table
    f.payload = static_cast<uint32_t>(p.payload);
    f.rate_bps = p.rate.bps;
    f.load = p.rate.load;
    f.source = p.source;
    f.count = p.count;
    f.start_ps = p.start_ps;
    f.seed = mix_seed(run_seed, pattern_index, at);
    switch (p.kind) {
      case TrafficKind::Uniform:
        f.choice = DestChoice::Uniform;
        f.dsts = Destinations::without(all, at);
        break;
      case TrafficKind::Permutation:
      case TrafficKind::Shift:
        f.choice = DestChoice::Fixed;
        f.dst_node = hosts[image[at]].node;
        f.dst_port = hosts[image[at]].port;
        break;
      case TrafficKind::Incast:
        if (targets.size() == 1) {
          f.choice = DestChoice::Fixed;
          f.dst_node = targets[0].node;
          f.dst_port = targets[0].port;
        } else {
          f.choice = DestChoice::Uniform;
          f.dsts = Destinations::without(hot, Destinations::kNoSkip);
        }
        break;
      case TrafficKind::AllToAll:
        f.choice = DestChoice::Cycle;
        f.dsts = Destinations::after(all, at);
        break;
      case TrafficKind::HotSpot:
        f.choice = DestChoice::HotSpot;
        f.dsts = Destinations::without(all, at);
        f.hot = Destinations::without(hot, target_at.of(src));
        f.hot_fraction = f.hot.empty() ? 0.0 : p.hot_fraction;
        break;
    }
    flows.push_back(std::move(f));
  }
  return flows;
}

}  // namespace hcasim::workloads
