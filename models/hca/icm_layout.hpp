#pragma once
// Where the HCA's context tables (ICM: interconnect context memory) live in
// host memory. The driver allocates one area at HCA init and gives the HCA
// its base (Hca::init_icm); the tables follow each other in it, each entry
// of its cache's entry size:
//
//   QPC table: kQpcEntries QP contexts, entry qpn % kQpcEntries
//   CQC table: kCqcEntries CQ contexts, entry cqn % kCqcEntries
//   MPT table: kMptEntries memory protection entries, entry = the MR's key index (key >> 8)
//   MTT table: kMttEntries translation entries, one per page of an MR, given out in order of registration
//
// The area is address space: host memory holds only the pages written.
//
// Each table starts at a multiple of 4 KiB. The MPT and MTT entries' bytes
// are host_formats.hpp's (written by the driver at reg_mr); the QPC and CQC
// bytes are the HCA's own (the model keeps QP and CQ state in C++: only
// their traffic over the link is modelled).

#include <cstdint>

namespace hcasim::hca {

struct IcmEntryBytes {
  uint32_t qpc = 256, cqc = 64, mpt = 64, mtt = 8;
};

class IcmLayout {
 public:
  static constexpr uint64_t kQpcEntries = uint64_t{1} << 17;
  static constexpr uint64_t kCqcEntries = uint64_t{1} << 17;
  static constexpr uint64_t kMptEntries = uint64_t{1} << 24;  // every key index (memory_regions.hpp)
  static constexpr uint64_t kMttEntries = uint64_t{1} << 40;  // address space only: host memory is sparse

  IcmLayout() = default;
  IcmLayout(uint64_t base, const IcmEntryBytes& bytes);

  uint64_t qpc(uint32_t qpn) const { return qpc_ + (qpn % kQpcEntries) * bytes_.qpc; }
  uint64_t cqc(uint32_t cqn) const { return cqc_ + (cqn % kCqcEntries) * bytes_.cqc; }
  uint64_t mpt(uint32_t index) const { return mpt_ + (index % kMptEntries) * bytes_.mpt; }
  uint64_t mtt(uint64_t index) const { return mtt_ + (index % kMttEntries) * bytes_.mtt; }
  uint64_t base() const { return qpc_; }
  // Bytes of the whole area (from base).
  uint64_t total_bytes() const { return end_ - qpc_; }
  // The area's size for these entry sizes, before a base is known.
  static uint64_t bytes_for(const IcmEntryBytes& bytes) { return IcmLayout(0, bytes).total_bytes(); }

 private:
  IcmEntryBytes bytes_;
  uint64_t qpc_ = 0, cqc_ = 0, mpt_ = 0, mtt_ = 0, end_ = 0;
};

}  // namespace hcasim::hca
