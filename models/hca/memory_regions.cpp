#include "models/hca/memory_regions.hpp"

#include <limits>
#include <stdexcept>
#include <string>

namespace hcasim::hca {
namespace {

using transport::KeyCheck;

constexpr uint32_t kRkeyBit = 0x80;
constexpr uint32_t kAllAccess =
    transport::kLocalWrite | transport::kRemoteWrite | transport::kRemoteRead | transport::kRemoteAtomic;

// Whether [addr, addr + length), length > 0, lies inside the region; written
// with last-byte arithmetic so that no sum can overflow.
bool covers(const MemoryRegion& mr, uint64_t addr, uint64_t length) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  if (mr.length == 0 || addr < mr.addr) return false;
  if (length - 1 > kMax - addr) return false;  // the range itself runs past 2^64
  return (addr - mr.addr) <= mr.length - 1 && length - 1 <= mr.length - 1 - (addr - mr.addr);
}

KeyCheck check(const MemoryRegion& mr, uint64_t addr, uint64_t length, uint32_t access) {
  if (length == 0) return KeyCheck::Ok;
  if (access & ~mr.access) return KeyCheck::NoAccess;
  return covers(mr, addr, length) ? KeyCheck::Ok : KeyCheck::OutOfRange;
}

}  // namespace

MemoryRegion MemoryRegions::reg_mr(uint64_t addr, uint64_t length, uint32_t access) {
  if (access & ~kAllAccess)
    throw std::invalid_argument("reg_mr: access " + std::to_string(access) +
                                " has bits outside LocalWrite(1) RemoteWrite(2) RemoteRead(4) RemoteAtomic(8)");
  if ((access & (transport::kRemoteWrite | transport::kRemoteAtomic)) && !(access & transport::kLocalWrite))
    throw std::invalid_argument("reg_mr: RemoteWrite or RemoteAtomic access needs LocalWrite too (ibv_reg_mr)");
  if (length > 0 && length - 1 > std::numeric_limits<uint64_t>::max() - addr)
    throw std::invalid_argument("reg_mr: the region [addr, addr + length) runs past the 64-bit address space");

  size_t i = 0;
  while (i < slots_.size() && slots_[i].in_use) ++i;
  if (i == slots_.size()) {
    if (slots_.size() >= kMaxRegions)
      throw std::invalid_argument("reg_mr: all " + std::to_string(kMaxRegions) + " region keys are in use");
    slots_.emplace_back();
  }
  uint32_t lkey = static_cast<uint32_t>(i + 1) << 8 | (registrations_ & 0x7F);
  registrations_ = static_cast<uint8_t>((registrations_ + 1) & 0x7F);

  Slot& s = slots_[i];
  s.mr = MemoryRegion{lkey, lkey | kRkeyBit, addr, length, access};
  s.in_use = true;
  s.rkey_valid = true;
  ++in_use_;
  return s.mr;
}

const MemoryRegions::Slot* MemoryRegions::slot_of(uint32_t key) const {
  uint32_t index = key >> 8;
  if (index == 0 || index > slots_.size()) return nullptr;
  const Slot& s = slots_[index - 1];
  return s.in_use ? &s : nullptr;
}

const MemoryRegion* MemoryRegions::find_lkey(uint32_t lkey) const {
  const Slot* s = slot_of(lkey);
  return s != nullptr && s->mr.lkey == lkey ? &s->mr : nullptr;
}

const MemoryRegion* MemoryRegions::find_key(uint32_t key) const {
  const Slot* s = slot_of(key);
  return s != nullptr && (s->mr.lkey == key || s->mr.rkey == key) ? &s->mr : nullptr;
}

void MemoryRegions::set_translation(uint32_t lkey, uint64_t mtt_first, uint64_t mtt_count, uint8_t page_shift) {
  if (find_lkey(lkey) == nullptr) return;
  MemoryRegion& mr = slots_[(lkey >> 8) - 1].mr;
  mr.mtt_first = mtt_first;
  mr.mtt_count = mtt_count;
  mr.page_shift = page_shift;
}

bool MemoryRegions::dereg_mr(uint32_t lkey) {
  if (find_lkey(lkey) == nullptr) return false;
  Slot& s = slots_[(lkey >> 8) - 1];
  s.in_use = false;
  s.rkey_valid = false;
  --in_use_;
  return true;
}

KeyCheck MemoryRegions::check_local(uint32_t lkey, uint64_t addr, uint64_t length, uint32_t access) const {
  const MemoryRegion* mr = find_lkey(lkey);
  return mr == nullptr ? KeyCheck::BadKey : check(*mr, addr, length, access);
}

KeyCheck MemoryRegions::check_remote(uint32_t rkey, uint64_t addr, uint64_t length, uint32_t access) const {
  const Slot* s = slot_of(rkey);
  if (s == nullptr || s->mr.rkey != rkey || !s->rkey_valid) return KeyCheck::BadKey;
  return check(s->mr, addr, length, access);
}

bool MemoryRegions::invalidate_rkey(uint32_t rkey) {
  const Slot* s = slot_of(rkey);
  if (s == nullptr || s->mr.rkey != rkey || !s->rkey_valid) return false;
  slots_[(rkey >> 8) - 1].rkey_valid = false;
  return true;
}

}  // namespace hcasim::hca
