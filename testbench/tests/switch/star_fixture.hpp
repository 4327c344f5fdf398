#pragma once
// A fabric built by hand for switch tests: `hosts` single-port HCAs, HCA i
// (LID i + 1) on switch port i + 1 and routed there by the LFT, raw-traffic
// generators, a flow recorder and the link checker on every port. No JSON and
// no fabric builder.

#include <memory>
#include <string>
#include <vector>

#include "models/hca/hca.hpp"
#include "models/switch/switch.hpp"
#include "testbench/checkers/link_checker.hpp"
#include "testbench/workloads/flow_recorder.hpp"
#include "testbench/workloads/raw_generator.hpp"

namespace hcasim::test {

struct StarOptions {
  unsigned hosts = 2;
  unsigned switch_ports = 0;                // 0 = hosts; more leaves ports without a link
  sw::SwitchConfig sw;
  link::PortConfig hca_port;
  link::PortConfig switch_port;
  link::LinkConfig link;
  std::vector<link::PortConfig> hca_ports;  // per host, overrides hca_port when given
  std::vector<link::LinkConfig> links;      // per host, overrides link when given
  std::vector<link::PortConfig> switch_ports_by_number;  // [i] for port i + 1, overrides switch_port when given
};

// Wire bytes of the generator's UD SEND-only packet: LRH 8 + BTH 12 + DETH 8 +
// payload + pad + ICRC 4 + VCRC 2 (iba-facts 1).
inline uint32_t ud_bytes(uint32_t payload) { return 8 + 12 + 8 + payload + ((4 - payload % 4) % 4) + 4 + 2; }

class Star {
 public:
  explicit Star(const StarOptions& o) : options_(o) {
    const unsigned ports = o.switch_ports != 0 ? o.switch_ports : o.hosts;
    for (unsigned h = 0; h < o.hosts; ++h) {
      const link::PortConfig& pc = h < o.hca_ports.size() ? o.hca_ports[h] : o.hca_port;
      const std::string name = "hca" + std::to_string(h);
      hcas_.push_back(std::make_unique<hca::Hca>(name.c_str(), std::vector<link::PortConfig>{pc},
                                                 std::vector<uint16_t>{static_cast<uint16_t>(h + 1)}, pool_));
      hcas_.back()->set_sink(&recorder_);
    }
    std::vector<link::PortConfig> sw_ports(ports, o.switch_port);
    for (unsigned p = 0; p < ports && p < o.switch_ports_by_number.size(); ++p) sw_ports[p] = o.switch_ports_by_number[p];
    sw_ = std::make_unique<sw::Switch>("sw0", o.sw, sw_ports, static_cast<uint16_t>(o.hosts + 1), pool_);
    std::vector<uint8_t> lft(o.hosts + 1, sw::kNoRoute);
    for (unsigned h = 0; h < o.hosts; ++h) {
      lft[h + 1] = static_cast<uint8_t>(h + 1);
      link::Port::connect(hcas_[h]->port(0), sw_->port(h + 1), h < o.links.size() ? o.links[h] : o.link);
    }
    sw_->set_lft(lft);
    for (unsigned h = 0; h < o.hosts; ++h) all_ports_.push_back(&hcas_[h]->port(0));
    for (unsigned p = 1; p <= ports; ++p) all_ports_.push_back(&sw_->port(p));
    for (unsigned i = 0; i < all_ports_.size(); ++i) {
      all_ports_[i]->set_id(i);
      checker_.watch(*all_ports_[i]);
    }
  }

  // Adds a flow from host src to host dst (its LID unless dlid is set).
  unsigned add_flow(workloads::FlowSpec f) {
    f.slid = static_cast<uint16_t>(f.src_node + 1);
    if (f.dlid == 0) f.dlid = static_cast<uint16_t>(f.dst_node + 1);
    if (f.dest_qp == 0 && !f.vl15) f.dest_qp = 0x100 + static_cast<uint32_t>(specs_.size());
    specs_.push_back(f);
    results_.emplace_back();
    return static_cast<unsigned>(specs_.size() - 1);
  }

  // Elaborates the generators (after every add_flow) and runs until nothing is
  // left to do, or until duration_ps.
  void run(uint64_t duration_ps = 0) {
    for (unsigned h = 0; h < hcas_.size(); ++h) {
      std::vector<unsigned> mine;
      for (unsigned f = 0; f < specs_.size(); ++f)
        if (specs_[f].src_node == h) mine.push_back(f);
      if (mine.empty()) continue;
      const std::string name = "gen" + std::to_string(h);
      gens_.push_back(std::make_unique<workloads::RawGenerator>(name.c_str(), *hcas_[h], 0, specs_, mine, results_, pool_));
    }
    if (duration_ps != 0) sc_core::sc_start(sc_core::sc_time::from_value(duration_ps));
    else sc_core::sc_start();
    end_ps_ = sc_core::sc_time_stamp().value();
    for (link::Port* p : all_ports_) p->finish();
    checker_.finish(end_ps_);
  }

  sw::Switch& sw() { return *sw_; }
  hca::Hca& hca(unsigned h) { return *hcas_[h]; }
  link::Port& host_port(unsigned h) { return hcas_[h]->port(0); }
  const workloads::FlowResult& result(unsigned f) const { return results_[f]; }
  const checkers::LinkChecker& checker() const { return checker_; }
  uint64_t end_ps() const { return end_ps_; }
  ib::PacketPool& pool() { return pool_; }

  // Packet transmissions on every link (data and flow control): one per packet-hop.
  uint64_t packet_hops() const {
    uint64_t n = 0;
    for (const link::Port* p : all_ports_) {
      n += p->stats().fc_tx();
      for (const link::VlStats& v : p->stats().vl) n += v.tx_packets;
    }
    return n;
  }

 private:
  StarOptions options_;
  ib::PacketPool pool_;
  std::vector<workloads::FlowSpec> specs_;
  std::vector<workloads::FlowResult> results_;
  workloads::FlowRecorder recorder_{results_, pool_};
  std::vector<std::unique_ptr<hca::Hca>> hcas_;
  std::unique_ptr<sw::Switch> sw_;
  std::vector<std::unique_ptr<workloads::RawGenerator>> gens_;
  checkers::LinkChecker checker_;
  std::vector<link::Port*> all_ports_;
  uint64_t end_ps_ = 0;
};

inline workloads::FlowSpec flow(unsigned src, unsigned dst, uint8_t sl, uint32_t payload, uint64_t count,
                                uint64_t start_ps = 0) {
  workloads::FlowSpec f;
  f.name = "f" + std::to_string(src) + "_" + std::to_string(dst) + "_sl" + std::to_string(sl);
  f.src_node = src;
  f.dst_node = dst;
  f.sl = sl;
  f.payload = payload;
  f.count = count;
  f.start_ps = start_ps;
  return f;
}

inline uint64_t drops(const link::Port& p, unsigned vl, link::DropReason why) {
  return p.stats().vl[vl].drops[static_cast<std::size_t>(why)];
}

}  // namespace hcasim::test
