#pragma once
// An output folder a command may write into (DESIGN.md: nothing a user wrote
// is overwritten without asking).
//
// Rules:
// - The folder is new (created, with its parents), empty, or one the same
//   writer made before: it holds `marker`. Anything else holds someone else's
//   files and is refused; so is a file of that name.
// - Refusals are std::invalid_argument, one line naming "--out DIR".
// - The marker is left in the folder, saying "written by <writer>".

#include <string>

namespace hcasim {

void claim_output_folder(const std::string& dir, const std::string& marker, const std::string& writer);

}  // namespace hcasim
