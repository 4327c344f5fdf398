#include "models/config/ibnetdiscover.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

#include "models/config/config_error.hpp"

namespace hcasim::config {

using topology::LinkParams;
using topology::NodeKind;
using topology::TopoNode;
using topology::Topology;
using topology::kMaxPorts;

namespace {

constexpr const char* kLineForms =
    "accepted: comments (#), vendid=/devid=/sysimgguid=/switchguid=/caguid= lines, "
    "node headers 'Switch <ports> \"<id>\"' or 'Ca <ports> \"<id>\"', and port lines '[<port>] \"<peer id>\"[<peer port>]'";
constexpr const char* kPortLineForm =
    "expected '[<port>](<port guid>) \"<peer id>\"[<peer port>](<peer port guid>) # ...', the guids optional";
constexpr const char* kLinkRateForms =
    "accepted: <width><speed> with width 1x, 2x, 4x, 8x, 12x or ?? when unknown and speed SDR, DDR, QDR, FDR10, FDR, "
    "EDR, HDR, NDR or ??? when unknown, e.g. 4xHDR";

// One port line as written: this node's port and what it says is on the far end.
struct PortClaim {
  unsigned node = 0, port = 0;
  std::string peer_id;
  unsigned peer = 0;         // node index of peer_id, resolved by finish()
  unsigned peer_port = 0;
  std::size_t line = 0;
  LinkParams params;
};

class Cursor {
 public:
  explicit Cursor(const std::string& s) : s_(s) {}
  void skip_space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool at_end() const { return i_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[i_]; }
  bool take(char c) {
    if (peek() != c) return false;
    ++i_;
    return true;
  }
  bool take(const std::string& word) {
    if (s_.compare(i_, word.size(), word) != 0) return false;
    i_ += word.size();
    return true;
  }
  // Decimal digits (at most 9).
  std::optional<unsigned> number() {
    std::size_t j = i_;
    unsigned v = 0;
    while (j < s_.size() && j - i_ < 9 && std::isdigit(static_cast<unsigned char>(s_[j]))) v = v * 10 + (s_[j++] - '0');
    if (j == i_) return std::nullopt;
    i_ = j;
    return v;
  }
  // Hex digits with an optional 0x, at most 16.
  std::optional<uint64_t> hex() {
    std::size_t j = i_;
    if (s_.compare(j, 2, "0x") == 0 || s_.compare(j, 2, "0X") == 0) j += 2;
    const std::size_t start = j;
    uint64_t v = 0;
    while (j < s_.size() && std::isxdigit(static_cast<unsigned char>(s_[j])) && j - start < 16) {
      const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s_[j++])));
      v = v << 4 | static_cast<uint64_t>(std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : c - 'a' + 10);
    }
    if (j == start || (j < s_.size() && std::isxdigit(static_cast<unsigned char>(s_[j])))) return std::nullopt;
    i_ = j;
    return v;
  }
  // "..." without the quotes; nullopt when there is no closing quote.
  std::optional<std::string> quoted() {
    if (peek() != '"') return std::nullopt;
    const std::size_t close = s_.find('"', i_ + 1);
    if (close == std::string::npos) return std::nullopt;
    std::string v = s_.substr(i_ + 1, close - i_ - 1);
    i_ = close + 1;
    return v;
  }
  std::string word() {
    const std::size_t start = i_;
    while (i_ < s_.size() && !std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
    return s_.substr(start, i_ - start);
  }
  std::string rest() const { return at_end() ? "" : s_.substr(i_); }

 private:
  const std::string& s_;
  std::size_t i_ = 0;
};

std::string excerpt(const std::string& line) {
  constexpr std::size_t kMax = 60;
  std::string s = line.size() > kMax ? line.substr(0, kMax) + "..." : line;
  for (char& c : s) {
    if (c == '\t') c = ' ';
  }
  return "'" + s + "'";
}

// A width/speed token such as "4xHDR"; nullopt params when "??"/"???" (unknown in the dump).
bool parse_rate_token(const std::string& token, LinkParams& params, std::string& error) {
  static const std::vector<std::pair<std::string, link::Width>> widths = {
      {"12x", link::Width::X12}, {"1x", link::Width::X1}, {"2x", link::Width::X2}, {"4x", link::Width::X4},
      {"8x", link::Width::X8}};
  // FDR10 (10.3125 Gb/s lanes, 64b/66b) has no generation of its own in the model; it is read as FDR,
  // whose line code it shares, so its rate comes out about 36% high.
  static const std::vector<std::pair<std::string, link::Speed>> speeds = {
      {"SDR", link::Speed::Sdr}, {"DDR", link::Speed::Ddr}, {"QDR", link::Speed::Qdr}, {"FDR10", link::Speed::Fdr},
      {"FDR", link::Speed::Fdr}, {"EDR", link::Speed::Edr}, {"HDR", link::Speed::Hdr}, {"NDR", link::Speed::Ndr}};
  std::size_t cut = 0;
  std::optional<link::Width> width;
  if (token.rfind("??", 0) == 0) {
    cut = 2;  // width unknown to ibnetdiscover
  } else {
    for (const auto& w : widths) {
      if (token.rfind(w.first, 0) == 0) {
        width = w.second;
        cut = w.first.size();
        break;
      }
    }
    if (cut == 0) {
      error = "unknown link width in '" + token + "'";
      return false;
    }
  }
  const std::string speed_text = token.substr(cut);
  std::optional<link::Speed> speed;
  if (speed_text != "???") {
    for (const auto& s : speeds) {
      if (speed_text == s.first) speed = s.second;
    }
    if (!speed) {
      error = "unknown link speed '" + speed_text + "' in '" + token + "'";
      return false;
    }
  }
  params.width = width;
  params.speed = speed;
  return true;
}

// A token that is meant as width+speed: starts with digits and 'x', or with "??".
bool looks_like_rate(const std::string& token) {
  if (token.rfind("??", 0) == 0) return true;
  std::size_t i = 0;
  while (i < token.size() && std::isdigit(static_cast<unsigned char>(token[i]))) ++i;
  return i > 0 && i < token.size() && token[i] == 'x';
}

class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  void line(const std::string& raw, std::size_t number) {
    line_ = number;
    std::string text = raw;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    Cursor c(text);
    c.skip_space();
    if (c.at_end() || c.peek() == '#') return;
    if (c.peek() == '[') return port_line(c, text);
    const std::string first = c.word();
    const std::size_t eq = first.find('=');
    if (eq != std::string::npos) return id_line(first.substr(0, eq), text.substr(text.find('=') + 1), text);
    if (first == "Chassis" || first == "Hostname:") return;  // ibnetdiscover -g grouping lines
    node_header(first, c, text);
  }

  Topology finish();

 private:
  [[noreturn]] void fail(const std::string& message, std::size_t line = 0) const {
    throw ConfigError(source_ + ":" + std::to_string(line ? line : line_), message);
  }

  void id_line(const std::string& key, const std::string& value, const std::string& text) {
    current_ = -1;
    std::string v = value;
    Cursor c(v);
    const auto number = c.hex();
    if (key == "vendid" || key == "devid" || key == "sysimgguid") {
      if (!number) fail("'" + key + "=' needs a hex number; got " + excerpt(text) + "; " + kLineForms);
      if (key == "sysimgguid") pending_system_guid_ = *number;  // the next node's SystemImageGUID
      return;
    }
    if (key == "rtguid") fail("router nodes (rtguid=, Rt) are not modelled; accepted: Switch and Ca nodes only");
    if (key != "switchguid" && key != "caguid") fail("unknown line " + excerpt(text) + "; " + kLineForms);
    if (!number) fail("'" + key + "=' needs a hex GUID; got " + excerpt(text) + "; e.g. caguid=0x0c42a10300d4e5f0");
    pending_guid_ = *number;
    pending_kind_ = key == "switchguid" ? NodeKind::Switch : NodeKind::Hca;
    pending_line_ = line_;
  }

  void node_header(const std::string& kind_word, Cursor& c, const std::string& text) {
    c.skip_space();
    const auto ports = c.number();
    c.skip_space();
    const auto id = c.quoted();
    if (kind_word == "Rt") fail("router nodes (Rt) are not modelled; accepted: Switch and Ca nodes only");
    if (kind_word != "Switch" && kind_word != "Ca") {
      if (ports && id)
        fail("unknown node kind '" + kind_word + "'; accepted: Switch or Ca (Rt routers are not modelled)");
      fail("unknown line " + excerpt(text) + "; " + kLineForms);
    }
    if (!ports || !id)
      fail("truncated node header " + excerpt(text) + "; expected '" + kind_word + " <ports> \"<id>\" # \"<description>\"'");
    if (*ports < 1 || *ports > kMaxPorts)
      fail(std::to_string(*ports) + " ports; accepted: 1 to " + std::to_string(kMaxPorts));
    if (id->empty()) fail("empty node id; accepted: a quoted id such as \"S-e41d2d0300a1b2c0\"");
    const auto [it, fresh] = ids_.emplace(*id, static_cast<unsigned>(nodes_.size()));
    if (!fresh) fail("node \"" + *id + "\" is declared twice (first on line " + std::to_string(lines_[it->second]) +
                     "); accepted: one block per node");
    TopoNode n;
    n.name = *id;
    n.kind = kind_word == "Switch" ? NodeKind::Switch : NodeKind::Hca;
    n.ports = *ports;
    c.skip_space();
    if (c.take('#')) {
      c.skip_space();
      if (const auto desc = c.quoted()) n.description = *desc;
    }
    // The GUID: from the guid line before the header, else from the id ("S-<hex>").
    std::optional<uint64_t> id_guid;
    if (id->size() > 2 && (*id)[1] == '-') {
      const std::string hex_part = id->substr(2);
      Cursor h(hex_part);
      const std::optional<uint64_t> hex = h.hex();
      if (h.at_end()) id_guid = hex;
    }
    if (pending_guid_) {
      if (pending_kind_ != n.kind)
        fail(std::string("the ") + (pending_kind_ == NodeKind::Switch ? "switchguid" : "caguid") + "= line " +
             std::to_string(pending_line_) + " precedes a " + kind_word + " node; accepted: switchguid= before Switch, caguid= before Ca");
      if (id_guid && *id_guid != *pending_guid_)
        fail("node id \"" + *id + "\" disagrees with the GUID on line " + std::to_string(pending_line_) +
             "; accepted: the id carries the node GUID");
      n.guid = *pending_guid_;
    } else if (id_guid) {
      n.guid = *id_guid;
    }
    pending_guid_.reset();
    n.system_guid = pending_system_guid_;
    pending_system_guid_ = 0;
    nodes_.push_back(std::move(n));
    lines_.push_back(line_);
    seen_.emplace_back(*ports + 1, false);
    current_ = static_cast<int>(nodes_.size() - 1);
  }

  void port_line(Cursor& c, const std::string& text) {
    if (current_ < 0) fail("port line " + excerpt(text) + " outside a node block; expected a Switch or Ca header before it");
    const TopoNode& node = nodes_[current_];
    PortClaim claim;
    claim.node = static_cast<unsigned>(current_);
    claim.line = line_;
    c.take('[');
    const auto port = c.number();
    if (!port || !c.take(']')) fail("truncated port line " + excerpt(text) + "; " + kPortLineForm);
    skip_ext(c);
    if (c.peek() == '(' && !skip_guid(c)) fail("bad port GUID in " + excerpt(text) + "; " + kPortLineForm);
    c.skip_space();
    const auto peer = c.quoted();
    if (!peer || !c.take('[')) fail("truncated port line " + excerpt(text) + "; " + kPortLineForm);
    const auto peer_port = c.number();
    if (!peer_port || !c.take(']')) fail("truncated port line " + excerpt(text) + "; " + kPortLineForm);
    skip_ext(c);
    c.skip_space();
    if (c.peek() == '(' && !skip_guid(c)) fail("bad peer port GUID in " + excerpt(text) + "; " + kPortLineForm);
    c.skip_space();
    if (!c.at_end() && !c.take('#'))
      fail("unexpected text after the peer port in " + excerpt(text) + "; " + kPortLineForm);
    if (*port < 1 || *port > node.ports)
      fail("port " + std::to_string(*port) + " of \"" + node.name + "\", which has ports 1 to " + std::to_string(node.ports));
    if (seen_[current_][*port]) fail("port " + std::to_string(*port) + " of \"" + node.name + "\" is listed twice");
    seen_[current_][*port] = true;
    if (*peer_port < 1 || *peer_port > kMaxPorts)
      fail("peer port " + std::to_string(*peer_port) + "; accepted: 1 to " + std::to_string(kMaxPorts));
    claim.port = *port;
    claim.peer_id = *peer;
    claim.peer_port = *peer_port;
    parse_comment(c.rest(), claim.params);
    claims_.push_back(std::move(claim));
  }

  // "[ext N]" of ibnetdiscover -g.
  void skip_ext(Cursor& c) {
    if (c.take("[ext ")) {
      c.number();
      c.take(']');
    }
  }

  bool skip_guid(Cursor& c) {
    c.take('(');
    return c.hex().has_value() && c.take(')');
  }

  // The width/speed token of the comment, outside quoted descriptions.
  void parse_comment(const std::string& comment, LinkParams& params) {
    std::string unquoted;
    bool in_quote = false;
    for (char ch : comment) {
      if (ch == '"') {
        in_quote = !in_quote;
        unquoted += ' ';
      } else {
        unquoted += in_quote ? ' ' : ch;
      }
    }
    Cursor c(unquoted);
    for (c.skip_space(); !c.at_end(); c.skip_space()) {
      const std::string token = c.word();
      if (!looks_like_rate(token)) continue;
      std::string error;
      if (!parse_rate_token(token, params, error)) fail(error + "; " + kLinkRateForms);
      return;
    }
  }

  std::string source_;
  std::size_t line_ = 0;
  std::vector<TopoNode> nodes_;
  std::vector<std::size_t> lines_;           // header line of each node
  std::vector<std::vector<bool>> seen_;      // [node][port] listed in its block
  std::unordered_map<std::string, unsigned> ids_;
  std::vector<PortClaim> claims_;
  int current_ = -1;                          // node whose block we are in
  std::optional<uint64_t> pending_guid_;
  uint64_t pending_system_guid_ = 0;  // from sysimgguid=, for the next node; 0 = none
  NodeKind pending_kind_ = NodeKind::Hca;
  std::size_t pending_line_ = 0;
};

std::string rate_text(const LinkParams& p) {
  return std::string(p.width ? link::to_string(*p.width) : "??") + (p.speed ? link::to_string(*p.speed) : "???");
}

Topology Reader::finish() {
  Topology t;
  t.nodes = nodes_;
  // claim_at[(node, port)] = index of the claim made on that port's own line.
  std::map<std::pair<unsigned, unsigned>, std::size_t> claim_at;
  for (std::size_t i = 0; i < claims_.size(); ++i) claim_at[{claims_[i].node, claims_[i].port}] = i;
  // link_at[(node, port)] = index of the link holding the port.
  std::map<std::pair<unsigned, unsigned>, std::size_t> link_at;
  std::vector<std::size_t> link_line;
  const auto name = [&](unsigned node, unsigned port) { return "\"" + nodes_[node].name + "\"[" + std::to_string(port) + "]"; };
  for (PortClaim& claim : claims_) {
    const auto peer_it = ids_.find(claim.peer_id);
    if (peer_it == ids_.end())
      fail("the peer \"" + claim.peer_id + "\" has no node block in the file; accepted: ids of Switch or Ca nodes listed",
           claim.line);
    claim.peer = peer_it->second;
    if (claim.peer_port > nodes_[claim.peer].ports)
      fail("\"" + claim.peer_id + "\" has ports 1 to " + std::to_string(nodes_[claim.peer].ports) + ", not " +
               std::to_string(claim.peer_port), claim.line);
    if (claim.peer == claim.node && claim.peer_port == claim.port)
      fail("a port linked to itself; accepted: a link between two different ports", claim.line);
  }
  for (const PortClaim& claim : claims_) {
    const unsigned peer = claim.peer;
    const auto back = claim_at.find({peer, claim.peer_port});
    if (back != claim_at.end()) {
      const PortClaim& other = claims_[back->second];
      const bool agrees = other.peer == claim.node && other.peer_port == claim.port;
      if (!agrees) {
        const PortClaim& later = other.line > claim.line ? other : claim;
        const PortClaim& earlier = other.line > claim.line ? claim : other;
        fail("the two ends of a link disagree: " + name(later.node, later.port) + " is joined to \"" + later.peer_id +
                 "\"[" + std::to_string(later.peer_port) + "] here, but line " + std::to_string(earlier.line) + " joins " +
                 name(earlier.node, earlier.port) + " to \"" + earlier.peer_id + "\"[" +
                 std::to_string(earlier.peer_port) + "]; accepted: both lines naming each other",
             later.line);
      }
      const bool speed_clash = claim.params.speed && other.params.speed && *claim.params.speed != *other.params.speed;
      const bool width_clash = claim.params.width && other.params.width && *claim.params.width != *other.params.width;
      if (speed_clash || width_clash) {
        const PortClaim& later = other.line > claim.line ? other : claim;
        const PortClaim& earlier = other.line > claim.line ? claim : other;
        fail("the two ends of a link disagree on its rate: " + rate_text(later.params) + " here, " +
                 rate_text(earlier.params) + " on line " + std::to_string(earlier.line) +
                 "; accepted: the same width and speed on both lines", later.line);
      }
      if (other.line < claim.line) continue;  // the link was made from the other end
    }
    for (const auto& end : {std::pair{claim.node, claim.port}, std::pair{peer, claim.peer_port}}) {
      const auto used = link_at.find(end);
      if (used != link_at.end())
        fail(name(end.first, end.second) + " is already on the link of line " + std::to_string(link_line[used->second]) +
                 "; accepted: one link per port", claim.line);
    }
    topology::TopoLink link;
    link.a = {claim.node, claim.port};
    link.b = {peer, claim.peer_port};
    link.params = claim.params;
    if (back != claim_at.end()) {
      const LinkParams& other = claims_[back->second].params;
      if (!link.params.speed) link.params.speed = other.speed;
      if (!link.params.width) link.params.width = other.width;
    }
    link_at[{claim.node, claim.port}] = t.links.size();
    link_at[{peer, claim.peer_port}] = t.links.size();
    link_line.push_back(claim.line);
    t.links.push_back(link);
  }
  return t;
}

}  // namespace

Topology read_ibnetdiscover(std::istream& in, const std::string& source) {
  Reader reader(source);
  std::string text;
  std::size_t number = 0;
  while (std::getline(in, text)) reader.line(text, ++number);
  return reader.finish();
}

}  // namespace hcasim::config
