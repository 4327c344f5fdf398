#pragma once
// Reads a GUID list in OpenSM's format (complib cl_nodenamemap.c,
// parse_node_map): what its root_guid_file, cn_guid_file and io_guid_file
// options name.
//
// Rules:
// - One GUID per line: a number as C's strtoull reads it with base 0 (0x...
//   hexadecimal, as OpenSM's docs write it; a leading 0 octal; else decimal),
//   after any white space, followed by white space, '#' or the end of the
//   line; the rest of the line (a name, a comment) is ignored.
// - Blank lines and lines whose first non-blank character is '#' are skipped.
// - Any other line is an error, as OpenSM refuses the whole file (here also a
//   negative number or one over 64 bits, which strtoull would wrap or clamp): a
//   ConfigError at `json_path` naming the file, the line number and the line.

#include <cstdint>
#include <string>
#include <vector>

namespace hcasim::config {

std::vector<uint64_t> parse_guid_file(const std::string& text, const std::string& file, const std::string& json_path);

}  // namespace hcasim::config
