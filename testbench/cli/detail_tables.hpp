#pragma once
// The detail tables of a run (DESIGN.md "Command line and outputs"): one
// table per kind of object (ports, port VLs, switches, flows, QPs, transport
// engines, hosts, context caches, ...), a column per statistic, one row per
// object. Described once, here: results_db_writer.hpp writes them, `hcasim
// tables` prints their reference (docs/results-db.md), compare, regress,
// sweep and plot read them by these names.
//
// Rules:
// - Objects come as JSON objects of a kind (detail_objects.hpp), the same
//   objects outputs.details "json" writes to details.json. A table takes one
//   row per object of its kind, or with `each` one row per element of the
//   list, or member of the object, at that key of the object.
// - A column's value is the JSON value at its path in the row's source (the
//   element with `each`, else the object): keys joined by dots. A path that
//   starts with "/" is taken from the object itself (a parent's name on an
//   element's row); "@key" is the member's key (each over an object). An
//   absent value is NULL: the statistic was not reported for that row.
// - Column names are their paths with every character other than a-z, 0-9
//   and _ written as _ ("latency.p99_ns" is latency_p99_ns), except the
//   parent and key columns, which are named in the description.
// - A table with omit_zero leaves out the rows whose counters (every column
//   after the key columns) are all 0 or NULL; the run's stats.json says how
//   many under details.tables.<name>.omitted.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace hcasim {

enum class ColumnType { Integer, Real, Text, Boolean };
const char* sql_type(ColumnType t);  // INTEGER, REAL, TEXT, INTEGER (0 or 1)

struct DetailColumn {
  std::string name;     // the SQL column
  std::string path;     // where its value is (rules above)
  ColumnType type = ColumnType::Integer;
  std::string unit;     // "ps", "bytes", "b/s", "share" (0 to 1), "" for counts and names
  std::string meaning;  // one line for the reference
  // `path` split at its dots, made with the tables (each row reads every
  // column: a lookup by parts allocates nothing); empty for "@key".
  std::vector<std::string> steps = {};
};

struct DetailTable {
  std::string name;          // "port_vls"
  std::string kind;          // the objects it is made of: "ports"
  std::string each;          // "" = a row per object; "vls" = a row per element of the object's vls
  std::string row;           // what one row is, for the reference
  unsigned key_columns = 1;  // the leading columns that name the row (not statistics)
  bool omit_zero = false;    // rows with every statistic 0 or NULL are left out (rules above)
  std::vector<DetailColumn> columns;
  std::vector<std::string> each_steps = {};  // `each` split at its dots, made with the tables
};

// Every table, in the order they are written.
const std::vector<DetailTable>& detail_tables();
// A table by name; null when there is none.
const DetailTable* find_detail_table(const std::string& name);
// The kinds of object, in the order their objects come (detail_objects.hpp).
std::vector<std::string> detail_kinds();

// The rows one object gives a table, each a list of values in column order;
// rows left out by omit_zero are counted in omitted instead.
void table_rows(const DetailTable& t, const nlohmann::json& object, std::vector<std::vector<nlohmann::json>>& rows,
                uint64_t& omitted);
// A column name from a path, by the rule above.
std::string column_name(const std::string& path);

// The reference of every table and column, as Markdown (docs/results-db.md).
std::string detail_tables_reference();

}  // namespace hcasim
