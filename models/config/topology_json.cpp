#include "models/config/topology_json.hpp"

#include <cstdio>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/config/config_error.hpp"
#include "models/config/config_schema.hpp"
#include "models/config/json_value.hpp"
#include "models/config/units.hpp"

namespace hcasim::config {

using topology::NodeKind;
using topology::TopoNode;
using topology::Topology;
using topology::port_name;

namespace {

const std::vector<std::pair<std::string, link::Speed>> kSpeeds = {
    {"SDR", link::Speed::Sdr}, {"DDR", link::Speed::Ddr}, {"QDR", link::Speed::Qdr}, {"FDR", link::Speed::Fdr},
    {"EDR", link::Speed::Edr}, {"HDR", link::Speed::Hdr}, {"NDR", link::Speed::Ndr}};
const std::vector<std::pair<std::string, link::Width>> kWidths = {
    {"1x", link::Width::X1}, {"2x", link::Width::X2}, {"4x", link::Width::X4}, {"8x", link::Width::X8},
    {"12x", link::Width::X12}};

constexpr const char* kPortForms = "a port name \"<node>.p<port>\" of a node in the nodes list, e.g. \"sw0.p1\"";
constexpr const char* kGuidForms = "a string \"0x\" followed by 1 to 16 hex digits, e.g. \"0xe41d2d0300a1b2c0\"";

template <class E>
E pick_name(const nlohmann::json& v, const std::string& path, const std::vector<std::pair<std::string, E>>& names) {
  std::vector<std::string> labels;
  for (const auto& n : names) labels.push_back(n.first);
  const std::string accepted = "accepted: one of " + join_list(labels);
  if (!v.is_string()) throw ConfigError(path, "expected a string, got " + describe_json_type(v) + "; " + accepted);
  for (const auto& n : names) {
    if (n.first == v.get<std::string>()) return n.second;
  }
  throw ConfigError(path, json_excerpt(v) + " is not known; " + accepted);
}

template <class E>
std::string name_of(E value, const std::vector<std::pair<std::string, E>>& names) {
  for (const auto& n : names) {
    if (n.second == value) return n.first;
  }
  return "?";
}

// Every key of `obj` must be one of `keys`.
void only_keys(const nlohmann::json& obj, const std::string& path, const std::vector<std::string>& keys) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool known = false;
    for (const std::string& k : keys) known = known || k == it.key();
    if (!known) throw ConfigError(join_path(path, it.key()), "unknown key; accepted: " + join_list(keys));
  }
}

const nlohmann::json& required(const nlohmann::json& obj, const std::string& path, const std::string& key,
                               const std::string& accepted) {
  const auto it = obj.find(key);
  if (it == obj.end()) throw ConfigError(join_path(path, key), "missing; accepted: " + accepted);
  return *it;
}

const nlohmann::json& list_at(const nlohmann::json& obj, const std::string& path, const std::string& key,
                              const std::string& accepted) {
  const nlohmann::json& v = required(obj, path, key, accepted);
  if (!v.is_array())
    throw ConfigError(join_path(path, key), "expected a list, got " + describe_json_type(v) + "; accepted: " + accepted);
  return v;
}

std::string string_at(const nlohmann::json& v, const std::string& path, const std::string& accepted) {
  if (!v.is_string())
    throw ConfigError(path, "expected a string, got " + describe_json_type(v) + "; accepted: " + accepted);
  return v.get<std::string>();
}

uint64_t parse_guid(const nlohmann::json& v, const std::string& path) {
  const std::string s = string_at(v, path, kGuidForms);
  bool ok = s.size() > 2 && s.size() <= 18 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  uint64_t guid = 0;
  for (std::size_t i = 2; ok && i < s.size(); ++i) {
    const char c = s[i];
    unsigned digit = 0;
    if (c >= '0' && c <= '9') digit = static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'f') digit = static_cast<unsigned>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') digit = static_cast<unsigned>(c - 'A' + 10);
    else ok = false;
    guid = guid << 4 | digit;
  }
  if (!ok) throw ConfigError(path, json_excerpt(v) + " is not a GUID; accepted: " + kGuidForms);
  return guid;
}

TopoNode read_node(const nlohmann::json& v, const std::string& path) {
  if (!v.is_object())
    throw ConfigError(path, "expected an object, got " + describe_json_type(v) +
                                "; accepted: {\"name\": ..., \"kind\": \"switch\" or \"hca\", \"ports\": N}");
  only_keys(v, path, {"name", "kind", "ports", "guid", "description", "system_guid"});
  TopoNode n;
  n.name = string_at(required(v, path, "name", "a non-empty string"), join_path(path, "name"), "a non-empty string");
  if (n.name.empty()) throw ConfigError(join_path(path, "name"), "empty name; accepted: a non-empty string");
  n.kind = pick_name(required(v, path, "kind", "\"switch\" or \"hca\""), join_path(path, "kind"),
                     std::vector<std::pair<std::string, NodeKind>>{{"switch", NodeKind::Switch}, {"hca", NodeKind::Hca}});
  if (v.contains("ports")) {
    const std::string accepted = "an integer from 1 to " + std::to_string(topology::kMaxPorts);
    const uint64_t ports = json_unsigned(v["ports"], join_path(path, "ports"), accepted);
    if (ports < 1 || ports > topology::kMaxPorts)
      throw ConfigError(join_path(path, "ports"), std::to_string(ports) + " is out of range; accepted: " + accepted);
    n.ports = static_cast<unsigned>(ports);
  }
  if (v.contains("guid")) n.guid = parse_guid(v["guid"], join_path(path, "guid"));
  if (v.contains("system_guid")) n.system_guid = parse_guid(v["system_guid"], join_path(path, "system_guid"));
  if (v.contains("description"))
    n.description = string_at(v["description"], join_path(path, "description"), "a string");
  return n;
}

topology::LinkEnd read_port(const nlohmann::json& v, const std::string& path, const Topology& t,
                  const std::unordered_map<std::string, unsigned>& names) {
  const std::string s = string_at(v, path, kPortForms);
  const std::size_t dot = s.rfind(".p");
  bool ok = dot != std::string::npos && dot > 0 && dot + 2 < s.size() && s.size() - dot - 2 <= 3;
  unsigned port = 0;
  for (std::size_t i = dot + 2; ok && i < s.size(); ++i) {
    ok = s[i] >= '0' && s[i] <= '9';
    port = port * 10 + static_cast<unsigned>(s[i] - '0');
  }
  if (!ok) throw ConfigError(path, json_excerpt(v) + " is not a port name; accepted: " + kPortForms);
  const auto it = names.find(s.substr(0, dot));
  if (it == names.end())
    throw ConfigError(path, "no node named '" + s.substr(0, dot) + "'; accepted: " + kPortForms);
  const TopoNode& n = t.nodes[it->second];
  if (port < 1 || port > n.ports)
    throw ConfigError(path, "'" + n.name + "' has no port " + std::to_string(port) + "; accepted: ports 1 to " +
                                std::to_string(n.ports));
  return {it->second, port};
}

}  // namespace

std::string format_guid(uint64_t guid) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(guid));
  return buf;
}

nlohmann::json topology_to_json(const Topology& t) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const TopoNode& n : t.nodes) {
    nlohmann::json j = {{"name", n.name}, {"kind", n.kind == NodeKind::Switch ? "switch" : "hca"}, {"ports", n.ports}};
    if (n.guid != 0) j["guid"] = format_guid(n.guid);
    if (!n.description.empty()) j["description"] = n.description;
    if (n.system_guid != 0) j["system_guid"] = format_guid(n.system_guid);
    nodes.push_back(std::move(j));
  }
  nlohmann::json links = nlohmann::json::array();
  for (const topology::TopoLink& l : t.links) {
    nlohmann::json j = {{"a", port_name(t, l.a)}, {"b", port_name(t, l.b)}};
    if (l.params.speed) j["speed"] = name_of(*l.params.speed, kSpeeds);
    if (l.params.width) j["width"] = name_of(*l.params.width, kWidths);
    if (l.params.length_m) j["length"] = format_length_m(*l.params.length_m);
    links.push_back(std::move(j));
  }
  return {{"nodes", std::move(nodes)}, {"links", std::move(links)}};
}

nlohmann::json topology_json_schema() {
  std::vector<std::string> speeds, widths;
  for (const auto& s : kSpeeds) speeds.push_back(s.first);
  for (const auto& w : kWidths) widths.push_back(w.first);
  const nlohmann::json port = schema::pattern("^.+\\.p[0-9]{1,3}$");
  const nlohmann::json node = {
      {"type", "object"},
      {"required", {"name", "kind"}},
      {"additionalProperties", false},
      {"properties",
       {{"name", {{"type", "string"}, {"minLength", 1}}},
        {"kind", schema::names({"switch", "hca"})},
        {"ports", schema::integer(1, topology::kMaxPorts)},
        {"guid", schema::pattern("^0[xX][0-9a-fA-F]{1,16}$")},
        {"system_guid", schema::pattern("^0[xX][0-9a-fA-F]{1,16}$")},
        {"description", {{"type", "string"}}}}}};
  const nlohmann::json link = {{"type", "object"},
                               {"required", {"a", "b"}},
                               {"additionalProperties", false},
                               {"properties",
                                {{"a", port},
                                 {"b", port},
                                 {"speed", schema::names(speeds)},
                                 {"width", schema::names(widths)},
                                 {"length", schema::length()}}}};
  return {{"type", "object"},
          {"required", {"nodes", "links"}},
          {"additionalProperties", false},
          {"properties",
           {{"nodes", {{"type", "array"}, {"items", node}}}, {"links", {{"type", "array"}, {"items", link}}}}}};
}

Topology topology_from_json(const nlohmann::json& j, const std::string& path) {
  const char* accepted = "an object {\"nodes\": [...], \"links\": [...]}";
  if (!j.is_object())
    throw ConfigError(path, "expected an object, got " + describe_json_type(j) + "; accepted: " + accepted);
  only_keys(j, path, {"nodes", "links"});
  Topology t;
  std::unordered_map<std::string, unsigned> names;
  const std::string nodes_path = join_path(path, "nodes");
  const nlohmann::json& nodes = list_at(j, path, "nodes", "a list of node objects");
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string node_path = join_path(nodes_path, i);
    TopoNode n = read_node(nodes[i], node_path);
    const auto [it, fresh] = names.emplace(n.name, static_cast<unsigned>(t.nodes.size()));
    if (!fresh)
      throw ConfigError(join_path(node_path, "name"), "'" + n.name + "' also names " +
                                                          join_path(nodes_path, it->second) +
                                                          "; accepted: a name no other node has");
    t.nodes.push_back(std::move(n));
  }

  const std::string links_path = join_path(path, "links");
  const nlohmann::json& links = list_at(j, path, "links", "a list of link objects");
  std::vector<std::vector<int>> used(t.nodes.size());
  for (std::size_t i = 0; i < t.nodes.size(); ++i) used[i].assign(t.nodes[i].ports + 1, -1);
  for (std::size_t i = 0; i < links.size(); ++i) {
    const std::string link_path = join_path(links_path, i);
    const nlohmann::json& v = links[i];
    if (!v.is_object())
      throw ConfigError(link_path, "expected an object, got " + describe_json_type(v) +
                                       "; accepted: {\"a\": \"<node>.p<port>\", \"b\": \"<node>.p<port>\"}");
    only_keys(v, link_path, {"a", "b", "speed", "width", "length"});
    topology::TopoLink l;
    for (auto [key, end] : {std::pair{"a", &l.a}, std::pair{"b", &l.b}}) {
      const std::string end_path = join_path(link_path, key);
      *end = read_port(required(v, link_path, key, kPortForms), end_path, t, names);
      if (l.a == l.b && end == &l.b)
        throw ConfigError(end_path, "joins " + port_name(t, l.a) + " to itself; accepted: another port");
      int& slot = used[end->node][end->port];
      if (slot >= 0)
        throw ConfigError(end_path, port_name(t, *end) + " is already on " + join_path(links_path, slot) +
                                        "; accepted: a port on no other link");
      slot = static_cast<int>(i);
    }
    if (v.contains("speed")) l.params.speed = pick_name(v["speed"], join_path(link_path, "speed"), kSpeeds);
    if (v.contains("width")) l.params.width = pick_name(v["width"], join_path(link_path, "width"), kWidths);
    if (v.contains("length")) l.params.length_m = parse_length_m(v["length"], join_path(link_path, "length"));
    t.links.push_back(l);
  }
  return t;
}

}  // namespace hcasim::config
