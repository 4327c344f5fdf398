#pragma once
// What a PcieLink counts: plain data, owned by the link, read by the
// statistics writer (which formats it; the model does not).
//
// - Per direction (upstream = device to host, downstream = host to device)
//   and per kind of TLP: TLPs, payload bytes (data carried; 0 for read
//   requests) and wire bytes (headers and overhead included).
// - Per direction, the time spent sending TLPs (utilisation = busy / elapsed).
// - DMA reads (one per b_transport) and their latency from issue to the last
//   byte at the device; the most read requests ever outstanding at once; the
//   requests that waited for a tag.

#include <array>
#include <cstddef>
#include <cstdint>

#include "models/trace/latency_record.hpp"

namespace hcasim::pcie {

enum class Direction : uint8_t { Upstream, Downstream };
constexpr std::size_t kDirections = 2;

enum class TlpKind : uint8_t {
  MmioWrite,           // host to device: CPU store to a BAR
  MmioReadRequest,     // host to device: CPU load from a BAR
  MmioReadCompletion,  // device to host: its data
  DmaReadRequest,      // device to host
  DmaReadCompletion,   // host to device: the data read
  DmaWrite,            // device to host: posted write of data
  Msix,                // device to host: posted write marked MsiMessage
};
constexpr std::size_t kTlpKinds = 7;

// "upstream", "downstream"; "mmio_write", ..., "msix" (the names of the statistics).
const char* to_string(Direction d);
const char* to_string(TlpKind k);

struct TlpCounts {
  uint64_t tlps = 0;
  uint64_t payload_bytes = 0;  // data bytes carried
  uint64_t wire_bytes = 0;     // bytes on the link: header, data and per-TLP overhead
};

struct PcieStats {
  std::array<std::array<TlpCounts, kTlpKinds>, kDirections> traffic{};  // [direction][kind]
  std::array<uint64_t, kDirections> busy_ps{};  // per direction: time spent sending TLPs, ps
  uint64_t dma_reads = 0;                       // DMA read transactions (b_transport calls)
  trace::LatencyRecord dma_read_latency_ps;         // per DMA read: issue to the last byte at the device, ps
  uint64_t max_outstanding_reads = 0;           // most DMA read requests outstanding at once
  uint64_t tag_waits = 0;                       // DMA read requests that waited for a free tag

  const TlpCounts& at(Direction d, TlpKind k) const {
    return traffic[static_cast<std::size_t>(d)][static_cast<std::size_t>(k)];
  }
  TlpCounts& at(Direction d, TlpKind k) { return traffic[static_cast<std::size_t>(d)][static_cast<std::size_t>(k)]; }
};

}  // namespace hcasim::pcie
