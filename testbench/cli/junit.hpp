#pragma once
// JUnit XML, as CI servers read it (Jenkins, GitLab, GitHub test reporters):
// one <testsuites> holding <testsuite> elements of <testcase>s. Shared by
// `hcasim compare`, `hcasim regress` and `hcasim run --junit`.
//
// Rules:
// - A case passes, fails (<failure>: a check the run made did not hold), is
//   an error (<error>: there was no result to check, e.g. bad input) or was
//   skipped (<skipped>: the run ended before the check could be made).
// - Each suite's tests, failures, errors, skipped and time attributes count its cases;
//   the root's add up its suites'.
// - Text and attribute values are escaped (& < > " '); characters XML 1.0
//   cannot hold (control characters other than tab, newline and carriage
//   return) are written as '?'. A failure's message attribute is its first
//   line; the whole text goes in the element's body.

#include <string>
#include <vector>

namespace hcasim {

struct JunitCase {
  enum class Outcome { Passed, Failed, Error, Skipped };
  std::string classname;   // e.g. the scenario's name
  std::string name;        // e.g. the check's name
  Outcome outcome = Outcome::Passed;
  std::string text;        // why it failed or was skipped (empty when passed); first line = message
  double seconds = 0;
};

struct JunitSuite {
  std::string name;
  std::vector<JunitCase> cases;
};

// Text made safe for XML character data and attribute values.
std::string xml_escape(const std::string& text);
std::string junit_xml(const std::vector<JunitSuite>& suites);
// A report file is written anew each time, but a file hcasim did not write
// (no kWrittenBy comment at its top) is never overwritten: check_junit_target
// throws std::invalid_argument naming --junit and the file; call it before
// the work, so a bad path fails at once.
constexpr const char* kJunitWrittenBy = "<!-- written by hcasim -->";
void check_junit_target(const std::string& path);
// Writes junit_xml(suites) to path; throws std::runtime_error naming the file when it cannot.
void write_junit(const std::string& path, const std::vector<JunitSuite>& suites);

}  // namespace hcasim
