#pragma once
// Reads a JUnit XML file back with a real XML parser (Python's
// xml.etree.ElementTree under /usr/bin/python3), for the tests of
// `hcasim compare`, `regress` and `run --junit`.

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "testbench/tests/scenarios/cli_util.hpp"

namespace hcasim::test {

struct JunitRead {
  bool parsed = false;      // well formed, with a <testsuites> root
  std::string error;        // the parser's complaint
  int tests = 0, failures = 0, errors = 0, skipped = 0;  // the root's attributes
  struct Case {
    std::string outcome;    // passed, failure, error or skipped
    std::string classname, name, message;
  };
  std::vector<Case> cases;
  const Case* find(const std::string& name) const {
    for (const Case& c : cases)
      if (c.name == name) return &c;
    return nullptr;
  }
  int count(const std::string& outcome) const {
    int n = 0;
    for (const Case& c : cases) n += c.outcome == outcome;
    return n;
  }
};

inline JunitRead read_junit(const std::filesystem::path& xml, const std::filesystem::path& dir) {
  const std::string script = write_file(dir / "read_junit.py", R"(import sys
import xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
except ET.ParseError as e:
    print("error\t" + str(e)); sys.exit(0)
if root.tag != "testsuites":
    print("error\troot is " + root.tag); sys.exit(0)
print("root\t%s\t%s\t%s\t%s" % (root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped")))
for suite in root.findall("testsuite"):
    for case in suite.findall("testcase"):
        outcome, message = "passed", ""
        for kind in ("failure", "error", "skipped"):
            e = case.find(kind)
            if e is not None:
                outcome, message = kind, e.get("message", "")
        print("\t".join(["case", outcome, case.get("classname"), case.get("name"), message]).replace("\n", " "))
)");
  const CommandResult r = run_shell("/usr/bin/python3 " + script + " " + xml.string(), dir);
  JunitRead out;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string x; std::getline(fields, x, '\t');) f.push_back(x);
    if (f.empty()) continue;
    if (f[0] == "error") out.error = line;
    if (f[0] == "root" && f.size() == 5) {
      out.parsed = true;
      out.tests = std::stoi(f[1]);
      out.failures = std::stoi(f[2]);
      out.errors = std::stoi(f[3]);
      out.skipped = std::stoi(f[4]);
    }
    if (f[0] == "case" && f.size() >= 4) out.cases.push_back({f[1], f[2], f[3], f.size() > 4 ? f[4] : ""});
  }
  if (!r.err.empty()) out.error += r.err;
  return out;
}

}  // namespace hcasim::test
