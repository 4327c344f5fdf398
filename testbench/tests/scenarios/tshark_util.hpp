#pragma once
// Reads fields of a pcap with the stock tshark (iba-facts "Looking at packets
// with tshark"): one row per packet, one column per field, "" where a packet
// lacks the field.

#include <catch2/catch.hpp>

#include <cstdio>
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

}  // namespace hcasim::test
