#include "testbench/cli/stats_compare.hpp"
#include "testbench/cli/metric_paths.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <stdexcept>

#include "testbench/cli/detail_tables.hpp"
#include "testbench/cli/sqlite_db.hpp"

namespace hcasim {

namespace {

constexpr const char* kToleranceForm =
    "accepted: PATH=REL, a dotted stats.json path (* for one element, ** for any number) and a relative "
    "tolerance >= 0, e.g. flows.*.data_throughput_bps=0.02";

bool match_from(const std::vector<std::string>& pat, std::size_t p, const std::vector<std::string>& path,
                std::size_t q) {
  if (p == pat.size()) return q == path.size();
  if (pat[p] == "**") {
    for (std::size_t skip = q; skip <= path.size(); ++skip)
      if (match_from(pat, p + 1, path, skip)) return true;
    return false;
  }
  if (q == path.size()) return false;
  return (pat[p] == "*" || pat[p] == path[q]) && match_from(pat, p + 1, path, q + 1);
}

std::string join(const std::vector<std::string>& elements) {
  std::string out;
  for (const std::string& e : elements) out += (out.empty() ? "" : ".") + e;
  return out;
}

// A value as JSON text, shortened for one line.
std::string shown(const nlohmann::json& v) {
  constexpr std::size_t kLongest = 80;
  std::string text = v.dump();
  if (text.size() > kLongest) text = text.substr(0, kLongest - 3) + "...";
  return text;
}

class Walker {
 public:
  Walker(const std::vector<Tolerance>& tolerances, Comparison& out) : tolerances_(tolerances), out_(out) {}
  // Walks from a path of its own (a table's row), with the row's name.
  Walker(const std::vector<Tolerance>& tolerances, Comparison& out, std::vector<std::string> path, std::string name)
      : tolerances_(tolerances), out_(out), path_(std::move(path)), top_(path_.size()) {
    if (!name.empty()) names_.push_back(join(path_) + " = " + name);
  }
  void only_in(bool golden, const nlohmann::json& v) {
    if (golden) add(Difference::Kind::OnlyInGolden, shown(v), "");
    else add(Difference::Kind::OnlyInNew, "", shown(v));
  }

  void walk(const nlohmann::json& g, const nlohmann::json& n) {
    if (g.is_object() && n.is_object()) {
      for (auto it = g.begin(); it != g.end(); ++it) {
        if (path_.size() == top_ && top_ == 0 && it.key() == kExcludedSection) continue;
        path_.push_back(it.key());
        const auto other = n.find(it.key());
        if (other == n.end()) add(Difference::Kind::OnlyInGolden, shown(*it), "");
        else walk(*it, *other);
        path_.pop_back();
      }
      for (auto it = n.begin(); it != n.end(); ++it) {
        if ((path_.size() == top_ && top_ == 0 && it.key() == kExcludedSection) || g.contains(it.key())) continue;
        path_.push_back(it.key());
        add(Difference::Kind::OnlyInNew, "", shown(*it));
        path_.pop_back();
      }
      return;
    }
    if (g.is_array() && n.is_array()) {
      const std::size_t both = std::min(g.size(), n.size());
      for (std::size_t i = 0; i < std::max(g.size(), n.size()); ++i) {
        const nlohmann::json& named = i < g.size() ? g[i] : n[i];
        path_.push_back(std::to_string(i));
        const bool has_name = named.is_object() && named.contains("name") && named["name"].is_string();
        if (has_name) names_.push_back(join(path_) + " = " + named["name"].get<std::string>());
        if (i < both) walk(g[i], n[i]);
        else if (i < g.size()) add(Difference::Kind::OnlyInGolden, shown(g[i]), "");
        else add(Difference::Kind::OnlyInNew, "", shown(n[i]));
        if (has_name) names_.pop_back();
        path_.pop_back();
      }
      return;
    }
    const std::string at = join(path_);
    if (at == kExcludedPath || path_matches("tables.run.*.version", at) || path_matches("tables.run.*.config_hash", at))
      return;
    if (g.is_number() && n.is_number()) return number(g, n);
    ++out_.values;
    if (g.is_structured() || n.is_structured() || g.type() != n.type() || g != n)
      add(Difference::Kind::Changed, shown(g), shown(n));
  }

 private:
  void number(const nlohmann::json& g, const nlohmann::json& n) {
    ++out_.values;
    const std::string path = join(path_);
    double tolerance = g.is_number_float() || n.is_number_float() ? kDefaultFloatTolerance : 0.0;
    for (const Tolerance& t : tolerances_)
      if (path_matches(t.pattern, path)) tolerance = t.relative;
    if (g == n) return;  // exact; doubles cannot tell apart integers above 2^53
    const double gv = g.get<double>(), nv = n.get<double>();
    const double relative = gv != 0 ? (nv - gv) / std::fabs(gv)
                                    : std::copysign(std::numeric_limits<double>::infinity(), nv);
    if (tolerance > 0 && std::fabs(relative) <= tolerance) return;
    add(Difference::Kind::Moved, g.dump(), n.dump());
    out_.differences.back().relative = relative;
    out_.differences.back().tolerance = tolerance;
  }

  void add(Difference::Kind kind, std::string golden, std::string now) {
    Difference d;
    d.kind = kind;
    d.path = join(path_);
    d.golden = std::move(golden);
    d.now = std::move(now);
    for (const std::string& n : names_) d.names += (d.names.empty() ? "" : ", ") + n;
    out_.differences.push_back(std::move(d));
  }

  const std::vector<Tolerance>& tolerances_;
  Comparison& out_;
  std::vector<std::string> path_;
  std::size_t top_ = 0;
  std::vector<std::string> names_;
};

// A table's rows one at a time, from a results.db or from a golden's list.
class RowReader {
 public:
  RowReader(const RunResults& r, const std::string& table) {
    if (!r.db.empty()) {
      db_ = std::make_unique<SqliteDb>(r.db, SqliteDb::Mode::ReadOnly);
      if (db_->has_table(table))
        stmt_ = std::make_unique<SqliteStatement>(db_->prepare("SELECT * FROM " + sql_name(table) + " ORDER BY rowid"));
    } else if (r.stats.contains("tables") && r.stats["tables"].contains(table)) {
      list_ = &r.stats["tables"][table];
    }
  }
  bool exists() const { return stmt_ != nullptr || list_ != nullptr; }
  // The next row, or null at the end.
  nlohmann::json next() {
    if (stmt_) return stmt_->step() ? stmt_->row() : nlohmann::json();
    if (list_ && at_ < list_->size()) return (*list_)[at_++];
    return nullptr;
  }

 private:
  std::unique_ptr<SqliteDb> db_;
  std::unique_ptr<SqliteStatement> stmt_;
  const nlohmann::json* list_ = nullptr;
  std::size_t at_ = 0;
};

std::vector<std::string> table_names(const RunResults& r) {
  if (!r.db.empty()) return SqliteDb(r.db, SqliteDb::Mode::ReadOnly).tables();
  std::vector<std::string> out;
  if (r.stats.contains("tables"))
    for (const auto& [name, rows] : r.stats["tables"].items()) out.push_back(name);
  return out;
}

// "sw1.p3, 0": the row's key columns, as detail_tables.hpp describes them.
std::string row_name(const std::string& table, const nlohmann::json& row) {
  const DetailTable* t = find_detail_table(table);
  if (t == nullptr || !row.is_object()) return "";
  std::string out;
  for (unsigned i = 0; i < t->key_columns && i < t->columns.size(); ++i) {
    const auto v = row.find(t->columns[i].name);
    if (v == row.end()) continue;
    out += (out.empty() ? "" : ", ") + (v->is_string() ? v->get<std::string>() : v->dump());
  }
  return out;
}

}  // namespace

Tolerance parse_tolerance(const std::string& text) {
  const std::size_t eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw std::invalid_argument("--tol '" + text + "': " + kToleranceForm);
  Tolerance t;
  t.pattern = text.substr(0, eq);
  for (const std::string& e : split_dotted(t.pattern))
    if (e.empty()) throw std::invalid_argument("--tol '" + text + "': an empty path element; " + kToleranceForm);
  const std::string number = text.substr(eq + 1);
  char* end = nullptr;
  t.relative = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || !std::isfinite(t.relative) || t.relative < 0)
    throw std::invalid_argument("--tol '" + text + "': '" + number + "' is not a relative tolerance; " + kToleranceForm);
  return t;
}

bool path_matches(const std::string& pattern, const std::string& path) {
  return match_from(split_dotted(pattern), 0, split_dotted(path), 0);
}

Comparison compare_stats(const nlohmann::json& golden, const nlohmann::json& now,
                         const std::vector<Tolerance>& tolerances) {
  Comparison out;
  Walker(tolerances, out).walk(golden, now);
  return out;
}

Comparison compare_results(const RunResults& golden, const RunResults& now, const std::vector<Tolerance>& tolerances) {
  nlohmann::json g = golden.stats, n = now.stats;
  if (g.is_object()) g.erase("tables");
  if (n.is_object()) n.erase("tables");
  Comparison out = compare_stats(g, n, tolerances);
  if (!golden.has_tables() && !now.has_tables()) return out;
  if (golden.has_tables() != now.has_tables()) {
    Walker(tolerances, out, {"tables"}, "").only_in(golden.has_tables(), "the detail tables");
    return out;
  }
  std::vector<std::string> names = table_names(golden);
  for (const std::string& t : table_names(now))
    if (std::find(names.begin(), names.end(), t) == names.end()) names.push_back(t);
  for (const std::string& table : names) {
    RowReader a(golden, table), b(now, table);
    if (!a.exists() || !b.exists()) {
      Walker(tolerances, out, {"tables", table}, "").only_in(a.exists(), "a table");
      continue;
    }
    for (std::size_t i = 0;; ++i) {
      const nlohmann::json x = a.next(), y = b.next();
      if (x.is_null() && y.is_null()) break;
      Walker w(tolerances, out, {"tables", table, std::to_string(i)}, row_name(table, x.is_null() ? y : x));
      if (x.is_null() || y.is_null()) w.only_in(y.is_null(), x.is_null() ? y : x);
      else w.walk(x, y);
    }
  }
  return out;
}

nlohmann::json tables_json(const std::string& db) {
  SqliteDb d(db, SqliteDb::Mode::ReadOnly);
  nlohmann::json out = nlohmann::json::object();
  for (const std::string& t : d.tables()) {
    nlohmann::json rows = nlohmann::json::array();
    d.each_row("SELECT * FROM " + sql_name(t) + " ORDER BY rowid", [&](const nlohmann::json& r) { rows.push_back(r); });
    out[t] = std::move(rows);
  }
  return out;
}

std::string describe(const Difference& d) {
  std::string line = d.path + ": ";
  switch (d.kind) {
    case Difference::Kind::Moved: {
      char change[96];
      if (std::isinf(d.relative)) std::snprintf(change, sizeof change, "from 0, tolerance %g", d.tolerance);
      else std::snprintf(change, sizeof change, "%+.4g%%, tolerance %g", 100.0 * d.relative, d.tolerance);
      line += d.golden + " -> " + d.now + " (" + change + ")";
      break;
    }
    case Difference::Kind::Changed: line += d.golden + " -> " + d.now + " (changed)"; break;
    case Difference::Kind::OnlyInGolden: line += "only in the golden document (" + d.golden + ")"; break;
    case Difference::Kind::OnlyInNew: line += "only in the new document (" + d.now + ")"; break;
  }
  if (!d.names.empty()) line += "  [" + d.names + "]";
  return line;
}

bool is_stats_document(const nlohmann::json& doc) {
  return doc.is_object() && doc.contains("schema") && doc["schema"] == "hcasim-stats";
}

namespace {
bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }
std::string last_name(const std::string& path) { return path.substr(path.find_last_of('.') + 1); }
}  // namespace

DifferenceRank rank_of(const std::string& path) {
  const std::string name = last_name(path);
  if (name == "batches" || name == "batch_lag1_autocorrelation" || has(name, "_ci95")) return DifferenceRank::ByProduct;
  if (has(name, "bps") || has(name, "Mpps") || has(name, "rate") || has(name, "per_s") || has(name, "throughput") ||
      has(name, "drop") || has(name, "lost"))
    return DifferenceRank::Headline;
  const bool percentile = name.size() > 4 && name[0] == 'p' && name[1] >= '0' && name[1] <= '9' &&
                          name.compare(name.size() - 3, 3, "_ns") == 0;
  if (percentile || name == "mean_ns" || name == "max_ns") return DifferenceRank::Headline;
  return DifferenceRank::Other;
}

std::vector<std::string> report_lines(const std::vector<Difference>& differences) {
  std::vector<std::string> lines;
  for (DifferenceRank listed : {DifferenceRank::Headline, DifferenceRank::Other})
    for (const Difference& d : differences)
      if (rank_of(d.path) == listed) lines.push_back(describe(d));
  std::size_t by_products = 0;
  std::vector<std::string> kinds;
  for (const Difference& d : differences) {
    if (rank_of(d.path) != DifferenceRank::ByProduct) continue;
    ++by_products;
    const std::string name = last_name(d.path);
    if (std::find(kinds.begin(), kinds.end(), name) == kinds.end()) kinds.push_back(name);
  }
  if (by_products > 0) {
    std::sort(kinds.begin(), kinds.end());
    std::string line = "and " + std::to_string(by_products) + " statistical by-product" + (by_products > 1 ? "s" : "") +
                       " of the latency estimates (";
    for (std::size_t i = 0; i < kinds.size(); ++i) line += (i ? ", " : "") + kinds[i];
    lines.push_back(line + "), not listed");
  }
  return lines;
}

}  // namespace hcasim
