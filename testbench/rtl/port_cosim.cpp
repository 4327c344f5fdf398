#include "testbench/rtl/port_cosim.hpp"

namespace hcasim::rtl {

using link::Implementation;

namespace {
using link::now_ps;

std::vector<uint32_t> capacities(const link::Port& port) {
  std::vector<uint32_t> c;
  for (unsigned vl = 0; vl < port.vl_count(); ++vl) c.push_back(port.rx_capacity_blocks(vl));
  return c;
}

uint32_t head_mask(const link::VlCandidates& heads) {
  uint32_t m = 0;
  for (unsigned vl = 0; vl < link::kMaxDataVls; ++vl)
    if (heads[vl] != 0) m |= 1u << vl;
  return m;
}
}  // namespace

void CosimVerdict::fail(std::string message) {
  constexpr std::size_t kKept = 10;  // the kernel stops within the delta cycle; a few more may come
  if (messages_.size() < kKept) messages_.push_back(std::move(message));
  if (messages_.size() == 1) sc_core::sc_stop();
}

PortCosim::PortCosim(const sc_core::sc_module_name& name, link::Port& port, const CosimBlocks& blocks,
                     RtlWaves* waves, CosimVerdict& verdict)
    : sc_module(name),
      link::TxCosim(port.config().vl_arbiter != Implementation::Model,
                    port.config().credit_manager != Implementation::Model),
      port_(port),
      verdict_(verdict) {
  const link::PortConfig& c = port.config();
  if (arbitration()) {
    // The RTL knows no operational VLs: it gets the tables as the port serves them.
    const link::VlArbConfig tables = link::operational_tables(link::resolved_vlarb(c), c.effective_vls());
    arbiter_ = std::make_unique<VlArbiterRtl>("vl_arbiter", tables, blocks.arbiter ? blocks.arbiter : verilated_vl_arbiter(),
                                              waves);
    if (c.vl_arbiter == Implementation::RtlCheck) arbiter_ref_ = std::make_unique<link::VlArbiter>(tables);
  }
  if (credits()) {
    credits_ = std::make_unique<CreditManagerRtl>(
        "credit_manager", capacities(port), blocks.credits ? blocks.credits : verilated_credit_manager(), waves);
    if (c.credit_manager == Implementation::RtlCheck) credits_ref_ = std::make_unique<CreditReference>(capacities(port));
  }
  port.set_cosim(this);
}

uint64_t PortCosim::rtl_cycles() const {
  return (arbiter_ ? arbiter_->cycles() : 0) + (credits_ ? credits_->cycles() : 0);
}

void PortCosim::fail(const std::string& mode, const std::string& what) {
  verdict_.fail(mode + ": " + std::string(port_.name()) + " " + what);
}

void PortCosim::ask(const link::TxQuestion& q) {
  question_ = q;
  answer_ = {};
  answer_.kind = q.kind;
  answer_.fc_vl = q.fc_vl;
  answer_.candidates = q.candidates;
  if (credits_ && q.kind != link::TxQuestion::Kind::Vl15)
    credits_->test(q.heads, q.fc_vl, [this](const CreditManagerRtl::TestResult& r) { on_credit_test(r); });
  else
    decide();
}

void PortCosim::on_credit_test(const CreditManagerRtl::TestResult& r) {
  ++tests_;
  const bool data = question_.kind == link::TxQuestion::Kind::Data;
  const auto at = [] { return " at " + describe_time(now_ps()); };  // messages are made only for failures
  const uint32_t heads = head_mask(question_.heads);
  uint32_t ok = r.ok & heads;
  if (r.overflow)
    fail("rtl", "credit manager broke its pin contract" + at() + ": overflow is set, but the model buffered every packet");
  else if (data && (r.ok & ~heads) != 0)
    fail("rtl", "credit manager broke its pin contract" + at() + ": credit_ok for " + describe_vl_mask(r.ok & ~heads) +
                    ", which have no packet (heads " + describe_requests(question_.heads) + ")");
  if (data) {
    if (credits_ref_) {
      const uint32_t expected = credits_ref_->may_send(question_.heads);
      if (expected != ok) {
        fail("rtl+check", "credit manager diverged at credit test " + std::to_string(tests_) + at() + ": heads " +
                              describe_requests(question_.heads) + "; C++ may send " + describe_vl_mask(expected) +
                              ", RTL " + describe_vl_mask(ok));
        ok = expected;
      }
    }
    answer_.candidates = select(question_.heads, ok);
    if (arbiter_) return decide();
  } else {
    CreditRegisters got = r.registers;
    if (credits_ref_) {
      const CreditRegisters expected = credits_ref_->registers(question_.fc_vl);
      if (expected.fctbs != got.fctbs || expected.fccl_adv != got.fccl_adv) {
        fail("rtl+check", "credit manager diverged at the flow-control packet of VL" + std::to_string(question_.fc_vl) +
                              at() + ": " + credit_differences(expected, got));
        got = expected;
      }
    }
    answer_.fctbs = got.fctbs;
    answer_.fccl = got.fccl_adv;
  }
  port_.tx_answer(answer_);
}

void PortCosim::decide() {
  arbiter_->decide(answer_.candidates, question_.kind == link::TxQuestion::Kind::Vl15,
                   [this](int vl) { on_grant(vl); });
}

void PortCosim::on_grant(int vl) {
  ++grants_;
  const bool vl15 = question_.kind == link::TxQuestion::Kind::Vl15;
  const link::VlCandidates& c = answer_.candidates;
  const auto inputs = [&] {  // made only for failures
    return " at grant " + std::to_string(grants_) + ", " + describe_time(now_ps()) + ": requests " +
           describe_requests(c, vl15);
  };
  if (arbiter_ref_) {
    const int expected = vl15 ? static_cast<int>(link::kVl15) : arbiter_ref_->grant(c);
    if (vl != expected) {
      fail("rtl+check", "VL arbiter diverged" + inputs() + "; C++ grants " + describe_grant(expected) +
                            ", RTL grants " + describe_grant(vl));
      vl = expected;
    }
  }
  const bool valid = vl15 ? vl == static_cast<int>(link::kVl15)
                          : vl == -1 || (vl >= 0 && vl < static_cast<int>(link::kMaxDataVls) && c[vl] != 0);
  if (!valid) {
    fail("rtl", "VL arbiter broke its pin contract" + inputs() + "; RTL grants " + describe_grant(vl) +
                    (vl15 ? "" : ", which may not send"));
    vl = vl15 ? static_cast<int>(link::kVl15) : -1;
  }
  answer_.grant = vl;
  port_.tx_answer(answer_);
}

void PortCosim::credit_event(link::CreditEvent e, unsigned vl, uint32_t a, uint32_t b) {
  const uint64_t n = ++events_;
  if (!credits_ref_) {
    credits_->event(e, vl, a, b, nullptr);
    return;
  }
  const uint64_t at = now_ps();
  credits_->event(e, vl, a, b, [this, e, vl, a, b, n, at](const CreditRegisters& got) {
    credits_ref_->apply(e, vl, a, b);
    const CreditRegisters expected = credits_ref_->registers(vl);
    if (!(expected == got))
      fail("rtl+check", "credit manager diverged after event " + std::to_string(n) + " (" + describe_event(e, vl, a, b) +
                            " at " + describe_time(at) + "): " + credit_differences(expected, got));
  });
}

}  // namespace hcasim::rtl
