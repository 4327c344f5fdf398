#pragma once
// VCD waveforms of ports: per VL credits available to the transmitter, receive
// buffer occupancy in blocks, transmit buffer bytes, and the granted VL (0-14
// data, 15 VL15, 16 flow control, 31 idle). Open with waveforms/*.gtkw.

#include <systemc>

#include <string>
#include <vector>

#include "models/link/port.hpp"

namespace hcasim::trace {

class WaveTrace {
 public:
  // Creates `path_without_extension`.vcd; call during elaboration.
  WaveTrace(const std::string& path_without_extension, const std::vector<link::Port*>& ports);
  ~WaveTrace();
  WaveTrace(const WaveTrace&) = delete;
  WaveTrace& operator=(const WaveTrace&) = delete;
  // The file, for other parts to add their signals during elaboration.
  sc_core::sc_trace_file* file() const { return file_; }

 private:
  sc_core::sc_trace_file* file_;
};

}  // namespace hcasim::trace
