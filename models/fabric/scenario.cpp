#include "models/fabric/scenario.hpp"

#include <algorithm>
#include <cctype>

#include "models/fabric/units.hpp"

namespace hcasim::fabric {

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

nlohmann::json format_flow_rate(const FlowRate& r) {
  if (r.load > 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.10g%%", r.load * 100.0);
    return buf;
  }
  if (r.bps > 0) return format_rate_bps(r.bps);
  return "saturate";
}

std::vector<std::string> parse_string_list(const nlohmann::json& v, const std::string& path) {
  if (!v.is_array()) throw ConfigError(path, "expected a list of port names such as [\"hca0.p1\"]");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) throw ConfigError(path + "." + std::to_string(i), "expected a port name string");
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

nlohmann::json format_string_list(const std::vector<std::string>& v) { return v; }

void require_port(const Scenario& s, const std::string& name, const std::string& path) {
  const auto names = port_names(s);
  if (std::find(names.begin(), names.end(), name) != names.end()) return;
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  throw ConfigError(path, "no port named '" + name + "'; accepted: " + list);
}

}  // namespace

template <class Io>
void describe(Io& io, TopologyConfig& c) {
  io.choice("pattern", c.pattern, Names<Pattern>{{"back_to_back", Pattern::BackToBack}},
            "topology: back_to_back joins hca0.p1 and hca1.p1");
}

template <class Io>
void describe(Io& io, FlowConfig& c) {
  io.string("name", c.name, "flow name in stats.json; empty = flow<index>");
  io.string("src", c.src, "source port");
  io.string("dst", c.dst, "destination port");
  io.uint("sl", c.sl, 0, 15, "service level");
  io.boolean("vl15", c.vl15, "send management packets on VL15 to QP0");
  io.bytes("payload", c.payload, 0, 4096, "payload bytes per packet");
  io.custom("rate", c.rate, parse_flow_rate, format_flow_rate, "\"saturate\", a rate, or \"NN%\" of the link",
            "offered load");
  io.uint64("count", c.count, 0, UINT64_MAX, "packets to send; 0 = until run.duration");
  io.time("start", c.start_ps, 0, UINT64_MAX, "time of the first packet");
}

template <class Io>
void describe(Io& io, WorkloadConfig& c) {
  io.list("flows", c.flows, "raw-packet flows");
}

template <class Io>
void describe(Io& io, RunConfig& c) {
  io.time("duration", c.duration_ps, 0, UINT64_MAX, "simulated time to run; 0ns = until idle");
  io.uint64("seed", c.seed, 0, UINT64_MAX, "random seed");
}

template <class Io>
void describe(Io& io, OutputConfig& c) {
  io.boolean("pcap", c.pcap, "write packets.pcap (also --pcap)");
  io.custom("pcap_ports", c.pcap_ports, parse_string_list, format_string_list, "a list of port names",
            "ports whose transmissions go into the pcap; [] = every port");
  io.boolean("vcd", c.vcd, "write waves.vcd (also --vcd)");
}

template <class Io>
void describe(Io& io, Scenario& c) {
  io.string("name", c.name, "scenario name");
  io.object("topology", c.topology, "topology");
  io.object("port", c.port, "defaults of every port");
  const link::PortConfig defaults = c.port;
  io.custom(
      "port_overrides", c.port_overrides,
      [&defaults](const nlohmann::json& v, const std::string& path) {
        if (!v.is_array()) throw ConfigError(path, "expected a list of objects with \"port\" and port keys");
        std::vector<PortOverride> out;
        const nlohmann::json base = write_config(defaults);
        for (std::size_t i = 0; i < v.size(); ++i) {
          const std::string at = path + "." + std::to_string(i);
          if (!v[i].is_object()) throw ConfigError(at, "expected an object with \"port\" and port keys");
          if (!v[i].contains("port") || !v[i]["port"].is_string())
            throw ConfigError(at + ".port", "missing; accepted: a port name such as \"hca1.p1\"");
          nlohmann::json merged = base;
          for (auto it = v[i].begin(); it != v[i].end(); ++it)
            if (it.key() != "port") merged[it.key()] = it.value();
          out.push_back({v[i]["port"].get<std::string>(), read_config<link::PortConfig>(merged, at)});
        }
        return out;
      },
      [](const std::vector<PortOverride>& list) {
        nlohmann::json out = nlohmann::json::array();
        for (const PortOverride& o : list) {
          nlohmann::json j = write_config(o.config);
          j["port"] = o.port;
          out.push_back(j);
        }
        return out;
      },
      "a list of objects: \"port\" plus any port keys", "per-port parameters on top of the defaults");
  io.object("link", c.link, "defaults of every link");
  io.object("workload", c.workload, "traffic");
  io.object("run", c.run, "run settings");
  io.object("outputs", c.outputs, "outputs");
}

std::vector<std::string> port_names(const Scenario&) { return {"hca0.p1", "hca1.p1"}; }

link::PortConfig port_config(const Scenario& s, const std::string& port) {
  link::PortConfig c = s.port;
  for (const PortOverride& o : s.port_overrides)
    if (o.port == port) c = o.config;
  return c;
}

Scenario load_scenario(const nlohmann::json& root) {
  Scenario s = read_config<Scenario>(root);
  const bool plain = !s.name.empty() && std::all_of(s.name.begin(), s.name.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.';
  });
  if (!plain || s.name[0] == '.')
    throw ConfigError("name", "'" + s.name + "' is not a plain name (it names the default output folder); "
                              "accepted: letters, digits, '_', '-' and '.', not starting with '.'");
  check_port(s.port, "port");
  for (std::size_t i = 0; i < s.port_overrides.size(); ++i) {
    const std::string at = "port_overrides." + std::to_string(i);
    require_port(s, s.port_overrides[i].port, at + ".port");
    check_port(s.port_overrides[i].config, at);
  }
  for (std::size_t i = 0; i < s.workload.flows.size(); ++i) {
    FlowConfig& f = s.workload.flows[i];
    const std::string at = "workload.flows." + std::to_string(i);
    if (f.name.empty()) f.name = "flow" + std::to_string(i);
    require_port(s, f.src, at + ".src");
    require_port(s, f.dst, at + ".dst");
    if (f.src == f.dst) throw ConfigError(at + ".dst", "equals src; accepted: another port");
    if (f.count == 0 && s.run.duration_ps == 0)
      throw ConfigError(at + ".count", "0 sends forever but run.duration is 0; accepted: a count above 0, or set run.duration");
  }
  for (std::size_t i = 0; i < s.outputs.pcap_ports.size(); ++i)
    require_port(s, s.outputs.pcap_ports[i], "outputs.pcap_ports." + std::to_string(i));
  const std::string why = check_fabric(fabric_spec(s));
  if (!why.empty()) throw ConfigError("port_overrides", why);
  return s;
}

nlohmann::json resolved_json(const Scenario& s) {
  Scenario r = s;
  r.port = resolve_port(s.port);
  for (PortOverride& o : r.port_overrides) o.config = resolve_port(o.config);
  return write_config(r);
}

FabricSpec fabric_spec(const Scenario& s) {
  return back_to_back(port_config(s, "hca0.p1"), port_config(s, "hca1.p1"), s.link);
}

std::string scenario_reference() { return document_config<Scenario>("Scenario parameters"); }

}  // namespace hcasim::fabric
