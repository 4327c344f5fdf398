#pragma once
// The subnet administrator's database: tables of SA records that the subnet
// manager fills and that SA queries (SubnAdmGet / GetTable / GetBulk / Delete)
// and SubnAdmConfig (add / delete / edit) read and change. Pure C++, no SystemC.
//
// Rules:
// - One table per SA attribute ID (kAttr*Record), declared once with its
//   RecordLayout (body size, ComponentMask fields) and a key mask: the
//   ComponentMask bits that identify a record (e.g. LID + port of a
//   PortInfoRecord). A key mask of 0 means the table has no key.
// - A record is (RID, body). The database assigns RIDs per table, from 1 and in
//   increasing order, and never reuses one (model's choice: seeds/003 adds
//   records without a RID and deletes them by RID, but does not say who numbers
//   them). Records are kept, and returned, in RID order. RID 0xFFFFFFFF is not
//   assigned: it is the End RID that means "the end of the table" (seeds/003).
// - A ComponentMask selects fields of the layout: a record matches a template
//   when every selected field holds the same bits. Mask 0 matches every record.
//   Mask bits that name no field of the layout select nothing.
// - get: exactly one match (none -> NoRecords, several -> TooManyRecords).
//   get_table: every match, possibly none (Ok). del: every match is deleted;
//   none -> NoRecords.
// - set: replaces the body of the record whose key fields equal those of the new
//   body (its RID kept), else adds a record. Several such records -> TooManyRecords.
// - config_add (seeds/003 Add): the Admin Data is whole record bodies without
//   RIDs; each gets the next RID. config_delete (seeds/003 Delete): whole records,
//   each a 4-byte RID then the body; deleted by RID (the body is not compared); a
//   RID that is not in the table is an error (UnknownRid). config_edit (seeds/003
//   Edit): every record with start <= RID <= end gets the fields `mask` selects
//   copied from `content` (one body; its unselected fields are zero and ignored).
//   start 0 is the beginning of the table, end 0xFFFFFFFF its end. A range holding
//   no record -> NoRecords.
// - Every operation checks everything before changing anything: on an error the
//   database is unchanged (all or nothing).
// - change_count() moves by one on every operation that changed the database
//   (a failed operation or one that matched nothing leaves it), so a multi-packet
//   GetBulk or GetTable can tell that the database changed while it was sent.
// - Wire forms, all integers big-endian:
//   * GetTable Admin Data (encode_table): per record a 4-byte RID, then the body
//     (ib/sa_records.hpp: a record travels as RID then body).
//   * GetBulk payload (get_bulk; the sources give no layout: model's choice): per
//     table, in increasing attribute ID, a 12-byte table header
//       AttributeID (2) | body bytes (2) | record count (4) | next RID (4)
//     then `count` records, each RID (4) + body. Every declared table appears,
//     even an empty one. The next RID travels so that a standby SA loaded from a
//     bulk (load_bulk) numbers later adds exactly as the master does.
// - Cost: add / config_add / set are O(1) per record (expected; set keeps a hash
//   index of the key fields, made at a table's first set, so a table that is only
//   added to, as the SM's fill adds its PathRecords, costs no index); get /
//   get_table / del / config_edit are O(table);
//   config_delete of K RIDs is O(K log table + table).

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/ib/sa_records.hpp"

namespace hcasim::mgmt {

constexpr uint32_t kSaRidEnd = 0xFFFFFFFFu;    // seeds/003: End RID FFFFFFFFh = end of the table
constexpr uint32_t kSaRidBegin = 0;            // seeds/003: start RID (AttributeModifier) 0 = beginning
constexpr uint32_t kSaFirstRid = 1;            // model: the first RID a table assigns
constexpr unsigned kSaBulkTableHeaderBytes = 12;  // model: GetBulk table header, see above

enum class SaDbStatus : uint8_t {
  Ok,
  NoRecords,       // get / del / config_edit matched nothing
  TooManyRecords,  // get or set: more than one record matched
  UnknownTable,    // no table declared for this attribute ID
  BadLength,       // data shorter than a body, or not a whole number of records
  UnknownRid,      // config_delete: a RID not in the table
  BadRange,        // config_edit: start RID after end RID
  NoResources,     // a table ran out of RIDs
  TableExists,     // declare_table: already declared
  BadLayout,       // declare_table: a field outside the body, or body size 0
};

const char* to_string(SaDbStatus s);
// The MAD Status an SA answer carries for `s` (ib/mad.hpp): NoRecords and
// TooManyRecords the SA statuses of the same name, UnknownTable "unsupported
// method/attribute", BadRange "invalid attribute value" (the start RID is the
// AttributeModifier), NoResources "no resources", the others "request invalid".
uint16_t to_mad_status(SaDbStatus s);

struct SaRecord {
  uint32_t rid = 0;
  std::vector<uint8_t> body;
};

// Appends one record as it travels in an Admin Data Area: RID (4 bytes,
// big-endian), then the body.
void append_sa_record(std::vector<uint8_t>& out, uint32_t rid, const uint8_t* body, size_t body_bytes);

class SaDatabase {
 public:
  // Declares a table for layout.attr_id (the layout is copied).
  SaDbStatus declare_table(const ib::RecordLayout& layout, uint64_t key_mask);
  bool has_table(uint16_t attr) const { return tables_.count(attr) != 0; }
  // The table's layout, or null.
  const ib::RecordLayout* layout(uint16_t attr) const;
  // Records in a table (0 for an unknown one), and in all tables.
  size_t size(uint16_t attr) const;
  size_t total_records() const;
  // The RID the table's next add will get (0 for an unknown table).
  uint32_t next_rid(uint16_t attr) const;
  uint64_t change_count() const { return changes_; }

  // Room for `records` more records in the table (none for an unknown table):
  // a fill that knows its count saves the copies of a growing table.
  void reserve(uint16_t attr, size_t records);

  // SM side. `len` must be at least the body size (extra bytes are ignored).
  // On Ok, *rid (if given) is the RID of the record added or replaced.
  SaDbStatus add(uint16_t attr, const uint8_t* body, size_t len, uint32_t* rid = nullptr);
  SaDbStatus set(uint16_t attr, const uint8_t* body, size_t len, uint32_t* rid = nullptr);

  // Queries. `tmpl` holds at least a body (ignored, and may be null, when mask is 0).
  SaDbStatus get(uint16_t attr, uint64_t mask, const uint8_t* tmpl, size_t len, SaRecord& out) const;
  SaDbStatus get_by_rid(uint16_t attr, uint32_t rid, SaRecord& out) const;
  SaDbStatus get_table(uint16_t attr, uint64_t mask, const uint8_t* tmpl, size_t len,
                       std::vector<SaRecord>& out) const;
  // The Admin Data of a GetTable answer: the matches appended to `out` as (RID,
  // body); *count (if given) = records appended.
  SaDbStatus encode_table(uint16_t attr, uint64_t mask, const uint8_t* tmpl, size_t len,
                          std::vector<uint8_t>& out, size_t* count = nullptr) const;
  // Every record's body, in RID order, back to back (a Config Add's records);
  // null for an unknown table. Valid until the table changes.
  const std::vector<uint8_t>* bodies(uint16_t attr) const;
  // SubnAdmDelete: deletes every match; *deleted (if given) = how many.
  SaDbStatus del(uint16_t attr, uint64_t mask, const uint8_t* tmpl, size_t len, size_t* deleted = nullptr);

  // SubnAdmGetBulk payload (layout above), and its inverse: the database becomes
  // the image of the stream (tables absent from it are emptied, next RID 1). Every
  // table in the stream must be declared with the same body size; RIDs must
  // increase and stay below the table's next RID.
  std::vector<uint8_t> get_bulk() const;
  SaDbStatus load_bulk(const uint8_t* data, size_t len);

  // SubnAdmConfig (seeds/003).
  SaDbStatus config_add(uint16_t attr, const uint8_t* data, size_t len);
  SaDbStatus config_delete(uint16_t attr, const uint8_t* data, size_t len);
  SaDbStatus config_edit(uint16_t attr, uint32_t start_rid, uint32_t end_rid, uint64_t mask,
                         const uint8_t* content, size_t len);

  // Human-readable contents: per table its attribute, body size, next RID, then
  // one line per record (RID and body in hex).
  std::string dump() const;
  // "" when a and b hold the same tables (attribute, body size, key mask), the
  // same next RIDs and the same records (RIDs and bodies); else the first
  // difference, in words. The change counters are not compared.
  friend std::string first_difference(const SaDatabase& a, const SaDatabase& b);
  friend bool operator==(const SaDatabase& a, const SaDatabase& b) { return first_difference(a, b).empty(); }
  friend bool operator!=(const SaDatabase& a, const SaDatabase& b) { return !(a == b); }

 private:
  struct Table {
    ib::RecordLayout layout;
    uint64_t key_mask = 0;
    std::vector<uint8_t> key_bytes;    // byte mask of the key fields (empty: no key)
    uint32_t next_rid = kSaFirstRid;
    std::vector<uint32_t> rids;        // increasing
    std::vector<uint8_t> bodies;       // rids.size() bodies of layout.body_bytes
    std::unordered_multimap<uint64_t, uint32_t> key_index;  // hash of the key fields -> RID
    bool indexed = false;  // key_index is kept (from the table's first set on)

    size_t body_bytes() const { return layout.body_bytes; }
    uint8_t* body(size_t i) { return bodies.data() + i * body_bytes(); }
    const uint8_t* body(size_t i) const { return bodies.data() + i * body_bytes(); }
  };

  const Table* find(uint16_t attr) const;
  Table* find(uint16_t attr);
  // Appends a record with the next RID (the caller checked there is one).
  static uint32_t append(Table& t, const uint8_t* body);
  // Removes the records whose `doomed` flag is set, in one pass.
  static void compact(Table& t, const std::vector<bool>& doomed);
  static void index_insert(Table& t, uint32_t rid, const uint8_t* body);
  static void index_erase(Table& t, uint32_t rid, const uint8_t* body);
  static void index_rebuild(Table& t);
  // Index of the record with this RID, or -1.
  static long position(const Table& t, uint32_t rid);
  // Indices of the records that match, at most `limit` of them (checks the
  // template's length first).
  static SaDbStatus match(const Table& t, uint64_t mask, const uint8_t* tmpl, size_t len,
                          std::vector<size_t>& out, size_t limit = SIZE_MAX);

  std::map<uint16_t, Table> tables_;
  uint64_t changes_ = 0;
};

std::string first_difference(const SaDatabase& a, const SaDatabase& b);

}  // namespace hcasim::mgmt
