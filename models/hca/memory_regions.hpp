#pragma once
// An HCA's registered memory regions: the keys and their ranges and access
// rights (the protection table; the next HCA issue keeps it in host memory
// as MPT entries behind a cache). The bytes are host memory's; the HCA
// reaches them by DMA (host_memory_access.hpp).
//
// Rules:
// - reg_mr gives each region an L_Key and an R_Key, deterministic and never
//   equal to each other: key = slot index << 8 | a key byte, as HCAs build
//   them (index from 1, so key 0 is never valid). The key byte counts
//   registrations modulo 128; the L_Key's byte has bit 7 clear and the
//   R_Key is the L_Key with bit 7 set, so no R_Key is ever a valid L_Key and
//   a key of a deregistered region fails until its slot has been reused 128
//   times.
// - reg_mr refuses (throws std::invalid_argument): unknown access bits;
//   kRemoteWrite or kRemoteAtomic without kLocalWrite (ibv_reg_mr(3): such a
//   region must be locally writable); a range that runs past 2^64.
// - A check asks for a key, a range [addr, addr + length) and access bits:
//   no in-use region with that key (or an invalidated R_Key) is BadKey; a
//   zero-length range then passes (host_memory.hpp); access bits the region
//   lacks are NoAccess; a range not wholly inside the region, including one
//   whose end overflows 64 bits, is OutOfRange. Local reads ask for no bits.
// - invalidate_rkey (SEND with Invalidate) ends the R_Key only; the L_Key
//   and the region stay. It is false when no region has that R_Key valid.
// - dereg_mr ends both keys; it is false for an L_Key no region has.

#include <cstdint>
#include <vector>

#include "models/transport/host_memory.hpp"

namespace hcasim::hca {

struct MemoryRegion {
  uint32_t lkey = 0;
  uint32_t rkey = 0;
  uint64_t addr = 0;    // first byte
  uint64_t length = 0;  // bytes
  uint32_t access = 0;  // transport::Access bits
  // Its translation (ICM, icm_layout.hpp; set by Hca::reg_mr): MTT entries
  // mtt_first .. mtt_first + mtt_count - 1, one per page of 2^page_shift bytes.
  uint64_t mtt_first = 0;
  uint64_t mtt_count = 0;
  uint8_t page_shift = 12;
};

class MemoryRegions {
 public:
  static constexpr uint32_t kMaxRegions = (1u << 24) - 1;  // the 24-bit index of a key

  MemoryRegion reg_mr(uint64_t addr, uint64_t length, uint32_t access);
  bool dereg_mr(uint32_t lkey);
  // The in-use region with that L_Key, or nullptr.
  const MemoryRegion* find_lkey(uint32_t lkey) const;
  // The in-use region with that L_Key or R_Key (valid or not), or nullptr.
  const MemoryRegion* find_key(uint32_t key) const;
  // Sets the in-use region's translation fields (Hca::reg_mr).
  void set_translation(uint32_t lkey, uint64_t mtt_first, uint64_t mtt_count, uint8_t page_shift);
  size_t regions() const { return in_use_; }

  transport::KeyCheck check_local(uint32_t lkey, uint64_t addr, uint64_t length, uint32_t access) const;
  transport::KeyCheck check_remote(uint32_t rkey, uint64_t addr, uint64_t length, uint32_t access) const;
  // SEND with invalidate: false when no region has that R_Key valid.
  bool invalidate_rkey(uint32_t rkey);

 private:
  struct Slot {
    MemoryRegion mr;
    bool in_use = false;
    bool rkey_valid = false;
  };
  const Slot* slot_of(uint32_t key) const;

  std::vector<Slot> slots_;  // slot i has key index i + 1
  size_t in_use_ = 0;
  uint8_t registrations_ = 0;  // the next key byte, modulo 128
};

}  // namespace hcasim::hca
