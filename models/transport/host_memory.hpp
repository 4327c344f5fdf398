#pragma once
// What the transport engines ask of their HCA's memory: the bytes, and the
// protection checks of its memory regions (L_Key for local scatter/gather
// lists, R_Key for remote requests). The HCA implements it (models/hca); the
// engines never see how memory or regions are stored.
//
// Rules:
// - A check passes when one registered region with that key covers the whole
//   range [addr, addr + length) and allows the access asked for. A zero-length
//   range passes with any valid key (IBA: a zero-length RDMA needs no R_Key
//   check; the caller skips the check then).
// - Local reads need no access flag; local writes need kLocalWrite. Remote
//   requests need kRemoteRead, kRemoteWrite or kRemoteAtomic.
// - Atomics operate on 8-byte little-endian words (the host's byte order).
// - read and write move the bytes at once and return when the access is done
//   as the HCA sees it (ps): a read, when its bytes are at the HCA; a write,
//   when it is visible in host memory. A memory the HCA owns, or a host link
//   of no cost, returns now.

#include <cstdint>

#include "models/transport/verbs.hpp"

namespace hcasim::transport {

enum class KeyCheck : uint8_t { Ok, BadKey, OutOfRange, NoAccess };

class HostMemory {
 public:
  virtual ~HostMemory() = default;
  virtual KeyCheck check_local(uint32_t lkey, uint64_t addr, uint64_t length, uint32_t access) const = 0;
  virtual KeyCheck check_remote(uint32_t rkey, uint64_t addr, uint64_t length, uint32_t access) const = 0;
  // key: the L_Key or R_Key the range was checked with (the HCA looks up its
  // MPT and MTT entries for the access).
  virtual uint64_t read(uint32_t key, uint64_t addr, uint8_t* out, uint64_t length) = 0;
  virtual uint64_t write(uint32_t key, uint64_t addr, const uint8_t* data, uint64_t length) = 0;
  // SEND with invalidate: makes the region's R_Key invalid. False when no
  // region has that R_Key.
  virtual bool invalidate_rkey(uint32_t rkey) = 0;
};

}  // namespace hcasim::transport
