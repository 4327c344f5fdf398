#pragma once
// Helpers for the RTL tests: starting work when the simulation starts,
// comparing whole statistics documents, recording a port's grants.

#include <systemc>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "models/link/port.hpp"
#include "testbench/cli/simulation.hpp"
#include "testbench/cli/stats_document.hpp"

namespace hcasim::test {

// Runs f once, in the first delta cycle of the simulation.
template <class F>
void at_start(F f) {
  sc_core::sc_spawn_options o;
  o.spawn_method();
  sc_core::sc_spawn(std::move(f), sc_core::sc_gen_unique_name("at_start"), &o);
}

// The run's stats.json without its wall-clock figures.
inline nlohmann::json stats_without_wall(const Simulation& sim) {
  nlohmann::json s = stats_document(sim, RunMetadata{"test", 1, "-"});
  s.erase("wall");
  return s;
}

// The stats.json an hcasim run wrote in `dir`, without its wall-clock figures.
inline nlohmann::json stats_without_wall(const std::filesystem::path& dir) {
  std::ifstream in(dir / "stats.json");
  nlohmann::json s = nlohmann::json::parse(in);
  s.erase("wall");
  return s;
}

// What a port put on the wire, in order: the VL of each packet (16 = flow control).
class GrantRecorder : public link::PortObserver {
 public:
  explicit GrantRecorder(link::Port& port) { port.add_observer(this); }
  void on_transmit(const link::Port&, const ib::Packet& p, uint64_t, uint64_t) override {
    grants.push_back(p.kind == ib::PacketKind::FlowControl ? link::kGrantFlowControl : p.hdr.lrh.vl);
  }
  std::vector<uint8_t> grants;
};

}  // namespace hcasim::test
