#include "testbench/cli/details_output.hpp"

#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "testbench/cli/detail_objects.hpp"
#include "testbench/cli/detail_summary.hpp"
#include "testbench/cli/detail_tables.hpp"
#include "testbench/cli/results_db_writer.hpp"

namespace hcasim {

namespace {

// details.json written as the objects come: a list per kind, in kind order.
class DetailsJsonWriter {
 public:
  explicit DetailsJsonWriter(const std::string& path) : path_(path), out_(path), kinds_(detail_kinds()) {
    if (!out_) throw std::runtime_error(path + ": cannot write");
    out_ << "{";
  }
  void add(const std::string& kind, const nlohmann::json& object) {
    while (open_ < kinds_.size() && kinds_[open_] != kind) next_list();
    if (open_ == kinds_.size()) return;
    if (!started_) {
      out_ << (open_ ? ",\n  " : "\n  ") << nlohmann::json(kind).dump() << ": [";
      started_ = true;
    } else {
      out_ << ",";
    }
    const std::string text = object.dump(2);
    out_ << "\n    ";
    for (char c : text) {
      out_ << c;
      if (c == '\n') out_ << "    ";
    }
    any_ = true;
  }
  void finish() {
    while (open_ < kinds_.size()) next_list();
    out_ << "\n}\n";
    if (!out_.flush()) throw std::runtime_error(path_ + ": cannot write");
  }

 private:
  void next_list() {  // closes the open kind's list (an empty one when it had no object)
    if (!started_) out_ << (open_ ? ",\n  " : "\n  ") << nlohmann::json(kinds_[open_]).dump() << ": [";
    out_ << (any_ ? "\n  ]" : "]");
    ++open_;
    started_ = any_ = false;
  }
  std::string path_;
  std::ofstream out_;
  std::vector<std::string> kinds_;
  std::size_t open_ = 0;
  bool started_ = false, any_ = false;
};

const char* format_name(config::DetailsOutput f) {
  switch (f) {
    case config::DetailsOutput::Db: return "db";
    case config::DetailsOutput::Json: return "json";
    case config::DetailsOutput::Both: return "both";
    case config::DetailsOutput::None: return "none";
  }
  return "";
}

}  // namespace

std::string details_refusal(config::DetailsOutput format, std::size_t ports, std::size_t flows) {
  if (format != config::DetailsOutput::Json && format != config::DetailsOutput::Both) return "";
  if (ports + flows <= kDetailsJsonLimit) return "";
  return std::string("outputs.details: \"") + format_name(format) + "\" writes every object into details.json, for at most " +
         std::to_string(kDetailsJsonLimit) + " ports and flows together; this run has " + std::to_string(ports) +
         " ports" + (flows ? " and " + std::to_string(flows) + " flows" : std::string()) +
         "; accepted: \"db\" (results.db) or \"none\"";
}

nlohmann::json write_details(const Simulation& sim, const RunMetadata& meta, config::DetailsOutput format,
                             const std::string& dir) {
  namespace fs = std::filesystem;
  const bool db = format == config::DetailsOutput::Db || format == config::DetailsOutput::Both;
  const bool json = format == config::DetailsOutput::Json || format == config::DetailsOutput::Both;
  // The folder is the run's own (output_folder.hpp): a previous run's detail goes, whatever this one writes.
  for (const char* old : {kResultsDb, kDetailsJson}) {
    std::error_code ec;
    fs::remove(fs::path(dir) / old, ec);
  }
  std::unique_ptr<ResultsDbWriter> tables;
  std::unique_ptr<DetailsJsonWriter> objects;
  nlohmann::json files = nlohmann::json::array();
  if (db) {
    tables = std::make_unique<ResultsDbWriter>((fs::path(dir) / kResultsDb).string());
    files.push_back(kResultsDb);
  }
  if (json) {
    objects = std::make_unique<DetailsJsonWriter>((fs::path(dir) / kDetailsJson).string());
    files.push_back(kDetailsJson);
  }
  DetailSummary summary(sim.sim_time_ps());
  visit_detail_objects(sim, meta, [&](const std::string& kind, nlohmann::json&& object) {
    summary.add(kind, object);
    if (tables) tables->add(kind, object);
    if (objects) objects->add(kind, object);
  });
  if (tables) tables->finish();
  if (objects) objects->finish();
  nlohmann::json out = nlohmann::json::object();
  summary.write(out);
  out["details"] = {{"format", format_name(format)}, {"files", std::move(files)}};
  if (tables) out["details"]["tables"] = tables->counts();
  return out;
}

}  // namespace hcasim
