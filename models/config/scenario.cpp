#include "models/config/scenario.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "models/config/config_schema.hpp"
#include "models/config/guid_file.hpp"
#include "models/config/resource_limits.hpp"
#include "models/config/service_level.hpp"
#include "models/config/ibnetdiscover.hpp"
#include "models/config/notices.hpp"
#include "models/config/partitions_conf.hpp"
#include "models/config/switch_config_io.hpp"
#include "models/routing/adaptive_groups.hpp"
#include "models/config/topology_json.hpp"
#include "models/config/transport_config_io.hpp"
#include "models/config/units.hpp"
#include "models/ib/mad.hpp"
#include "models/switch/forwarding_table.hpp"
#include "models/topology/topology_generators.hpp"

namespace hcasim::config {

using routing::RoutingAlgorithm;
using routing::TieBreak;
using topology::NodeKind;
using topology::TopoNode;
using topology::Topology;
using topology::port_name;

namespace {

FlowRate parse_flow_rate(const nlohmann::json& v, const std::string& path) {
  const std::string accepted = "accepted: \"saturate\", a rate such as \"50Gb/s\", or a share of the link such as \"25%\"";
  if (!v.is_string()) throw ConfigError(path, "expected a string; " + accepted);
  const std::string s = v.get<std::string>();
  FlowRate r;
  if (s == "saturate") return r;
  if (!s.empty() && s.back() == '%') {
    char* end = nullptr;
    const double pct = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() - 1 || !(pct > 0) || pct > 100)
      throw ConfigError(path, "'" + s + "' is not a percentage in (0, 100]; " + accepted);
    r.load = pct / 100.0;
    return r;
  }
  r.bps = parse_rate_bps(v, path);
  if (!(r.bps > 0)) throw ConfigError(path, "rate must be above zero; " + accepted);
  return r;
}

// parse_flow_rate's forms; the percentage as a plain decimal in (0, 100] (strtod also takes rarer
// spellings such as "1e1%", which the schema does not).
nlohmann::json flow_rate_schema() {
  const std::string percent = "^(100(\\.0*)?|0*[1-9][0-9]?(\\.[0-9]*)?|0*\\.(?=[0-9]*[1-9])[0-9]+)%$";
  return schema::any_of({{{"const", "saturate"}}, schema::pattern(percent), schema::rate()});
}

nlohmann::json format_flow_rate(const FlowRate& r) {
  if (r.load > 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.10g%%", r.load * 100.0);
    return buf;
  }
  if (r.bps > 0) return format_rate_bps(r.bps);
  return "saturate";
}

Warmup parse_warmup(const nlohmann::json& v, const std::string& path) {
  Warmup w;
  if (v.is_string() && v.get<std::string>() == "auto") {
    w.automatic = true;
    return w;
  }
  if (!v.is_string())
    throw ConfigError(path, "expected a string; accepted: \"auto\" or a time such as \"20us\"");
  w.ps = parse_time_ps(v, path);
  return w;
}

nlohmann::json format_warmup(const Warmup& w) { return w.automatic ? nlohmann::json("auto") : nlohmann::json(format_time_ps(w.ps)); }

nlohmann::json warmup_schema() { return schema::any_of({{{"const", "auto"}}, schema::time()}); }

std::vector<std::string> parse_string_list(const nlohmann::json& v, const std::string& path) {
  if (!v.is_array()) throw ConfigError(path, "expected a list of names such as [\"hca0.p1\"]");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) throw ConfigError(path + "." + std::to_string(i), "expected a name string");
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

nlohmann::json format_string_list(const std::vector<std::string>& v) { return v; }

nlohmann::json string_list_schema() { return {{"type", "array"}, {"items", {{"type", "string"}}}}; }

// routing.algorithm: one engine, or OpenSM's chain as a list or as OpenSM's
// routing_engine string ("ftree,updn"), "no_fallback" among them as OpenSM has it.
constexpr std::pair<const char*, routing::RoutingAlgorithm> kEngines[] = {
    {"minhop", routing::RoutingAlgorithm::MinHop},
    {"updn", routing::RoutingAlgorithm::Updn},
    {"dor", routing::RoutingAlgorithm::Dor},
    {"ftree", routing::RoutingAlgorithm::Ftree},
    {"lash", routing::RoutingAlgorithm::Lash},
    {"dfsssp", routing::RoutingAlgorithm::Dfsssp},
    {"sssp", routing::RoutingAlgorithm::Sssp},
    {"nue", routing::RoutingAlgorithm::Nue},
    {"updown", routing::RoutingAlgorithm::UpDown}};
constexpr const char* kNoFallback = "no_fallback";

std::string engine_names() {
  std::string names;
  for (const auto& e : kEngines) names += std::string(names.empty() ? "" : ", ") + e.first;
  return names;
}

routing::EngineChain parse_engine_chain(const nlohmann::json& v, const std::string& path) {
  std::vector<std::pair<std::string, std::string>> words;  // (name, its path)
  if (v.is_string()) {
    const std::string text = v.get<std::string>();
    std::size_t at = 0;
    while (at < text.size()) {  // OpenSM splits on commas, spaces and tabs
      const std::size_t end = std::min(text.size(), text.find_first_of(", \t", at));
      if (end > at) words.emplace_back(text.substr(at, end - at), path);
      at = end + 1;
    }
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string()) throw ConfigError(path + "." + std::to_string(i), "expected an engine name; accepted: " + engine_names());
      words.emplace_back(v[i].get<std::string>(), path + "." + std::to_string(i));
    }
  } else {
    throw ConfigError(path, "expected an engine name or a list of them (OpenSM's chain); accepted: " + engine_names());
  }
  routing::EngineChain chain;
  chain.engines.clear();
  for (const auto& word : words) {
    const std::string& name = word.first;
    const std::string& at = word.second;
    if (name == kNoFallback) {
      chain.fallback = false;
      continue;
    }
    const auto* e = std::find_if(std::begin(kEngines), std::end(kEngines), [&name](const auto& x) { return name == x.first; });
    if (e == std::end(kEngines))
      throw ConfigError(at, "unknown engine '" + name + "'; accepted: " + engine_names() + ", and " + kNoFallback + " in a chain");
    chain.engines.push_back(e->second);
  }
  if (chain.engines.empty())
    throw ConfigError(path, "names no engine; accepted: " + engine_names() + " (one, or a list tried in order)");
  return chain;
}

nlohmann::json format_engine_chain(const routing::EngineChain& c) {
  if (c.engines.size() == 1 && c.fallback) return routing::engine_name(c.engines[0]);
  nlohmann::json list = nlohmann::json::array();
  for (routing::RoutingAlgorithm a : c.engines) list.push_back(routing::engine_name(a));
  if (!c.fallback) list.push_back(kNoFallback);
  return list;
}

nlohmann::json engine_chain_schema() {
  nlohmann::json names = nlohmann::json::array();
  for (const auto& e : kEngines) names.push_back(e.first);
  nlohmann::json in_chain = names;
  in_chain.push_back(kNoFallback);
  return schema::any_of({{{"type", "string"}, {"pattern", "^[a-z_, \\t]+$"}},
                         {{"type", "array"}, {"minItems", 1}, {"items", {{"enum", in_chain}}}}});
}

Topology parse_graph(const nlohmann::json& v, const std::string& path) {
  return v.is_null() ? Topology{} : topology_from_json(v, path);
}

nlohmann::json format_graph(const Topology& t) {
  return t.nodes.empty() ? nlohmann::json(nullptr) : topology_to_json(t);
}

nlohmann::json graph_schema() { return schema::any_of({schema::null(), topology_json_schema()}); }

bool matches(const std::string& pattern, const std::string& name) {
  return fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

// What names an override's targets: its key and an example value.
template <class Entry>
struct OverrideName;
template <>
struct OverrideName<PortOverride> {
  static constexpr std::string PortOverride::*field = &PortOverride::port;
  static constexpr const char* key = "port";
  static constexpr const char* example = "a port name such as \"hca1.p1\" (wildcards allowed)";
};
template <>
struct OverrideName<LinkOverride> {
  static constexpr std::string LinkOverride::*field = &LinkOverride::port;
  static constexpr const char* key = "port";
  static constexpr const char* example = OverrideName<PortOverride>::example;
};
template <>
struct OverrideName<HcaOverride> {
  static constexpr std::string HcaOverride::*field = &HcaOverride::hca;
  static constexpr const char* key = "hca";
  static constexpr const char* example = "an HCA name such as \"hca1\" (wildcards allowed)";
};

// Reads a list of {"<key>": name, ...config keys} entries: each config is the
// defaults with the entry's keys on top (an HCA entry with its own "preset":
// that preset with the entry's keys on top).
template <class Entry, class Config>
std::vector<Entry> parse_overrides(const nlohmann::json& v, const std::string& path, const Config& defaults,
                                   const std::string& example) {
  const std::string name_key = OverrideName<Entry>::key;
  if (!v.is_array()) throw ConfigError(path, "expected a list of objects with \"" + name_key + "\" and " + example);
  std::vector<Entry> out;
  const nlohmann::json base = write_config(defaults);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string at = path + "." + std::to_string(i);
    if (!v[i].is_object()) throw ConfigError(at, "expected an object with \"" + name_key + "\" and " + example);
    if (!v[i].contains(name_key) || !v[i][name_key].is_string())
      throw ConfigError(at + "." + name_key, std::string("missing; accepted: ") + OverrideName<Entry>::example);
    nlohmann::json merged = base;
    if constexpr (std::is_same_v<Config, HcaSettings>)
      if (v[i].contains("preset")) merged = nlohmann::json::object();  // the entry's preset is its base
    nlohmann::json keys = nlohmann::json::object();
    for (auto it = v[i].begin(); it != v[i].end(); ++it)
      if (it.key() != name_key) merged[it.key()] = keys[it.key()] = it.value();
    Entry e;
    e.*OverrideName<Entry>::field = v[i][name_key].get<std::string>();
    e.config = read_config<Config>(merged, at);
    if constexpr (std::is_same_v<Entry, LinkOverride>) e.keys = keys;
    out.push_back(std::move(e));
  }
  return out;
}

template <class Entry>
nlohmann::json format_overrides(const std::vector<Entry>& list) {
  nlohmann::json out = nlohmann::json::array();
  for (const Entry& o : list) {
    nlohmann::json j = write_config(o.config);
    j[OverrideName<Entry>::key] = o.*OverrideName<Entry>::field;
    out.push_back(j);
  }
  return out;
}

// parse_overrides' form: a list of the config's objects, each with its required name key.
template <class Entry, class Config>
nlohmann::json override_schema() {
  nlohmann::json entry = config_schema<Config>();
  entry["properties"][OverrideName<Entry>::key] = {{"type", "string"},
                                                   {"description", OverrideName<Entry>::example}};
  entry["required"] = {OverrideName<Entry>::key};
  return {{"type", "array"}, {"items", std::move(entry)}};
}

// A list of {"port": name, ...keys} entries, each read on top of `defaults`.
template <class Io, class Entry, class Config>
void describe_overrides(Io& io, const std::string& key, std::vector<Entry>& list, const Config& defaults,
                        const std::string& keys_text, const std::string& help) {
  const Config base = defaults;  // the defaults as read so far, not as they may change later
  io.custom(
      key, list,
      [base, keys_text](const nlohmann::json& v, const std::string& path) {
        return parse_overrides<Entry>(v, path, base, keys_text);
      },
      format_overrides<Entry>,
      Accepted(std::string("a list of objects: \"") + OverrideName<Entry>::key + "\" (wildcards allowed) plus any " +
                   keys_text,
               override_schema<Entry, Config>),
      help);
}

const Names<Pattern> kPatterns{{"back_to_back", Pattern::BackToBack}, {"single_switch", Pattern::SingleSwitch},
                               {"fat_tree", Pattern::FatTree},         {"mesh", Pattern::Mesh},
                               {"torus", Pattern::Torus},              {"dragonfly", Pattern::Dragonfly},
                               {"explicit", Pattern::Explicit},        {"ibnetdiscover", Pattern::Ibnetdiscover}};

// The topology keys that belong to some patterns only.
const std::vector<std::pair<std::string, std::vector<Pattern>>> kPatternKeys{
    {"hosts", {Pattern::SingleSwitch}},
    {"switch_ports", {Pattern::SingleSwitch}},
    {"k", {Pattern::FatTree}},
    {"levels", {Pattern::FatTree}},
    {"x", {Pattern::Mesh, Pattern::Torus}},
    {"y", {Pattern::Mesh, Pattern::Torus}},
    {"hosts_per_switch", {Pattern::Mesh, Pattern::Torus}},
    {"a", {Pattern::Dragonfly}},
    {"p", {Pattern::Dragonfly}},
    {"h", {Pattern::Dragonfly}},
    {"graph", {Pattern::Explicit}},
    {"file", {Pattern::Explicit, Pattern::Ibnetdiscover}}};

bool applies(const std::string& key, Pattern p) {
  for (const auto& [k, patterns] : kPatternKeys)
    if (k == key) return std::find(patterns.begin(), patterns.end(), p) != patterns.end();
  return true;
}

std::string pattern_name(Pattern p) {
  for (const auto& [name, value] : kPatterns)
    if (value == p) return name;
  return "?";
}

}  // namespace

template <class Io>
void describe(Io& io, TopologyConfig& c) {
  io.choice("pattern", c.pattern, kPatterns,
            "back_to_back, single_switch, fat_tree (k-ary n-tree), mesh, torus (2-D), dragonfly, "
            "explicit (graph or a JSON file) or ibnetdiscover (file)");
  io.uint("hosts", c.hosts, 1, 254, "single_switch: HCAs on the switch");
  io.uint("switch_ports", c.switch_ports, 0, 254, "single_switch: switch ports; 0 = hosts");
  io.uint("k", c.k, 2, 127, "fat_tree: arity k (k^levels hosts, switches of 2k ports)");
  io.uint("levels", c.levels, 2, 3, "fat_tree: switch levels");
  io.uint("x", c.x, 2, 64, "mesh, torus: switches along x");
  io.uint("y", c.y, 2, 64, "mesh, torus: switches along y");
  io.uint("hosts_per_switch", c.hosts_per_switch, 1, 64, "mesh, torus: HCAs per switch");
  io.uint("a", c.a, 1, 64, "dragonfly: routers per group");
  io.uint("p", c.p, 1, 64, "dragonfly: HCAs per router");
  io.uint("h", c.h, 1, 64, "dragonfly: global links per router");
  io.custom("graph", c.graph, parse_graph, format_graph, {"{\"nodes\": [...], \"links\": [...]} or null", graph_schema},
            "explicit: nodes {name, kind hca|switch, ports} and links {a, b, speed, width, length}");
  io.string("file", c.file, "ibnetdiscover: the dump to import; explicit: a JSON file of nodes and links "
                            "(relative to the scenario file)");
  for (const auto& [key, patterns] : kPatternKeys) {
    if (!io.present(key) || applies(key, c.pattern)) continue;
    std::string names;
    for (Pattern p : patterns) names += (names.empty() ? "" : " or ") + pattern_name(p);
    io.fail(key, "does not apply to pattern " + pattern_name(c.pattern) + "; accepted: only with pattern " + names);
  }
}

template <class Io>
void describe(Io& io, AdaptiveSettings& c) {
  io.choice("mode", c.mode, Names<sw::ArMode>{{"off", sw::ArMode::Off}, {"free", sw::ArMode::Free},
                                              {"bounded", sw::ArMode::Bounded}},
            "off: the LFTs route every packet; free: each data packet chooses a port of its destination's AR group "
            "(every minimum-hop port towards it); bounded: a flow (SLID, DLID) keeps its port until it has been "
            "idle for `ageing` (NVIDIA's two AR modes)");
  io.uint_list("sls", c.sls, 0, 15, 0, 16, "the SLs routed adaptively; [] = all");
  io.choice("choice", c.choice,
            Names<sw::ArChoice>{{"least_queued", sw::ArChoice::LeastQueued}, {"random", sw::ArChoice::Random},
                                {"least_queued_of_k", sw::ArChoice::LeastQueuedOfK}},
            "least_queued: the group's port with the fewest bytes queued on the packet's output VL (ties round "
            "the group); random: uniformly; least_queued_of_k: the least queued of k drawn at random");
  io.uint("k", c.k, 1, 254, "least_queued_of_k: ports drawn per choice");
  io.time("ageing", c.ageing_ps, 1, 10'000'000'000'000ull,
          "bounded: how long a flow must be idle before it chooses a port again (NVIDIA's default 30us)");
  // Set away from its default without the choice or mode it is for: a mistake.
  const AdaptiveSettings defaults;
  if (c.k != defaults.k && c.choice != sw::ArChoice::LeastQueuedOfK)
    io.fail("k", "applies only to choice \"least_queued_of_k\"; accepted: that choice, or leave k out");
  if (c.ageing_ps != defaults.ageing_ps && c.mode != sw::ArMode::Bounded)
    io.fail("ageing", "applies only to mode \"bounded\"; accepted: that mode, or leave ageing out");
}

template <class Io>
void describe(Io& io, RoutingSettings& c) {
  io.custom("algorithm", c.algorithm, parse_engine_chain, format_engine_chain,
            {"an engine name, or a list of them tried in order (OpenSM's routing-engine chain; also as OpenSM's "
             "string \"updn,minhop\"), with no_fallback as OpenSM has it",
             engine_chain_schema},
            "minhop (OpenSM's minhop engine, entry for entry), updn (OpenSM's updn engine: up/down, entry for "
            "entry; refuses a fabric where it finds no root), dor (OpenSM's dimension-order engine, entry for "
            "entry: min-hop, each switch sending a LID out of the lowest dimension that shortens its path), "
            "ftree (OpenSM's fat-tree engine, entry for entry; refuses a fabric that is not a fat tree, and LMC > "
            "0), lash (OpenSM's LASH, entry for entry: shortest paths spread over virtual layers, an SL per pair "
            "of switches; refuses when it needs more layers than the switch ports have VLs), dfsssp (OpenSM's "
            "deadlock-free SSSP, entry for entry: weighted shortest paths per destination LID, an SL per pair of "
            "LIDs; refuses when it needs more VLs than the switch ports have), sssp (the same paths, one layer, "
            "no SLs), nue (OpenSM's Nue, entry for entry: weighted paths per destination LID that never close a "
            "cycle of channel dependencies, deadlock-free in nue_max_num_vls virtual layers, one by default) or "
            "updown (hcasim's "
            "own loop-free up*/down*, not an OpenSM engine). A list is OpenSM's chain: the "
            "first engine that routes the fabric routes it, each refusal is a note; when all refuse, minhop "
            "routes it unless the list has no_fallback");
  io.custom("roots", c.roots, parse_string_list, format_string_list, {"a list of switch names", string_list_schema},
            "updn, updown: root switches; [] = chosen automatically");
  io.choice("tie_break", c.tie_break,
            Names<TieBreak>{{"lowest_port", TieBreak::LowestPort}, {"shifted", TieBreak::Shifted}},
            "among equally loaded min-hop ports: lowest_port (OpenSM) or shifted (the search starts at a port "
            "that depends on the switch, spreading LIDs over the top of multi-level fat trees)");
  io.uint("lmc", c.lmc, 0, routing::kMaxLmc, "LMC: each HCA port gets 2^lmc LIDs, routed separately");
  io.uint("lash_start_vl", c.lash_start_vl, 0, 14,
          "lash: the first SL (and VL) its virtual layers use, below the fewest operational VLs of a switch port "
          "(OpenSM's lash_start_vl)");
  io.uint("nue_max_num_vls", c.nue_max_num_vls, 0, 15,
          "nue: the virtual layers (SLs, VLs) it may use, its destinations dealt round robin onto them; 0 = as "
          "many as the switch ports' operational VLs, more than they have = that many (OpenSM's nue_max_num_vls, "
          "which OpenSM honours above 1 only with its QoS on)");
  io.boolean("nue_include_switches", c.nue_include_switches,
             "nue: route to the switches' own LIDs inside the deadlock-free layers too, not after them on spanning "
             "trees (OpenSM's nue_include_switches)");
  for (const auto& [key, set] : {std::pair<const char*, bool>{"nue_max_num_vls", c.nue_max_num_vls != 1},
                                 {"nue_include_switches", c.nue_include_switches}})
    if (set && !c.algorithm.contains(RoutingAlgorithm::Nue))
      io.fail(key, "applies only to algorithm nue; accepted: algorithm \"nue\" (or a chain with it), or leave it out");
  io.boolean("check_credit_loops", c.check_credit_loops,
             "check the routes for credit loops before running (validate always checks)");
  io.object("adaptive", c.adaptive,
            "the switches' adaptive routing (docs/adaptive-routing.md); its groups are checked for credit loops "
            "always");
  io.string("root_guid_file", c.root_guid_file,
            "ftree: OpenSM's root_guid_file, the root switches' NodeGUIDs, one per line (relative to the scenario "
            "file); \"\" = none (ranks from the HCAs, and the tree must be a pure fat tree)");
  io.string("cn_guid_file", c.cn_guid_file,
            "ftree, dfsssp, sssp: OpenSM's cn_guid_file, the compute nodes' port GUIDs, one per line; \"\" = none "
            "(ftree: every HCA port is a compute node; dfsssp, sssp: they are routed first)");
  io.string("io_guid_file", c.io_guid_file,
            "ftree, dfsssp, sssp: OpenSM's io_guid_file, the I/O nodes' port GUIDs, one per line (routed after the "
            "compute nodes; ftree: max_reverse_hops is 0, OpenSM's default); \"\" = none");
  if (!c.root_guid_file.empty() && !c.algorithm.contains(RoutingAlgorithm::Ftree))
    io.fail("root_guid_file",
            "applies only to algorithm ftree; accepted: algorithm \"ftree\" (or a chain with it), or \"\"");
  const bool node_files = c.algorithm.contains(RoutingAlgorithm::Ftree) ||
                          c.algorithm.contains(RoutingAlgorithm::Dfsssp) ||
                          c.algorithm.contains(RoutingAlgorithm::Sssp);
  for (const auto& [key, file] : {std::pair<const char*, const std::string&>{"cn_guid_file", c.cn_guid_file},
                                   {"io_guid_file", c.io_guid_file}})
    if (!file.empty() && !node_files)
      io.fail(key, "applies only to algorithms ftree, dfsssp and sssp; accepted: one of them (or a chain with one), "
                   "or \"\"");
}

template <class Io>
void describe(Io& io, Sl2VlRule& c) {
  io.string("switch", c.switch_name, "switch name (wildcards allowed)");
  io.uint_list("in", c.in, 0, 254, 0, 255, "input port numbers (0 = management port); [] = all");
  io.uint_list("out", c.out, 1, 254, 0, 254, "output port numbers; [] = all");
  io.uint_list("sl2vl", c.sl2vl, 0, 15, 16, 16, "16 VLs indexed by SL (15 = drop)");
  // A rule is its table: without one it has nothing to install (scenario_schema says it too).
  if (c.sl2vl.size() != 16) io.fail("sl2vl", "missing; accepted: a list of 16 VLs 0-15 indexed by SL");
}

template <class Io>
void describe(Io& io, SwitchSettings& c) {
  sw::describe(io, c.core);
  io.list("sl2vl", c.sl2vl, "per (input, output) SL-to-VL tables, on top of each output port's sl2vl");
}

template <class Io>
void describe(Io& io, SourceSettings& c) {
  io.choice("arrival", c.arrival,
            Names<Arrival>{{"deterministic", Arrival::Deterministic},
                           {"poisson", Arrival::Poisson},
                           {"on_off", Arrival::OnOff}},
            "inter-arrival times at the offered rate: deterministic (fixed), poisson (exponential), "
            "on_off (bursts of geometric length sent back to back at the link's rate, exponential gaps)");
  io.real("burst", c.burst, 1.0, 1e9, "on_off: mean packets per burst");
  io.uint64("queue", c.queue, 0, UINT64_MAX,
            "source queue bound in packets; 0 = unbounded; arrivals finding it full are dropped and counted");
}

template <class Io>
void describe(Io& io, FlowConfig& c) {
  io.string("name", c.name, "flow name in stats.json; empty = flow<index>");
  io.string("src", c.src, "source port");
  io.string("dst", c.dst, "destination port");
  describe_sl(io, c.sl, "service level");
  io.boolean("vl15", c.vl15,
             "send management packets on VL15 to QP0, each a 256-byte SMP (LID-routed SubnGet(NodeInfo))");
  io.bytes("payload", c.payload, 0, 4096, "payload bytes per packet (vl15: 256B, the SMP)");
  if (c.vl15 && c.payload != ib::kMadBytes)
    io.fail("payload", format_bytes(c.payload) + " with vl15; accepted: 256B (a VL15 packet carries one 256-byte MAD)");
  io.custom("rate", c.rate, parse_flow_rate, format_flow_rate,
            {"\"saturate\", a rate, or \"NN%\" of the link", flow_rate_schema},
            "offered load");
  io.object("source", c.source, "a rate-limited flow's packet arrivals and source queue (open loop)");
  io.uint64("count", c.count, 0, UINT64_MAX, "packets to send; 0 = until run.duration");
  io.time("start", c.start_ps, 0, UINT64_MAX, "time of the first packet");
}

template <class Io>
void describe(Io& io, TrafficPatternConfig& c) {
  io.string("name", c.name, "pattern name; its flows are <name>.<source port>; empty = pattern<index>");
  io.choice("kind", c.kind,
            Names<TrafficKind>{{"uniform", TrafficKind::Uniform},
                               {"permutation", TrafficKind::Permutation},
                               {"incast", TrafficKind::Incast},
                               {"all_to_all", TrafficKind::AllToAll},
                               {"hotspot", TrafficKind::HotSpot},
                               {"shift", TrafficKind::Shift}},
            "uniform (each packet to a random other host), permutation (a random derangement, fixed per run), "
            "incast (hosts to the targets), all_to_all (each host cycles over the others), "
            "hotspot (uniform, with hot_fraction of packets to the targets), "
            "shift (host i to host i + shift of the hosts' list, mod its length: adversarial patterns, like a "
            "dragonfly's group shift or a torus's tornado)");
  io.custom("hosts", c.hosts, parse_string_list, format_string_list,
            {"a list of HCA port names (wildcards allowed)", string_list_schema},
            "HCA ports taking part (incast: the senders); [] = every HCA port");
  io.custom("targets", c.targets, parse_string_list, format_string_list, {"a list of HCA port names", string_list_schema},
            "incast: the receivers; hotspot: the hot ports");
  io.real("hot_fraction", c.hot_fraction, 0.0, 1.0, "hotspot: share of packets sent to the targets");
  io.uint("shift", c.shift, 1, 1u << 20, "shift: how far along the hosts' list each host sends");
  describe_sl(io, c.sl, "service level");
  io.bytes("payload", c.payload, 0, 4096, "payload bytes per packet");
  io.custom("rate", c.rate, parse_flow_rate, format_flow_rate,
            {"\"saturate\", a rate, or \"NN%\" of the link", flow_rate_schema},
            "offered load of each source");
  io.object("source", c.source, "each rate-limited source's packet arrivals and source queue (open loop)");
  io.uint64("count", c.count, 0, UINT64_MAX, "packets per source; 0 = until run.duration");
  io.time("start", c.start_ps, 0, UINT64_MAX, "time of the first packet");
}

template <class Io>
void describe(Io& io, SwarmConfig& c) {
  io.string("name", c.name, "swarm name in stats.json; empty = swarm<index>");
  io.custom("machines", c.machines, parse_string_list, format_string_list,
            {"a list of HCA port names", string_list_schema}, "the machines' HCA ports; [] = port 1 of every HCA");
  io.uint("threads", c.threads, 1, 256, "worker threads per machine, each a CPU thread of the host's driver");
  io.uint("ports", c.ports, 1, 16,
          "ports of each machine's HCA the threads use: thread t makes its QPs on port p + t mod ports of the HCA, "
          "p the listed port's number (rc-swarm on dual-port cards: 2)");
  io.uint("vms", c.vms, 1, 4096,
          "virtual machines emulated per machine (M): each thread makes a QP per machine per virtual machine");
  io.choice("op", c.op, Names<SwarmOp>{{"read", SwarmOp::Read}, {"write", SwarmOp::Write}},
            "RDMA READ or WRITE, every operation signaled");
  io.bytes("size", c.size, 1, uint64_t{1} << 20, "bytes per operation");
  io.uint("window", c.window, 1, 1u << 16, "operations a thread keeps outstanding over its QPs");
  io.bytes("buffer", c.buffer, 4096, uint64_t{1} << 30,
           "each thread's registered buffer; remote addresses are random 64-byte-aligned offsets in it");
  io.uint("regions", c.regions, 1, 1u << 20,
          "memory regions each thread's buffer is registered as (equal parts; a remote address uses the region "
          "that holds it)");
  io.uint("max_rd_atomic", c.max_rd_atomic, 1, 255, "READs a QP keeps outstanding, and accepts as responder");
  io.uint("sq_depth", c.sq_depth, 1, 1u << 16, "send queue depth of each QP");
  io.time("start", c.start_ps, 0, UINT64_MAX, "when the threads start posting");
  io.time("warmup", c.warmup_ps, 0, UINT64_MAX, "operations completed before start + warmup are not counted");
}

template <class Io>
void describe(Io& io, WorkloadConfig& c) {
  io.list("flows", c.flows, "raw-packet flows between named ports");
  io.list("patterns", c.patterns, "raw-packet traffic patterns over many hosts");
  io.list("perftest", c.perftest, "perftest-like tests (ib_write_bw ...) over the verbs API");
  io.list("swarm", c.swarm, "rdma_bench's rc-swarm: machines doing RDMA to one another over many QPs");
  io.list("verbs", c.verbs, "verbs scripts: connections, their operations and the completions they must end in");
  io.list("dma", c.dma, "DMA tests of an HCA's PCIe link and host memory, as pcie-bench runs them");
}

template <class Io>
void describe(Io& io, RunConfig& c) {
  io.time("duration", c.duration_ps, 0, UINT64_MAX, "simulated time to run; 0ns = until idle");
  io.uint64("seed", c.seed, 0, UINT64_MAX, "random seed (traffic pattern destinations; link faults whose faults.seed is 0)");
  io.uint("partitions", c.partitions, 1, kMaxPartitions,
          "parallel simulation: the fabric split in this many parts, run in windows on threads of their own "
          "(hcasim run --threads); changes the order of events at equal times, deterministically; "
          "raw traffic only, no pcap, VCD, time series, RTL blocks or management in band");
  io.bytes("memory_limit", c.memory_limit, 0, UINT64_MAX,
           "memory the model may need, estimated before it is built (docs/limits.md); a larger scenario is "
           "refused; 0B = this machine's physical memory");
  MeasureSettings& m = c.measure;
  io.custom("warmup", m.warmup, parse_warmup, format_warmup, {"\"auto\" or a time", warmup_schema},
            "raw flows: packets made before this time are not measured; auto = until two successive "
            "warmup_period samples of mean latency and accepted throughput differ by less than warmup_threshold");
  io.time("measure", m.measure_ps, 0, UINT64_MAX,
          "raw flows: the measured window after the warm-up; packets made in it are measured, and the run ends "
          "when they are delivered (drain); 0ns = to the end of the run");
  io.time("drain_limit", m.drain_limit_ps, 0, UINT64_MAX, "longest drain after the measured window; 0ns = as long as the window");
  io.time("warmup_period", m.period_ps, 1000, UINT64_MAX, "warmup auto: the sample period");
  io.real("warmup_threshold", m.threshold, 1e-6, 1.0, "warmup auto: largest relative change between two samples");
  io.uint("warmup_max_periods", m.max_periods, 2, 1000000,
          "warmup auto: sample periods after which measuring starts anyway (stats.json: steady_state false)");
}

template <class Io>
void describe(Io& io, OutputConfig& c) {
  io.choice("details", c.details,
            Names<DetailsOutput>{{"db", DetailsOutput::Db},
                                 {"json", DetailsOutput::Json},
                                 {"both", DetailsOutput::Both},
                                 {"none", DetailsOutput::None}},
            "where the run's detail goes (one row per port, VL, switch, flow, QP, engine, host, cache; "
            "docs/results.md): db (results.db, SQLite), json (details.json: every object in full, for at most " +
                std::to_string(kDetailsJsonLimit) + " ports and flows), both, or none (stats.json only)");
  io.boolean("pcap", c.pcap, "write packets.pcap (also --pcap)");
  io.custom("pcap_ports", c.pcap_ports, parse_string_list, format_string_list, {"a list of port names", string_list_schema},
            "ports whose transmissions go into the pcap; [] = every port");
  io.boolean("vcd", c.vcd, "write waves.vcd (also --vcd)");
  io.boolean("routing_dump", c.routing_dump,
             "write the tables the fabric ends the run with in OpenSM's dump formats: opensm-lfts.dump, "
             "opensm-subnet.lst, opensm-sl2vl.dump (docs/routing.md; also hcasim validate --dump DIR)");
  io.boolean("rtl_vcd", c.rtl_vcd,
             "write rtl.vcd: the internal signals of the RTL blocks of ports with vl_arbiter or credit_manager "
             "\"rtl\" or \"rtl+check\" (open with waveforms/rtl_b2b.gtkw)");
  io.time("sample_interval", c.sample_interval_ps, 0, UINT64_MAX,
          "write timeseries.csv: every interval, per port and data VL bytes sent, credits available, "
          "receive-buffer bytes and credit-stall time, per flow and transport QP bytes delivered "
          "(docs/timeseries.md); 0ns = none; run.partitions 1 only");
  io.boolean("hop_latency", c.hop_latency,
             "per switch port in stats.json: hop_latency, each data packet's time from its arrival at the switch "
             "to its first byte on this port's wire");
}

template <class Io>
void describe(Io& io, link::LinkEventConfig& c) {
  io.string("link", c.link, "the link, named by the port at either end (no wildcards), e.g. \"sw0.p3\"");
  io.time("down", c.down_ps, 0, UINT64_MAX, "when the link goes physically down");
  io.time("up", c.up_ps, 0, UINT64_MAX, "when it is reconnected (training starts); 0ns = never");
  io.time("training", c.training_ps, 0, UINT64_MAX,
          "link training, from reconnection to LinkUp with PortState Init (model's choice of default: "
          "no source gives one)");
  if (c.up_ps != 0 && c.up_ps <= c.down_ps)
    io.fail("up", format_time_ps(c.up_ps) + " is not after down (" + format_time_ps(c.down_ps) +
                      "); accepted: a later time, or 0ns for never");
}

template <class Io>
void describe(Io& io, Scenario& c) {
  io.string("name", c.name, "scenario name");
  io.object("topology", c.topology, "topology");
  io.object("routing", c.routing, "LIDs and forwarding tables, installed at time zero");
  io.object("port", c.port, "defaults of every port (HCA and switch)");
  describe_overrides(io, "port_overrides", c.port_overrides, c.port, "port keys",
                     "per-port parameters on top of the defaults");
  io.object("switch", c.switches, "switch forwarding core");
  io.object("link", c.link, "defaults of every link");
  describe_overrides(io, "link_overrides", c.link_overrides, c.link, "link keys (the port names either end)",
                     "per-link parameters (speed, width, propagation, ...) on top of the defaults");
  const bool hca_given = io.present("hca");  // false when writing (an emitter reads nothing)
  io.object("hca", c.hca, "the host side of every HCA: PCIe link, host memory, driver, host interface");
  describe_overrides(io, "hca_overrides", c.hca_overrides, c.hca, "hca keys",
                     "per-HCA host sides (\"hca\": an HCA name) on top of the hca defaults");
  // hca.device's transport timings, under the scenario's own transport keys (hca_devices.hpp).
  if (hca_given) apply_device(c.hca.device, c.transport);
  for (std::size_t i = 0; i < c.hca_overrides.size(); ++i)
    if (!same_transport(c.hca_overrides[i].config.device, c.hca.device))
      io.fail("hca_overrides." + std::to_string(i) + ".device",
              "its transport timings are not hca.device's, and transport is one object for every HCA; accepted: a "
              "device with the same transport values (docs/devices/)");
  io.object("transport", c.transport, "transport engines of every HCA");
  io.object("workload", c.workload, "traffic");
  io.object("management", c.management, "subnet management: pre-configured or in band");
  io.object("congestion_control", c.congestion_control,
            "congestion control (IBA Annex A10): FECN marking, BECN and CNPs, CCTI and injection delay; off by default");
  io.list("link_events", c.link_events,
          "links taken physically down at a time and reconnected later (docs/fabric-events.md); [] = none");
  io.object("run", c.run, "run settings");
  io.object("outputs", c.outputs, "outputs");
}

namespace {

std::string read_text_file(const std::string& path, const std::string& json_path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(json_path, "cannot open '" + path + "'; accepted: a readable file");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

Topology make_graph(const TopologyConfig& c, const std::string& base_dir) {
  const std::string file = c.file.empty() || c.file[0] == '/' || base_dir.empty() ? c.file : base_dir + "/" + c.file;
  try {
    switch (c.pattern) {
      case Pattern::BackToBack: return topology::back_to_back_topology();
      case Pattern::SingleSwitch: return topology::single_switch_topology(c.hosts, c.switch_ports);
      case Pattern::FatTree: return topology::fat_tree_topology(c.k, c.levels);
      case Pattern::Mesh: return topology::mesh_topology(c.x, c.y, c.hosts_per_switch, false);
      case Pattern::Torus: return topology::mesh_topology(c.x, c.y, c.hosts_per_switch, true);
      case Pattern::Dragonfly: return topology::dragonfly_topology(c.a, c.p, c.h);
      case Pattern::Explicit: {
        if (c.file.empty() == c.graph.nodes.empty())
          throw ConfigError("topology", "explicit needs exactly one of graph and file; accepted: "
                                        "\"graph\": {\"nodes\": [...], \"links\": [...]} or \"file\": \"fabric.json\"");
        if (!c.file.empty()) {
          nlohmann::json j;
          try {
            j = nlohmann::json::parse(read_text_file(file, "topology.file"));
          } catch (const nlohmann::json::parse_error&) {
            throw ConfigError("topology.file", "'" + file + "' is not valid JSON; accepted: {\"nodes\": [...], \"links\": [...]}");
          }
          return topology_from_json(j, file);
        }
        return c.graph;
      }
      case Pattern::Ibnetdiscover: {
        if (c.file.empty()) throw ConfigError("topology.file", "missing; accepted: the path of an ibnetdiscover dump");
        std::istringstream in(read_text_file(file, "topology.file"));
        return read_ibnetdiscover(in, file);
      }
    }
  } catch (const std::invalid_argument& e) {
    throw ConfigError("topology", e.what());
  }
  return {};
}

// Every port name of the graph, with its node and port number.
struct PortDirectory {
  std::vector<std::string> names;
  std::vector<topology::LinkEnd> ends;
  std::map<std::string, std::size_t> index;

  explicit PortDirectory(const Topology& t) {
    for (unsigned n = 0; n < t.nodes.size(); ++n)
      for (unsigned p = 1; p <= t.nodes[n].ports; ++p) {
        index[port_name(t, {n, p})] = names.size();
        names.push_back(port_name(t, {n, p}));
        ends.push_back({n, p});
      }
  }
  // Indices of the ports a name or wildcard pattern matches.
  std::vector<std::size_t> match(const std::string& pattern) const {
    if (pattern.find_first_of("*?[") == std::string::npos) {
      auto it = index.find(pattern);
      if (it == index.end()) return {};
      return {it->second};
    }
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < names.size(); ++i)
      if (matches(pattern, names[i])) out.push_back(i);
    return out;
  }
};

// The first six names, then the count: "sw0, sw1, ..., sw5, ... (20 switches)".
std::string some_names(const std::vector<std::string>& names, const std::string& noun = "ports") {
  std::string list;
  for (std::size_t i = 0; i < names.size() && i < 6; ++i) list += (list.empty() ? "" : ", ") + names[i];
  if (names.size() > 6) list += ", ... (" + std::to_string(names.size()) + " " + noun + ")";
  return list;
}

std::vector<std::string> switch_names(const Topology& t) {
  std::vector<std::string> names;
  for (const TopoNode& n : t.nodes)
    if (n.kind == NodeKind::Switch) names.push_back(n.name);
  return names;
}

// "a switch of the topology: sw0, sw1, ..." or, without switches, says so.
std::string accepted_switches(const Topology& t) {
  const std::vector<std::string> names = switch_names(t);
  return names.empty() ? "none: the topology has no switches" : "a switch of the topology: " + some_names(names, "switches");
}

void require_ports(const Topology& t, const PortDirectory& dir, const std::string& pattern, const std::string& path,
                   bool hca_only) {
  const auto found = dir.match(pattern);
  bool any = false;
  for (std::size_t i : found) any = any || !hca_only || t.nodes[dir.ends[i].node].kind == NodeKind::Hca;
  if (any) return;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < dir.names.size(); ++i)
    if (!hca_only || t.nodes[dir.ends[i].node].kind == NodeKind::Hca) names.push_back(dir.names[i]);
  throw ConfigError(path, "no " + std::string(hca_only ? "HCA port" : "port") + " named '" + pattern +
                              "'; accepted: " + some_names(names));
}

link::LinkConfig apply_params(link::LinkConfig c, const topology::LinkParams& p) {
  if (p.speed) c.speed = *p.speed;
  if (p.width) c.width = *p.width;
  if (p.length_m) {
    c.length_m = *p.length_m;
    c.propagation_ps = 0;
  }
  return c;
}

link::LinkConfig link_config(const Scenario& s, const topology::TopoLink& l) {
  link::LinkConfig c = apply_params(s.link, l.params);
  const std::string a = port_name(s.graph, l.a), b = port_name(s.graph, l.b);
  for (std::size_t i = 0; i < s.hca_overrides.size(); ++i) {
    bool any = false;
    for (const TopoNode& n : s.graph.nodes) any = any || (n.kind == NodeKind::Hca && matches(s.hca_overrides[i].hca, n.name));
    if (!any)
      throw ConfigError("hca_overrides." + std::to_string(i) + ".hca",
                        "no HCA named '" + s.hca_overrides[i].hca + "'; accepted: an HCA name (wildcards allowed)");
  }
  for (std::size_t i = 0; i < s.link_overrides.size(); ++i) {
    const LinkOverride& o = s.link_overrides[i];
    if (!matches(o.port, a) && !matches(o.port, b)) continue;
    nlohmann::json merged = write_config(c);
    for (auto it = o.keys.begin(); it != o.keys.end(); ++it) merged[it.key()] = it.value();
    c = read_config<link::LinkConfig>(merged, "link_overrides." + std::to_string(i));
  }
  return c;
}

}  // namespace

namespace {

// The spec's nodes and links, LIDs and tables left out.
FabricSpec unrouted_spec(const Scenario& s) {
  FabricSpec spec;
  spec.lmc = s.routing.lmc;
  spec.congestion_control = s.congestion_control;
  // Sized once: a fabric's spec lives as long as the fabric, and vectors
  // grown by doubling would keep up to half again in spare capacity.
  spec.nodes.reserve(s.graph.nodes.size());
  spec.links.reserve(s.graph.links.size());
  for (unsigned n = 0; n < s.graph.nodes.size(); ++n) {
    const TopoNode& t = s.graph.nodes[n];
    NodeSpec node;
    node.name = t.name;
    node.kind = t.kind;
    node.switch_config = s.switches.core;
    node.transport = s.transport;
    if (t.kind == NodeKind::Hca) node.hca = hca_settings(s, t.name);
    node.ports.reserve(t.ports);
    for (unsigned p = 1; p <= t.ports; ++p) node.ports.push_back(port_config(s, port_name(s.graph, {n, p})));
    spec.nodes.push_back(std::move(node));
  }
  for (const topology::TopoLink& l : s.graph.links) {
    link::LinkConfig c = link_config(s, l);
    if (c.faults.seed == 0) c.faults.seed = s.run.seed;  // each port mixes in its own name (fault_injector.hpp)
    spec.links.push_back({l.a.node, l.a.port - 1, l.b.node, l.b.port - 1, c});
  }
  for (const Sl2VlRule& r : s.switches.sl2vl) {
    std::array<uint8_t, 16> table{};
    for (unsigned sl = 0; sl < 16; ++sl) table[sl] = static_cast<uint8_t>(r.sl2vl[sl]);
    for (unsigned n = 0; n < s.graph.nodes.size(); ++n) {
      const TopoNode& t = s.graph.nodes[n];
      if (t.kind != NodeKind::Switch || !matches(r.switch_name, t.name)) continue;
      for (unsigned out = 1; out <= t.ports; ++out)
        for (unsigned in = 0; in <= t.ports; ++in) {
          const bool in_ok = r.in.empty() || std::find(r.in.begin(), r.in.end(), in) != r.in.end();
          const bool out_ok = r.out.empty() || std::find(r.out.begin(), r.out.end(), out) != r.out.end();
          if (!in_ok || !out_ok) continue;
          spec.sl2vl[{n, in, out}] = table;  // a later rule wins
        }
    }
  }
  return spec;
}

}  // namespace

std::vector<std::string> port_names(const Scenario& s) { return PortDirectory(s.graph).names; }

std::vector<std::string> hca_port_names(const Scenario& s) {
  std::vector<std::string> out;
  for (unsigned n = 0; n < s.graph.nodes.size(); ++n)
    if (s.graph.nodes[n].kind == NodeKind::Hca)
      for (unsigned p = 1; p <= s.graph.nodes[n].ports; ++p) out.push_back(port_name(s.graph, {n, p}));
  return out;
}

HcaSettings hca_settings(const Scenario& s, const std::string& hca) {
  HcaSettings c = s.hca;
  for (const HcaOverride& o : s.hca_overrides)
    if (matches(o.hca, hca)) c = o.config;
  return c;
}

link::PortConfig port_config(const Scenario& s, const std::string& port) {
  link::PortConfig c = s.port;
  for (const PortOverride& o : s.port_overrides)
    if (matches(o.port, port)) c = o.config;
  return c;
}

namespace {
// switch.shared: each input VL's reserved share holds one packet of its port's
// MTU (else a VL whose sender waits for room might never get it), and the pool
// of every switch (by default its ports' receive buffers summed) holds the
// reserved shares of all its input VLs.
void check_shared_buffer(const Scenario& s) {
  const sw::SwitchConfig& c = s.switches.core;
  if (c.architecture != sw::Architecture::Shared) return;
  constexpr uint64_t kOverhead = 128;  // headers (LRH, GRH, BTH, extended), pad and CRCs of any packet, rounded up
  const uint64_t reserved = c.shared.reserved_bytes / link::kCreditBlockBytes;
  for (unsigned n = 0; n < s.graph.nodes.size(); ++n) {
    const topology::TopoNode& node = s.graph.nodes[n];
    if (node.kind != topology::NodeKind::Switch) continue;
    uint64_t buffers = 0, needed = 0;
    for (unsigned p = 1; p <= node.ports; ++p) {
      const link::PortConfig pc = port_config(s, port_name(s.graph, {n, p}));
      if (c.shared.reserved_bytes < pc.mtu + kOverhead)
        throw ConfigError("switch.shared.reserved",
                          std::to_string(c.shared.reserved_bytes) + " bytes hold less than one packet of MTU " +
                              std::to_string(pc.mtu) + " (" + port_name(s.graph, {n, p}) + "); accepted: at least " +
                              std::to_string(pc.mtu + kOverhead) + "B");
      for (unsigned vl = 0; vl < pc.effective_vls(); ++vl) buffers += link::rx_buffer_bytes(pc, vl) / link::kCreditBlockBytes;
      needed += uint64_t{pc.effective_vls()} * reserved;
    }
    const uint64_t pool = c.shared.pool_bytes != 0 ? c.shared.pool_bytes / link::kCreditBlockBytes : buffers;
    if (pool < needed)
      throw ConfigError(c.shared.pool_bytes != 0 ? "switch.shared.pool" : "switch.shared.reserved",
                        "switch " + node.name + " has " + std::to_string(pool * link::kCreditBlockBytes) +
                            " bytes of pool for reserved shares of " +
                            std::to_string(needed * link::kCreditBlockBytes) +
                            " bytes; accepted: a pool at least that large (switch.shared.pool, 0B = the ports' "
                            "receive buffers summed) or a smaller reserve");
  }
}

// Parallel simulation needs every part of the model on the partitions'
// timelines: what runs on the SystemC kernel or spans the fabric is refused.
void check_partitions(const Scenario& s) {
  if (s.run.partitions == 1) return;
  const auto refuse = [&](const std::string& what) {
    throw ConfigError("run.partitions", std::to_string(s.run.partitions) + " with " + what + "; accepted: 1 with " + what);
  };
  if (s.run.partitions > s.graph.nodes.size())
    throw ConfigError("run.partitions", std::to_string(s.run.partitions) + " for " + std::to_string(s.graph.nodes.size()) +
                                            " nodes; accepted: at most the node count");
  if (!s.workload.perftest.empty() || !s.workload.verbs.empty() || !s.workload.swarm.empty())
    refuse("transport workloads (perftest, swarm, verbs)");
  if (!s.workload.dma.empty()) refuse("DMA tests (workload.dma)");
  if (s.management.mode != ManagementMode::Preconfigured) refuse("management in band (in_band, external)");
  if (s.outputs.pcap) refuse("outputs.pcap");
  if (s.outputs.vcd) refuse("outputs.vcd");
  if (s.outputs.sample_interval_ps != 0) refuse("outputs.sample_interval");
  if (s.run.measure.windowed()) refuse("a measured window (run.warmup, run.measure)");
  const auto rtl = [](const link::PortConfig& c) {
    return c.vl_arbiter != link::Implementation::Model || c.credit_manager != link::Implementation::Model;
  };
  bool any_rtl = rtl(s.port);
  for (const PortOverride& o : s.port_overrides) any_rtl = any_rtl || rtl(o.config);
  if (any_rtl) refuse("RTL blocks (vl_arbiter, credit_manager)");
}
}  // namespace

namespace {
// The scenario without its "$schema" key: that names the JSON Schema an editor checks the
// file with (docs/scenario-schema.md) and means nothing to a run; it must be a string.
nlohmann::json without_schema_key(const nlohmann::json& root) {
  if (!root.is_object() || !root.contains(kSchemaKey)) return root;
  if (!root[kSchemaKey].is_string())
    throw ConfigError(kSchemaKey, "expected a string, got " + describe_json_type(root[kSchemaKey]) +
                                      "; accepted: the path or URL of scenario.schema.json");
  nlohmann::json rest = root;
  rest.erase(kSchemaKey);
  return rest;
}

// The scenario name names the default output folder. (scenario_schema states it as kPlainName.)
bool plain_name(const std::string& name) {
  return !name.empty() && name[0] != '.' && std::all_of(name.begin(), name.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.';
  });
}
constexpr const char* kPlainName = "^[A-Za-z0-9_-][A-Za-z0-9_.-]*$";
}  // namespace

namespace {

// Every node's NodeGUID as the builder has it (given, or derived).
std::vector<uint64_t> fabric_spec_guids(const Scenario& s) {
  FabricSpec spec;
  spec.nodes.resize(s.graph.nodes.size());
  std::vector<uint64_t> guids;
  for (unsigned n = 0; n < spec.nodes.size(); ++n) {
    spec.nodes[n].guid = s.graph.nodes[n].guid;
    guids.push_back(node_guid(spec, n));
  }
  return guids;
}

// The partitions' tables by node; SELF is management.sm (its default: the first HCA port).
std::vector<mgmt::NodePartitions> partition_tables_of(const Scenario& s, const std::vector<uint64_t>& guids) {
  const ManagementSpec m = management_spec(s.management, s.graph, hca_port_names(s), routing::RoutingConfig{});
  try {
    return mgmt::partition_tables(s.partitions, s.graph, guids, m.sm_node, m.sm_port);
  } catch (const std::invalid_argument& e) {
    throw ConfigError("management.partitions", e.what());
  }
}

// management.partitions: the rules parsed, then resolved once so that a
// member naming no port is an error now (route_fabric resolves them again).
void read_partitions(Scenario& s, const std::string& base_dir) {
  const PartitionsConfig& c = s.management.partitions;
  if (!c.file.empty() && !c.rules.empty())
    throw ConfigError("management.partitions", "both file and rules are given; accepted: one of them");
  if (c.file.empty() && c.rules.empty()) return;
  s.partitions.enforcement = c.switch_enforcement;
  if (!c.file.empty()) {
    const std::string file = c.file[0] == '/' || base_dir.empty() ? c.file : base_dir + "/" + c.file;
    s.partitions.source = c.file;
    s.partitions.rules = parse_partitions_conf(read_text_file(file, "management.partitions.file"), c.file);
  } else {
    s.partitions.source = "management.partitions.rules";
    s.partitions.rules = parse_partitions_conf(c.rules, s.partitions.source);
  }
  (void)partition_tables_of(s, fabric_spec_guids(s));
}

// routing.*_guid_file: read now, so a missing file or a bad line is a config error.
void read_guid_files(Scenario& s, const std::string& base_dir) {
  const auto read = [&](const std::string& file, const char* key) -> std::optional<std::vector<uint64_t>> {
    if (file.empty()) return std::nullopt;
    const std::string at = std::string("routing.") + key;
    const std::string path = file[0] == '/' || base_dir.empty() ? file : base_dir + "/" + file;
    return parse_guid_file(read_text_file(path, at), file, at);
  };
  s.ftree_guids.roots = read(s.routing.root_guid_file, "root_guid_file");
  s.ftree_guids.cns = read(s.routing.cn_guid_file, "cn_guid_file");
  s.ftree_guids.ios = read(s.routing.io_guid_file, "io_guid_file");
}


}  // namespace

Scenario load_scenario(const nlohmann::json& root, const std::string& base_dir) {
  Scenario s = read_config<Scenario>(without_schema_key(root));
  if (!plain_name(s.name))
    throw ConfigError("name", "'" + s.name + "' is not a plain name (it names the default output folder); "
                              "accepted: letters, digits, '_', '-' and '.', not starting with '.'");
  check_topology_size(s);
  s.graph = make_graph(s.topology, base_dir);
  if (const std::string why = topology::check_topology(s.graph); !why.empty()) throw ConfigError("topology", why);
  const PortDirectory dir(s.graph);
  const topology::TopologyIndex index(s.graph);

  check_port(s.port, "port");
  for (std::size_t i = 0; i < s.port_overrides.size(); ++i) {
    const std::string at = "port_overrides." + std::to_string(i);
    require_ports(s.graph, dir, s.port_overrides[i].port, at + ".port", false);
    check_port(s.port_overrides[i].config, at);
  }
  for (std::size_t i = 0; i < s.link_overrides.size(); ++i)
    require_ports(s.graph, dir, s.link_overrides[i].port, "link_overrides." + std::to_string(i) + ".port", false);
  for (std::size_t i = 0; i < s.link_events.size(); ++i) {
    const std::string at = "link_events." + std::to_string(i) + ".link";
    const std::string& name = s.link_events[i].link;
    if (name.find_first_of("*?[") != std::string::npos)
      throw ConfigError(at, "'" + name + "' has a wildcard; accepted: one port name");
    require_ports(s.graph, dir, name, at, false);
    const topology::LinkEnd end = dir.ends[dir.match(name).front()];
    const bool linked = std::any_of(s.graph.links.begin(), s.graph.links.end(), [&](const topology::TopoLink& l) {
      return (l.a.node == end.node && l.a.port == end.port) || (l.b.node == end.node && l.b.port == end.port);
    });
    if (!linked) throw ConfigError(at, "port '" + name + "' has no link; accepted: a port at one end of a link");
    if (s.run.partitions > 1)
      throw ConfigError("link_events", "link events with run.partitions " + std::to_string(s.run.partitions) +
                                           "; accepted: run.partitions 1");
  }
  for (std::size_t i = 0; i < s.routing.roots.size(); ++i) {
    const int n = index.find(s.routing.roots[i]);
    if (n < 0 || s.graph.nodes[static_cast<unsigned>(n)].kind != NodeKind::Switch)
      throw ConfigError("routing.roots." + std::to_string(i),
                        "no switch named '" + s.routing.roots[i] + "'; accepted: " + accepted_switches(s.graph));
  }
  for (std::size_t i = 0; i < s.switches.sl2vl.size(); ++i) {
    const Sl2VlRule& r = s.switches.sl2vl[i];
    bool any = false;
    for (const TopoNode& n : s.graph.nodes) any = any || (n.kind == NodeKind::Switch && matches(r.switch_name, n.name));
    if (!any)
      throw ConfigError("switch.sl2vl." + std::to_string(i) + ".switch",
                        "no switch named '" + r.switch_name + "'; accepted: " + accepted_switches(s.graph) +
                            " (wildcards allowed)");
  }

  const auto check_flow_ends = [&](const std::string& at, uint64_t count) {
    if (count == 0 && s.run.duration_ps == 0 && s.run.measure.measure_ps == 0)
      throw ConfigError(at + ".count", "0 sends forever but run.duration and run.measure are 0; accepted: a count "
                                       "above 0, or set run.duration or run.measure (the run ends when the measured packets are in)");
  };
  for (std::size_t i = 0; i < s.workload.flows.size(); ++i) {
    FlowConfig& f = s.workload.flows[i];
    const std::string at = "workload.flows." + std::to_string(i);
    if (f.name.empty()) f.name = "flow" + std::to_string(i);
    for (const auto& [key, name] : {std::pair{".src", f.src}, std::pair{".dst", f.dst}}) {
      if (name.find_first_of("*?[") != std::string::npos)
        throw ConfigError(at + key, "'" + name + "' has a wildcard; accepted: one HCA port name");
      require_ports(s.graph, dir, name, at + key, true);
    }
    if (f.src == f.dst) throw ConfigError(at + ".dst", "equals src; accepted: another port");
    check_flow_ends(at, f.count);
  }
  for (std::size_t i = 0; i < s.workload.patterns.size(); ++i) {
    TrafficPatternConfig& p = s.workload.patterns[i];
    const std::string at = "workload.patterns." + std::to_string(i);
    if (p.name.empty()) p.name = "pattern" + std::to_string(i);
    for (std::size_t h = 0; h < p.hosts.size(); ++h)
      require_ports(s.graph, dir, p.hosts[h], at + ".hosts." + std::to_string(h), true);
    for (std::size_t h = 0; h < p.targets.size(); ++h)
      require_ports(s.graph, dir, p.targets[h], at + ".targets." + std::to_string(h), true);
    const bool needs_targets = p.kind == TrafficKind::Incast || p.kind == TrafficKind::HotSpot;
    if (needs_targets && p.targets.empty())
      throw ConfigError(at + ".targets", "missing; accepted: the HCA ports that receive (incast) or are hot (hotspot)");
    if (!needs_targets && !p.targets.empty())
      throw ConfigError(at + ".targets", "applies only to kind incast or hotspot; accepted: [] for this kind");
    if (p.kind == TrafficKind::Shift) {
      std::set<std::size_t> hosts;  // the HCA ports the pattern takes, as the run selects them
      for (std::size_t i = 0; i < dir.names.size(); ++i)
        if (s.graph.nodes[dir.ends[i].node].kind == NodeKind::Hca && p.hosts.empty()) hosts.insert(i);
      for (const std::string& h : p.hosts)
        for (std::size_t i : dir.match(h))
          if (s.graph.nodes[dir.ends[i].node].kind == NodeKind::Hca) hosts.insert(i);
      if (hosts.size() < 2 || p.shift % hosts.size() == 0)
        throw ConfigError(at + ".shift", std::to_string(p.shift) + " sends each of the " +
                                             std::to_string(hosts.size()) + " hosts to itself; accepted: a shift " +
                                             "that is not a multiple of the number of hosts (at least 2)");
    }
    check_flow_ends(at, p.count);
  }
  check_verbs_workloads(s);
  check_dma_tests(s);
  check_model_size(s);
  check_shared_buffer(s);
  for (std::size_t i = 0; i < s.outputs.pcap_ports.size(); ++i)
    require_ports(s.graph, dir, s.outputs.pcap_ports[i], "outputs.pcap_ports." + std::to_string(i), false);
  const std::string why = check_fabric(unrouted_spec(s));
  if (!why.empty()) throw ConfigError("port_overrides", why);
  check_partitions(s);
  read_partitions(s, base_dir);
  read_guid_files(s, base_dir);
  return s;
}

nlohmann::json resolved_json(const Scenario& s) {
  Scenario r = s;
  r.port = resolve_port(s.port);
  for (PortOverride& o : r.port_overrides) o.config = resolve_port(o.config);
  nlohmann::json j = write_config(r);
  // Keys of other patterns would not read back.
  for (const auto& entry : kPatternKeys)
    if (!applies(entry.first, s.topology.pattern)) j["topology"].erase(entry.first);
  return j;
}

// The routing library's settings for the scenario: lash's and dfsssp's VL count is the
// fewest operational data VLs of a switch port with a link (OpenSM reads
// OperationalVLs from every such port).
routing::RoutingConfig routing_config(const Scenario& s, const FabricSpec& spec) {
  routing::RoutingConfig c{s.routing.algorithm, s.routing.roots, s.routing.tie_break, s.ftree_guids};
  c.lash_start_vl = s.routing.lash_start_vl;
  c.nue_max_num_vls = s.routing.nue_max_num_vls;
  c.nue_include_switches = s.routing.nue_include_switches;
  c.vls = 15;
  for (const LinkSpec& l : spec.links)
    for (const auto& [node, port] : {std::pair{l.node_a, l.port_a}, std::pair{l.node_b, l.port_b}})
      if (s.graph.nodes[node].kind == topology::NodeKind::Switch)
        c.vls = std::min<unsigned>(c.vls, spec.nodes[node].ports[port].effective_vls());
  return c;
}

namespace {

// routing.adaptive: every switch's groups, refused when they close a credit loop.
void install_adaptive_groups(const Scenario& s, RoutedFabric& r) {
  const AdaptiveSettings& a = s.routing.adaptive;
  if (s.management.mode == ManagementMode::External)
    throw ConfigError("routing.adaptive.mode", "an outside SM (management external) does not program hcasim's AR "
                                               "groups (OpenSM has no AR); accepted: \"off\" with management "
                                               "external, or management pre-configured or in band");
  routing::AdaptivePlan plan = routing::adaptive_plan(s.graph, topology::TopologyIndex(s.graph), r.lids, r.routes);
  if (!plan.loop.empty())
    throw ConfigError("routing.adaptive.mode", "its groups (every minimum-hop port) close a credit loop: " + plan.loop +
                                                   "; accepted: a fabric whose minimum-hop paths close none (a fat "
                                                   "tree), or \"off\"");
  if (s.management.mode == ManagementMode::Preconfigured)  // in band, the SM computes and writes them
    for (unsigned n = 0; n < r.spec.nodes.size(); ++n) r.spec.nodes[n].ar_groups = std::move(plan.groups[n]);
  sw::AdaptiveRoutingConfig& c = r.spec.adaptive;
  c.mode = a.mode;
  c.choice = a.choice;
  c.k = a.k;
  c.ageing_ps = a.ageing_ps;
  c.seed = s.run.seed;
  c.sl_mask = a.sls.empty() ? 0xFFFF : 0;
  for (uint32_t sl : a.sls) c.sl_mask = static_cast<uint16_t>(c.sl_mask | 1u << sl);
}

}  // namespace

RoutedFabric route_fabric(const Scenario& s) {
  RoutedFabric r;
  r.spec = unrouted_spec(s);
  // In band, LIDs and routes are computed as the SM computes them, so that the
  // workloads' LIDs are the ones it assigns and both modes' tables agree.
  // hcasim's own updown breaks GUID ties by node index, and the SM sees the nodes
  // in GUID order; OpenSM's engines do not depend on the order of the nodes.
  const bool reorder =
      s.management.mode == ManagementMode::InBand && s.routing.algorithm.contains(routing::RoutingAlgorithm::UpDown);
  const GuidOrdered ordered = reorder ? guid_ordered(s.graph) : GuidOrdered{};
  const Topology& graph = reorder ? ordered.graph : s.graph;
  r.spec.management =
      management_spec(s.management, s.graph, hca_port_names(s), routing_config(s, r.spec));
  unsigned sm_at = r.spec.management.sm_node;
  if (reorder)
    sm_at = static_cast<unsigned>(std::find(ordered.at.begin(), ordered.at.end(), sm_at) - ordered.at.begin());
  try {
    r.lids = routing::assign_lids(graph, s.routing.lmc, {sm_at, r.spec.management.sm_port});
  } catch (const std::invalid_argument& e) {
    throw ConfigError("routing.lmc", e.what());
  }
  try {
    r.routes = routing::compute_routes(graph, r.lids, routing_config(s, r.spec));
  } catch (const routing::NoEngineRoutes& e) {
    throw ConfigError("routing.algorithm", e.what());
  } catch (const std::invalid_argument& e) {
    throw ConfigError("routing", e.what());
  }
  if (!r.routes.refusals.empty()) {  // OpenSM logs each refusal; one note says them all
    std::string text;
    for (const routing::Routes::Refusal& x : r.routes.refusals)
      text += std::string(text.empty() ? "" : ", ") + routing::engine_name(x.engine) + " refused the fabric (" + x.why + ")";
    notice("routing.algorithm", text + "; " + routing::engine_name(r.routes.algorithm) + " routed it" +
                                    (s.routing.algorithm.contains(r.routes.algorithm) ? "" : " (OpenSM's fallback)"));
  }
  if (reorder) from_guid_order(ordered, r.lids, r.routes);
  static_assert(routing::kNoPath == sw::kNoRoute, "the routing library and the switch agree on an unrouted entry");
  for (unsigned n = 0; n < r.spec.nodes.size(); ++n) {
    r.spec.nodes[n].lids = r.lids.base[n];
    r.spec.nodes[n].lft = r.routes.lft[n];
    r.spec.nodes[n].guid = s.graph.nodes[n].guid;
    r.spec.nodes[n].system_guid = s.graph.nodes[n].system_guid;
    r.spec.nodes[n].description = s.graph.nodes[n].description;
  }
  if (s.routing.adaptive.mode != sw::ArMode::Off) install_adaptive_groups(s, r);
  r.spec.link_events = s.link_events;
  if (!s.partitions.rules.empty()) {
    std::vector<mgmt::NodePartitions> tables = partition_tables_of(s, fabric_spec_guids(s));
    for (unsigned n = 0; n < r.spec.nodes.size(); ++n) r.spec.nodes[n].partitions = std::move(tables[n]);
  }
  return r;
}

FabricSpec fabric_spec(const Scenario& s) { return route_fabric(s).spec; }

std::string scenario_reference() { return document_config<Scenario>("Scenario parameters") + "\n" + devices_reference(); }

namespace {

// The topology keys of other patterns are refused (kPatternKeys); graph or file as each pattern
// needs them (make_graph).
nlohmann::json topology_rules() {
  nlohmann::json rules = nlohmann::json::array();
  for (const auto& [name, pattern] : kPatterns) {
    nlohmann::json when = {{"properties", {{"pattern", {{"const", name}}}}}};
    if (pattern != TopologyConfig{}.pattern) when["required"] = {"pattern"};
    nlohmann::json then = {{"properties", nlohmann::json::object()}};
    for (const auto& entry : kPatternKeys)
      if (!applies(entry.first, pattern)) then["properties"][entry.first] = false;
    if (pattern == Pattern::Explicit)
      then["oneOf"] = {{{"required", {"graph"}}, {"properties", {{"graph", {{"type", "object"}}}}}},
                       {{"required", {"file"}}, {"properties", {{"file", {{"minLength", 1}}}}}}};
    if (pattern == Pattern::Ibnetdiscover) {
      then["required"] = {"file"};
      then["properties"]["file"] = {{"minLength", 1}};
    }
    rules.push_back({{"if", std::move(when)}, {"then", std::move(then)}});
  }
  return rules;
}

}  // namespace

nlohmann::json scenario_schema() {
  nlohmann::json s = config_schema<Scenario>();
  s["$schema"] = "https://json-schema.org/draft/2020-12/schema";
  s["title"] = "hcasim scenario";
  s["description"] =
      "A scenario file of hcasim (made by hcasim schema from the parameter descriptions of hcasim params). "
      "hcasim validate checks more: ranges of quantities written as strings, names of ports and nodes, and "
      "rules across fields (docs/scenario-schema.md).";
  nlohmann::json& p = s["properties"];
  p[kSchemaKey] = {{"type", "string"},
                   {"description", "the JSON Schema an editor checks this file with; hcasim ignores it"}};
  // What load_scenario checks beyond describe(), where a schema can say it.
  p["name"]["pattern"] = kPlainName;
  p["topology"]["allOf"] = topology_rules();
  nlohmann::json& flow = p["workload"]["properties"]["flows"]["items"]["properties"];
  for (const char* end : {"src", "dst"}) flow[end]["pattern"] = "^[^*?\\[]+$";  // one port, no wildcard
  nlohmann::json& rule = p["switch"]["properties"]["sl2vl"]["items"];
  rule["required"] = {"sl2vl"};  // describe(Sl2VlRule): its empty default is no table
  rule["properties"]["sl2vl"].erase("default");
  p["workload"]["properties"]["patterns"]["items"]["allOf"] = {
      {{"if", {{"properties", {{"kind", {{"enum", {"incast", "hotspot"}}}}}}, {"required", {"kind"}}}},
       {"then", {{"required", {"targets"}}, {"properties", {{"targets", {{"minItems", 1}}}}}}},
       {"else", {{"properties", {{"targets", {{"maxItems", 0}}}}}}}}};
  return s;
}

}  // namespace hcasim::config
