#include "testbench/rtl/vl_arbiter_rtl.hpp"

namespace hcasim::rtl {

VlArbiterRtl::VlArbiterRtl(const sc_core::sc_module_name& name, const link::VlArbConfig& config, Maker make,
                           RtlWaves* waves)
    : sc_module(name),
      clock_("clock",
             [this] {
               pins_.reg_we.write(false);
               pins_.req_start.write(false);
             },
             waves),
      rtl_(make("rtl", clock_, pins_)) {
  if (waves != nullptr) waves->add(*rtl_);
  post_register_writes(clock_, pins_, arbiter_program(config));
  // The commit scans the tables; decisions start when it is done.
  clock_.post({[] {}, [this] { return pins_.ready.read(); }, false});
}

void VlArbiterRtl::decide(const link::VlCandidates& requests, bool vl15, std::function<void(int)> done) {
  done_ = std::move(done);
  // The question waits in members, so the jobs capture only `this` (no allocation).
  mask_ = 0;
  for (unsigned vl = 0; vl < kRtlVls; ++vl)
    if (requests[vl] != 0) mask_ |= 1u << vl;
  set_length_bits(lengths_, requests);
  vl15_ = vl15;
  clock_.post({[this] {
                 pins_.req_start.write(true);
                 pins_.vl15_req.write(vl15_);
                 pins_.req.write(mask_);
                 pins_.req_len.write(lengths_);
               },
               [this] {
                 if (!pins_.done.read()) {
                   pins_.req_start.write(false);  // a one-clock pulse
                   return false;
                 }
                 const int grant = pins_.gnt_valid.read() ? static_cast<int>(pins_.gnt_vl.read()) : -1;
                 auto callback = std::move(done_);
                 callback(grant);
                 return true;
               },
               true});
}

}  // namespace hcasim::rtl
