#include "testbench/rtl/credit_manager_rtl.hpp"

namespace hcasim::rtl {

namespace {
uint32_t event_code(link::CreditEvent e) {
  switch (e) {
    case link::CreditEvent::Sent: return kEvSent;
    case link::CreditEvent::FlowControl: return kEvFlowControl;
    case link::CreditEvent::Received: return kEvReceived;
    case link::CreditEvent::Released: return kEvReleased;
  }
  return kEvSent;
}
}  // namespace

CreditManagerRtl::CreditManagerRtl(const sc_core::sc_module_name& name, const std::vector<uint32_t>& capacity_blocks,
                                   Maker make, RtlWaves* waves)
    : sc_module(name),
      clock_("clock",
             [this] {
               pins_.reg_we.write(false);
               pins_.ev_valid.write(false);
             },
             waves),
      rtl_(make("rtl", clock_, pins_)) {
  if (waves != nullptr) waves->add(*rtl_);
  post_register_writes(clock_, pins_, credit_program(capacity_blocks));
}

CreditRegisters CreditManagerRtl::read_registers() const {
  return {static_cast<uint16_t>(pins_.rd_fctbs.read()), static_cast<uint16_t>(pins_.rd_fccl.read()),
          static_cast<uint16_t>(pins_.rd_abr.read()), static_cast<uint16_t>(pins_.rd_fccl_adv.read()),
          pins_.rd_used.read()};
}

void CreditManagerRtl::event(link::CreditEvent e, unsigned vl, uint32_t a, uint32_t b,
                             std::function<void(const CreditRegisters&)> after) {
  // One word (ev_op 2 bits, ev_vl 4, ev_a and ev_b 12 each), so the job's
  // capture fits in std::function without an allocation.
  const uint32_t ev = event_code(e) | (vl & 0xF) << 2 | (a & 0xFFF) << 6 | (b & 0xFFF) << 18;
  std::function<bool()> finished;
  if (after)
    finished = [this, after = std::move(after)] {
      after(read_registers());
      return true;
    };
  clock_.post({[this, ev] {
                 pins_.ev_valid.write(true);
                 pins_.ev_op.write(ev & 3);
                 pins_.ev_vl.write(ev >> 2 & 0xF);
                 pins_.ev_a.write(ev >> 6 & 0xFFF);
                 pins_.ev_b.write(ev >> 18);
                 pins_.rd_vl.write(ev >> 2 & 0xF);
               },
               std::move(finished), false});
}

void CreditManagerRtl::test(const link::VlCandidates& heads, unsigned vl, std::function<void(const TestResult&)> done) {
  done_ = std::move(done);
  set_length_bits(heads_, heads);  // the question waits in members: the jobs capture only `this`
  read_vl_ = vl;
  clock_.post({[this] {
                 pins_.head_len.write(heads_);
                 pins_.rd_vl.write(read_vl_);
               },
               [this] {
                 const TestResult r{pins_.credit_ok.read(), read_registers(), pins_.overflow.read()};
                 auto callback = std::move(done_);
                 callback(r);
                 return true;
               },
               true});
}

}  // namespace hcasim::rtl
