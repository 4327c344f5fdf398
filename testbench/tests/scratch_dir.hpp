#pragma once
// A test's scratch folder: made fresh under the system's temporary folder with a
// unique suffix (so two test runs at once never share one), and removed with
// everything in it when the test ends, passed or failed. Set HCASIM_KEEP_TEST_DIRS
// to keep the folders, to look at what a failing test wrote.

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

#include <stdlib.h>

namespace hcasim::test {

class ScratchDir {
 public:
  // `name` says which test the folder is for: hcasim-test-<name>-XXXXXX.
  explicit ScratchDir(const std::string& name) {
    std::string tmpl = (std::filesystem::temp_directory_path() / ("hcasim-test-" + name + "-XXXXXX")).string();
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("cannot make a scratch folder like " + tmpl);
    path_ = tmpl;
  }
  ~ScratchDir() {
    if (std::getenv("HCASIM_KEEP_TEST_DIRS") != nullptr) return;
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  operator const std::filesystem::path&() const { return path_; }  // NOLINT: used where a path is
  std::filesystem::path operator/(const std::filesystem::path& child) const { return path_ / child; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace hcasim::test
