#include "models/config/link_config_io.hpp"

#include <sstream>

#include "models/config/config_schema.hpp"
#include "models/config/notices.hpp"
#include "models/config/units.hpp"
#include "models/ib/mad.hpp"
#include "models/ib/opcodes.hpp"
#include "models/link/credits.hpp"

namespace hcasim::link {

using config::ConfigError;
using config::json_excerpt;
using config::json_unsigned;

std::vector<VlArbEntry> parse_vlarb_table(const nlohmann::json& v, const std::string& path) {
  const std::string accepted = "accepted: \"vl:weight,...\" with VL 0-14 and weight 0-255, at most 64 entries";
  if (!v.is_string()) throw ConfigError(path, "expected a string; " + accepted);
  std::vector<VlArbEntry> out;
  std::stringstream in(v.get<std::string>());
  std::string item;
  while (std::getline(in, item, ',')) {
    const std::size_t colon = item.find(':');
    unsigned vl = 0, weight = 0;
    char extra = 0;
    if (colon == std::string::npos ||
        std::sscanf(item.c_str(), "%u:%u%c", &vl, &weight, &extra) != 2)
      throw ConfigError(path, "entry '" + item + "' is not vl:weight; " + accepted);
    if (vl >= kMaxDataVls)
      throw ConfigError(path, "entry '" + item + "' names VL " + std::to_string(vl) + "; " + accepted);
    if (weight > 255)
      throw ConfigError(path, "entry '" + item + "' has weight " + std::to_string(weight) + " over 255; " + accepted);
    out.push_back({static_cast<uint8_t>(vl), static_cast<uint8_t>(weight)});
  }
  if (out.size() > kMaxArbEntries)
    throw ConfigError(path, std::to_string(out.size()) + " entries; " + accepted);
  return out;
}

std::vector<uint32_t> parse_sl2vl(const nlohmann::json& v, const std::string& path) {
  const std::string accepted = "accepted: a list of at most 16 VLs 0-15, or a string \"vl,vl,...\" of them";
  std::vector<uint32_t> out;
  const auto take = [&](const std::string& at, const std::string& text, long long vl) {
    if (vl < 0 || vl > 15) throw ConfigError(at, text + " is not a VL; " + accepted);
    out.push_back(static_cast<uint32_t>(vl));
  };
  if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string at = path + "." + std::to_string(i);
      if (!v[i].is_number_integer()) throw ConfigError(at, json_excerpt(v[i]) + " is not a VL; " + accepted);
      take(at, json_excerpt(v[i]), v[i].get<long long>());
    }
  } else if (v.is_string()) {
    std::stringstream in(v.get<std::string>());
    std::string item;
    for (std::size_t i = 0; std::getline(in, item, ','); ++i) {
      long long vl = -1;
      char extra = 0;
      if (std::sscanf(item.c_str(), "%lld%c", &vl, &extra) != 1) vl = -1;
      take(path + "." + std::to_string(i), "'" + item + "'", vl);
    }
  } else {
    throw ConfigError(path, json_excerpt(v) + " is neither a list nor a string; " + accepted);
  }
  if (out.size() > link::kSlCount) throw ConfigError(path, std::to_string(out.size()) + " entries; " + accepted);
  return out;
}

nlohmann::json format_sl2vl(const std::vector<uint32_t>& t) { return t; }

nlohmann::json format_vlarb_table(const std::vector<VlArbEntry>& t) {
  std::string s;
  for (const VlArbEntry& e : t) {
    if (!s.empty()) s += ',';
    s += std::to_string(e.vl) + ':' + std::to_string(e.weight);
  }
  return s;
}

uint64_t parse_drain_rate(const nlohmann::json& v, const std::string& path) {
  if (v.is_string() && v.get<std::string>() == "unlimited") return 0;
  const double bps = config::parse_rate_bps(v, path);
  if (bps < 1e3) throw ConfigError(path, "drain rate below 1kb/s; accepted: \"unlimited\" or a rate such as \"50Gb/s\"");
  return static_cast<uint64_t>(bps);
}

nlohmann::json format_drain_rate(uint64_t bps) {
  if (bps == 0) return "unlimited";
  return config::format_rate_bps(static_cast<double>(bps));
}

LinkConfig parse_propagation_into(const LinkConfig& base, const nlohmann::json& v, const std::string& path) {
  LinkConfig c = base;
  const std::string text = v.is_string() ? v.get<std::string>() : "";
  try {
    if (!text.empty() && text.back() == 'm') {
      c.length_m = config::parse_length_m(v, path);
      c.propagation_ps = 0;
    } else {
      c.propagation_ps = config::parse_time_ps(v, path);
      c.length_m = 0;
    }
  } catch (const ConfigError&) {
    throw ConfigError(path, json_excerpt(v) +
                                " is neither a cable length nor a time; accepted: a length such as \"3m\", "
                                "\"50cm\", \"1.2km\" or a time such as \"15ns\"");
  }
  return c;
}

nlohmann::json format_propagation(const LinkConfig& c) {
  return c.propagation_ps != 0 ? config::format_time_ps(c.propagation_ps) : config::format_length_m(c.length_m);
}

std::vector<uint64_t> parse_byte_list(const nlohmann::json& v, const std::string& path) {
  if (!v.is_array()) throw ConfigError(path, "expected a list of sizes such as [\"64KiB\", \"32KiB\"]");
  std::vector<uint64_t> out;
  for (std::size_t i = 0; i < v.size(); ++i) out.push_back(config::parse_bytes(v[i], path + "." + std::to_string(i)));
  return out;
}

nlohmann::json format_byte_list(const std::vector<uint64_t>& v) {
  nlohmann::json out = nlohmann::json::array();
  for (uint64_t b : v) out.push_back(config::format_bytes(b));
  return out;
}

std::optional<uint8_t> parse_opcode_filter(const nlohmann::json& v, const std::string& path) {
  const std::string accepted =
      "null (any), an opcode name such as \"RC_ACK\", \"RC_SEND_ONLY\" or \"UD_SEND_ONLY\", or a number 0-255";
  if (v.is_null()) return std::nullopt;
  if (v.is_string()) {
    const std::string name = v.get<std::string>();
    for (unsigned op = 0; op < 256; ++op) {
      const ib::OpcodeInfo& info = ib::opcode_info(static_cast<uint8_t>(op));
      if (info.valid && name == info.name) return static_cast<uint8_t>(op);
    }
    throw ConfigError(path, "no opcode named '" + name + "'; accepted: " + accepted);
  }
  const uint64_t n = json_unsigned(v, path, accepted);
  if (n > 255) throw ConfigError(path, std::to_string(n) + " is not an opcode; accepted: " + accepted);
  return static_cast<uint8_t>(n);
}

nlohmann::json format_opcode_filter(const std::optional<uint8_t>& op) {
  if (!op) return nullptr;
  const ib::OpcodeInfo& info = ib::opcode_info(*op);
  return info.valid ? nlohmann::json(info.name) : nlohmann::json(*op);
}

std::optional<uint32_t> parse_uint_filter(const nlohmann::json& v, const std::string& path, uint32_t max) {
  const std::string accepted = "null (any) or an integer from 0 to " + std::to_string(max);
  if (v.is_null()) return std::nullopt;
  const uint64_t n = json_unsigned(v, path, accepted);
  if (n > max) throw ConfigError(path, std::to_string(n) + " is out of range; accepted: " + accepted);
  return static_cast<uint32_t>(n);
}

std::optional<uint32_t> parse_hex_filter(const nlohmann::json& v, const std::string& path, uint32_t max) {
  const std::string accepted = "null (any), a number from 0 to " + std::to_string(max) +
                               " or a hexadecimal string such as \"0x81\"";
  if (v.is_null()) return std::nullopt;
  uint64_t n = 0;
  if (v.is_string()) {
    const std::string text = v.get<std::string>();
    const bool hex = text.size() > 2 && text.size() <= 10 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X') &&
                     text.find_first_not_of("0123456789abcdefABCDEF", 2) == std::string::npos;
    if (!hex) throw ConfigError(path, "'" + text + "' is not a hexadecimal number; accepted: " + accepted);
    n = std::stoull(text.substr(2), nullptr, 16);
  } else {
    n = json_unsigned(v, path, accepted);
  }
  if (n > max) throw ConfigError(path, json_excerpt(v) + " is out of range; accepted: " + accepted);
  return static_cast<uint32_t>(n);
}

nlohmann::json format_hex_filter(const std::optional<uint32_t>& v, unsigned digits) {
  if (!v) return nullptr;
  char text[16];
  std::snprintf(text, sizeof text, "0x%0*X", static_cast<int>(digits), *v);
  return text;
}

namespace {
struct FlagName {
  const char* name;
  uint8_t bit;
};
// seeds/000 Table 33-11.
constexpr FlagName kFlagNames[] = {{"first", ib::kFragFirst},
                                   {"last", ib::kFragLast},
                                   {"resend", ib::kFragResend},
                                   {"ack", ib::kFragAck},
                                   {"keepalive", ib::kFragKeepAlive}};
}  // namespace

std::optional<uint8_t> parse_sa_flags(const nlohmann::json& v, const std::string& path) {
  if (v.is_null()) return std::nullopt;
  if (!v.is_array()) {
    const uint64_t n = json_unsigned(v, path, kSaFlagsAccepted);
    if (n > 255) throw ConfigError(path, std::to_string(n) + " is out of range; accepted: " + kSaFlagsAccepted);
    return static_cast<uint8_t>(n);
  }
  uint8_t mask = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string at = path + "." + std::to_string(i);
    if (!v[i].is_string()) throw ConfigError(at, "expected a bit name; accepted: " + std::string(kSaFlagsAccepted));
    const std::string name = v[i].get<std::string>();
    uint8_t bit = 0;
    for (const FlagName& f : kFlagNames)
      if (name == f.name) bit = f.bit;
    if (bit == 0) throw ConfigError(at, "no Fragment Flag bit named '" + name + "'; accepted: " + kSaFlagsAccepted);
    mask |= bit;
  }
  return mask;
}

nlohmann::json format_sa_flags(const std::optional<uint8_t>& v) {
  if (!v) return nullptr;
  nlohmann::json names = nlohmann::json::array();
  uint8_t named = 0;
  for (const FlagName& f : kFlagNames)
    if (*v & f.bit) {
      names.push_back(f.name);
      named |= f.bit;
    }
  return named == *v ? names : nlohmann::json(*v);
}

// ---- JSON Schemas of the forms read above ----

namespace {
// "^(ITEM(,ITEM){min-1,max-1},?)?$" (a trailing comma ends getline's split without an item);
// items = 0 allows the empty string.
std::string comma_list_regex(const std::string& item, unsigned min_items, unsigned max_items) {
  const std::string more = "{" + std::to_string(min_items == 0 ? 0 : min_items - 1) + "," +
                           std::to_string(max_items - 1) + "}";
  return "^(" + item + "(," + item + ")" + more + ",?)" + (min_items == 0 ? "?" : "") + "$";
}
// What sscanf's %u / %lld take before the digits: white space and a plus sign.
constexpr const char* kScanfLead = "\\s*\\+?";
}  // namespace

nlohmann::json vlarb_table_schema() {
  const std::string item = std::string(kScanfLead) + config::schema::integer_regex(kMaxDataVls - 1) + ":" +
                           kScanfLead + config::schema::integer_regex(255);
  return config::schema::pattern(comma_list_regex(item, 0, kMaxArbEntries));
}

// check_port's rule is stated here too: 16 entries or none.
nlohmann::json sl2vl_schema() {
  const nlohmann::json vl = config::schema::integer(0, 15);
  const std::string item = std::string(kScanfLead) + config::schema::integer_regex(15);
  return config::schema::any_of({{{"type", "array"}, {"maxItems", 0}},
                                 {{"type", "array"}, {"items", vl}, {"minItems", kSlCount}, {"maxItems", kSlCount}},
                                 config::schema::pattern("^$"),
                                 config::schema::pattern(comma_list_regex(item, kSlCount, kSlCount))});
}

nlohmann::json drain_rate_schema() {
  return config::schema::any_of({{{"const", "unlimited"}}, config::schema::rate()});
}

nlohmann::json propagation_schema() {
  return config::schema::any_of({config::schema::length(), config::schema::time()});
}

nlohmann::json byte_list_schema() {
  return {{"type", "array"}, {"items", config::schema::bytes(0, UINT64_MAX)}};
}

nlohmann::json opcode_filter_schema() {
  std::vector<std::string> names;
  for (unsigned op = 0; op < 256; ++op) {
    const ib::OpcodeInfo& info = ib::opcode_info(static_cast<uint8_t>(op));
    if (info.valid) names.push_back(info.name);
  }
  return config::schema::any_of(
      {config::schema::null(), config::schema::names(names), config::schema::integer(0, 255)});
}

nlohmann::json uint_filter_schema(uint32_t max) {
  return config::schema::any_of({config::schema::null(), config::schema::integer(0, max)});
}

// parse_hex_filter: "0x" and 1 to 8 hex digits. Where max is 16^k - 1 the pattern allows
// k significant digits, so it states the range too.
nlohmann::json hex_filter_schema(uint32_t max) {
  unsigned k = 0;
  for (uint64_t m = uint64_t{max} + 1; m > 1 && m % 16 == 0; m /= 16) ++k;
  const bool power = k > 0 && (uint64_t{1} << (4 * k)) == uint64_t{max} + 1;
  const std::string digits = power ? "0{0," + std::to_string(8 - k) + "}[0-9a-fA-F]{1," + std::to_string(k) + "}"
                                   : "[0-9a-fA-F]{1,8}";
  return config::schema::any_of({config::schema::null(), config::schema::integer(0, max),
                                 config::schema::pattern("^0[xX]" + digits + "$")});
}

nlohmann::json sa_flags_schema() {
  std::vector<std::string> names;
  for (const FlagName& f : kFlagNames) names.push_back(f.name);
  return config::schema::any_of({config::schema::null(), config::schema::integer(0, 255),
                                 {{"type", "array"}, {"items", config::schema::names(names)}}});
}

}  // namespace hcasim::link

namespace hcasim::config {

namespace {
// Largest packet a port of this MTU carries: MTU + 126 bytes of headers and CRCs
// (iba-facts 1: maximum PktLen), in whole credit blocks.
uint64_t max_packet_bytes(uint32_t mtu) {
  return link::blocks_for(mtu + 126) * link::kCreditBlockBytes;
}
std::string vls_text(unsigned n) {
  return n == 1 ? std::string("1 operational VL (VL0)")
                : std::to_string(n) + " operational VLs (VL0-" + std::to_string(n - 1) + ")";
}
// The VLs at or above `vls` that entries of weight above 0 name, as ranges: "VL4-7",
// "VL5, VL9"; "" when there are none. (Weight-0 entries are skipped anyway.)
std::string inoperative_vls(const std::vector<link::VlArbEntry>& table, unsigned vls) {
  uint32_t named = 0;
  for (const link::VlArbEntry& e : table)
    if (e.weight != 0 && e.vl >= vls) named |= 1u << e.vl;
  std::string out;
  for (unsigned vl = 0; vl < 16; ++vl) {
    if (!(named & (1u << vl))) continue;
    unsigned last = vl;
    while (last + 1 < 16 && (named & (1u << (last + 1)))) ++last;
    out += (out.empty() ? "VL" : ", VL") + std::to_string(vl) + (last > vl ? "-" + std::to_string(last) : "");
    vl = last;
  }
  return out;
}
}  // namespace

void check_port(const link::PortConfig& c, const std::string& path) {
  const std::string p = path.empty() ? "" : path + ".";
  if (c.operational_vls > c.data_vls)
    throw ConfigError(p + "operational_vls", std::to_string(c.operational_vls) + " exceeds data_vls (VLCap) " +
                                                 std::to_string(c.data_vls) + "; accepted: 0 or at most data_vls");
  const unsigned vls = c.effective_vls();
  if (!c.sl2vl.empty() && c.sl2vl.size() != link::kSlCount)
    throw ConfigError(p + "sl2vl", "has " + std::to_string(c.sl2vl.size()) + " entries; accepted: exactly 16, or []");
  for (std::size_t sl = 0; sl < c.sl2vl.size(); ++sl)
    if (c.sl2vl[sl] != link::kVl15 && c.sl2vl[sl] >= vls)
      throw ConfigError(p + "sl2vl." + std::to_string(sl),
                        "VL " + std::to_string(c.sl2vl[sl]) + " is beyond the port's " + vls_text(vls) +
                            "; accepted: a VL below " + std::to_string(vls) + ", or 15 to drop");
  for (const char* table : {"high", "low"}) {
    const auto& t = std::string(table) == "high" ? c.vlarb.high : c.vlarb.low;
    const std::string skipped = inoperative_vls(t, vls);
    if (!skipped.empty())
      notice(p + "vlarb." + table, "entries for " + skipped + " skipped: the port has " + vls_text(vls));
  }
  if (c.vl_buffers.size() > vls)
    throw ConfigError(p + "vl_buffers", std::to_string(c.vl_buffers.size()) + " sizes for " + vls_text(vls) +
                                            "; accepted: at most one per operational VL");
  const uint64_t need = max_packet_bytes(c.mtu);
  for (unsigned vl = 0; vl < vls; ++vl)
    if (link::rx_buffer_bytes(c, vl) < need)
      throw ConfigError(p + (vl < c.vl_buffers.size() ? "vl_buffers." + std::to_string(vl) : std::string("vl_buffer")),
                        format_bytes(link::rx_buffer_bytes(c, vl)) + " cannot hold one " + std::to_string(c.mtu) +
                            "-byte-MTU packet; accepted: at least " + format_bytes(need));
  if (c.tx_buffer_bytes < need)
    throw ConfigError(p + "tx_buffer", format_bytes(c.tx_buffer_bytes) + " cannot hold one " + std::to_string(c.mtu) +
                                           "-byte-MTU packet; accepted: at least " + format_bytes(need));
  if (c.vl15_buffer_bytes < max_packet_bytes(256))
    throw ConfigError(p + "vl15_buffer", "cannot hold one 256-byte management packet; accepted: at least " +
                                             format_bytes(max_packet_bytes(256)));
}

link::PortConfig resolve_port(const link::PortConfig& c) {
  link::PortConfig r = c;
  r.operational_vls = c.effective_vls();
  const auto t = link::resolved_sl2vl(c);
  r.sl2vl.assign(t.begin(), t.end());
  r.vlarb = link::resolved_vlarb(c);
  return r;
}

}  // namespace hcasim::config
