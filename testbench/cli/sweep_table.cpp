#include "testbench/cli/sweep_table.hpp"

#include <set>

namespace hcasim {

namespace {

std::string cell_text(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

SweepTable make_table(const SweepSpec& spec, const std::vector<SweepRun>& runs, const std::vector<SweepOutcome>& outcomes) {
  SweepTable t;
  t.columns = {"run", "point", "seed"};
  for (const SweepAxis& a : spec.axes) t.columns.push_back(a.name);
  std::vector<std::string> metric_columns;
  std::set<std::string> seen;
  for (const SweepOutcome& o : outcomes)
    for (const MetricCell& m : o.metrics)
      if (seen.insert(m.column).second) metric_columns.push_back(m.column);
  t.columns.insert(t.columns.end(), metric_columns.begin(), metric_columns.end());
  t.columns.push_back("exit_code");
  t.columns.push_back("error");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const SweepRun& r = runs[i];
    const SweepOutcome& o = outcomes[i];
    nlohmann::json row = nlohmann::json::object();
    row["run"] = r.id;
    row["point"] = r.point;
    row["seed"] = o.seed;
    for (std::size_t a = 0; a < spec.axes.size(); ++a) row[spec.axes[a].name] = r.values[a];
    for (const std::string& c : metric_columns) row[c] = nullptr;
    for (const MetricCell& m : o.metrics) row[m.column] = m.value;
    row["exit_code"] = o.exit_code;
    row["error"] = o.error;
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string table_csv(const SweepTable& t) {
  std::string out;
  for (std::size_t c = 0; c < t.columns.size(); ++c) out += (c ? "," : "") + csv_field(t.columns[c]);
  out += "\n";
  for (const nlohmann::json& row : t.rows) {
    for (std::size_t c = 0; c < t.columns.size(); ++c) out += (c ? "," : "") + csv_field(cell_text(row.at(t.columns[c])));
    out += "\n";
  }
  return out;
}

nlohmann::json table_json(const SweepSpec& spec, const SweepTable& t) {
  nlohmann::json axes = nlohmann::json::array(), metrics = nlohmann::json::array();
  for (const SweepAxis& a : spec.axes) axes.push_back(a.name);
  const std::size_t first_metric = 3 + spec.axes.size();
  for (std::size_t c = first_metric; c + 2 < t.columns.size(); ++c) metrics.push_back(t.columns[c]);
  return {{"sweep", spec.name}, {"scenario", spec.scenario}, {"axes", axes},
          {"metrics", metrics}, {"columns", t.columns}, {"rows", t.rows}};
}

}  // namespace hcasim
