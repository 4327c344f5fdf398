#include "testbench/cli/regress_suite.hpp"

#include "testbench/cli/scenario_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace hcasim {

namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The first line of text that starts with prefix, or of any kind when prefix is empty,
// leaving out notices ("hcasim: note:", how the scenario was read).
std::string first_line(const std::string& text, const std::string& prefix = "") {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line.compare(0, prefix.size(), prefix) == 0 && line.rfind("hcasim: note: ", 0) != 0)
      return line;
  return "";
}

}  // namespace

std::vector<SuiteScenario> suite_scenarios(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw std::invalid_argument(dir.string() + ": not a folder; accepted: a folder of NAME.json scenarios with NAME.golden.json beside");
  std::vector<SuiteScenario> out;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string file = e.path().filename().string();
    if (!e.is_regular_file() || !ends_with(file, ".json") || ends_with(file, kGoldenSuffix) || file == kSuiteTolerances)
      continue;
    const std::string name = file.substr(0, file.size() - 5);
    out.push_back({name, e.path(), dir / (name + kGoldenSuffix)});
  }
  if (ec) throw std::invalid_argument(dir.string() + ": cannot list: " + ec.message());
  if (out.empty())
    throw std::invalid_argument(dir.string() + ": holds no scenario; accepted: a folder of NAME.json scenarios with NAME.golden.json beside");
  std::sort(out.begin(), out.end(), [](const SuiteScenario& a, const SuiteScenario& b) { return a.name < b.name; });
  return out;
}

std::vector<Tolerance> suite_tolerances(const fs::path& dir) {
  const fs::path file = dir / kSuiteTolerances;
  std::error_code ec;
  if (!fs::exists(file, ec)) return {};
  constexpr const char* kForm = "accepted: an object of \"PATH\": REL, e.g. {\"flows.*.latency.p99_ns\": 0.01}";
  const nlohmann::json doc = read_json_file(file.string());
  if (!doc.is_object()) throw std::invalid_argument(file.string() + ": not an object; " + kForm);
  std::vector<Tolerance> out;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0)
      throw std::invalid_argument(file.string() + ": " + it.key() + ": " + it->dump() +
                                  " is not a relative tolerance; accepted: a number >= 0");
    try {
      out.push_back(parse_tolerance(it.key() + "=0"));
    } catch (const std::invalid_argument&) {
      throw std::invalid_argument(file.string() + ": \"" + it.key() + "\": not a path pattern; " + kForm);
    }
    out.back().relative = it->get<double>();
  }
  return out;
}

nlohmann::json golden_of(const nlohmann::json& stats) {
  nlohmann::json g = stats;
  g.erase(kExcludedSection);
  return g;
}

JunitCase failed_run_case(const std::string& classname, const std::string& name, const RunOutcome& r) {
  JunitCase c;
  c.classname = classname;
  c.name = name;
  c.seconds = r.seconds;
  if (r.exit_code == 1) {
    c.outcome = JunitCase::Outcome::Failed;
    const std::string first = first_line(r.stderr_text, "check failed: ");
    c.text = (first.empty() ? "the run failed a check (exit 1)" : first) + "\n" + r.stderr_text;
    return c;
  }
  c.outcome = JunitCase::Outcome::Error;
  if (r.exit_code < 0) c.text = "the run was killed by signal " + std::to_string(r.signal);
  else {
    const std::string first = first_line(r.stderr_text);
    c.text = first.empty() ? "the run exited " + std::to_string(r.exit_code) + " with no error line" : first;
  }
  c.text += "\n" + r.stderr_text;
  return c;
}

}  // namespace hcasim
