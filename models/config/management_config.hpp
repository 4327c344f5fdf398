#pragma once
// Subnet management in a scenario ("management"): pre-configured or in band,
// where the SM runs and its parameters, the SA's, and how the in-band LIDs and
// routes line up with the SM's (nodes in NodeGUID order). Read strictly like
// every scenario object; turned into the builder's ManagementSpec.

#include <cstdint>
#include <string>
#include <vector>

#include "models/config/config_io.hpp"
#include "models/config/fabric_spec.hpp"
#include "models/mgmt/partition_tables.hpp"
#include "models/routing/routing.hpp"
#include "models/topology/topology.hpp"

namespace hcasim::config {

enum class ManagementMode { Preconfigured, InBand, External };
enum class StandbyStart { AfterMaster, WithMaster };
// When a managed fabric's workloads start: once every linked port is Active.
enum class StartWorkloads { SubnetUp };

// Partitions (docs/partitions.md): OpenSM's partitions.conf, from a file or
// inline; none = partitions off, every port holds 0xFFFF.
struct PartitionsConfig {
  std::string file;     // a partitions.conf file, relative to the scenario file; "" = none
  std::string rules;    // the same syntax inline (rules end with ';'); "" = none
  mgmt::SwitchEnforcement switch_enforcement = mgmt::SwitchEnforcement::Off;  // enforcement on switch ports facing HCAs
};

template <class Io>
void describe(Io& io, PartitionsConfig& c) {
  io.string("file", c.file,
            "a partitions.conf in OpenSM's syntax (relative to the scenario file); \"\" = none; not with rules");
  io.string("rules", c.rules,
            "partitions inline in the same syntax, e.g. \"Default=0x7fff : ALL=full ; P1=0x8001 : hca0.p1=full, "
            "hca1.p1 ;\"; \"\" = none; not with file");
  io.choice("switch_enforcement", c.switch_enforcement,
            Names<mgmt::SwitchEnforcement>{{"off", mgmt::SwitchEnforcement::Off},
                                           {"in", mgmt::SwitchEnforcement::In},
                                           {"out", mgmt::SwitchEnforcement::Out},
                                           {"both", mgmt::SwitchEnforcement::Both}},
            "partition enforcement on the switch ports that face HCAs (OpenSM part_enforce): each gets its HCA "
            "port's P_KeyTable and PortInfo's inbound and/or outbound enforcement bit");
}

struct ManagementConfig {
  ManagementMode mode = ManagementMode::Preconfigured;  // tables at time zero, or an SM sweep in band
  std::string sm;                       // in_band: the SM's HCA port; "" = the first HCA port
  StartWorkloads start_workloads = StartWorkloads::SubnetUp;
  uint64_t start_ps = 0;                // in_band: when the SM starts its sweep
  uint64_t link_up_ps = 0;              // in_band: when linked ports come up from Down to Init
  uint64_t sma_latency_ps = 1'000'000;  // an SMA's time to answer one SMP
  uint32_t max_smps_in_flight = 4;      // SMPs the SM keeps outstanding (OpenSM max_wire_smps)
  uint64_t smp_timeout_ps = 200'000'000'000;  // SM's wait for an SMP's answer (OpenSM 200 ms)
  uint32_t smp_retries = 3;             // resends of an unanswered SMP (OpenSM 3)
  uint32_t subnet_timeout = 18;         // PortInfo.SubnetTimeout the SM programs (OpenSM 0x12)
  uint64_t m_key = 0;                   // M_Key the SM programs into every port; 0 = none
  std::string standby;                  // in_band: a second SM's HCA port (its SA kept current by Config); "" = none
  uint32_t sm_priority = 0;             // SMInfo priority of the SM (OpenSM sm_priority)
  uint32_t standby_priority = 0;        // and of the second SM
  StandbyStart standby_start = StandbyStart::AfterMaster;
  uint64_t polling_ps = 10'000'000'000'000;  // a standby's SMInfo polling period (OpenSM sminfo_polling_timeout 10 s)
  uint32_t polling_retries = 4;         // unanswered polls before a takeover (OpenSM polling_retry_number)
  uint64_t handover_ps = 0;             // a re-sweep of the master on request, which hands over to a winning standby; 0 = none
  uint64_t sweep_interval_ps = 0;       // the master's light sweeps (OpenSM sweep_interval); 0 = none
  uint32_t sa_resp_time_value = 16;     // the SA's ClassPortInfo.RespTimeValue (OpenSM: 16)
  uint64_t sa_processing_ps = 1'000'000;  // the SA's time to prepare a first response, fixed part
  uint64_t sa_per_record_ps = 1'000;    // and per record of the answer
  bool sa_keepalives = true;            // a slow SA sends KeepAlives
  uint64_t sa_packet_gap_ps = 100'000;  // between the packets of a multi-packet series
  PartitionsConfig partitions;          // P_Keys as OpenSM's partitions.conf states them
};

template <class Io>
void describe(Io& io, ManagementConfig& c) {
  io.choice("mode", c.mode,
            Names<ManagementMode>{{"preconfigured", ManagementMode::Preconfigured},
                                  {"in_band", ManagementMode::InBand},
                                  {"external", ManagementMode::External}},
            "preconfigured (tables installed at time zero), in_band (an SM sweeps and programs the fabric first) or "
            "external (hcasim serve: no built-in SM; ports come up in Init without LIDs and a real SM attached through "
            "ibsim's protocol programs them; docs/real-tools.md)");
  io.string("sm", c.sm, "in_band: the HCA port the SM runs on; \"\" = the first HCA port");
  io.choice("start_workloads", c.start_workloads, Names<StartWorkloads>{{"subnet_up", StartWorkloads::SubnetUp}},
            "in_band, external: the workloads start (their start times counted from then) when the subnet is up, "
            "every linked port Active: in_band when the built-in SM's first sweep is done, external when the "
            "outside SM has activated the last port (their QPs and flows then use the LIDs it assigned)");
  io.time("start", c.start_ps, 0, UINT64_MAX, "in_band: when the SM starts (not before link_up)");
  io.time("link_up", c.link_up_ps, 0, UINT64_MAX,
          "in_band: when every linked port comes up from Down to Init (ports start Down; training is not modelled)");
  io.time("sma_latency", c.sma_latency_ps, 0, 1'000'000'000'000, "an SMA's time to answer one SMP");
  io.uint("max_smps_in_flight", c.max_smps_in_flight, 1, 1024, "SMPs the SM keeps outstanding (OpenSM max_wire_smps)");
  io.time("smp_timeout", c.smp_timeout_ps, 1, UINT64_MAX, "the SM's wait for an SMP's answer before resending");
  io.uint("smp_retries", c.smp_retries, 0, 100, "resends of an unanswered SMP before the SM gives up on it");
  io.uint("subnet_timeout", c.subnet_timeout, 0, 31, "PortInfo.SubnetTimeout the SM programs (4.096 us x 2^n)");
  io.uint64("m_key", c.m_key, 0, UINT64_MAX, "M_Key the SM programs into every port and uses; 0 = none");
  io.string("standby", c.standby,
            "in_band: a second SM's HCA port (docs/sm-roles.md); the master keeps its SA database current with "
            "SubnAdmConfig; \"\" = none");
  io.uint("sm_priority", c.sm_priority, 0, 15, "in_band: the SM's SMInfo priority (OpenSM sm_priority); election: the higher priority, then the lower port GUID");
  io.uint("standby_priority", c.standby_priority, 0, 15, "in_band: the second SM's SMInfo priority");
  io.choice("standby_start", c.standby_start,
            Names<StandbyStart>{{"after_master", StandbyStart::AfterMaster}, {"with_master", StandbyStart::WithMaster}},
            "in_band: the second SM starts when the first has programmed the subnet (it finds a master and stands "
            "by) or at the same time (the election decides which is master)");
  io.time("sminfo_polling_timeout", c.polling_ps, 1, UINT64_MAX,
          "in_band: a standby SM polls the master's SMInfo this often (OpenSM sminfo_polling_timeout, 10 s)");
  io.uint("polling_retry_number", c.polling_retries, 0, 1000,
          "in_band: a standby takes over when more than this many polls went unanswered (OpenSM polling_retry_number)");
  io.time("sweep_interval", c.sweep_interval_ps, 0, UINT64_MAX,
          "in_band: the master runs a light sweep this long after it last finished a sweep (SwitchInfo of every "
          "switch, SMInfo of other SMs; a change starts a heavy sweep; OpenSM sweep_interval, 10 s there); 0 = none");
  io.time("handover", c.handover_ps, 0, UINT64_MAX,
          "in_band: when the master re-sweeps on request; it hands over to a standby SM that wins the election "
          "against it; 0 = no request");
  io.uint("sa_resp_time_value", c.sa_resp_time_value, 0, 31,
          "the SA's ClassPortInfo.RespTimeValue (4.096 us x 2^n; OpenSM reports 16)");
  io.time("sa_processing", c.sa_processing_ps, 0, UINT64_MAX, "the SA's time to prepare a first response, fixed part");
  io.time("sa_per_record", c.sa_per_record_ps, 0, UINT64_MAX, "the SA's time per record of an answer");
  io.boolean("sa_keepalives", c.sa_keepalives, "a slow SA sends KeepAlives while the first response is not ready");
  io.time("sa_packet_gap", c.sa_packet_gap_ps, 0, UINT64_MAX, "time between the packets of a multi-packet series");
  io.object("partitions", c.partitions, "partitions: P_KeyTables as OpenSM's partitions.conf states them (docs/partitions.md)");
}

// The builder's ManagementSpec. Throws ConfigError naming management.sm or
// management.standby when they are not HCA ports (the standby another HCA's).
ManagementSpec management_spec(const ManagementConfig& m, const topology::Topology& graph,
                               const std::vector<std::string>& hca_ports, const routing::RoutingConfig& routing);

// The graph as the in-band SM sees it (subnet_manager.hpp): nodes in NodeGUID
// order (a node without a GUID gets the builder's derived one), links in
// order of their lower end. at[k] is the scenario's index of node k.
struct GuidOrdered {
  topology::Topology graph;
  std::vector<unsigned> at;
};
GuidOrdered guid_ordered(const topology::Topology& t);
// LIDs and routes computed on ordered.graph, back in the scenario's node order.
void from_guid_order(const GuidOrdered& ordered, routing::Lids& lids, routing::Routes& routes);

}  // namespace hcasim::config
