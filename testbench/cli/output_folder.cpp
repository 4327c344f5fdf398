#include "testbench/cli/output_folder.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace hcasim {

void claim_output_folder(const std::string& dir, const std::string& marker, const std::string& writer) {
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) throw std::invalid_argument("--out " + dir + ": exists and is not a folder");
    if (!fs::is_empty(dir, ec) && !fs::exists(fs::path(dir) / marker, ec))
      throw std::invalid_argument("--out " + dir + ": folder holds files " + writer +
                                  " did not write; choose another --out or empty it");
  }
  fs::create_directories(dir, ec);
  if (ec) throw std::invalid_argument("--out " + dir + ": cannot create: " + ec.message());
  std::ofstream(fs::path(dir) / marker) << "written by " << writer << "\n";
}

}  // namespace hcasim
