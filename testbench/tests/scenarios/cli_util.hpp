#pragma once
// Runs the hcasim binary from tests and captures what it printed.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace hcasim::test {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fresh, empty scratch folder named after the test.
inline std::filesystem::path scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("hcasim-test-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline CommandResult run_command(const std::string& args, const std::filesystem::path& dir) {
  const auto out = dir / "stdout.txt";
  const auto err = dir / "stderr.txt";
  const std::string cmd = std::string(HCASIM_BINARY) + " " + args + " >" + out.string() + " 2>" + err.string();
  const int status = std::system(cmd.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

inline std::string write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p) << text;
  return p.string();
}

inline int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace hcasim::test
