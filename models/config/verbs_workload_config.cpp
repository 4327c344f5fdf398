#include "models/config/verbs_workload_config.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <map>

#include "models/config/config_schema.hpp"
#include "models/config/scenario.hpp"
#include "models/config/units.hpp"

namespace hcasim::config {

namespace {

const Names<uint32_t> kAccessNames{{"local_write", transport::kLocalWrite},
                                   {"remote_write", transport::kRemoteWrite},
                                   {"remote_read", transport::kRemoteRead},
                                   {"remote_atomic", transport::kRemoteAtomic}};

bool is_atomic(VerbsOpKind k) { return k == VerbsOpKind::CmpSwap || k == VerbsOpKind::FetchAdd; }

// Which raw-traffic entry uses each HCA port ("workload.flows.0" ...).
std::map<std::string, std::string> raw_port_users(const Scenario& s) {
  const std::vector<std::string> hcas = hca_port_names(s);
  std::map<std::string, std::string> users;
  const auto mark = [&](const std::string& pattern, const std::string& who) {
    for (const std::string& p : hcas)
      if (fnmatch(pattern.c_str(), p.c_str(), 0) == 0) users.emplace(p, who);
  };
  for (std::size_t i = 0; i < s.workload.flows.size(); ++i) {
    const std::string who = "workload.flows." + std::to_string(i);
    mark(s.workload.flows[i].src, who);
    mark(s.workload.flows[i].dst, who);
  }
  for (std::size_t i = 0; i < s.workload.patterns.size(); ++i) {
    const TrafficPatternConfig& p = s.workload.patterns[i];
    const std::string who = "workload.patterns." + std::to_string(i);
    if (p.hosts.empty()) mark("*", who);
    for (const std::string& h : p.hosts) mark(h, who);
    for (const std::string& t : p.targets) mark(t, who);
  }
  return users;
}

class PortCheck {
 public:
  explicit PortCheck(const Scenario& s) : s_(s), hcas_(hca_port_names(s)), raw_(raw_port_users(s)) {}

  // One HCA port, named exactly, not used by raw traffic.
  void require(const std::string& name, const std::string& path) const {
    if (std::find(hcas_.begin(), hcas_.end(), name) == hcas_.end()) {
      std::string list;
      for (std::size_t i = 0; i < hcas_.size() && i < 6; ++i) list += (i ? ", " : "") + hcas_[i];
      if (hcas_.size() > 6) list += ", ... (" + std::to_string(hcas_.size()) + " HCA ports)";
      throw ConfigError(path, "no HCA port named '" + name + "' (wildcards are not allowed here); accepted: " + list);
    }
    const auto it = raw_.find(name);
    if (it != raw_.end())
      throw ConfigError(path, "port '" + name + "' is also used by the raw traffic of " + it->second +
                                  "; accepted: a port that raw flows and traffic patterns do not use");
  }
  uint32_t mtu(const std::string& name) const { return port_config(s_, name).mtu; }

 private:
  const Scenario& s_;
  std::vector<std::string> hcas_;
  std::map<std::string, std::string> raw_;
};

// The RC-only knobs: perftest sets them on RC QPs only; on UC and UD they
// would be ignored, so a value other than the default is refused.
void check_rc_knobs(const PerftestConfig& t, const std::string& at) {
  if (t.qp_type == transport::QpType::Rc) return;
  const PerftestConfig d;
  struct Knob {
    const char* key;
    uint32_t value, fallback;
  };
  for (const Knob& k : {Knob{"timeout", t.timeout, d.timeout}, Knob{"retry_cnt", t.retry_cnt, d.retry_cnt},
                        Knob{"rnr_retry", t.rnr_retry, d.rnr_retry},
                        Knob{"min_rnr_timer", t.min_rnr_timer, d.min_rnr_timer}})
    if (k.value != k.fallback)
      throw ConfigError(at + "." + k.key, std::string(transport::to_string(t.qp_type)) +
                                              " QPs have no acknowledgements, timer or retries; accepted: " +
                                              std::to_string(k.fallback) + " (the default) or qp_type rc");
}

void check_perftest(PerftestConfig& t, const std::string& at, const PortCheck& ports, std::size_t index) {
  using transport::QpType;
  if (t.name.empty()) t.name = std::string(to_string(t.test)) + std::to_string(index);
  ports.require(t.client, at + ".client");
  ports.require(t.server, at + ".server");
  if (t.client == t.server) throw ConfigError(at + ".server", "equals client; accepted: another HCA port");
  const bool rd_atomic = t.test == PerftestKind::ReadBw || t.test == PerftestKind::ReadLat ||
                         t.test == PerftestKind::AtomicLat;
  const bool send = t.test == PerftestKind::SendBw || t.test == PerftestKind::SendLat;
  if ((rd_atomic && t.qp_type != QpType::Rc) || (!send && t.qp_type == QpType::Ud))
    throw ConfigError(at + ".qp_type", std::string(transport::to_string(t.qp_type)) + " does not carry " +
                                           to_string(t.test) + "; accepted: " +
                                           (rd_atomic ? "rc" : send ? "rc, uc or ud" : "rc or uc"));
  if (!is_bandwidth(t.test) && t.qps != 1)
    throw ConfigError(at + ".qps", "latency tests use one QP; accepted: 1");
  if (!is_bandwidth(t.test) && (t.post_list != 1 || t.cq_moderation > 1))
    throw ConfigError(at + (t.post_list != 1 ? ".post_list" : ".cq_moderation"),
                      "latency tests post and signal every operation; accepted: 1");
  if (!is_bandwidth(t.test) && t.threads != 1)
    throw ConfigError(at + ".threads", "latency tests post from one thread; accepted: 1");
  if (t.threads > t.qps)
    throw ConfigError(at + ".threads", std::to_string(t.threads) + " is above qps " + std::to_string(t.qps) +
                                           "; accepted: at most qps (each thread posts to its own QPs)");
  if (t.post_list > t.tx_depth)
    throw ConfigError(at + ".post_list", std::to_string(t.post_list) + " is above tx_depth " +
                                             std::to_string(t.tx_depth) + "; accepted: at most tx_depth");
  if (t.cq_moderation > t.tx_depth)
    throw ConfigError(at + ".cq_moderation", std::to_string(t.cq_moderation) + " is above tx_depth " +
                                                 std::to_string(t.tx_depth) + "; accepted: at most tx_depth");
  if (t.test == PerftestKind::AtomicLat && !(t.sizes.empty() || (t.sizes.size() == 1 && t.sizes[0] == 8)))
    throw ConfigError(at + ".sizes", "atomics move 8 bytes; accepted: [] or [8]");
  check_rc_knobs(t, at);
  if (t.report_gbits && !is_bandwidth(t.test))
    throw ConfigError(at + ".report_gbits", "latency tests report microseconds; accepted: false");
  const uint32_t port_mtu = std::min(ports.mtu(t.client), ports.mtu(t.server));
  if (t.mtu == 0) t.mtu = port_mtu;  // perftest: the port's active MTU
  if (t.mtu > port_mtu)
    throw ConfigError(at + ".mtu", std::to_string(t.mtu) + " exceeds the ports' MTU " + std::to_string(port_mtu) +
                                       "; accepted: 0 (the ports' MTU) or 256 to " + std::to_string(port_mtu));
  resolve_perftest_tool_defaults(t);
  const bool ud = t.qp_type == QpType::Ud;
  // perftest -a over UD runs 2 B up to the MTU (send_bw.c: size_max_pow from the MTU).
  if (ud && t.sizes == perftest_all_sizes())
    t.sizes.erase(std::upper_bound(t.sizes.begin(), t.sizes.end(), uint64_t{t.mtu}), t.sizes.end());
  for (std::size_t i = 0; i < t.sizes.size(); ++i) {
    const uint64_t limit = ud ? t.mtu : uint64_t{1} << 31;
    if (t.sizes[i] == 0 || t.sizes[i] > limit)
      throw ConfigError(at + ".sizes." + std::to_string(i),
                        format_bytes(t.sizes[i]) + " is out of range; accepted: 1B to " + format_bytes(limit) +
                            (ud ? " (a UD message fits one packet of the test's MTU)" : ""));
  }
}

void check_connection(VerbsConnectionConfig& c, const std::string& at, const PortCheck& ports, std::size_t index) {
  using transport::QpType;
  if (c.name.empty()) c.name = "conn" + std::to_string(index);
  ports.require(c.a, at + ".a");
  ports.require(c.b, at + ".b");
  if (c.a == c.b) throw ConfigError(at + ".b", "equals a; accepted: another HCA port");
  access_bits(c.access, at + ".access");
  const uint32_t port_mtu = std::min(ports.mtu(c.a), ports.mtu(c.b));
  if (c.type != QpType::Ud && c.mtu > port_mtu)
    throw ConfigError(at + ".mtu", std::to_string(c.mtu) + " exceeds the ports' MTU " + std::to_string(port_mtu) +
                                       "; accepted: at most " + std::to_string(port_mtu));
  for (std::size_t i = 0; i < c.ops.size(); ++i) {
    VerbsOpConfig& o = c.ops[i];
    const std::string op_at = at + ".ops." + std::to_string(i);
    const bool ud_ok = o.op == VerbsOpKind::Send || o.op == VerbsOpKind::SendWithImm || o.op == VerbsOpKind::PostRecv;
    const bool uc_ok = !(o.op == VerbsOpKind::Read || is_atomic(o.op) || o.op == VerbsOpKind::SendWithInv);
    if ((c.type == QpType::Ud && !ud_ok) || (c.type == QpType::Uc && !uc_ok))
    {
      const char* ok = c.type == QpType::Ud ? "send, send_with_imm, post_recv"
                                            : "send, send_with_imm, write, write_with_imm, post_recv";
      throw ConfigError(op_at + ".op", "not supported on a " + std::string(transport::to_string(c.type)) +
                                           " QP; accepted: " + ok);
    }
    if (is_atomic(o.op)) {
      if (o.bytes != 8 && o.bytes != VerbsOpConfig{}.bytes)
        throw ConfigError(op_at + ".bytes", "atomics move 8 bytes; accepted: 8 or leave it out");
      o.bytes = 8;
    }
    if (c.type == QpType::Ud && o.op != VerbsOpKind::PostRecv && o.bytes > port_mtu)
      throw ConfigError(op_at + ".bytes", format_bytes(o.bytes) + " exceeds the port MTU; accepted: at most " +
                                              format_bytes(port_mtu) + " on a UD QP");
  }
}

}  // namespace

std::vector<uint64_t> perftest_all_sizes() {
  std::vector<uint64_t> out;
  for (uint64_t s = 2; s <= kPerftestMaxSize; s *= 2) out.push_back(s);
  return out;
}

const char* to_string(PerftestKind k) {
  switch (k) {
    case PerftestKind::WriteBw: return "write_bw";
    case PerftestKind::SendBw: return "send_bw";
    case PerftestKind::ReadBw: return "read_bw";
    case PerftestKind::WriteLat: return "write_lat";
    case PerftestKind::SendLat: return "send_lat";
    case PerftestKind::ReadLat: return "read_lat";
    case PerftestKind::AtomicLat: return "atomic_lat";
  }
  return "?";
}

bool is_bandwidth(PerftestKind k) {
  return k == PerftestKind::WriteBw || k == PerftestKind::SendBw || k == PerftestKind::ReadBw;
}

uint32_t access_bits(const std::vector<std::string>& names, const std::string& path) {
  uint32_t bits = 0;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto it = std::find_if(kAccessNames.begin(), kAccessNames.end(),
                                 [&](const auto& n) { return n.first == names[i]; });
    if (it == kAccessNames.end())
      throw ConfigError(join_path(path, i), "'" + names[i] + "' is not an access flag; accepted: " +
                                                join_list(labels_of(kAccessNames)));
    bits |= it->second;
  }
  return bits;
}

std::vector<uint64_t> parse_perftest_sizes(const nlohmann::json& v, const std::string& path) {
  if (v.is_string() && v.get<std::string>() == "all") return perftest_all_sizes();
  if (!v.is_array())
    throw ConfigError(path, "expected \"all\" or a list of sizes, got " + describe_json_type(v) +
                                "; accepted: \"all\" or a list such as [\"64KiB\", 8]");
  std::vector<uint64_t> out;
  for (std::size_t i = 0; i < v.size(); ++i) out.push_back(parse_bytes(v[i], join_path(path, i)));
  return out;
}

uint64_t parse_perftest_start(const nlohmann::json& v, const std::string& path) {
  if (v.is_string() && v.get<std::string>() == "after_previous") return kAfterPrevious;
  const std::string accepted = "accepted: \"after_previous\" or a time such as \"10us\"";
  uint64_t ps = 0;
  try {
    ps = parse_time_ps(v, path);
  } catch (const ConfigError&) {
    throw ConfigError(path, v.dump() + " is neither \"after_previous\" nor a time; " + accepted);
  }
  if (ps == kAfterPrevious) throw ConfigError(path, "a time too large; " + accepted);
  return ps;
}

nlohmann::json format_perftest_start(uint64_t start_ps) {
  return start_ps == kAfterPrevious ? nlohmann::json("after_previous") : nlohmann::json(format_time_ps(start_ps));
}

uint32_t parse_perftest_inline(const nlohmann::json& v, const std::string& path) {
  if (v.is_string() && v.get<std::string>() == "tool") return kToolInline;
  const std::string accepted = "accepted: \"tool\" or a size from 0B to 4000B";
  uint64_t bytes = 0;
  try {
    bytes = parse_bytes(v, path);
  } catch (const ConfigError&) {
    throw ConfigError(path, v.dump() + " is neither \"tool\" nor a size; " + accepted);
  }
  if (bytes > 4000) throw ConfigError(path, format_bytes(bytes) + " is too large; " + accepted);
  return static_cast<uint32_t>(bytes);
}

nlohmann::json format_perftest_inline(uint32_t bytes) {
  return bytes == kToolInline ? nlohmann::json("tool") : nlohmann::json(format_bytes(bytes));
}

nlohmann::json perftest_inline_schema() { return schema::any_of({{{"const", "tool"}}, schema::bytes(0, 4000)}); }

void resolve_perftest_tool_defaults(PerftestConfig& t) {
  const bool bw = is_bandwidth(t.test);
  // DEF_SIZE_BW 65536 (over UD the MTU, as the tool clamps it), DEF_SIZE_LAT 2,
  // DEF_SIZE_ATOMIC 8; DEF_ITERS_WB 5000, DEF_ITERS 1000.
  if (t.sizes.empty()) {
    const bool ud = t.qp_type == transport::QpType::Ud;
    const uint64_t bw_size = ud && t.mtu != 0 ? std::min<uint64_t>(65536, t.mtu) : 65536;
    t.sizes = {bw ? bw_size : t.test == PerftestKind::AtomicLat ? 8u : 2u};
  }
  if (t.iterations == 0) t.iterations = bw ? 5000 : 1000;
  if (t.cq_moderation == 0) t.cq_moderation = bw ? std::min(kToolCqModeration, t.tx_depth) : 1;
  if (t.inline_size == kToolInline) t.inline_size = perftest_inline_default(t.test, t.qp_type);
}

uint32_t perftest_send_cq_depth(const PerftestConfig& t) {
  constexpr uint64_t kLatencyTxDepth = 1;  // DEF_TX_LAT
  return static_cast<uint32_t>(std::min<uint64_t>(is_bandwidth(t.test) ? t.tx_depth : kLatencyTxDepth, t.iterations));
}

bool perftest_has_receive_cq(const PerftestConfig& t) {
  return t.test == PerftestKind::SendBw || t.test == PerftestKind::SendLat;
}

uint32_t perftest_receives_ahead(const PerftestConfig& t) {
  constexpr uint64_t kDefaultRxDepth = 512, kUcMaxRx = 16000;  // DEF_RX_SEND, UC_MAX_RX
  uint64_t rx = std::min<uint64_t>(t.rx_depth, t.iterations);
  if ((t.qp_type == transport::QpType::Ud || t.qp_type == transport::QpType::Uc) && rx == kDefaultRxDepth)
    rx = std::min(t.iterations, kUcMaxRx);
  return static_cast<uint32_t>(rx % 2 == 1 ? rx + 1 : rx);
}

uint32_t perftest_inline_default(PerftestKind test, transport::QpType type) {
  if (test == PerftestKind::WriteLat) return 220;
  if (test == PerftestKind::SendLat) return type == transport::QpType::Ud ? 188 : 236;
  return 0;
}

nlohmann::json perftest_start_schema() { return schema::any_of({{{"const", "after_previous"}}, schema::time()}); }

nlohmann::json format_perftest_sizes(const std::vector<uint64_t>& sizes) {
  nlohmann::json out = nlohmann::json::array();
  for (uint64_t s : sizes) out.push_back(format_bytes(s));
  return out;
}

std::vector<std::string> parse_access_names(const nlohmann::json& v, const std::string& path) {
  if (!v.is_array())
    throw ConfigError(path, "expected a list of access flags, got " + describe_json_type(v) +
                                "; accepted: a list of " + join_list(labels_of(kAccessNames)));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string())
      throw ConfigError(join_path(path, i), "expected a name; accepted: " + join_list(labels_of(kAccessNames)));
    out.push_back(v[i].get<std::string>());
  }
  access_bits(out, path);
  return out;
}

nlohmann::json format_access_names(const std::vector<std::string>& names) { return names; }

nlohmann::json perftest_sizes_schema() {
  return schema::any_of({{{"const", "all"}}, {{"type", "array"}, {"items", schema::bytes(0, UINT64_MAX)}}});
}

nlohmann::json access_names_schema() {
  return {{"type", "array"}, {"items", schema::names(labels_of(kAccessNames))}};
}

const Names<transport::WcStatus>& wc_status_names() {
  static const Names<transport::WcStatus> names = [] {
    Names<transport::WcStatus> n;
    for (unsigned i = 0; i <= static_cast<unsigned>(transport::WcStatus::GeneralErr); ++i) {
      const auto s = static_cast<transport::WcStatus>(i);
      n.emplace_back(transport::to_string(s), s);
    }
    return n;
  }();
  return names;
}

const Names<transport::QpType>& qp_type_names() {
  static const Names<transport::QpType> names{
      {"rc", transport::QpType::Rc}, {"uc", transport::QpType::Uc}, {"ud", transport::QpType::Ud}};
  return names;
}

const Names<VerbsOpKind>& verbs_op_names() {
  static const Names<VerbsOpKind> names{{"send", VerbsOpKind::Send},
                                        {"send_with_imm", VerbsOpKind::SendWithImm},
                                        {"send_with_inv", VerbsOpKind::SendWithInv},
                                        {"write", VerbsOpKind::Write},
                                        {"write_with_imm", VerbsOpKind::WriteWithImm},
                                        {"read", VerbsOpKind::Read},
                                        {"cmp_swap", VerbsOpKind::CmpSwap},
                                        {"fetch_add", VerbsOpKind::FetchAdd},
                                        {"post_recv", VerbsOpKind::PostRecv}};
  return names;
}

const char* to_string(VerbsOpKind k) {
  for (const auto& [name, value] : verbs_op_names())
    if (value == k) return name.c_str();
  return "?";
}

constexpr uint64_t kLineBytes = 64;

std::string swarm_port(const std::string& listed, uint32_t offset) {
  const std::size_t at = listed.rfind(".p");
  if (at == std::string::npos || offset == 0) return listed;
  return listed.substr(0, at + 2) + std::to_string(std::stoul(listed.substr(at + 2)) + offset);
}

void check_swarm(SwarmConfig& w, const std::string& at, const PortCheck& ports, const Scenario& s, std::size_t index) {
  if (w.name.empty()) w.name = "swarm" + std::to_string(index);
  if (w.machines.empty())
    for (const std::string& p : hca_port_names(s))
      if (p.size() > 3 && p.compare(p.size() - 3, 3, ".p1") == 0) w.machines.push_back(p);
  for (std::size_t m = 0; m < w.machines.size(); ++m) {
    ports.require(w.machines[m], at + ".machines." + std::to_string(m));
    for (std::size_t k = 0; k < m; ++k)
      if (w.machines[k] == w.machines[m])
        throw ConfigError(at + ".machines." + std::to_string(m), "'" + w.machines[m] + "' is listed twice; accepted: distinct HCA ports");
  }
  for (std::size_t m = 0; m < w.machines.size(); ++m)
    for (uint32_t p = 1; p < w.ports; ++p) {
      const std::string port = swarm_port(w.machines[m], p);
      ports.require(port, at + ".ports");
      if (std::find(w.machines.begin(), w.machines.end(), port) != w.machines.end())
        throw ConfigError(at + ".ports", "machine '" + w.machines[m] + "' would use '" + port +
                                             "', which is another machine; accepted: machines on distinct HCAs");
    }
  if (w.machines.size() < 2)
    throw ConfigError(at + ".machines", std::to_string(w.machines.size()) + " machine(s); accepted: at least two HCA ports");
  const uint64_t polling = uint64_t{w.window} * w.size;  // the window's local slots, then room for remote operations
  if (w.buffer < polling + w.size + 64)
    throw ConfigError(at + ".buffer", format_bytes(w.buffer) + " cannot hold the window's " + std::to_string(w.window) +
                                          " slots of " + format_bytes(w.size) + " and a remote operation; accepted: at least " +
                                          format_bytes(polling + w.size + 64));
  const uint64_t part = w.buffer / w.regions;
  if (part < polling + w.size || part % kLineBytes != 0)
    throw ConfigError(at + ".regions", std::to_string(w.regions) + " regions of " + format_bytes(w.buffer) +
                                           " are " + format_bytes(part) + " each; accepted: regions of whole 64-byte " +
                                           "lines that each hold the window's slots and an operation");
  if (w.window > w.sq_depth)
    throw ConfigError(at + ".window", std::to_string(w.window) + " exceeds sq_depth " + std::to_string(w.sq_depth) +
                                          " (every operation may go to one QP); accepted: at most sq_depth");
  if (s.run.duration_ps == 0)
    throw ConfigError(at, "a swarm runs until run.duration, which is 0; accepted: set run.duration");
  if (s.management.mode != ManagementMode::Preconfigured)
    throw ConfigError(at, "a swarm connects its QPs before the run; accepted: management.mode preconfigured");
}

void check_verbs_workloads(Scenario& s) {
  const PortCheck ports(s);
  for (std::size_t i = 0; i < s.workload.swarm.size(); ++i)
    check_swarm(s.workload.swarm[i], "workload.swarm." + std::to_string(i), ports, s, i);
  for (std::size_t i = 0; i < s.workload.perftest.size(); ++i)
    check_perftest(s.workload.perftest[i], "workload.perftest." + std::to_string(i), ports, i);
  for (std::size_t i = 0; i < s.workload.verbs.size(); ++i)
    check_connection(s.workload.verbs[i], "workload.verbs." + std::to_string(i), ports, i);
  if (!s.workload.verbs.empty() && s.management.mode == ManagementMode::External)
    throw ConfigError("workload.verbs.0", "a verbs connection is made before the run, with LIDs an outside SM has "
                                          "not given yet; accepted with management.mode external: flows, patterns, "
                                          "perftest and dma");
  std::map<std::string, std::string> names;
  const auto unique = [&names](const std::string& name, const std::string& at) {
    if (!names.emplace(name, at).second)
      throw ConfigError(at + ".name", "'" + name + "' is also the name of " + names[name] +
                                          "; accepted: a name no other test or connection has");
  };
  for (std::size_t i = 0; i < s.workload.perftest.size(); ++i)
    unique(s.workload.perftest[i].name, "workload.perftest." + std::to_string(i));
  for (std::size_t i = 0; i < s.workload.verbs.size(); ++i)
    unique(s.workload.verbs[i].name, "workload.verbs." + std::to_string(i));
  for (std::size_t i = 0; i < s.workload.swarm.size(); ++i)
    unique(s.workload.swarm[i].name, "workload.swarm." + std::to_string(i));
}

}  // namespace hcasim::config
