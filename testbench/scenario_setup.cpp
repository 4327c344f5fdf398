#include "testbench/scenario_setup.hpp"

namespace hcasim {

namespace {
// "hca1.p2" -> node 1, port 1 (the fabric's own names are the reference).
std::pair<unsigned, unsigned> locate(const fabric::FabricSpec& f, const std::string& port) {
  for (unsigned n = 0; n < f.hcas.size(); ++n)
    for (unsigned p = 0; p < f.hcas[n].ports.size(); ++p)
      if (f.hcas[n].name + ".p" + std::to_string(p + 1) == port) return {n, p};
  return {0, 0};  // load_scenario has checked every name
}
}  // namespace

SimulationSetup setup_from(const fabric::Scenario& s, const std::string& out_dir, bool quiet) {
  SimulationSetup r;
  r.fabric = fabric::fabric_spec(s);
  for (const fabric::FlowConfig& f : s.workload.flows) {
    workloads::FlowSpec w;
    w.name = f.name;
    std::tie(w.src_node, w.src_port) = locate(r.fabric, f.src);
    w.dst_node = locate(r.fabric, f.dst).first;
    w.sl = static_cast<uint8_t>(f.sl);
    w.vl15 = f.vl15;
    w.payload = static_cast<uint32_t>(f.payload);
    w.rate_bps = f.rate.bps;
    w.load = f.rate.load;
    w.count = f.count;
    w.start_ps = f.start_ps;
    r.flows.push_back(w);
  }
  r.options.duration_ps = s.run.duration_ps;
  r.options.quiet = quiet;
  r.options.out_dir = out_dir;
  r.options.pcap = s.outputs.pcap;
  r.options.pcap_ports = s.outputs.pcap_ports;
  r.options.vcd = s.outputs.vcd;
  return r;
}

}  // namespace hcasim
