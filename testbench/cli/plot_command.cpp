#include "testbench/cli/plot_command.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "testbench/cli/process_pool.hpp"

namespace fs = std::filesystem;

namespace hcasim {

namespace {

std::string find_script() {
  if (const char* s = std::getenv("HCASIM_PLOT_SCRIPT")) return s;
  const fs::path beside = fs::path(own_program_path()).parent_path() / ".." / "scripts" / "hcasim_plot.py";
  std::error_code ec;
  if (fs::exists(beside, ec)) return fs::canonical(beside, ec).string();
  const fs::path source = fs::path(HCASIM_SOURCE_DIR) / "scripts" / "hcasim_plot.py";
  return fs::exists(source, ec) ? source.string() : std::string();
}

}  // namespace

int plot_command(int argc, char* argv[]) {
  const std::string script = find_script();
  if (script.empty()) {
    std::cerr << "hcasim: plot: scripts/hcasim_plot.py not found beside the program; set HCASIM_PLOT_SCRIPT to its path\n";
    return 2;
  }
  const char* python = std::getenv("HCASIM_PYTHON") ? std::getenv("HCASIM_PYTHON") : "/usr/bin/python3";
  if (access(python, X_OK) != 0) {
    std::cerr << "hcasim: plot: " << python << " not found; install Debian's python3 and python3-matplotlib\n";
    return 2;
  }
  std::vector<char*> args = {const_cast<char*>(python), const_cast<char*>(script.c_str())};
  for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  std::cout.flush();
  execv(python, args.data());
  std::cerr << "hcasim: plot: cannot start " << python << ": " << std::strerror(errno) << "\n";
  return 2;
}

}  // namespace hcasim
