#pragma once
// SA records as the SA database stores and sends them, and the fields a
// ComponentMask selects. No SystemC.
//
// Rules:
// - A record is the bytes of its body (the layouts of iba-facts 6 and OpenSM's
//   ib_types.h: NodeRecord, PortInfoRecord, LinkRecord, PathRecord,
//   SL2VLRecord, VLArbRecord). In an Admin Data Area a record travels as a
//   4-byte RID, big-endian, then its body; the records of a SubnAdmConfig add
//   travel without the RID (seeds/003) and the SA assigns one. A record may be
//   split across Admin Data Areas (seeds/003).
// - A RecordLayout lists the fields of a body by ComponentMask bit: bit i of a
//   mask selects field i (iba-facts 6 for PathRecord; OpenSM's IB_*_COMPMASK_*
//   for the others). A field is a run of bits, big-endian, inside the body.

#include <cstdint>
#include <string>
#include <vector>

namespace hcasim::ib {

constexpr unsigned kRidBytes = 4;  // model: RID on the wire before each record body

struct RecordField {
  uint8_t bit = 0;              // ComponentMask bit that selects this field
  const char* name = "";
  uint16_t bit_offset = 0;      // from the first bit (MSB of byte 0) of the body
  uint16_t bit_width = 0;
};

struct RecordLayout {
  uint16_t attr_id = 0;         // SA attribute ID (kAttr*Record)
  const char* name = "";
  uint16_t body_bytes = 0;
  std::vector<RecordField> fields;
};

// The layout of an SA record type, or null when the SA does not know it.
const RecordLayout* sa_record_layout(uint16_t attr_id);

// Whether, for every field `mask` selects, the two bodies hold the same bits.
bool fields_match(const RecordLayout& layout, uint64_t mask, const uint8_t* a, const uint8_t* b);
// Copies the fields `mask` selects from `from` into `to`, the rest of `to`
// untouched (seeds/003 Edit: the Admin Data Area holds the new content of the
// selected fields; the others are zero there and ignored).
void copy_fields(const RecordLayout& layout, uint64_t mask, const uint8_t* from, uint8_t* to);

}  // namespace hcasim::ib
