#include "models/mgmt/sa_database.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "models/ib/mad.hpp"

namespace hcasim::mgmt {

namespace {

// The fields a ComponentMask selects, as a byte mask over the body: bit b of
// the body (from the MSB of byte 0, ib/sa_records.hpp) is set when a selected
// field covers it. Queries build it once and then compare byte by byte.
// (Local stand-in for ib::fields_match / ib::copy_fields, which live in
// models/ib/sa_records.cpp; same semantics.)
std::vector<uint8_t> field_bytes(const ib::RecordLayout& l, uint64_t mask) {
  std::vector<uint8_t> m(l.body_bytes, 0);
  for (const ib::RecordField& f : l.fields) {
    if (f.bit >= 64 || ((mask >> f.bit) & 1u) == 0) continue;
    for (unsigned b = f.bit_offset; b < unsigned(f.bit_offset) + f.bit_width; ++b) {
      m[b / 8] |= static_cast<uint8_t>(0x80u >> (b % 8));
    }
  }
  return m;
}

bool all_zero(const std::vector<uint8_t>& m) {
  return std::all_of(m.begin(), m.end(), [](uint8_t b) { return b == 0; });
}

// Whether a and b agree on every bit of m.
bool masked_equal(const std::vector<uint8_t>& m, const uint8_t* a, const uint8_t* b) {
  for (size_t i = 0; i < m.size(); ++i) {
    if (((a[i] ^ b[i]) & m[i]) != 0) return false;
  }
  return true;
}

// Copies the bits of m from `from` into `to`; the other bits of `to` stay.
void masked_copy(const std::vector<uint8_t>& m, const uint8_t* from, uint8_t* to) {
  for (size_t i = 0; i < m.size(); ++i) {
    to[i] = static_cast<uint8_t>((to[i] & ~m[i]) | (from[i] & m[i]));
  }
}

// FNV-1a over the bits of m.
uint64_t masked_hash(const std::vector<uint8_t>& m, const uint8_t* body) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < m.size(); ++i) {
    h ^= static_cast<uint8_t>(body[i] & m[i]);
    h *= 0x100000001b3ull;
  }
  return h;
}

void put16(std::vector<uint8_t>& out, uint16_t v) {
  out.push_back(static_cast<uint8_t>(v >> 8));
  out.push_back(static_cast<uint8_t>(v));
}

void put32(std::vector<uint8_t>& out, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<uint8_t>(v >> s));
}

uint16_t get16(const uint8_t* p) { return static_cast<uint16_t>((p[0] << 8) | p[1]); }

uint32_t get32(const uint8_t* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

std::string hex(const uint8_t* p, size_t n) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  s.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    s += digits[p[i] >> 4];
    s += digits[p[i] & 0xF];
  }
  return s;
}

std::string attr_name(uint16_t attr) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04x", static_cast<unsigned>(attr));
  return buf;
}

}  // namespace

const char* to_string(SaDbStatus s) {
  switch (s) {
    case SaDbStatus::Ok: return "ok";
    case SaDbStatus::NoRecords: return "no records";
    case SaDbStatus::TooManyRecords: return "too many records";
    case SaDbStatus::UnknownTable: return "unknown table";
    case SaDbStatus::BadLength: return "bad length";
    case SaDbStatus::UnknownRid: return "unknown RID";
    case SaDbStatus::BadRange: return "bad RID range";
    case SaDbStatus::NoResources: return "no RIDs left";
    case SaDbStatus::TableExists: return "table already declared";
    case SaDbStatus::BadLayout: return "bad record layout";
  }
  return "?";
}

uint16_t to_mad_status(SaDbStatus s) {
  switch (s) {
    case SaDbStatus::Ok: return ib::kStatusOk;
    case SaDbStatus::NoRecords: return ib::kSaStatusNoRecords;
    case SaDbStatus::TooManyRecords: return ib::kSaStatusTooManyRecords;
    case SaDbStatus::UnknownTable: return ib::kStatusUnsupportedMethodAttr;
    case SaDbStatus::BadRange: return ib::kStatusInvalidAttribute;
    case SaDbStatus::NoResources: return ib::kSaStatusNoResources;
    case SaDbStatus::BadLength:
    case SaDbStatus::UnknownRid:
    case SaDbStatus::TableExists:
    case SaDbStatus::BadLayout: return ib::kSaStatusReqInvalid;
  }
  return ib::kSaStatusReqInvalid;
}

void append_sa_record(std::vector<uint8_t>& out, uint32_t rid, const uint8_t* body, size_t body_bytes) {
  put32(out, rid);
  out.insert(out.end(), body, body + body_bytes);
}

// ---- tables -------------------------------------------------------------

SaDbStatus SaDatabase::declare_table(const ib::RecordLayout& layout, uint64_t key_mask) {
  if (layout.body_bytes == 0) return SaDbStatus::BadLayout;
  for (const ib::RecordField& f : layout.fields) {
    if (f.bit_width == 0 || unsigned(f.bit_offset) + f.bit_width > 8u * layout.body_bytes) {
      return SaDbStatus::BadLayout;
    }
  }
  if (has_table(layout.attr_id)) return SaDbStatus::TableExists;
  Table t;
  t.layout = layout;
  t.key_mask = key_mask;
  t.key_bytes = field_bytes(layout, key_mask);
  if (all_zero(t.key_bytes)) t.key_bytes.clear();
  tables_.emplace(layout.attr_id, std::move(t));
  return SaDbStatus::Ok;
}

const SaDatabase::Table* SaDatabase::find(uint16_t attr) const {
  auto it = tables_.find(attr);
  return it == tables_.end() ? nullptr : &it->second;
}

SaDatabase::Table* SaDatabase::find(uint16_t attr) {
  auto it = tables_.find(attr);
  return it == tables_.end() ? nullptr : &it->second;
}

const ib::RecordLayout* SaDatabase::layout(uint16_t attr) const {
  const Table* t = find(attr);
  return t ? &t->layout : nullptr;
}

size_t SaDatabase::size(uint16_t attr) const {
  const Table* t = find(attr);
  return t ? t->rids.size() : 0;
}

size_t SaDatabase::total_records() const {
  size_t n = 0;
  for (const auto& kv : tables_) n += kv.second.rids.size();
  return n;
}

uint32_t SaDatabase::next_rid(uint16_t attr) const {
  const Table* t = find(attr);
  return t ? t->next_rid : 0;
}

uint32_t SaDatabase::append(Table& t, const uint8_t* body) {
  const uint32_t rid = t.next_rid++;
  t.rids.push_back(rid);
  t.bodies.insert(t.bodies.end(), body, body + t.body_bytes());
  index_insert(t, rid, body);
  return rid;
}

void SaDatabase::compact(Table& t, const std::vector<bool>& doomed) {
  const size_t bb = t.body_bytes();
  size_t w = 0;
  for (size_t r = 0; r < t.rids.size(); ++r) {
    if (doomed[r]) {
      index_erase(t, t.rids[r], t.body(r));
      continue;
    }
    if (w != r) {
      t.rids[w] = t.rids[r];
      std::memmove(t.body(w), t.body(r), bb);
    }
    ++w;
  }
  t.rids.resize(w);
  t.bodies.resize(w * bb);
}

void SaDatabase::index_insert(Table& t, uint32_t rid, const uint8_t* body) {
  if (!t.indexed) return;
  t.key_index.emplace(masked_hash(t.key_bytes, body), rid);
}

void SaDatabase::index_erase(Table& t, uint32_t rid, const uint8_t* body) {
  if (!t.indexed) return;
  auto range = t.key_index.equal_range(masked_hash(t.key_bytes, body));
  for (auto it = range.first; it != range.second; ++it) {
    if (it->second == rid) {
      t.key_index.erase(it);
      return;
    }
  }
}

void SaDatabase::index_rebuild(Table& t) {
  t.key_index.clear();
  t.indexed = !t.key_bytes.empty();
  for (size_t i = 0; i < t.rids.size(); ++i) index_insert(t, t.rids[i], t.body(i));
}

long SaDatabase::position(const Table& t, uint32_t rid) {
  auto it = std::lower_bound(t.rids.begin(), t.rids.end(), rid);
  if (it == t.rids.end() || *it != rid) return -1;
  return static_cast<long>(it - t.rids.begin());
}

SaDbStatus SaDatabase::match(const Table& t, uint64_t mask, const uint8_t* tmpl, size_t len,
                             std::vector<size_t>& out, size_t limit) {
  out.clear();
  const std::vector<uint8_t> m = field_bytes(t.layout, mask);
  const bool any = !all_zero(m);
  if (any && (tmpl == nullptr || len < t.body_bytes())) return SaDbStatus::BadLength;
  for (size_t i = 0; i < t.rids.size() && out.size() < limit; ++i) {
    if (!any || masked_equal(m, t.body(i), tmpl)) out.push_back(i);
  }
  return SaDbStatus::Ok;
}

// ---- SM side ------------------------------------------------------------

void SaDatabase::reserve(uint16_t attr, size_t records) {
  Table* t = find(attr);
  if (t == nullptr) return;
  t->rids.reserve(t->rids.size() + records);
  t->bodies.reserve(t->bodies.size() + records * t->body_bytes());
}

SaDbStatus SaDatabase::add(uint16_t attr, const uint8_t* body, size_t len, uint32_t* rid) {
  Table* t = find(attr);
  if (!t) return SaDbStatus::UnknownTable;
  if (body == nullptr || len < t->body_bytes()) return SaDbStatus::BadLength;
  if (t->next_rid == kSaRidEnd) return SaDbStatus::NoResources;
  const uint32_t r = append(*t, body);
  ++changes_;
  if (rid) *rid = r;
  return SaDbStatus::Ok;
}

SaDbStatus SaDatabase::set(uint16_t attr, const uint8_t* body, size_t len, uint32_t* rid) {
  Table* t = find(attr);
  if (!t) return SaDbStatus::UnknownTable;
  if (body == nullptr || len < t->body_bytes()) return SaDbStatus::BadLength;
  if (t->key_bytes.empty()) return add(attr, body, len, rid);
  if (!t->indexed) index_rebuild(*t);
  long found = -1;
  auto range = t->key_index.equal_range(masked_hash(t->key_bytes, body));
  for (auto it = range.first; it != range.second; ++it) {
    const long pos = position(*t, it->second);
    if (pos < 0 || !masked_equal(t->key_bytes, t->body(size_t(pos)), body)) continue;
    if (found >= 0) return SaDbStatus::TooManyRecords;
    found = pos;
  }
  if (found < 0) return add(attr, body, len, rid);
  // Same key fields, so the same hash: the index entry stays valid.
  std::memcpy(t->body(size_t(found)), body, t->body_bytes());
  ++changes_;
  if (rid) *rid = t->rids[size_t(found)];
  return SaDbStatus::Ok;
}

// ---- queries ------------------------------------------------------------

SaDbStatus SaDatabase::get(uint16_t attr, uint64_t mask, const uint8_t* tmpl, size_t len,
                           SaRecord& out) const {
  const Table* t = find(attr);
  if (!t) return SaDbStatus::UnknownTable;
  std::vector<size_t> hits;
  const SaDbStatus s = match(*t, mask, tmpl, len, hits, 2);  // two are already too many
  if (s != SaDbStatus::Ok) return s;
  if (hits.empty()) return SaDbStatus::NoRecords;
  if (hits.size() > 1) return SaDbStatus::TooManyRecords;
  out.rid = t->rids[hits[0]];
  out.body.assign(t->body(hits[0]), t->body(hits[0]) + t->body_bytes());
  return SaDbStatus::Ok;
}

SaDbStatus SaDatabase::get_by_rid(uint16_t attr, uint32_t rid, SaRecord& out) const {
  const Table* t = find(attr);
  if (!t) return SaDbStatus::UnknownTable;
  const long pos = position(*t, rid);
  if (pos < 0) return SaDbStatus::NoRecords;
  out.rid = rid;
  out.body.assign(t->body(size_t(pos)), t->body(size_t(pos)) + t->body_bytes());
  return SaDbStatus::Ok;
}

SaDbStatus SaDatabase::get_table(uint16_t attr, uint64_t mask, const uint8_t* tmpl, size_t len,
                                 std::vector<SaRecord>& out) const {
  out.clear();
  const Table* t = find(attr);
  if (!t) return SaDbStatus::UnknownTable;
  std::vector<size_t> hits;
  const SaDbStatus s = match(*t, mask, tmpl, len, hits);
  if (s != SaDbStatus::Ok) return s;
  out.reserve(hits.size());
  for (size_t i : hits) out.push_back({t->rids[i], {t->body(i), t->body(i) + t->body_bytes()}});
  return SaDbStatus::Ok;
}

const std::vector<uint8_t>* SaDatabase::bodies(uint16_t attr) const {
  const Table* t = find(attr);
  return t != nullptr ? &t->bodies : nullptr;
}

SaDbStatus SaDatabase::encode_table(uint16_t attr, uint64_t mask, const uint8_t* tmpl, size_t len,
                                    std::vector<uint8_t>& out, size_t* count) const {
  const Table* t = find(attr);
  if (!t) return SaDbStatus::UnknownTable;
  std::vector<size_t> hits;
  const SaDbStatus s = match(*t, mask, tmpl, len, hits);
  if (s != SaDbStatus::Ok) return s;
  out.reserve(out.size() + hits.size() * (ib::kRidBytes + t->body_bytes()));
  for (size_t i : hits) append_sa_record(out, t->rids[i], t->body(i), t->body_bytes());
  if (count) *count = hits.size();
  return SaDbStatus::Ok;
}

SaDbStatus SaDatabase::del(uint16_t attr, uint64_t mask, const uint8_t* tmpl, size_t len, size_t* deleted) {
  Table* t = find(attr);
  if (!t) return SaDbStatus::UnknownTable;
  std::vector<size_t> hits;
  const SaDbStatus s = match(*t, mask, tmpl, len, hits);
  if (s != SaDbStatus::Ok) return s;
  if (hits.empty()) return SaDbStatus::NoRecords;
  std::vector<bool> doomed(t->rids.size(), false);
  for (size_t i : hits) doomed[i] = true;
  compact(*t, doomed);
  ++changes_;
  if (deleted) *deleted = hits.size();
  return SaDbStatus::Ok;
}

// ---- SubnAdmConfig (seeds/003) -------------------------------------------

SaDbStatus SaDatabase::config_add(uint16_t attr, const uint8_t* data, size_t len) {
  Table* t = find(attr);
  if (!t) return SaDbStatus::UnknownTable;
  const size_t bb = t->body_bytes();
  if (len % bb != 0 || (len > 0 && data == nullptr)) return SaDbStatus::BadLength;
  const size_t n = len / bb;
  if (uint64_t(t->next_rid) + n > kSaRidEnd) return SaDbStatus::NoResources;
  if (n == 0) return SaDbStatus::Ok;
  t->rids.reserve(t->rids.size() + n);
  t->bodies.reserve(t->bodies.size() + len);
  for (size_t i = 0; i < n; ++i) append(*t, data + i * bb);
  ++changes_;
  return SaDbStatus::Ok;
}

SaDbStatus SaDatabase::config_delete(uint16_t attr, const uint8_t* data, size_t len) {
  Table* t = find(attr);
  if (!t) return SaDbStatus::UnknownTable;
  const size_t rec = ib::kRidBytes + t->body_bytes();
  if (len % rec != 0 || (len > 0 && data == nullptr)) return SaDbStatus::BadLength;
  if (len == 0) return SaDbStatus::Ok;
  std::vector<bool> doomed(t->rids.size(), false);
  for (size_t off = 0; off < len; off += rec) {
    const long pos = position(*t, get32(data + off));
    if (pos < 0) return SaDbStatus::UnknownRid;  // nothing changed yet
    doomed[size_t(pos)] = true;
  }
  compact(*t, doomed);
  ++changes_;
  return SaDbStatus::Ok;
}

SaDbStatus SaDatabase::config_edit(uint16_t attr, uint32_t start_rid, uint32_t end_rid, uint64_t mask,
                                   const uint8_t* content, size_t len) {
  Table* t = find(attr);
  if (!t) return SaDbStatus::UnknownTable;
  if (start_rid > end_rid) return SaDbStatus::BadRange;
  if (content == nullptr || len < t->body_bytes()) return SaDbStatus::BadLength;
  const size_t first = size_t(std::lower_bound(t->rids.begin(), t->rids.end(), start_rid) - t->rids.begin());
  const size_t last = size_t(std::upper_bound(t->rids.begin(), t->rids.end(), end_rid) - t->rids.begin());
  if (first >= last) return SaDbStatus::NoRecords;
  const std::vector<uint8_t> m = field_bytes(t->layout, mask);
  bool rekey = false;
  for (size_t i = 0; i < t->key_bytes.size(); ++i) rekey = rekey || (m[i] & t->key_bytes[i]) != 0;
  for (size_t i = first; i < last; ++i) {
    if (rekey) index_erase(*t, t->rids[i], t->body(i));
    masked_copy(m, content, t->body(i));
    if (rekey) index_insert(*t, t->rids[i], t->body(i));
  }
  ++changes_;
  return SaDbStatus::Ok;
}

// ---- GetBulk -------------------------------------------------------------

std::vector<uint8_t> SaDatabase::get_bulk() const {
  size_t bytes = 0;
  for (const auto& kv : tables_) {
    bytes += kSaBulkTableHeaderBytes + kv.second.rids.size() * (ib::kRidBytes + kv.second.body_bytes());
  }
  std::vector<uint8_t> out;
  out.reserve(bytes);
  for (const auto& kv : tables_) {
    const Table& t = kv.second;
    put16(out, kv.first);
    put16(out, t.layout.body_bytes);
    put32(out, static_cast<uint32_t>(t.rids.size()));
    put32(out, t.next_rid);
    for (size_t i = 0; i < t.rids.size(); ++i) append_sa_record(out, t.rids[i], t.body(i), t.body_bytes());
  }
  return out;
}

SaDbStatus SaDatabase::load_bulk(const uint8_t* data, size_t len) {
  struct Image {
    uint32_t next_rid;
    size_t off;    // first record in `data`
    size_t count;
  };
  std::map<uint16_t, Image> images;
  size_t off = 0;
  long prev_attr = -1;
  while (off < len) {
    if (len - off < kSaBulkTableHeaderBytes) return SaDbStatus::BadLength;
    const uint16_t attr = get16(data + off);
    const Table* t = find(attr);
    if (!t) return SaDbStatus::UnknownTable;
    if (long(attr) <= prev_attr || get16(data + off + 2) != t->body_bytes()) return SaDbStatus::BadLength;
    prev_attr = attr;
    Image img{get32(data + off + 8), off + kSaBulkTableHeaderBytes, get32(data + off + 4)};
    const size_t rec = ib::kRidBytes + t->body_bytes();
    if (img.count > (len - img.off) / rec) return SaDbStatus::BadLength;
    if (img.next_rid < kSaFirstRid || img.next_rid > kSaRidEnd) return SaDbStatus::BadRange;
    uint32_t prev_rid = 0;
    for (size_t i = 0; i < img.count; ++i) {
      const uint32_t rid = get32(data + img.off + i * rec);
      if (rid <= prev_rid || rid >= img.next_rid) return SaDbStatus::BadRange;
      prev_rid = rid;
    }
    images.emplace(attr, img);
    off = img.off + img.count * rec;
  }
  for (auto& kv : tables_) {
    Table& t = kv.second;
    t.rids.clear();
    t.bodies.clear();
    t.next_rid = kSaFirstRid;
    auto it = images.find(kv.first);
    if (it != images.end()) {
      const Image& img = it->second;
      const size_t rec = ib::kRidBytes + t.body_bytes();
      t.rids.reserve(img.count);
      t.bodies.reserve(img.count * t.body_bytes());
      for (size_t i = 0; i < img.count; ++i) {
        const uint8_t* p = data + img.off + i * rec;
        t.rids.push_back(get32(p));
        t.bodies.insert(t.bodies.end(), p + ib::kRidBytes, p + rec);
      }
      t.next_rid = img.next_rid;
    }
    t.key_index.clear();  // made again at the table's next set
    t.indexed = false;
  }
  ++changes_;
  return SaDbStatus::Ok;
}

// ---- comparison and dump --------------------------------------------------

std::string SaDatabase::dump() const {
  std::string s;
  for (const auto& kv : tables_) {
    const Table& t = kv.second;
    s += "table " + attr_name(kv.first) + " " + (t.layout.name ? t.layout.name : "") + " body " + std::to_string(t.body_bytes()) +
         " next_rid " + std::to_string(t.next_rid) + " records " + std::to_string(t.rids.size()) + "\n";
    for (size_t i = 0; i < t.rids.size(); ++i) {
      s += "  rid " + std::to_string(t.rids[i]) + ": " + hex(t.body(i), t.body_bytes()) + "\n";
    }
  }
  return s;
}

std::string first_difference(const SaDatabase& a, const SaDatabase& b) {
  auto ia = a.tables_.begin();
  auto ib_ = b.tables_.begin();
  for (; ia != a.tables_.end() && ib_ != b.tables_.end(); ++ia, ++ib_) {
    if (ia->first != ib_->first) {
      const uint16_t only = std::min(ia->first, ib_->first);
      return "table " + attr_name(only) + " only in the " + (ia->first < ib_->first ? "first" : "second");
    }
    const std::string name = "table " + attr_name(ia->first) + ": ";
    const auto& ta = ia->second;
    const auto& tb = ib_->second;
    if (ta.body_bytes() != tb.body_bytes()) {
      return name + "body sizes " + std::to_string(ta.body_bytes()) + " and " + std::to_string(tb.body_bytes());
    }
    if (ta.key_mask != tb.key_mask) return name + "key masks differ";
    if (ta.next_rid != tb.next_rid) {
      return name + "next RIDs " + std::to_string(ta.next_rid) + " and " + std::to_string(tb.next_rid);
    }
    if (ta.rids.size() != tb.rids.size()) {
      return name + "record counts " + std::to_string(ta.rids.size()) + " and " + std::to_string(tb.rids.size());
    }
    for (size_t i = 0; i < ta.rids.size(); ++i) {
      if (ta.rids[i] != tb.rids[i]) {
        return name + "record " + std::to_string(i) + " has RIDs " + std::to_string(ta.rids[i]) + " and " +
               std::to_string(tb.rids[i]);
      }
      if (std::memcmp(ta.body(i), tb.body(i), ta.body_bytes()) != 0) {
        return name + "RID " + std::to_string(ta.rids[i]) + " bodies " + hex(ta.body(i), ta.body_bytes()) +
               " and " + hex(tb.body(i), tb.body_bytes());
      }
    }
  }
  if (ia != a.tables_.end()) return "table " + attr_name(ia->first) + " only in the first";
  if (ib_ != b.tables_.end()) return "table " + attr_name(ib_->first) + " only in the second";
  return "";
}

}  // namespace hcasim::mgmt
