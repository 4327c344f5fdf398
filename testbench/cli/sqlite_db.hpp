#pragma once
// SQLite databases (Debian's libsqlite3) as the program uses them: results.db
// written row by row through prepared statements inside one transaction, and
// read back row by row as JSON values (compare, regress, sweep, tests).
//
// Rules:
// - Values cross as JSON: null, a boolean (stored as 0 or 1), an integer
//   (unsigned ones above INT64_MAX are stored as reals), a real, a string.
//   Read back, an integer is unsigned when it is not negative, a real is a
//   double, text a string, NULL null.
// - Every failure throws SqliteError with the file's name and SQLite's own
//   message; nothing is left half-open (the handles close in destructors).
// - Create refuses a file that exists (results are never overwritten in
//   place; the caller decides); the file is written without a journal and
//   without syncs, as a scratch file is: a run that dies leaves a file to
//   delete, not a half-committed one to trust, and the run's exit code says so.

#include <nlohmann/json.hpp>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace hcasim {

struct SqliteError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class SqliteStatement {
 public:
  SqliteStatement(sqlite3* db, const std::string& sql, const std::string& file);
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  SqliteStatement& operator=(SqliteStatement&&) = delete;
  ~SqliteStatement();

  // Parameter i (from 1) of the statement.
  void bind(int i, const nlohmann::json& value);
  // Runs the statement one step: true when a row is there to read.
  bool step();
  // Ready to run again with new bindings.
  void reset();
  int columns() const;
  std::string column_name(int i) const;  // from 0
  nlohmann::json column(int i) const;    // from 0, as the rules above say
  // The current row as an object keyed by column name.
  nlohmann::json row() const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string file_;
};

class SqliteDb {
 public:
  enum class Mode { ReadOnly, Create };
  // Throws SqliteError when the file cannot be opened (ReadOnly: missing or
  // not a database) or made (Create: it exists).
  SqliteDb(const std::string& path, Mode mode);
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;
  ~SqliteDb();

  void exec(const std::string& sql);
  SqliteStatement prepare(const std::string& sql);
  // Each row a query returns, as an object keyed by column name.
  void each_row(const std::string& sql, const std::function<void(const nlohmann::json&)>& row);
  // The tables, in name order.
  std::vector<std::string> tables();
  // A table's columns, in order.
  std::vector<std::string> columns(const std::string& table);
  bool has_table(const std::string& table);
  const std::string& file() const { return file_; }

 private:
  sqlite3* db_ = nullptr;
  std::string file_;
};

// An SQL identifier in double quotes (quotes inside doubled): "port_vls".
std::string sql_name(const std::string& identifier);
// A string as an SQL literal in single quotes.
std::string sql_text(const std::string& text);

}  // namespace hcasim
