#pragma once
// Writes a run's detail tables (detail_tables.hpp) into DIR/results.db as the
// objects come (detail_objects.hpp): every table is made at the start, each
// object's rows are inserted through the table's prepared statement, and one
// transaction holds it all until finish(). Nothing is kept in memory but the
// statements and the row counts.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "testbench/cli/detail_tables.hpp"
#include "testbench/cli/sqlite_db.hpp"

namespace hcasim {

// CREATE TABLE for t, with `leading` columns before its own (a sweep's run
// id and axes), typed as given.
std::string create_table_sql(const DetailTable& t, const std::vector<std::pair<std::string, ColumnType>>& leading = {});

class ResultsDbWriter {
 public:
  struct Count {
    uint64_t rows = 0, omitted = 0;
  };
  // Throws SqliteError when the file exists or cannot be made.
  explicit ResultsDbWriter(const std::string& path);
  void add(const std::string& kind, const nlohmann::json& object);
  // Commits; the file is complete from then on.
  void finish();
  // Rows written and left out, by table (every table, in detail_tables order).
  nlohmann::json counts() const;

 private:
  struct Table {
    const DetailTable* spec;
    std::unique_ptr<SqliteStatement> insert;
    Count count;
  };
  SqliteDb db_;
  std::map<std::string, std::vector<Table>> by_kind_;
  std::vector<std::vector<nlohmann::json>> rows_;  // reused for every object
};

}  // namespace hcasim
