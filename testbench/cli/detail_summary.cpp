#include "testbench/cli/detail_summary.hpp"

#include <algorithm>
#include <cmath>

namespace hcasim {

namespace {

// Adds each unsigned count among the object's own members (not nested) to
// totals, except the names given.
// Both objects' members are in key order: one walk over the two, no lookup
// per member (a large fabric adds every VL of every port).
void add_counts(nlohmann::json& totals, const nlohmann::json& object, std::initializer_list<const char*> except = {}) {
  if (totals.is_null()) totals = nlohmann::json::object();
  auto& sums = totals.get_ref<nlohmann::json::object_t&>();
  auto at = sums.begin();
  for (const auto& member : object.get_ref<const nlohmann::json::object_t&>()) {
    // Not a structured binding: clang 14 (the sanitized passes') refuses one in a lambda's capture.
    const std::string& key = member.first;
    const nlohmann::json& value = member.second;
    if (!value.is_number_unsigned()) continue;
    if (std::any_of(except.begin(), except.end(), [&](const char* e) { return key == e; })) continue;
    while (at != sums.end() && at->first < key) ++at;
    if (at != sums.end() && at->first == key) at->second = at->second.get<uint64_t>() + value.get<uint64_t>();
    else at = sums.emplace_hint(at, key, value.get<uint64_t>());
  }
}

void add_number(nlohmann::json& totals, const std::string& key, double v) {
  const auto it = totals.find(key);
  totals[key] = (it == totals.end() ? 0.0 : it->get<double>()) + v;
}

double number(const nlohmann::json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<double>() : 0.0;
}

uint64_t count(const nlohmann::json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_number_unsigned() ? it->get<uint64_t>() : 0;
}

}  // namespace

nlohmann::json distribution_json(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto rank = [&](double q) {
    if (v.empty()) return 0.0;
    const std::size_t k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
    return v[std::min(v.size(), std::max<std::size_t>(k, 1)) - 1];
  };
  double sum = 0;
  for (double x : v) sum += x;
  return {{"count", v.size()},
          {"mean", v.empty() ? 0.0 : sum / static_cast<double>(v.size())},
          {"min", v.empty() ? 0.0 : v.front()},
          {"p50", rank(0.50)},
          {"p90", rank(0.90)},
          {"p99", rank(0.99)},
          {"max", v.empty() ? 0.0 : v.back()}};
}

std::size_t DetailSummary::first_count(const std::string& kind) {
  if (kind == "flows" || kind == "qps" || kind == "engines") return 8;
  if (kind == "hosts") return 4;
  return 0;
}

void DetailSummary::add(const std::string& kind, const nlohmann::json& object) {
  ++counts_[kind];
  std::vector<nlohmann::json>& first = first_[kind];
  if (first.size() < first_count(kind)) first.push_back(object);
  if (kind == "ports") add_port(object);
  else if (kind == "switches") {
    add_counts(switch_totals_, object, {"lid", "level", "ports"});
    auto& [switches, forwarded] = switch_levels_[object["level"].get<unsigned>()];
    ++switches;
    forwarded += count(object, "forwarded");
  } else if (kind == "flows") add_flow(object);
  else if (kind == "qps") {
    add_counts(qp_totals_, object, {"qpn", "port"});
    for (const char* nak : {"naks_received", "naks_sent"})
      for (const auto& [reason, n] : object[nak].items())
        qp_totals_[nak][reason] = count(qp_totals_[nak], reason.c_str()) + n.get<uint64_t>();
    const std::string type = object["type"].get<std::string>(), state = object["state"].get<std::string>();
    qp_types_[type] = count(qp_types_, type.c_str()) + 1;
    qp_states_[state] = count(qp_states_, state.c_str()) + 1;
  } else if (kind == "engines") {
    add_counts(engine_totals_, object);
    engine_utilization_.push_back(number(object, "utilization"));
  } else if (kind == "hosts") add_host(object);
}

void DetailSummary::add_port(const nlohmann::json& p) {
  uint64_t stall = 0, tx_packets = 0, drops = 0;
  double data_bps = 0;
  for (const nlohmann::json& v : p["vls"]) {
    add_counts(port_totals_, v, {"vl", "rx_buffer_high_water_bytes", "tx_buffer_high_water_bytes"});
    for (const auto& [reason, n] : v["drops"].items()) {
      drops_[reason] = count(drops_, reason.c_str()) + n.get<uint64_t>();
      drops += n.get<uint64_t>();
    }
    stall += count(v, "credit_stall_ps");
    tx_packets += count(v, "tx_packets");
    data_bps += number(v, "tx_data_throughput_bps");
  }
  add_counts(port_totals_, p, {"mtu", "operational_vls", "level", "peer_level", "pkey_violations"});
  if (p["peer"].get<std::string>().empty()) return;
  ++connected_;
  stalled_ += stall != 0;
  const double u = number(p, "utilization");
  utilization_.push_back(u);
  stall_share_.push_back(sim_ps_ ? static_cast<double>(stall) / static_cast<double>(sim_ps_) : 0.0);
  by_link_[{p["level"].get<unsigned>(), p["peer_level"].get<unsigned>()}].push_back(u);
  const auto hotter = [](const Hot& a, const Hot& b) {
    return a.utilization != b.utilization ? a.utilization > b.utilization : a.name < b.name;
  };
  Hot h{u, p["name"].get<std::string>(), {}};
  if (hottest_.size() >= kHottest && !hotter(h, hottest_.back())) return;
  h.entry = {{"name", p["name"]},
             {"peer", p["peer"]},
             {"level", p["level"]},
             {"peer_level", p["peer_level"]},
             {"utilization", u},
             {"tx_packets", tx_packets},
             {"fc_packets_sent", p["fc_packets_sent"]},
             {"tx_data_throughput_bps", data_bps},
             {"credit_stall_ps", stall},
             {"drops", drops}};
  if (hottest_.size() < kHottest) hottest_.push_back(std::move(h));
  else hottest_.back() = std::move(h);
  std::sort(hottest_.begin(), hottest_.end(), hotter);
}

void DetailSummary::add_flow(const nlohmann::json& f) {
  add_counts(flow_totals_, f, {"sl", "payload_bytes", "source_queue_high_water"});
  for (const char* k : {"offered_bps", "accepted_bps", "data_throughput_bps"}) add_number(flow_totals_, k, number(f, k));
  accepted_load_.push_back(number(f, "accepted_load"));
  carried_.push_back(number(f, "carried"));
  if (count(f["latency"], "count") == 0) return;
  const double p99 = number(f["latency"], "p99_ns");
  p99_.push_back(p99);
  nlohmann::json entry = {{"name", f["name"]},      {"src", f["src"]},
                          {"dst", f["dst"]},        {"p99_ns", p99},
                          {"accepted_load", f["accepted_load"]}, {"carried", f["carried"]}};
  worst_.emplace_back(p99, std::move(entry));
  if (worst_.size() > 4 * kWorst) {  // keep the list short as flows stream by
    std::stable_sort(worst_.begin(), worst_.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    worst_.resize(kWorst);
  }
}

void DetailSummary::add_host(const nlohmann::json& h) {
  for (const auto& [kind, c] : h["caches"].items()) {
    nlohmann::json& t = caches_[kind];
    add_counts(t, c, {"occupancy"});
  }
  add_counts(driver_, h["driver"]);
  add_counts(front_end_, h["front_end"]);
  pcie_up_.push_back(number(h["pcie"]["upstream"], "utilization"));
  pcie_down_.push_back(number(h["pcie"]["downstream"], "utilization"));
}

nlohmann::json DetailSummary::ports_json() const {
  nlohmann::json by_link = nlohmann::json::array();
  for (const auto& [levels, values] : by_link_) {
    nlohmann::json d = distribution_json(values);
    by_link.push_back({{"level", levels.first}, {"peer_level", levels.second}, {"utilization", std::move(d)}});
  }
  nlohmann::json hottest = nlohmann::json::array();
  for (const Hot& h : hottest_) hottest.push_back(h.entry);
  const auto it = counts_.find("ports");
  return {{"count", it == counts_.end() ? 0 : it->second},
          {"connected", connected_},
          {"totals", port_totals_},
          {"drops", drops_},
          {"credit_stall", {{"ports_stalled", stalled_}, {"share", distribution_json(stall_share_)}}},
          {"utilization", {{"all", distribution_json(utilization_)}, {"by_link", std::move(by_link)}}},
          {"hottest", std::move(hottest)}};
}

void DetailSummary::write(nlohmann::json& doc) const {
  const auto n = [&](const char* kind) {
    const auto it = counts_.find(kind);
    return it == counts_.end() ? uint64_t{0} : it->second;
  };
  const auto first = [&](const char* kind) {
    const auto it = first_.find(kind);
    return it == first_.end() ? nlohmann::json::array() : nlohmann::json(it->second);
  };
  doc["ports"] = ports_json();

  nlohmann::json levels = nlohmann::json::array();
  for (const auto& [level, c] : switch_levels_)
    levels.push_back({{"level", level}, {"switches", c.first}, {"forwarded", c.second}});
  doc["switches"] = {{"count", n("switches")}, {"totals", switch_totals_}, {"by_level", std::move(levels)}};

  std::vector<std::pair<double, nlohmann::json>> worst = worst_;
  std::stable_sort(worst.begin(), worst.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  if (worst.size() > kWorst) worst.resize(kWorst);
  nlohmann::json worst_list = nlohmann::json::array();
  for (auto& w : worst) worst_list.push_back(std::move(w.second));
  doc["flows"] = {{"count", n("flows")},
                  {"totals", flow_totals_},
                  {"accepted_load", distribution_json(accepted_load_)},
                  {"carried", distribution_json(carried_)},
                  {"latency_p99_ns", distribution_json(p99_)},
                  {"worst_p99", std::move(worst_list)},
                  {"first", first("flows")}};

  doc["qps"] = {{"count", n("qps")}, {"by_type", qp_types_}, {"by_state", qp_states_}, {"totals", qp_totals_},
                {"first", first("qps")}};
  doc["engines"] = {{"count", n("engines")}, {"totals", engine_totals_},
                    {"utilization", distribution_json(engine_utilization_)}, {"first", first("engines")}};

  nlohmann::json caches = caches_;
  for (auto& [kind, c] : caches.items()) {
    const uint64_t lookups = count(c, "lookups"), hits = count(c, "hits");
    c["hit_rate"] = lookups ? static_cast<double>(hits) / static_cast<double>(lookups) : 1.0;
  }
  doc["hosts"] = {{"count", n("hosts")},
                  {"caches", std::move(caches)},
                  {"driver", driver_},
                  {"front_end", front_end_},
                  {"pcie_utilization",
                   {{"upstream", distribution_json(pcie_up_)}, {"downstream", distribution_json(pcie_down_)}}},
                  {"first", first("hosts")}};
}

}  // namespace hcasim
