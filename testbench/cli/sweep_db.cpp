#include "testbench/cli/sweep_db.hpp"

#include <system_error>

#include "testbench/cli/detail_tables.hpp"
#include "testbench/cli/results_db_writer.hpp"
#include "testbench/cli/sqlite_db.hpp"

namespace hcasim {

namespace {

// A JSON value as an SQL literal: numbers as numbers, strings quoted, true/false 1/0, else its JSON text.
std::string sql_literal(const nlohmann::json& v) {
  if (v.is_null()) return "NULL";
  if (v.is_boolean()) return v.get<bool>() ? "1" : "0";
  if (v.is_number()) return v.dump();
  if (v.is_string()) return sql_text(v.get<std::string>());
  return sql_text(v.dump());
}

std::string axis_column(const SweepAxis& a) { return "axis_" + a.name; }

}  // namespace

void write_sweep_db(const std::filesystem::path& path, const SweepSpec& spec, const SweepTable& table,
                    const std::vector<SweepRun>& runs, const std::filesystem::path& runs_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::remove(path, ec);
  SqliteDb db(path.string(), SqliteDb::Mode::Create);
  db.exec("BEGIN");
  std::string create = "CREATE TABLE runs (", insert = "INSERT INTO runs VALUES (";
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    create += (c ? ", " : "") + sql_name(table.columns[c]);
    insert += c ? ", ?" : "?";
  }
  db.exec(create + ")");
  SqliteStatement rows = db.prepare(insert + ")");
  for (const nlohmann::json& row : table.rows) {
    for (std::size_t c = 0; c < table.columns.size(); ++c) rows.bind(static_cast<int>(c + 1), row.at(table.columns[c]));
    rows.step();
    rows.reset();
  }
  std::vector<std::pair<std::string, ColumnType>> leading{{"run", ColumnType::Text}};
  for (const SweepAxis& a : spec.axes) leading.emplace_back(axis_column(a), ColumnType::Text);
  for (const DetailTable& t : detail_tables()) db.exec(create_table_sql(t, leading));
  db.exec("COMMIT");
  for (const SweepRun& r : runs) {
    const fs::path file = runs_dir / r.id / "results.db";
    if (!fs::exists(file, ec)) continue;
    db.exec("ATTACH DATABASE " + sql_text(file.string()) + " AS run");
    db.exec("BEGIN");
    std::string lead = sql_text(r.id);
    for (const nlohmann::json& v : r.values) lead += ", " + sql_literal(v);
    for (const DetailTable& t : detail_tables()) {
      std::string columns;
      for (const DetailColumn& c : t.columns) columns += (columns.empty() ? "" : ", ") + sql_name(c.name);
      db.exec("INSERT INTO main." + sql_name(t.name) + " SELECT " + lead + ", " + columns + " FROM run." +
              sql_name(t.name) + " ORDER BY rowid");
    }
    db.exec("COMMIT");
    db.exec("DETACH DATABASE run");
  }
}

}  // namespace hcasim
