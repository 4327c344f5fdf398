#include "models/trace/waves.hpp"

namespace hcasim::trace {

WaveTrace::WaveTrace(const std::string& path_without_extension, const std::vector<link::Port*>& ports)
    : file_(sc_core::sc_create_vcd_trace_file(path_without_extension.c_str())) {
  file_->set_time_unit(1, sc_core::SC_PS);
  for (link::Port* p : ports) p->trace_signals(file_);
}

WaveTrace::~WaveTrace() { sc_core::sc_close_vcd_trace_file(file_); }

}  // namespace hcasim::trace
