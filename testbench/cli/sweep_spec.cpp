#include "testbench/cli/sweep_spec.hpp"

#include <cstdio>
#include <filesystem>
#include <set>

#include "models/config/config_error.hpp"

namespace hcasim {

namespace {

using config::ConfigError;

std::string at(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }
std::string at(const std::string& path, std::size_t i) { return path + "." + std::to_string(i); }

void only_keys(const nlohmann::json& j, const std::string& path, const std::set<std::string>& keys,
               const std::string& accepted) {
  if (!j.is_object()) throw ConfigError(path, "must be an object; accepted: an object with " + accepted);
  for (auto it = j.begin(); it != j.end(); ++it)
    if (keys.count(it.key()) == 0) throw ConfigError(at(path, it.key()), "unknown key; accepted: " + accepted);
}

std::string text(const nlohmann::json& j, const std::string& path, const char* what) {
  if (!j.is_string() || j.get<std::string>().empty())
    throw ConfigError(path, std::string("must be a non-empty string; accepted: ") + what);
  return j.get<std::string>();
}

const nlohmann::json& list(const nlohmann::json& j, const std::string& path, const char* what) {
  if (!j.is_array() || j.empty()) throw ConfigError(path, std::string("must be a non-empty list; accepted: ") + what);
  return j;
}

std::string unique_name(std::set<std::string>& names, const std::string& name, const std::string& path) {
  if (!names.insert(name).second) throw ConfigError(path, "'" + name + "' names two columns; accepted: distinct names");
  return name;
}

}  // namespace

SweepSpec parse_sweep(const nlohmann::json& j, const std::string& file) {
  only_keys(j, "", {"name", "scenario", "set", "axes", "combine", "seeds", "metrics"},
            "name, scenario, set, axes, combine, seeds, metrics");
  SweepSpec s;
  const std::filesystem::path sweep_file(file);
  s.name = j.contains("name") ? text(j["name"], "name", "a name for the sweep") : sweep_file.stem().string();
  if (!j.contains("scenario")) throw ConfigError("scenario", "missing; accepted: the base scenario's path, relative to the sweep file");
  const std::filesystem::path scenario(text(j["scenario"], "scenario", "the base scenario's path, relative to the sweep file"));
  s.scenario = (scenario.is_absolute() ? scenario : sweep_file.parent_path() / scenario).lexically_normal().string();
  if (j.contains("set")) {
    const nlohmann::json& sets = list(j["set"], "set", "a list of \"path=value\" strings");
    for (std::size_t i = 0; i < sets.size(); ++i) {
      const std::string a = text(sets[i], at("set", i), "\"path=value\"");
      if (a.find('=') == std::string::npos || a.front() == '=')
        throw ConfigError(at("set", i), "'" + a + "' has no path=value; accepted: e.g. \"run.duration=20us\"");
      s.sets.push_back(a);
    }
  }
  std::set<std::string> columns = {"run", "point", "seed", "status", "exit_code", "error"};
  if (!j.contains("axes")) throw ConfigError("axes", "missing; accepted: a list of {path, name, values}");
  const nlohmann::json& axes = list(j["axes"], "axes", "a list of {path, name, values}");
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const std::string p = at("axes", i);
    only_keys(axes[i], p, {"path", "name", "values"}, "path, name, values");
    SweepAxis a;
    if (!axes[i].contains("path")) throw ConfigError(at(p, "path"), "missing; accepted: a --set path, e.g. \"link.speed\"");
    a.path = text(axes[i]["path"], at(p, "path"), "a --set path, e.g. \"link.speed\"");
    a.name = unique_name(columns, axes[i].contains("name") ? text(axes[i]["name"], at(p, "name"), "a column name") : a.path,
                         at(p, "name"));
    if (!axes[i].contains("values")) throw ConfigError(at(p, "values"), "missing; accepted: a non-empty list of values");
    for (const nlohmann::json& v : list(axes[i]["values"], at(p, "values"), "a non-empty list of values")) a.values.push_back(v);
    s.axes.push_back(std::move(a));
  }
  if (j.contains("combine")) {
    const std::string c = j["combine"].is_string() ? j["combine"].get<std::string>() : "";
    if (c == "product") s.combine = SweepCombine::Product;
    else if (c == "zip") s.combine = SweepCombine::Zip;
    else throw ConfigError("combine", j["combine"].dump() + " is not a way to combine axes; accepted: product, zip");
  }
  if (s.combine == SweepCombine::Zip)
    for (std::size_t i = 1; i < s.axes.size(); ++i)
      if (s.axes[i].values.size() != s.axes[0].values.size())
        throw ConfigError(at(at("axes", i), "values"), std::to_string(s.axes[i].values.size()) + " values, axis 0 has " +
                                                           std::to_string(s.axes[0].values.size()) +
                                                           "; accepted: zipped axes of one length");
  if (j.contains("seeds")) {
    const nlohmann::json& seeds = list(j["seeds"], "seeds", "a list of non-negative integers");
    std::set<uint64_t> seen;
    for (std::size_t i = 0; i < seeds.size(); ++i) {
      const bool seed = seeds[i].is_number_unsigned() || (seeds[i].is_number_integer() && seeds[i].get<int64_t>() >= 0);
      if (!seed)
        throw ConfigError(at("seeds", i), seeds[i].dump() + " is not a seed; accepted: a non-negative integer");
      if (!seen.insert(seeds[i].get<uint64_t>()).second)
        throw ConfigError(at("seeds", i), seeds[i].dump() + " is listed twice; accepted: distinct seeds");
      s.seeds.push_back(seeds[i].get<uint64_t>());
    }
  }
  if (!j.contains("metrics")) throw ConfigError("metrics", "missing; accepted: a list of {name, path}");
  const nlohmann::json& metrics = list(j["metrics"], "metrics", "a list of {name, path}");
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const std::string p = at("metrics", i);
    only_keys(metrics[i], p, {"name", "path"}, "name, path");
    SweepMetric m;
    if (!metrics[i].contains("path")) throw ConfigError(at(p, "path"), "missing; accepted: a path into stats.json, e.g. \"flows.*.data_throughput_bps\"");
    m.path = text(metrics[i]["path"], at(p, "path"), "a path into stats.json, e.g. \"flows.*.data_throughput_bps\"");
    m.name = unique_name(columns, metrics[i].contains("name") ? text(metrics[i]["name"], at(p, "name"), "a column name") : m.path,
                         at(p, "name"));
    s.metrics.push_back(std::move(m));
  }
  return s;
}

std::vector<SweepRun> expand_runs(const SweepSpec& s) {
  std::vector<std::vector<std::size_t>> points;  // value index per axis
  if (s.combine == SweepCombine::Zip) {
    for (std::size_t i = 0; i < s.axes[0].values.size(); ++i) points.emplace_back(s.axes.size(), i);
  } else {
    std::vector<std::size_t> at(s.axes.size(), 0);
    for (;;) {
      points.push_back(at);
      std::size_t a = s.axes.size();
      while (a > 0 && ++at[a - 1] == s.axes[a - 1].values.size()) at[--a] = 0;
      if (a == 0) break;
    }
  }
  std::vector<SweepRun> runs;
  const std::size_t seeds = s.seeds.empty() ? 1 : s.seeds.size();
  for (std::size_t p = 0; p < points.size(); ++p) {
    for (std::size_t k = 0; k < seeds; ++k) {
      SweepRun r;
      char id[64];
      std::snprintf(id, sizeof id, "p%04zu-s%02zu", p, k);
      r.id = id;
      r.point = static_cast<unsigned>(p);
      r.seed_index = static_cast<unsigned>(k);
      if (!s.seeds.empty()) r.seed = s.seeds[k];
      r.sets = s.sets;
      for (std::size_t a = 0; a < s.axes.size(); ++a) {
        r.values.push_back(s.axes[a].values[points[p][a]]);
        r.sets.push_back(s.axes[a].path + "=" + r.values.back().dump());
      }
      runs.push_back(std::move(r));
    }
  }
  return runs;
}

}  // namespace hcasim
