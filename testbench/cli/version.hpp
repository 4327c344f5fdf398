#pragma once
// hcasim's version (CMakeLists.txt's project VERSION) and the git revision it was built from
// (`git describe --always --dirty` at build time, "unknown" outside a git checkout).

#include <string>

namespace hcasim {

// "hcasim 0.31.0 (git 14b4683-dirty)"
std::string version_line();

}  // namespace hcasim
