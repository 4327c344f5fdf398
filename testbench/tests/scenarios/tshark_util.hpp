#pragma once
// Reads fields of a pcap with the stock tshark (iba-facts "Looking at packets
// with tshark"): one row per packet, one column per field, "" where a packet
// lacks the field; and reads the numbers tshark prints.

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace hcasim::test {

inline std::vector<std::vector<std::string>> tshark_fields(const std::string& pcap, const std::vector<std::string>& fields) {
  std::string cmd = "tshark -r " + pcap + " -T fields -E separator=/t";
  for (const std::string& f : fields) cmd += " -e " + f;
  cmd += " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::vector<std::vector<std::string>> rows;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) {
    std::string line(buf);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    std::vector<std::string> cols;
    std::stringstream s(line);
    std::string c;
    while (std::getline(s, c, '\t')) cols.push_back(c);
    cols.resize(fields.size());
    rows.push_back(cols);
  }
  REQUIRE(pclose(p) == 0);
  return rows;
}

// A number as tshark prints it: decimal or 0x-prefixed hex, a boolean as 1/0
// (or True/False in some versions).
inline uint64_t tshark_number(const std::string& s) {
  INFO("tshark value '" << s << "'");
  REQUIRE(!s.empty());
  if (s == "True") return 1;
  if (s == "False") return 0;
  const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  char* end = nullptr;
  const uint64_t v = std::strtoull(s.c_str() + (hex ? 2 : 0), &end, hex ? 16 : 10);
  REQUIRE(*end == '\0');
  return v;
}

}  // namespace hcasim::test
