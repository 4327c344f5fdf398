#include "testbench/cli/sqlite_db.hpp"

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <limits>

namespace hcasim {

namespace {

[[noreturn]] void fail(sqlite3* db, const std::string& file, const std::string& what) {
  throw SqliteError(file + ": " + what + ": " + (db != nullptr ? sqlite3_errmsg(db) : "out of memory"));
}

}  // namespace

std::string sql_name(const std::string& identifier) {
  std::string out = "\"";
  for (char c : identifier) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string sql_text(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

SqliteStatement::SqliteStatement(sqlite3* db, const std::string& sql, const std::string& file)
    : db_(db), file_(file) {
  if (sqlite3_prepare_v2(db, sql.c_str(), static_cast<int>(sql.size()), &stmt_, nullptr) != SQLITE_OK)
    fail(db, file, "cannot prepare '" + sql.substr(0, 80) + "'");
}

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : db_(other.db_), stmt_(other.stmt_), file_(std::move(other.file_)) {
  other.stmt_ = nullptr;
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(stmt_); }

void SqliteStatement::bind(int i, const nlohmann::json& v) {
  int rc = SQLITE_OK;
  switch (v.type()) {
    case nlohmann::json::value_t::null: rc = sqlite3_bind_null(stmt_, i); break;
    case nlohmann::json::value_t::boolean: rc = sqlite3_bind_int(stmt_, i, v.get<bool>() ? 1 : 0); break;
    case nlohmann::json::value_t::number_unsigned: {
      const uint64_t u = v.get<uint64_t>();
      rc = u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
               ? sqlite3_bind_int64(stmt_, i, static_cast<sqlite3_int64>(u))
               : sqlite3_bind_double(stmt_, i, static_cast<double>(u));
      break;
    }
    case nlohmann::json::value_t::number_integer: rc = sqlite3_bind_int64(stmt_, i, v.get<int64_t>()); break;
    case nlohmann::json::value_t::number_float: rc = sqlite3_bind_double(stmt_, i, v.get<double>()); break;
    case nlohmann::json::value_t::string: {
      const std::string& s = v.get_ref<const std::string&>();
      rc = sqlite3_bind_text(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
      break;
    }
    default: {  // a list or an object: as its JSON text
      const std::string s = v.dump();
      rc = sqlite3_bind_text(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
    }
  }
  if (rc != SQLITE_OK) fail(db_, file_, "cannot bind parameter " + std::to_string(i));
}

bool SqliteStatement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail(db_, file_, "cannot run a statement");
}

void SqliteStatement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int SqliteStatement::columns() const { return sqlite3_column_count(stmt_); }

std::string SqliteStatement::column_name(int i) const { return sqlite3_column_name(stmt_, i); }

nlohmann::json SqliteStatement::column(int i) const {
  switch (sqlite3_column_type(stmt_, i)) {
    case SQLITE_INTEGER: {
      const int64_t v = sqlite3_column_int64(stmt_, i);
      return v >= 0 ? nlohmann::json(static_cast<uint64_t>(v)) : nlohmann::json(v);
    }
    case SQLITE_FLOAT: return sqlite3_column_double(stmt_, i);
    case SQLITE_TEXT:
      return std::string(reinterpret_cast<const char*>(sqlite3_column_text(stmt_, i)),
                         static_cast<std::size_t>(sqlite3_column_bytes(stmt_, i)));
    case SQLITE_BLOB: return nlohmann::json::binary_t();
    default: return nullptr;
  }
}

nlohmann::json SqliteStatement::row() const {
  nlohmann::json out = nlohmann::json::object();
  for (int i = 0; i < columns(); ++i) out[column_name(i)] = column(i);
  return out;
}

SqliteDb::SqliteDb(const std::string& path, Mode mode) : file_(path) {
  std::error_code ec;
  if (mode == Mode::Create && std::filesystem::exists(path, ec))
    throw SqliteError(path + ": exists; a results database is written to a new file only");
  const int flags = mode == Mode::ReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string why = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw SqliteError(path + ": cannot open: " + why);
  }
  if (mode == Mode::Create) {
    exec("PRAGMA journal_mode = OFF");
    exec("PRAGMA synchronous = OFF");
  } else {
    // A file that is not a database opens; the first read says so.
    try {
      exec("SELECT count(*) FROM sqlite_schema");
    } catch (const SqliteError&) {
      sqlite3_close(db_);
      db_ = nullptr;
      throw SqliteError(path + ": not an SQLite database");
    }
  }
}

SqliteDb::~SqliteDb() { sqlite3_close(db_); }

void SqliteDb::exec(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string why = message != nullptr ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    throw SqliteError(file_ + ": " + why + " (in '" + sql.substr(0, 80) + "')");
  }
}

SqliteStatement SqliteDb::prepare(const std::string& sql) { return SqliteStatement(db_, sql, file_); }

void SqliteDb::each_row(const std::string& sql, const std::function<void(const nlohmann::json&)>& row) {
  SqliteStatement s = prepare(sql);
  while (s.step()) row(s.row());
}

std::vector<std::string> SqliteDb::tables() {
  std::vector<std::string> out;
  each_row("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name",
           [&](const nlohmann::json& r) { out.push_back(r["name"].get<std::string>()); });
  return out;
}

std::vector<std::string> SqliteDb::columns(const std::string& table) {
  std::vector<std::string> out;
  each_row("SELECT name FROM pragma_table_info(" + sql_text(table) + ") ORDER BY cid",
           [&](const nlohmann::json& r) { out.push_back(r["name"].get<std::string>()); });
  return out;
}

bool SqliteDb::has_table(const std::string& table) {
  bool found = false;
  each_row("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = " + sql_text(table),
           [&](const nlohmann::json&) { found = true; });
  return found;
}

}  // namespace hcasim
