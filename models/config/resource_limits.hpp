#pragma once
// Refuses a scenario whose model would not fit in memory, before any of it is
// built: an estimate from the parameters alone, against run.memory_limit (0 =
// this machine's physical memory).
//
// Rules:
// - The topology is sized from its pattern's parameters before the graph is
//   generated: HCAs (each with its host, driver and HCA model), switches and
//   ports, at the per-object costs below. A graph read from a file is already
//   as large as its file and is sized after it is read.
// - A subnet has at most 0xBFFF unicast LIDs (IBA 4.1.3; seed 001): HCA ports
//   times 2^lmc plus switches beyond that are refused whatever the memory.
// - The workload adds its transport QPs (perftest: 2 per QP pair; swarm:
//   machines^2 x threads x vms; verbs: 2 per connection), each with its CQ
//   where it has one of its own, and the translation entries of the memory it
//   registers (one 8-byte MTT entry per hca.page_size page, written into host
//   memory, at most 2^20 per region) and the slot areas perftest fills with
//   data (a source and a destination area per test, each at least 64 MiB or a
//   slot of the largest size per QP).
// - In band (management.mode in_band), the SA holds a PathRecord per ordered
//   pair of LIDs of two different HCA ports (mgmt/sa_population.hpp): (P n) x
//   ((P - 1) n) for P HCA ports of n = 2^lmc LIDs, in the master's database and,
//   with management.standby, again in the standby's (sent by Config). The
//   topology check counts them too, so a fabric whose PathRecords cannot fit is
//   refused before its graph is generated.
// - Over the limit: one line naming the parameter of the largest part, the
//   estimate and the limit.
// The per-object costs are peak resident set sizes measured on this model
// (docs/limits.md); they err on the high side.

#include <cstdint>

#include "models/config/scenario.hpp"

namespace hcasim::config {

constexpr uint64_t kMaxUnicastLids = 0xBFFF;  // IBA 4.1.3: unicast LIDs 0x0001-0xBFFF

// Measured peak resident set sizes (docs/limits.md): single_switch with 2 to
// 254 hosts, 3-level fat trees with k 8 to 16, perftest write_bw with 1 to
// 32768 QPs, rc-swarm with 504 to 32256 QPs and 84 to 344064 regions.
constexpr uint64_t kProgramBytes = 24 << 20;     // the program before the model (12 MiB with back_to_back)
constexpr uint64_t kHostBytes = 12 << 10;        // an HCA with its host, PCIe link and driver, without its ports (8.4 KiB)
constexpr uint64_t kSwitchBytes = 16 << 10;      // a switch without its ports and forwarding table (a byte per LID)
constexpr uint64_t kPortBytes = 11 << 10;        // a port: per-VL queues, credits and statistics, arbiter, sockets (9.1-9.4 KiB)
constexpr uint64_t kPerftestQpBytes = 24 << 10;  // a perftest or verbs QP: its rings and CQ of perftest's depths (11-17 KiB)
constexpr uint64_t kSwarmQpBytes = 6 << 10;      // a swarm QP with its CQ (5.1 KiB)
constexpr uint64_t kRegionBytes = 256;           // a memory region without its translation entries (190 B)
constexpr uint64_t kMttEntryBytes = 8;           // one translation entry in host memory
constexpr uint64_t kSaPathRecordBytes = 160;     // a PathRecord in the master SA: RID, 64-byte body (106-128 B)
constexpr uint64_t kSaStandbyPathRecordBytes = 384;  // and in a standby SA, with the Config that carries it (305-353 B)

// The machine's physical memory, bytes.
uint64_t machine_memory_bytes();
// run.memory_limit, or the machine's memory when it is 0.
uint64_t memory_limit(const Scenario& s);

// The estimate check_model_size compares with the limit, bytes.
uint64_t model_bytes_estimate(const Scenario& s);

// "about 199 MiB estimated; the limit is this machine's memory, 23.5 GiB"
// (hcasim validate prints it).
std::string memory_summary(const Scenario& s);

// Throws ConfigError when the topology the pattern describes is too large.
void check_topology_size(const Scenario& s);
// Throws ConfigError when the fabric plus its workload is too large (after the
// graph is built and the workload's names are resolved).
void check_model_size(const Scenario& s);

}  // namespace hcasim::config
