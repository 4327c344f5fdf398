#pragma once
// Two stats.json documents compared value by value (`hcasim compare`,
// `hcasim regress`): the golden one a scenario gave before, and a new one.
//
// Rules:
// - Both documents are walked together. A value's path is its keys and list
//   indices joined by dots: "flows.0.latency.p99_ns", "ports.3.vls.0.tx_packets".
// - Left out: the "wall" section (wall-clock time, memory, threads: the
//   machine's, not the model's; stats_document.hpp) and run.config_hash (it
//   names the input, not a result: a new parameter, at a default that changes
//   nothing, changes it). Everything else in stats.json is a function of the
//   scenario and seed alone.
// - A number moves when its relative change |new - golden| / |golden| is above
//   its tolerance (a golden 0 and a new non-zero value: an infinite change).
//   Default tolerance: 0 (exact) for integers, kDefaultFloatTolerance for
//   numbers with a fraction or exponent (rates, times, utilisations), which
//   the same build gives byte for byte and another build of the same source
//   to the last bits. A Tolerance entry sets the tolerance of the paths its
//   pattern matches, integers and fractions alike; of several entries matching
//   one path, the last one wins.
// - Patterns are paths whose elements may be "*" (any one element) or "**"
//   (any number of elements, none included): "flows.*.data_throughput_bps",
//   "**.p99_ns".
// - Tables (compare_results below): the same rules, row by row.
// - Also differences: a key or list element present in one document only; a
//   string or boolean that changed; a value whose kind changed (a number that
//   became a string, an object that became a list).

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace hcasim {

constexpr double kDefaultFloatTolerance = 1e-9;
constexpr const char* kExcludedSection = "wall";
constexpr const char* kExcludedPath = "run.config_hash";

struct Tolerance {
  std::string pattern;  // dotted path with * and **
  double relative = 0;  // >= 0
};

// "PATH=REL", e.g. "flows.*.data_throughput_bps=0.02". Throws
// std::invalid_argument with a message saying what is accepted.
Tolerance parse_tolerance(const std::string& text);
// Whether a dotted path matches a dotted pattern (rules above).
bool path_matches(const std::string& pattern, const std::string& path);

struct Difference {
  enum class Kind { Moved, OnlyInGolden, OnlyInNew, Changed };
  Kind kind = Kind::Moved;
  std::string path;
  std::string golden;       // the values as JSON text ("" where absent)
  std::string now;
  double relative = 0;      // Moved: (new - golden) / |golden|, +-inf from a golden 0
  double tolerance = 0;     // Moved: the tolerance it broke
  std::string names;        // the names of the listed objects on the path, e.g. "ports.3 = hca1.p1"
};

struct Comparison {
  std::vector<Difference> differences;
  std::size_t values = 0;   // leaf values compared (numbers, strings, booleans, nulls)
  bool same() const { return differences.empty(); }
};

Comparison compare_stats(const nlohmann::json& golden, const nlohmann::json& now,
                         const std::vector<Tolerance>& tolerances);

// A run's results as compare and regress read them: its stats.json and its
// detail tables (detail_tables.hpp), from a results.db or, in a golden, from
// the document's own "tables" object ({"ports": [row, ...], ...}).
struct RunResults {
  nlohmann::json stats;  // with "tables" in a golden
  std::string db;        // a results.db to read the tables from; "" = none (or the golden's own)
  bool has_tables() const { return !db.empty() || (stats.is_object() && stats.contains("tables")); }
};

// compare_stats on the summaries (less "tables"), then the tables row by
// row: path "tables.TABLE.ROW.COLUMN" (ROW from 0, in row order), names
// "tables.TABLE.ROW = KEY, ..." from the table's key columns. A table, or a
// row, in one only is a difference; so are tables on one side only. Leaves
// out tables.run.*.version and tables.run.*.config_hash (the writer and the
// input, not results). Rows are read one at a time.
Comparison compare_results(const RunResults& golden, const RunResults& now, const std::vector<Tolerance>& tolerances);

// Every row of every table of a results.db, as the "tables" object of a golden.
nlohmann::json tables_json(const std::string& db);
// One line: the path, both values, the relative change and the tolerance, e.g.
// "flows.0.data_throughput_bps: 1.9e+11 -> 1.8e+11 (-5.263%, tolerance 1e-09)  [flows.0 = f0]".
std::string describe(const Difference& d);

// How a report lists a difference: headline metrics first (throughput and
// rates, latency percentiles and means, drops and losses: a path's last name
// holds bps, rate, per_s, throughput, drop or lost, or is a pN or mean or
// max latency in ns), then the rest, and the statistical by-products of the
// latency estimates (batches, batch_lag1_autocorrelation, mean_ci95_ns)
// only counted.
enum class DifferenceRank { Headline = 0, Other = 1, ByProduct = 2 };
DifferenceRank rank_of(const std::string& path);
// The report's lines: headline differences, then the others (each in path
// order), then one line counting the by-products and naming their kinds.
std::vector<std::string> report_lines(const std::vector<Difference>& differences);

// Whether a JSON document is an hcasim stats.json (its "schema" key).
bool is_stats_document(const nlohmann::json& doc);

}  // namespace hcasim
