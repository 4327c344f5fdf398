#pragma once
// P_Keys: the 16-bit partition keys of BTH bytes 2-3 and of a port's
// P_KeyTable, and the rule that says whether two keys may talk. No SystemC.
//
// Rules (IBA 10.9; OpenSM ib_types.h ib_pkey_*):
// - Bit 15 is the membership: 1 full member, 0 limited member. Bits 14:0 are
//   the partition (the key's base).
// - A base of 0 is invalid (0x0000 and 0x8000): such a key matches nothing, and
//   0x0000 in a table is an empty entry.
// - Two keys match (IBA 10.9.3) when their bases are equal and at least one is
//   a full member: a limited member does not talk to a limited member.
// - A packet's key is accepted by a table when any of its entries matches it.
// - The default partition is base 0x7FFF: 0xFFFF full, 0x7FFF limited member.
//   A port no one has programmed holds 0xFFFF at index 0 (IBA 10.9.1.2).

#include <cstdint>
#include <vector>

namespace hcasim::ib {

constexpr uint16_t kPkeyFullMember = 0x8000;    // IBA 10.9: bit 15 = full membership
constexpr uint16_t kPkeyBaseMask = 0x7FFF;      // IBA 10.9: bits 14:0 = the partition
constexpr uint16_t kDefaultPkey = 0xFFFF;       // IBA 10.9.1.2: default partition, full member
constexpr uint16_t kDefaultPkeyLimited = 0x7FFF;  // default partition, limited member

inline uint16_t pkey_base(uint16_t key) { return key & kPkeyBaseMask; }
inline bool pkey_is_full(uint16_t key) { return (key & kPkeyFullMember) != 0; }
inline bool pkey_valid(uint16_t key) { return pkey_base(key) != 0; }
// IBA 10.9.3 (see the rules).
inline bool pkey_match(uint16_t a, uint16_t b) {
  return pkey_valid(a) && pkey_base(a) == pkey_base(b) && ((a | b) & kPkeyFullMember) != 0;
}
// Whether any entry of `table` matches `key`.
bool pkey_table_accepts(const std::vector<uint16_t>& table, uint16_t key);
// The table of a port no one has programmed: {0xFFFF}.
inline std::vector<uint16_t> default_pkey_table() { return {kDefaultPkey}; }

}  // namespace hcasim::ib
