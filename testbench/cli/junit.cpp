#include "testbench/cli/junit.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace hcasim {

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\t': case '\n': case '\r': out += ch; break;
      default: out += (c < 0x20 || c == 0x7f) ? '?' : ch;
    }
  }
  return out;
}

namespace {

struct Counts {
  std::size_t tests = 0, failures = 0, errors = 0, skipped = 0;
  double seconds = 0;
  void add(const JunitCase& c) {
    ++tests;
    failures += c.outcome == JunitCase::Outcome::Failed;
    errors += c.outcome == JunitCase::Outcome::Error;
    skipped += c.outcome == JunitCase::Outcome::Skipped;
    seconds += c.seconds;
  }
  void add(const Counts& o) {
    tests += o.tests;
    failures += o.failures;
    errors += o.errors;
    skipped += o.skipped;
    seconds += o.seconds;
  }
  std::string attributes() const {
    char time[32];
    std::snprintf(time, sizeof time, "%.3f", seconds);
    return "tests=\"" + std::to_string(tests) + "\" failures=\"" + std::to_string(failures) + "\" errors=\"" +
           std::to_string(errors) + "\" skipped=\"" + std::to_string(skipped) + "\" time=\"" + time + "\"";
  }
};

void write_case(std::ostringstream& o, const JunitCase& c) {
  char time[32];
  std::snprintf(time, sizeof time, "%.3f", c.seconds);
  o << "    <testcase classname=\"" << xml_escape(c.classname) << "\" name=\"" << xml_escape(c.name) << "\" time=\""
    << time << "\"";
  if (c.outcome == JunitCase::Outcome::Passed) {
    o << "/>\n";
    return;
  }
  const char* element = c.outcome == JunitCase::Outcome::Failed ? "failure"
                        : c.outcome == JunitCase::Outcome::Error ? "error"
                                                                 : "skipped";
  const std::string message = c.text.substr(0, c.text.find('\n'));
  o << ">\n      <" << element << " message=\"" << xml_escape(message) << "\">" << xml_escape(c.text) << "</"
    << element << ">\n    </testcase>\n";
}

}  // namespace

std::string junit_xml(const std::vector<JunitSuite>& suites) {
  std::ostringstream body;
  Counts all;
  for (const JunitSuite& s : suites) {
    Counts counts;
    for (const JunitCase& c : s.cases) counts.add(c);
    all.add(counts);
    body << "  <testsuite name=\"" << xml_escape(s.name) << "\" " << counts.attributes() << ">\n";
    for (const JunitCase& c : s.cases) write_case(body, c);
    body << "  </testsuite>\n";
  }
  return std::string("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n") + kJunitWrittenBy + "\n<testsuites " + all.attributes() + ">\n" + body.str() +
         "</testsuites>\n";
}

void check_junit_target(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return;
  if (!std::filesystem::is_regular_file(path, ec))
    throw std::invalid_argument("--junit " + path + ": exists and is not a file; accepted: a new file or a report hcasim wrote");
  std::ifstream in(path);
  std::string head(256, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  if (head.find(kJunitWrittenBy) == std::string::npos)
    throw std::invalid_argument("--junit " + path +
                                ": the file exists and hcasim did not write it; accepted: a new file or a report hcasim wrote");
}

void write_junit(const std::string& path, const std::vector<JunitSuite>& suites) {
  std::ofstream out(path);
  if (!out) throw std::invalid_argument("--junit " + path + ": cannot write: " + std::strerror(errno));
  out << junit_xml(suites);
  if (!out.flush()) throw std::invalid_argument("--junit " + path + ": cannot write");
}

}  // namespace hcasim
