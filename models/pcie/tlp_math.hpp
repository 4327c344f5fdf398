#pragma once
// PCIe link arithmetic, plain C++ (no SystemC): rates, TLP wire sizes, how a
// transfer is cut into TLPs, and pcie-bench's effective-bandwidth formulas.
// The reference is the model of Neugebauer et al., "Understanding PCIe
// performance for end host networking", SIGCOMM 2018 (pcie-bench/pcie-model,
// model/pcie.py and model/mem_bw.py).
//
// Rules:
// - Raw rate = lanes x transfer rate x line code: 8b/10b (Gen1-2), 128b/130b
//   (Gen3-5), 236/256 (Gen6 FLIT mode; pcie_config.hpp).
// - TLP rate = raw rate x (1 - DLLP share). The share from the spec's tables
//   is 8/AckLimit + 8/UpdateFC + 4/1538, as pcie-bench computes TLP_bw: an ACK
//   and an UpdateFC DLLP take 8 bytes each (2 framing + 4 DLLP + 2 CRC), sent
//   once per AckLimit (PCIe Base Spec 5.0 Tables 3-7..3-9) and per UpdateFC
//   latency guideline (Tables 2-46..2-48) symbol times; a 4-byte SKIP ordered
//   set per 1538 symbols. pcie-bench lists the same values in both tables for
//   x1..x16, so one table serves both. 0 in FLIT mode.
// - Wire bytes of a TLP: memory write = request header + data + overhead;
//   memory read request = request header + overhead; completion with data =
//   12 + data + overhead (overhead 0 in FLIT mode).
// - Splitting: writes at MPS, read requests at MRRS; the completions of one
//   request at most MPS each, the first ending at the next RCB boundary when
//   the address is not RCB-aligned (PCIe Base Spec, Transaction Layer: read
//   completion boundary). No TLP crosses a 4 KiB boundary. Pieces are cut
//   from the start address on (a write of 300 bytes at 0x40 with MPS 256 is
//   256 + 44 bytes).

#include <algorithm>
#include <cstdint>

#include "models/pcie/pcie_config.hpp"

namespace hcasim::pcie {

constexpr uint64_t kPageBytes = 4096;        // PCIe Base Spec, Transaction Layer: no request crosses 4 KiB
constexpr uint32_t kCompletionHeader = 12;   // 3 DW completion header (pcie-bench TLP_Hdr + TLP_CplD_Hdr)
constexpr uint32_t kDllpBytes = 8;           // ACK or UpdateFC DLLP: 2 framing + 4 DLLP + 2 CRC (pcie-bench Ack_Size, FC_Size)
constexpr uint32_t kSkipBytes = 4;           // SKIP ordered set (pcie-bench SKIP_Length)
constexpr uint32_t kSkipInterval = 1538;     // symbols between SKIP ordered sets (pcie-bench SKIP_Interval)
constexpr uint32_t kFlitBytes = 256;         // PCIe 6.0 flit
constexpr uint32_t kFlitTlpBytes = 236;      // of which TLP bytes (6 DLP, 8 CRC, 6 FEC)

inline bool flit_mode(unsigned gen) { return gen >= 6; }

// Per lane, transfers per second: 2.5e9 ... 64e9.
double transfer_rate_per_s(unsigned gen);
// Line code as data bits over line bits: 8/10, 128/130, 236/256.
struct LineCode {
  unsigned data;
  unsigned total;
};
LineCode line_code(unsigned gen);
// Lanes x transfer rate x line code, bits/s.
double raw_rate_bps(unsigned gen, unsigned lanes);
// The spec's AckLimit (= UpdateFC guideline) in symbol times for gen 1-5,
// lanes 1-16 and MPS 128-4096; 0 when the table has no entry (FLIT mode).
uint32_t ack_limit_symbols(unsigned gen, unsigned lanes, uint32_t mps);
// 8/AckLimit + 8/UpdateFC + 4/1538 from the tables; 0 in FLIT mode.
double spec_dllp_share(unsigned gen, unsigned lanes, uint32_t mps);
// The config's share: its own when >= 0, else the spec's.
double dllp_share(const PcieConfig& c);
// Raw rate after the DLLP share: the rate TLP bytes move at, bits/s.
double tlp_rate_bps(const PcieConfig& c);

enum class TlpType : uint8_t { MemWrite, MemRead, Completion };

// The fixed bytes of each TLP type for one config.
struct TlpSizes {
  uint32_t request_header;     // memory request header: 12 or 16
  uint32_t completion_header;  // 12
  uint32_t overhead;           // sequence number + LCRC + framing; 0 in FLIT mode
};
TlpSizes tlp_sizes(const PcieConfig& c);

// Bytes one TLP takes on the wire; payload is ignored for a read request.
inline uint32_t wire_bytes(const TlpSizes& s, TlpType type, uint32_t payload) {
  switch (type) {
    case TlpType::MemWrite: return s.request_header + payload + s.overhead;
    case TlpType::MemRead: return s.request_header + s.overhead;
    case TlpType::Completion: return s.completion_header + payload + s.overhead;
  }
  return 0;
}

// One TLP's share of a transfer.
struct Piece {
  uint64_t addr;
  uint32_t len;
};

// Cuts [addr, addr + len) into pieces of at most max_bytes that cross no
// 4 KiB boundary; with first_boundary != 0 and addr not a multiple of it, the
// first piece ends at the next multiple (RCB). It counts what is left, never
// an end address, so the last page of the 64-bit space splits like any other.
// No allocation:
//   for (Splitter s(a, n, mps); !s.done();) { Piece p = s.next(); ... }
class Splitter {
 public:
  Splitter(uint64_t addr, uint64_t len, uint32_t max_bytes, uint32_t first_boundary = 0)
      : addr_(addr), left_(len), max_(max_bytes), first_(first_boundary) {}
  bool done() const { return left_ == 0; }
  Piece next() {
    uint64_t n = max_;
    if (first_ != 0) {
      if (addr_ % first_ != 0) n = first_ - addr_ % first_;
      first_ = 0;
    }
    n = std::min({n, kPageBytes - addr_ % kPageBytes, left_});
    const Piece p{addr_, static_cast<uint32_t>(n)};
    addr_ += n;
    left_ -= n;
    return p;
  }

 private:
  uint64_t addr_;
  uint64_t left_;
  uint32_t max_;
  uint32_t first_;
};

// How many pieces Splitter makes, without visiting them one by one.
uint64_t count_pieces(uint64_t addr, uint64_t len, uint32_t max_bytes, uint32_t first_boundary = 0);
inline uint64_t count_write_tlps(const PcieConfig& c, uint64_t addr, uint64_t len) {
  return count_pieces(addr, len, c.mps);
}
inline uint64_t count_read_requests(const PcieConfig& c, uint64_t addr, uint64_t len) {
  return count_pieces(addr, len, c.mrrs);
}
// Completions of one read request (a request never crosses 4 KiB).
inline uint64_t count_completions(const PcieConfig& c, uint64_t addr, uint64_t len) {
  return count_pieces(addr, len, c.mps, c.rcb);
}

// pcie-bench mem_bw.write with a raw spec of tlp_rate_bps: a stream of
// writes of `size` bytes, each ceil(size / MPS) TLPs, moves
//   size x TLP rate / (ceil(size / MPS) x (request header + overhead) + size)
// bits of data per second.
double reference_write_bps(const PcieConfig& c, uint64_t size);
// pcie-bench mem_bw.read (rcb_chunks false) with the TLP rate both ways: a
// read of `size` bytes is ceil(size / MRRS) requests of request header +
// overhead bytes upstream and ceil(size / MPS) completions of 12 + overhead
// bytes plus the data downstream; the busier direction sets the data rate
//   size x TLP rate / max(upstream bytes, downstream bytes).
double reference_read_bps(const PcieConfig& c, uint64_t size);

}  // namespace hcasim::pcie
