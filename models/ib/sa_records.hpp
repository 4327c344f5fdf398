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
//   Where a record embeds a whole attribute (NodeInfo in NodeRecord, PortInfo
//   in PortInfoRecord) OpenSM gives a bit per sub-field and the layout follows
//   it; where OpenSM has no bit (the SL2VL table, the VLArb block) the bytes
//   are in no field and no mask selects them.
// - Record structs with encode/decode: sa_record_types.hpp.

#include <cstddef>
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

// The value of a field of at most 64 bits in a body (0 for wider fields).
uint64_t field_value(const RecordField& f, const uint8_t* body);
// The field of `layout` named `name`, or null.
const RecordField* find_field(const RecordLayout& layout, const std::string& name);

// A run of records as the Admin Data Areas of a transfer carry them, joined
// end to end: each record is [RID, 4 bytes big-endian] + body, or the body
// alone for the records of a SubnAdmConfig add (seeds/003).
void append_record(std::vector<uint8_t>& buf, uint32_t rid, const uint8_t* body, size_t size);
void append_record(std::vector<uint8_t>& buf, const uint8_t* body, size_t size);  // no RID

// Reads records of `body_bytes` each back from such a buffer (not owned; it
// must outlive the reader). next() is false once fewer bytes than a whole
// record remain; complete() then says whether the buffer ended exactly there.
class RecordReader {
 public:
  RecordReader(const uint8_t* data, size_t len, size_t body_bytes, bool with_rid)
      : data_(data), len_(len), body_bytes_(body_bytes), with_rid_(with_rid) {}
  // On success: rid (0 without RIDs) and body point into the buffer.
  bool next(uint32_t& rid, const uint8_t*& body);
  size_t record_bytes() const { return body_bytes_ + (with_rid_ ? kRidBytes : 0); }
  size_t remaining() const { return len_ - pos_; }
  bool complete() const { return pos_ == len_; }

 private:
  const uint8_t* data_;
  size_t len_;
  size_t body_bytes_;
  bool with_rid_;
  size_t pos_ = 0;
};

}  // namespace hcasim::ib
