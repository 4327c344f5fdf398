#pragma once
// An HCA's host side in a scenario (the "hca" object and "hca_overrides"):
// the PCIe link, host memory, the driver's doorbells and CPU costs, and the
// HCA's own host-interface parameters, described once for reading, writing
// and documentation (config_io.hpp). Defaults are the structs' own
// initializers: a realistic HDR-era HCA on PCIe Gen4 x16.
//
// Rules:
// - "preset": "realistic" (the defaults) or "ideal": a host link of no cost
//   (pcie.ideal: infinite bandwidth, zero latency), host memory with no
//   latency and no bandwidth limit, and no CPU costs, so a fabric study runs
//   as if the HCA owned its memory. Keys given beside the preset apply on top
//   of it.
// - "device": a real HCA's parameter set (hca_devices.hpp), applied on top of
//   the preset; the other keys apply on top of it.
// - An "hca_overrides" entry names HCAs ("hca": a node name, wildcards
//   allowed) and gives keys on top of the scenario's "hca" object (or, with
//   its own "preset", on top of that preset). Later entries win.

#include <string>

#include "models/config/config_io.hpp"
#include "models/config/hca_devices.hpp"
#include "models/hca/hca_config.hpp"
#include "models/hca/host_formats.hpp"
#include "models/host/driver.hpp"
#include "models/host/host.hpp"
#include "models/host/host_memory.hpp"
#include "models/host/iommu.hpp"
#include "models/pcie/pcie_config.hpp"

namespace hcasim::pcie {

template <class Io>
void describe(Io& io, PcieConfig& c) {
  io.uint("gen", c.gen, 1, 6, "PCIe generation (6: FLIT mode)");
  io.uint_of("lanes", c.lanes, {1, 2, 4, 8, 16}, "link width in lanes");
  uint64_t mps = c.mps, mrrs = c.mrrs, rcb = c.rcb;
  io.bytes("mps", mps, 128, 4096, "Max_Payload_Size: DMA writes and completions are split at it (a power of two)");
  io.bytes("mrrs", mrrs, 128, 4096, "Max_Read_Request_Size: DMA reads are split into requests of at most this");
  io.bytes("rcb", rcb, 64, 128, "Read Completion Boundary: 64B or 128B");
  c.mps = static_cast<uint32_t>(mps);
  c.mrrs = static_cast<uint32_t>(mrrs);
  c.rcb = static_cast<uint32_t>(rcb);
  io.uint("tlp_header_dw", c.tlp_header_dw, 3, 4, "memory request header in DW: 3 (32-bit addresses) or 4 (64-bit)");
  uint64_t overhead = c.tlp_overhead_bytes;
  io.bytes("tlp_overhead", overhead, 0, 64, "per TLP: sequence number, LCRC and framing (pcie-bench: 8B); not in FLIT mode");
  c.tlp_overhead_bytes = static_cast<uint32_t>(overhead);
  io.real("dllp_share", c.dllp_share, -1, 0.5,
          "share of the raw rate lost to ACK and UpdateFC DLLPs and SKIPs; -1 = the spec's tables for gen, width and MPS");
  io.time("latency", c.latency_ps, 0, 1'000'000'000, "one-way latency of the link and the root complex");
  io.uint("tags", c.tags, 1, 16384, "most DMA read requests the HCA keeps outstanding");
  io.boolean("ideal", c.ideal, "no cost at all: infinite bandwidth, zero latency (transfers are still counted)");
  for (const auto& [key, v] : {std::pair{"mps", c.mps}, std::pair{"mrrs", c.mrrs}})
    if ((v & (v - 1)) != 0) io.fail(key, std::to_string(v) + "B is not a power of two; accepted: 128B, 256B, ... 4096B");
  if (c.rcb != 64 && c.rcb != 128) io.fail("rcb", std::to_string(c.rcb) + "B; accepted: 64B or 128B");
}

}  // namespace hcasim::pcie

namespace hcasim::host {

template <class Io>
void describe(Io& io, HostMemoryConfig& c) {
  io.time("latency", c.latency_ps, 0, 1'000'000'000, "a DMA's access time at the memory controller");
  io.rate("bandwidth", c.bandwidth_bps, 0, 1e15, "memory bandwidth shared by reads and writes; 0b/s = unlimited");
}

template <class Io>
void describe_cpu(Io& io, DriverConfig& c) {
  io.time("post", c.post_ps, 0, 1'000'000'000, "CPU time per WR posted (its WQE and the doorbell record)");
  io.time("doorbell", c.doorbell_ps, 0, 1'000'000'000, "CPU time per doorbell MMIO write");
  io.time("blueflame", c.blueflame_ps, 0, 1'000'000'000, "CPU time per BlueFlame write");
  io.time("poll", c.poll_ps, 0, 1'000'000'000, "from a CQE visible in memory to the code that polled it");
  io.time("interrupt", c.interrupt_ps, 0, 1'000'000'000, "from an MSI-X message to the completion handler");
}

// The IOTLB's fields (hca::ContextCacheConfig as the IOMMU uses it).
// The replacement policies' names, and what is wrong with a cache's sets ("" = nothing).
inline const config::Names<hca::Replacement>& replacement_names() {
  static const config::Names<hca::Replacement> names{{"lru", hca::Replacement::Lru},
                                                     {"random", hca::Replacement::Random}};
  return names;
}
inline const config::Names<hca::SetIndex>& set_index_names() {
  static const config::Names<hca::SetIndex> names{{"modulo", hca::SetIndex::Modulo},
                                                  {"hashed", hca::SetIndex::Hashed}};
  return names;
}
inline std::string sets_problem(const hca::ContextCacheConfig& c) {
  const uint32_t ways = c.ways == 0 ? c.entries : c.ways;
  if (ways <= c.entries && c.entries % ways == 0) return "";
  return std::to_string(c.ways) + " does not divide entries " + std::to_string(c.entries) +
         "; accepted: 0 (fully associative) or a divisor of entries";
}

struct IotlbObject {
  hca::ContextCacheConfig cache;
};
// A cache's shape, as every cache of the HCA and the IOMMU describes it: entries
// (min_entries..max_entries), ways, replacement; what_entries says what a line holds.
template <class Io>
void describe_shape(Io& io, hca::ContextCacheConfig& c, uint32_t min_entries, uint32_t max_entries,
                    const std::string& what_entries) {
  io.uint("entries", c.entries, min_entries, max_entries, what_entries);
  io.uint("ways", c.ways, 0, max_entries, "lines per set; 0 = fully associative (must divide entries)");
  io.choice("replacement", c.replacement, replacement_names(),
            "victim in a full set: least recently used, or random (a seeded splitmix64 generator)");
}
// Checked after the shape's keys: ways divide entries.
template <class Io>
void check_shape(Io& io, const hca::ContextCacheConfig& c) {
  if (const std::string why = sets_problem(c); !why.empty()) io.fail("ways", why);
}

template <class Io>
void describe(Io& io, IotlbObject& c) {
  describe_shape(io, c.cache, 1, 1u << 20, "translations the IOTLB holds");
  io.uint("walks", c.cache.mshrs, 1, 1024, "page walks in flight at once (later misses wait for one to end)");
  check_shape(io, c.cache);
}

template <class Io>
void describe(Io& io, IommuConfig& c) {
  io.boolean("enabled", c.enabled, "an IOMMU between the PCIe link and host memory translates every DMA address");
  io.bytes("page_size", c.page_bytes, 4096, uint64_t{1} << 21, "I/O page size: 4KiB or 2MiB");
  if (c.page_bytes != 4096 && c.page_bytes != (uint64_t{1} << 21))
    io.fail("page_size", std::to_string(c.page_bytes) + "B; accepted: 4KiB or 2MiB");
  IotlbObject iotlb{c.iotlb};
  io.object("iotlb", iotlb, "the IOMMU's translation cache");
  c.iotlb = iotlb.cache;
  io.uint("walk_levels", c.walk_levels, 0, 6, "page-table reads of host memory per IOTLB miss (0 = miss_penalty only)");
  io.time("miss_penalty", c.miss_penalty_ps, 0, 1'000'000'000, "fixed cost of an IOTLB miss before its walk reads");
}

}  // namespace hcasim::host

namespace hcasim::hca {

template <class Io>
void describe(Io& io, ContextCacheConfig& c) {
  host::describe_shape(io, c, 1, 1u << 24, "lines (contexts) the cache holds");
  uint64_t bytes = c.entry_bytes;
  io.bytes("entry_size", bytes, 8, 4096, "bytes of one entry in host memory: one fill (DMA read) or write-back");
  c.entry_bytes = static_cast<uint32_t>(bytes);
  io.uint("mshrs", c.mshrs, 1, 4096, "misses outstanding at once; a further miss starts when the earliest is done");
  io.boolean("write_back", c.write_back, "a dirty line evicted is written to host memory (a DMA write)");
  io.uint64("seed", c.seed, 0, UINT64_MAX, "random replacement's generator seed");
  io.boolean("perfect", c.perfect, "every lookup hits (no DMA): the ideal preset's caches");
  host::check_shape(io, c);
}

template <class Io>
void describe(Io& io, QpcFirstLevelConfig& c) {
  host::describe_shape(io, c.store, 0, 1u << 20, "QP contexts the transmit units hold; 0 = no first level");
  io.time("load", c.load_ps, 0, 1'000'000'000, "transmit unit time to load a context it does not hold from the QPC cache");
  io.uint64("seed", c.store.seed, 0, UINT64_MAX, "random replacement's generator seed");
  io.choice("index", c.index, host::set_index_names(),
            "a QP's set: its QPN mod sets, or a hash of the QPN keyed by the HCA's name (QPs collide in a set "
            "before the store is full, each HCA with other QPs)");
  if (c.on()) host::check_shape(io, c.store);
}

template <class Io>
void describe(Io& io, ContextCachesConfig& c) {
  io.object("qpc_l1", c.qpc_l1,
            "a first level of QP contexts in the transmit units, in front of the QPC cache: a packet whose QP's "
            "context is not held costs its unit `load` more");
  io.object("qpc", c.qpc, "QP contexts: looked up for every packet sent and received (written)");
  io.object("cqc", c.cqc, "CQ contexts: looked up for every completion (written)");
  io.object("mpt", c.mpt, "memory protection entries: looked up for every local and remote memory access");
  io.object("mtt", c.mtt, "translation entries (8B each, one per page; a line of entry_size holds entry_size / 8): looked up for every page a memory access touches");
  io.object("wqe", c.wqe, "send and receive WQEs (a line: entry_size bytes of one WQE): filled by the WQE fetch, looked up when a send WQE's first packet is built, a READ or atomic response is scattered, a receive WQE takes a SEND; a miss rereads the line from the ring; invalidated at completion, never written back");
  if (c.mtt.entry_bytes % hca::kMttBytes != 0)
    io.fail("mtt", "entry_size " + std::to_string(c.mtt.entry_bytes) + "B; accepted: a multiple of 8B (MTT entries per line)");
  if (c.mpt.entry_bytes < hca::kMptBytes)
    io.fail("mpt", "entry_size " + std::to_string(c.mpt.entry_bytes) + "B; accepted: at least 64B (host_formats.hpp)");
}

}  // namespace hcasim::hca

namespace hcasim::config {

enum class HcaPreset { Realistic, Ideal };

// Everything about one HCA's host side.
struct HcaSettings {
  HcaPreset preset = HcaPreset::Realistic;
  HcaDevice device = HcaDevice::Generic;  // hca_devices.hpp
  hca::HcaConfig hca;
  host::HostConfig host;  // pcie, memory, driver
};

// The settings a preset starts from.
HcaSettings preset_settings(HcaPreset preset);

// The driver's CPU costs as their own object (the other driver fields ride along).
struct CpuObject {
  host::DriverConfig driver;
};
template <class Io>
void describe(Io& io, CpuObject& c) {
  host::describe_cpu(io, c.driver);
}

// The HCA's MSI-X fields as their own object.
struct MsixObject {
  hca::HcaConfig hca;
};
template <class Io>
void describe(Io& io, MsixObject& c) {
  io.uint("vectors", c.hca.msix_vectors, 1, hca::kMaxMsixVectors, "MSI-X table entries");
  io.uint("moderation_count", c.hca.msix_moderation_count, 1, 1u << 16,
          "completions an armed CQ collects before its interrupt (1 = each)");
  io.time("moderation_time", c.hca.msix_moderation_ps, 0, 1'000'000'000'000,
          "or this long after the first of them (0ns = no timer)");
}

// CQE compression's fields as their own object.
struct CqeCompressionObject {
  hca::HcaConfig hca;
};
template <class Io>
void describe(Io& io, CqeCompressionObject& c) {
  io.boolean("enabled", c.hca.cqe_compression,
             "CQs write completions close together as one compressed block (a title CQE and mini CQEs), unless "
             "create_cq says otherwise");
  io.uint("max_block", c.hca.cqe_compression_max, 1, hca::kMaxMiniCqes + 1,
          "completions a compressed block holds at most (8: a title and one full mini-CQE array)");
  io.time("wait", c.hca.cqe_compression_wait_ps, 0, 1'000'000'000'000,
          "a block not yet full is written this long after its first completion");
}

template <class Io>
void describe(Io& io, HcaSettings& c) {
  io.choice("preset", c.preset, Names<HcaPreset>{{"realistic", HcaPreset::Realistic}, {"ideal", HcaPreset::Ideal}},
            "realistic (the defaults below) or ideal (a host side of no cost); other keys apply on top");
  if (io.present("preset")) {  // the preset is the base the other keys change
    const HcaPreset p = c.preset;
    c = preset_settings(p);
  }
  io.choice("device", c.device, device_names(),
            "a real HCA's parameter set (hcasim params lists them; docs/devices/), on top of the preset; other keys "
            "apply on top");
  if (io.present("device")) apply_device(c.device, c);
  io.object("pcie", c.host.pcie, "the PCIe link between host and HCA");
  io.object("host_memory", c.host.memory, "host memory as the HCA's DMA sees it");
  io.object("iommu", c.host.iommu, "an IOMMU with an IOTLB in the root complex (off by default)");
  io.choice("doorbell", c.host.driver.doorbell,
            Names<host::DoorbellMode>{{"mmio", host::DoorbellMode::Mmio}, {"blueflame", host::DoorbellMode::BlueFlame}},
            "how the driver tells the HCA of new WQEs: an MMIO doorbell, or a BlueFlame write carrying the WQE");
  uint64_t threshold = c.host.driver.inline_threshold, max_inline = c.host.driver.max_inline;
  io.bytes("inline_threshold", threshold, 0, 4000, "messages of at most this size go inline in the WQE (0B = none)");
  io.bytes("max_inline", max_inline, 0, 4000, "the largest inline message a QP takes (sizes its send WQEs)");
  c.host.driver.inline_threshold = static_cast<uint32_t>(threshold);
  c.host.driver.max_inline = static_cast<uint32_t>(max_inline);
  CpuObject cpu{c.host.driver};
  io.object("cpu", cpu, "the driver's CPU costs");
  c.host.driver = cpu.driver;
  io.uint("wqe_fetch_batch", c.hca.wqe_fetch_batch, 1, 64, "WQEs the HCA reads per DMA read of a send or receive ring");
  io.uint("wqe_prefetch", c.hca.wqe_prefetch, 0, 1024,
          "send WQEs ahead of the one a transmit unit takes whose fetch into the WQE cache starts then (0: no prefetch)");
  io.uint("wqe_reads_kept", c.hca.wqe_reads_kept, 0, 65536,
          "READs and atomics a QP may have posted and not completed whose WQEs the WQE cache keeps from request to "
          "response; past it a sent READ's WQE leaves the cache and its response reads it again (0: no limit)");
  io.uint("uar_pages", c.hca.uar_pages, 1, 1024, "BAR0 UAR pages (user contexts)");
  MsixObject msix{c.hca};
  io.object("msix", msix, "MSI-X vectors and interrupt moderation");
  c.hca = msix.hca;
  CqeCompressionObject compression{c.hca};
  io.object("cqe_compression", compression, "CQE compression: several completions of a CQ in one CQE write");
  c.hca = compression.hca;
  io.bytes("rx_buffer", c.hca.rx_buffer_bytes, 1, uint64_t{1} << 32,
           "received data waiting for its host-memory writes before the HCA stops taking packets");
  io.object("caches", c.hca.caches, "the HCA's context caches over its ICM tables in host memory (docs/context-caches.md)");
  io.bytes("page_size", c.hca.page_bytes, 4096, uint64_t{1} << 30, "memory region page size: one MTT entry per page");
  if ((c.hca.page_bytes & (c.hca.page_bytes - 1)) != 0)
    io.fail("page_size", std::to_string(c.hca.page_bytes) + "B is not a power of two; accepted: 4KiB, 8KiB, ... 1GiB");
  if (c.host.driver.inline_threshold > c.host.driver.max_inline)
    io.fail("inline_threshold", std::to_string(c.host.driver.inline_threshold) + " is above max_inline " +
                                    std::to_string(c.host.driver.max_inline) + "; accepted: at most max_inline");
}

}  // namespace hcasim::config
