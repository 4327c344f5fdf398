#include "testbench/workloads/verbs_script.hpp"

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "testbench/workloads/data_pattern.hpp"

namespace hcasim::workloads {

namespace {
using config::VerbsOpKind;
using transport::WcStatus;
using transport::WrOpcode;

constexpr uint64_t kEndpointAreaBytes = config::kVerbsAreaBytes;  // each side: its own buffers, then the other side's targets
constexpr uint32_t kBadRkey = 0xFFFFFFFF;           // no region has it (key index 2^24 - 1)
constexpr uint64_t kAlign = 64;

using link::now_ps;

bool carries_message(VerbsOpKind k) {
  return k == VerbsOpKind::Send || k == VerbsOpKind::SendWithImm || k == VerbsOpKind::SendWithInv ||
         k == VerbsOpKind::WriteWithImm;
}
bool is_atomic(VerbsOpKind k) { return k == VerbsOpKind::CmpSwap || k == VerbsOpKind::FetchAdd; }

WrOpcode opcode_of(VerbsOpKind k) {
  switch (k) {
    case VerbsOpKind::SendWithImm: return WrOpcode::SendWithImm;
    case VerbsOpKind::SendWithInv: return WrOpcode::SendWithInv;
    case VerbsOpKind::Write: return WrOpcode::RdmaWrite;
    case VerbsOpKind::WriteWithImm: return WrOpcode::RdmaWriteWithImm;
    case VerbsOpKind::Read: return WrOpcode::RdmaRead;
    case VerbsOpKind::CmpSwap: return WrOpcode::AtomicCmpSwp;
    case VerbsOpKind::FetchAdd: return WrOpcode::AtomicFetchAdd;
    default: return WrOpcode::Send;
  }
}

}  // namespace

VerbsScript::VerbsScript(const sc_core::sc_module_name& name, const VerbsScriptSpec& spec, host::Driver& a, host::Driver& b)
    : sc_module(name), spec_(spec), cfg_(spec_.config), results_(spec_.config.ops.size()) {
  params_.type = cfg_.type;
  params_.mtu = cfg_.mtu;
  params_.sl = static_cast<uint8_t>(cfg_.sl);
  params_.path_sls = spec_.path_sls;
  params_.psn_a = cfg_.psn_a;
  params_.psn_b = cfg_.psn_b;
  params_.timeout = static_cast<uint8_t>(cfg_.timeout);
  params_.retry_cnt = static_cast<uint8_t>(cfg_.retry_cnt);
  params_.rnr_retry = static_cast<uint8_t>(cfg_.rnr_retry);
  params_.min_rnr_timer = static_cast<uint8_t>(cfg_.min_rnr_timer);
  params_.pkey_index = static_cast<uint16_t>(cfg_.pkey_index);
  params_.max_rd_atomic = static_cast<uint8_t>(cfg_.max_rd_atomic);
  params_.max_dest_rd_atomic = static_cast<uint8_t>(cfg_.max_dest_rd_atomic);
  params_.access = config::access_bits(cfg_.access, "access");
  const auto count = static_cast<uint32_t>(std::max<std::size_t>(cfg_.ops.size(), 1));
  params_.max_send_wr = params_.max_recv_wr = count;
  params_.cq_depth = 2 * count;
  std::tie(a_.qp, b_.qp) = connect(a, spec_.a.port, b, spec_.b.port, params_);
  const uint64_t base = (uint64_t{0x100} + spec_.index) << 40;  // apart from perftest's buffers
  const uint32_t all = transport::kLocalWrite | transport::kRemoteWrite | transport::kRemoteRead |
                       transport::kRemoteAtomic;
  for (End* e : {&a_, &b_}) {
    e->mr = e->qp.driver->reg_mr(base, 2 * kEndpointAreaBytes, all);
    e->local = base;
    e->remote = base + kEndpointAreaBytes;
    e->qp.driver->on_cq_event(e->qp.cq, [this] { poll_alarm_.notify_now(); });
  }
  uint64_t at = kAlign;  // offset 0 of the remote area is the atomic word
  for (const config::VerbsOpConfig& o : cfg_.ops) {
    offsets_.push_back(at);
    at += (o.bytes + kGrhBytes + kAlign - 1) / kAlign * kAlign;
  }
}

void VerbsScript::start_of_simulation() {
  if (!deferred_) begin(0);
}

void VerbsScript::begin(uint64_t offset_ps) {
  offset_ps_ = offset_ps;
  if (!cfg_.ops.empty()) post_alarm_.notify_at(offset_ps_ + cfg_.ops[0].at_ps);
}

std::string VerbsScript::op_text(std::size_t i) const {
  const config::VerbsOpConfig& o = cfg_.ops[i];
  return "op " + std::to_string(i) + " (" + config::to_string(o.op) + " on " + (o.side == config::Side::A ? "a" : "b") +
         ")";
}

void VerbsScript::fail(std::size_t i, const std::string& message) {
  failures_.push_back(cfg_.name + ": " + op_text(i) + ": " + message);
}

void VerbsScript::post_due() {
  while (next_ < cfg_.ops.size()) {
    const uint64_t at = offset_ps_ + cfg_.ops[next_].at_ps;
    if (at > now_ps()) {
      post_alarm_.notify_at(at);
      return;
    }
    post(next_++);
  }
}

void VerbsScript::post(std::size_t i) {
  const config::VerbsOpConfig& o = cfg_.ops[i];
  End& me = side(o.side);
  End& peer = other(o.side);
  host::Driver& h = *me.qp.driver;
  const bool ud = cfg_.type == transport::QpType::Ud;
  const uint64_t local = me.local + offsets_[i];
  const auto seed = static_cast<uint8_t>(i * 13 + 5);
  std::string why;
  if (o.op == VerbsOpKind::PostRecv) {
    transport::RecvWr r;
    r.wr_id = i;
    r.sg_list.push_back({local, static_cast<uint32_t>(o.bytes + (ud ? kGrhBytes : 0)), me.mr.lkey});
    why = h.post_recv(me.qp.qpn, r);
  } else {
    transport::SendWr w;
    w.wr_id = i;
    w.opcode = opcode_of(o.op);
    w.sg_list.push_back({local, static_cast<uint32_t>(o.bytes), me.mr.lkey});
    w.remote_addr = is_atomic(o.op) ? peer.remote : peer.remote + offsets_[i];
    w.rkey = o.rkey == config::RkeyChoice::Bad ? kBadRkey : peer.mr.rkey;
    w.compare_add = o.op == VerbsOpKind::FetchAdd ? o.add : o.compare;
    w.swap = o.swap;
    w.imm_data = o.op == VerbsOpKind::SendWithInv ? w.rkey : static_cast<uint32_t>(i);
    if (ud) {
      w.ah.dlid = peer.qp.driver->lid(peer.qp.port);
      w.ah.sl = sl_towards(params_, me.qp.driver->lid(me.qp.port), w.ah.dlid);
      w.remote_qpn = peer.qp.qpn;
      w.remote_qkey = params_.qkey;
    }
    std::vector<uint8_t> scratch;
    if (o.op == VerbsOpKind::Read) fill_pattern(peer.qp.driver->memory(), w.remote_addr, o.bytes, seed, scratch);
    else if (!is_atomic(o.op)) fill_pattern(h.memory(), local, o.bytes, seed, scratch);
    if (carries_message(o.op)) peer.incoming.push_back(i);
    why = h.post_send(me.qp.qpn, w);
  }
  results_[i].posted = why.empty();
  results_[i].posted_ps = now_ps();
  if (!why.empty()) fail(i, "the QP refused the post: " + why);
}

void VerbsScript::poll() {
  for (End* e : {&a_, &b_}) {
    wcs_.clear();
    e->qp.driver->poll_cq(e->qp.cq, SIZE_MAX, wcs_);
    for (const transport::WorkCompletion& wc : wcs_) {
      if (wc.wr_id >= cfg_.ops.size()) {
        failures_.push_back(cfg_.name + ": a completion for unknown WR " + std::to_string(wc.wr_id));
        continue;
      }
      on_completion(static_cast<std::size_t>(wc.wr_id), wc);
    }
  }
}

void VerbsScript::on_completion(std::size_t i, const transport::WorkCompletion& wc) {
  VerbsOpResult& r = results_[i];
  if (r.completed) return fail(i, std::string("a second completion (") + transport::to_string(wc.status) + ")");
  r.completed = true;
  r.status = wc.status;
  r.completed_ps = now_ps();
  r.times = wc.times;
  const config::VerbsOpConfig& o = cfg_.ops[i];
  if (wc.status != o.expect)
    fail(i, std::string("expected ") + transport::to_string(o.expect) + ", got " + transport::to_string(wc.status));
  check_data(i, wc);
}

bool VerbsScript::same_bytes(std::size_t i, host::Driver& x, uint64_t xa, host::Driver& y, uint64_t ya, uint64_t len) {
  std::vector<uint8_t> p(len), q(len);
  x.memory().read(xa, p.data(), len);
  y.memory().read(ya, q.data(), len);
  const auto d = std::mismatch(p.begin(), p.end(), q.begin());
  if (d.first == p.end()) return true;
  char text[128];
  std::snprintf(text, sizeof text, "data mismatch at byte %lld of %llu: 0x%02x landed, 0x%02x was sent",
                static_cast<long long>(d.first - p.begin()), static_cast<unsigned long long>(len), *d.first, *d.second);
  fail(i, text);
  return false;
}

void VerbsScript::check_data(std::size_t i, const transport::WorkCompletion& wc) {
  const config::VerbsOpConfig& o = cfg_.ops[i];
  End& me = side(o.side);
  End& peer = other(o.side);
  const uint64_t local = me.local + offsets_[i];
  if (o.op == VerbsOpKind::PostRecv) {
    if (wc.status == WcStatus::WrFlushErr || me.incoming.empty()) return;
    const std::size_t m = me.incoming.front();  // the message this receive took
    me.incoming.pop_front();
    if (wc.status != WcStatus::Success || cfg_.ops[m].op == VerbsOpKind::WriteWithImm) return;
    if (wc.byte_len != cfg_.ops[m].bytes + (cfg_.type == transport::QpType::Ud ? kGrhBytes : 0))
      return fail(i, "received " + std::to_string(wc.byte_len) + " bytes of " + op_text(m) + ", which sent " +
                         std::to_string(cfg_.ops[m].bytes));
    const uint64_t data = local + (cfg_.type == transport::QpType::Ud ? kGrhBytes : 0);
    same_bytes(i, *me.qp.driver, data, *peer.qp.driver, peer.local + offsets_[m], cfg_.ops[m].bytes);
    return;
  }
  if (wc.status != WcStatus::Success) return;
  switch (o.op) {
    case VerbsOpKind::Write:
    case VerbsOpKind::WriteWithImm:
      same_bytes(i, *peer.qp.driver, peer.remote + offsets_[i], *me.qp.driver, local, o.bytes);
      break;
    case VerbsOpKind::Read: same_bytes(i, *me.qp.driver, local, *peer.qp.driver, peer.remote + offsets_[i], o.bytes); break;
    case VerbsOpKind::CmpSwap:
    case VerbsOpKind::FetchAdd: {
      const uint64_t got = me.qp.driver->memory().read_u64(local);
      if (got != peer.word) {
        char text[96];
        std::snprintf(text, sizeof text, "returned 0x%llx, the word held 0x%llx", static_cast<unsigned long long>(got),
                      static_cast<unsigned long long>(peer.word));
        fail(i, text);
      }
      if (o.op == VerbsOpKind::FetchAdd) peer.word += o.add;
      else if (peer.word == o.compare) peer.word = o.swap;
      break;
    }
    default: break;
  }
}

void VerbsScript::finish() {
  for (std::size_t i = 0; i < results_.size(); ++i) {
    if (results_[i].completed) continue;
    const config::Side s = cfg_.ops[i].side;
    const std::string wait = describe_wait(side(s).qp, s == config::Side::A ? cfg_.a : cfg_.b);
    fail(i, std::string("expected ") + transport::to_string(cfg_.ops[i].expect) + ", got " +
                (results_[i].posted ? "no completion" : "never posted") + (wait.empty() ? "" : ": " + wait));
  }
}

}  // namespace hcasim::workloads
