#include "testbench/cli/results_db_writer.hpp"

namespace hcasim {

std::string create_table_sql(const DetailTable& t, const std::vector<std::pair<std::string, ColumnType>>& leading) {
  std::string sql = "CREATE TABLE " + sql_name(t.name) + " (";
  bool first = true;
  const auto column = [&](const std::string& name, ColumnType type) {
    sql += (first ? "" : ", ") + sql_name(name) + " " + sql_type(type);
    first = false;
  };
  for (const auto& [name, type] : leading) column(name, type);
  for (const DetailColumn& c : t.columns) column(c.name, c.type);
  return sql + ")";
}

ResultsDbWriter::ResultsDbWriter(const std::string& path) : db_(path, SqliteDb::Mode::Create) {
  db_.exec("BEGIN");
  for (const DetailTable& t : detail_tables()) {
    db_.exec(create_table_sql(t));
    std::string insert = "INSERT INTO " + sql_name(t.name) + " VALUES (";
    for (std::size_t i = 0; i < t.columns.size(); ++i) insert += i ? ", ?" : "?";
    by_kind_[t.kind].push_back({&t, std::make_unique<SqliteStatement>(db_.prepare(insert + ")")), {}});
  }
}

void ResultsDbWriter::add(const std::string& kind, const nlohmann::json& object) {
  const auto it = by_kind_.find(kind);
  if (it == by_kind_.end()) return;
  for (Table& t : it->second) {
    rows_.clear();
    table_rows(*t.spec, object, rows_, t.count.omitted);
    for (const std::vector<nlohmann::json>& row : rows_) {
      for (std::size_t i = 0; i < row.size(); ++i) t.insert->bind(static_cast<int>(i + 1), row[i]);
      t.insert->step();
      t.insert->reset();
      ++t.count.rows;
    }
  }
}

void ResultsDbWriter::finish() { db_.exec("COMMIT"); }

nlohmann::json ResultsDbWriter::counts() const {
  nlohmann::json out = nlohmann::json::object();
  for (const DetailTable& spec : detail_tables())
    for (const Table& t : by_kind_.at(spec.kind))
      if (t.spec == &spec) out[spec.name] = {{"rows", t.count.rows}, {"omitted", t.count.omitted}};
  return out;
}

}  // namespace hcasim
