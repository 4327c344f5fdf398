#include "testbench/cli/run_checks.hpp"

#include "models/config/units.hpp"

namespace hcasim {

namespace {

// Moves the messages starting with prefix from `left` into a case's text.
std::string take_prefixed(std::vector<std::string>& left, const std::string& prefix) {
  std::string text;
  for (auto it = left.begin(); it != left.end();) {
    if (it->compare(0, prefix.size(), prefix) == 0) {
      text += *it + "\n";
      it = left.erase(it);
    } else {
      ++it;
    }
  }
  return text;
}

JunitCase make_case(const std::string& classname, const std::string& name, const std::string& failure_text) {
  JunitCase c;
  c.classname = classname;
  c.name = name;
  if (!failure_text.empty()) {
    c.outcome = JunitCase::Outcome::Failed;
    c.text = failure_text;
  }
  return c;
}

std::string lines(const std::vector<std::string>& messages) {
  std::string text;
  for (const std::string& m : messages) text += m + "\n";
  return text;
}

void perftest_cases(const workloads::Perftest& t, const std::string& scenario, std::vector<JunitCase>& out) {
  const std::string& name = t.spec().config.name;
  std::vector<std::string> left = t.result().failures;
  if (t.spec().config.idle) {
    out.push_back(make_case(scenario, "perftest " + name + " (idle)", lines(left)));
    return;
  }
  const bool failed = !left.empty();
  for (std::size_t k = 0; k < t.sizes().size(); ++k) {
    const std::string size = config::format_bytes(t.sizes()[k]);
    JunitCase c = make_case(scenario, "perftest " + name + " size " + size, take_prefixed(left, name + ": size " + size + ": "));
    const bool done = k < t.result().sizes.size() && t.result().sizes[k].done;
    if (c.outcome == JunitCase::Outcome::Passed && !done) {
      c.outcome = JunitCase::Outcome::Skipped;
      c.text = failed ? "not run: the test failed at an earlier size" : "not finished by the end of the run (run.duration)";
    }
    out.push_back(c);
  }
  if (!left.empty()) out.push_back(make_case(scenario, "perftest " + name, lines(left)));
}

void verbs_cases(const workloads::VerbsScript& v, const std::string& scenario, std::vector<JunitCase>& out) {
  const config::VerbsConnectionConfig& cfg = v.spec().config;
  std::vector<std::string> left = v.failures();
  for (std::size_t i = 0; i < cfg.ops.size(); ++i) {
    const std::string op = v.op_text(i);
    out.push_back(make_case(scenario, "verbs " + cfg.name + " " + op + " expects " + transport::to_string(cfg.ops[i].expect),
                            take_prefixed(left, cfg.name + ": " + op + ": ")));
  }
  if (!left.empty()) out.push_back(make_case(scenario, "verbs " + cfg.name, lines(left)));
}

}  // namespace

std::vector<JunitCase> run_check_cases(const Simulation& sim, const std::string& scenario) {
  std::vector<JunitCase> out;
  out.push_back(make_case(scenario, "link checker", lines(sim.checker().messages())));
  if (!sim.checker().ok() && sim.checker().messages().empty()) {
    out.back().outcome = JunitCase::Outcome::Failed;
    out.back().text = "violations found\n";
  }
  if (sim.cosim() != nullptr) out.push_back(make_case(scenario, "rtl co-simulation", lines(sim.rtl_failures())));
  if (sim.fabric().spec().management.in_band)
    out.push_back(make_case(scenario, "management", lines(sim.management_failures())));
  for (const auto& t : sim.perftests()) perftest_cases(*t, scenario, out);
  for (const auto& v : sim.verbs_scripts()) verbs_cases(*v, scenario, out);
  return out;
}

bool print_check_failures(const Simulation& sim, std::ostream& err) {
  const std::vector<std::string> workloads = sim.workload_failures();
  for (const auto* list : {&sim.checker().messages(), &workloads, &sim.rtl_failures()})
    for (const std::string& m : *list) err << "check failed: " << m << "\n";
  return sim.checker().ok() && workloads.empty() && sim.rtl_failures().empty();
}

}  // namespace hcasim
