#include "models/config/partitions_conf.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "models/config/config_error.hpp"

namespace hcasim::config {

namespace {

const char* const kJsonPath = "management.partitions";
const char* const kRuleForm =
    "Name=0xPKEY[,ipoib][,indx0][,defmember=full|limited|both] : MEMBER[=full|limited|both], ... ;";
const char* const kMemberForm =
    "a port GUID, ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF, NONE or an hcasim port name (NODE.pN or NODE), "
    "optionally =full, =limited or =both";

std::string trim(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  return out;
}

// A whole unsigned number (0x hexadecimal, else decimal); false when it is not one.
bool number(const std::string& s, uint64_t& v) {
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  errno = 0;
  char* end = nullptr;
  v = std::strtoull(s.c_str(), &end, s.size() > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10);
  return errno == 0 && end != nullptr && *end == '\0';
}

bool membership(const std::string& s, mgmt::Membership& m) {
  if (s == "full") m = mgmt::Membership::Full;
  else if (s == "limited") m = mgmt::Membership::Limited;
  else if (s == "both") m = mgmt::Membership::Both;
  else return false;
  return true;
}

class Parser {
 public:
  explicit Parser(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(unsigned line, const std::string& what, const std::string& accepted) const {
    throw ConfigError(kJsonPath, source_ + " line " + std::to_string(line) + ": " + what + "; accepted: " + accepted);
  }

  mgmt::PartitionRule rule(const std::string& text, unsigned line) const {
    const std::size_t colon = text.find(':');
    if (colon == std::string::npos) fail(line, "no ':' between the partition and its members", kRuleForm);
    mgmt::PartitionRule r;
    r.line = line;
    const std::vector<std::string> def = split(text.substr(0, colon), ',');
    const std::size_t eq = def[0].find('=');
    r.name = trim(def[0].substr(0, eq));
    uint64_t key = 0;
    if (eq == std::string::npos)
      fail(line, "partition '" + r.name + "' has no P_Key (the model does not generate one)", kRuleForm);
    const std::string key_text = trim(def[0].substr(eq + 1));
    if (!number(key_text, key) || key > 0xFFFF || (key & 0x7FFF) == 0)
      fail(line, "P_Key '" + key_text + "' is not valid", "a number up to 0xFFFF whose low 15 bits are not 0");
    r.pkey = static_cast<uint16_t>(key);
    for (std::size_t i = 1; i < def.size(); ++i) flag(r, def[i], line);
    for (const std::string& m : split(text.substr(colon + 1), ',')) member(r, m, line);
    return r;
  }

 private:
  void flag(mgmt::PartitionRule& r, const std::string& f, unsigned line) const {
    const std::size_t eq = f.find('=');
    const std::string name = trim(f.substr(0, eq));
    const std::string value = eq == std::string::npos ? "" : trim(f.substr(eq + 1));
    if (name == "ipoib" && eq == std::string::npos) {
      r.ipoib = true;
    } else if (name == "indx0" && eq == std::string::npos) {
      r.indx0 = true;
    } else if (name == "defmember") {
      if (!membership(value, r.defmember)) fail(line, "defmember '" + value + "'", "defmember=full, limited or both");
    } else if ((name == "rate" || name == "mtu" || name == "sl" || name == "scope" || name == "Q_Key" ||
                name == "TClass" || name == "FlowLabel") && !value.empty()) {
      // a broadcast group's flag: read, no effect (no multicast in the model)
    } else {
      fail(line, "unknown partition flag '" + f + "'",
           "ipoib, indx0, defmember=full|limited|both, rate=, mtu=, sl=, scope=, Q_Key=, TClass=, FlowLabel=");
    }
  }

  void member(mgmt::PartitionRule& r, const std::string& text, unsigned line) const {
    if (text.empty()) return;
    const std::size_t eq = text.find('=');
    const std::string name = trim(text.substr(0, eq));
    if (name == "mgid") fail(line, "multicast groups (mgid=) are not modelled", kMemberForm);
    mgmt::PartitionMember m;
    if (eq != std::string::npos) {
      mgmt::Membership f;
      const std::string flag = trim(text.substr(eq + 1));
      if (!membership(flag, f)) fail(line, "membership '" + flag + "' of member '" + name + "'", "full, limited or both");
      m.membership = f;
    }
    uint64_t guid = 0;
    if (name == "NONE" || name == "ALL_ROUTERS") return;
    if (name == "ALL") m.kind = mgmt::MemberKind::All;
    else if (name == "ALL_CAS") m.kind = mgmt::MemberKind::AllCas;
    else if (name == "ALL_SWITCHES") m.kind = mgmt::MemberKind::AllSwitches;
    else if (name == "SELF") m.kind = mgmt::MemberKind::Self;
    else if (number(name, guid)) {
      if (guid == 0) fail(line, "port GUID 0", kMemberForm);
      m.kind = mgmt::MemberKind::Guid;
      m.guid = guid;
    } else if (!name.empty() && std::isdigit(static_cast<unsigned char>(name[0]))) {
      fail(line, "member '" + name + "' is not a number", kMemberForm);
    } else if (name.empty() || name.find_first_of(" \t\n") != std::string::npos) {
      fail(line, "member '" + name + "'", kMemberForm);
    } else {
      m.kind = mgmt::MemberKind::Name;
      m.name = name;
    }
    r.members.push_back(std::move(m));
  }

  std::string source_;
};

}  // namespace

std::vector<mgmt::PartitionRule> parse_partitions_conf(const std::string& text, const std::string& source) {
  const Parser parser(source);
  std::vector<mgmt::PartitionRule> rules;
  std::string rule;
  unsigned line = 1, start = 0;
  bool comment = false;
  for (char c : text) {
    if (c == '\n') {
      comment = false;
      ++line;
      if (start != 0) rule += ' ';
      continue;
    }
    if (comment) continue;
    if (c == '#') {
      comment = true;
      continue;
    }
    if (c == ';') {
      if (start == 0) parser.fail(line, "';' with no rule before it", kRuleForm);
      rules.push_back(parser.rule(rule, start));
      rule.clear();
      start = 0;
      continue;
    }
    if (start == 0 && std::isspace(static_cast<unsigned char>(c))) continue;
    if (start == 0) start = line;
    rule += c;
  }
  if (start != 0) parser.fail(start, "the rule does not end with ';'", kRuleForm);
  return rules;
}

}  // namespace hcasim::config
